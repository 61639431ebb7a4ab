"""The progress message: shown in ``messages`` while a run works, gone from the chat after."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.nodes._chat import split_chat
from deep_research.nodes._progress import PROGRESS_NAME, is_progress, progress_id
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path


async def test_a_run_shows_progress_in_messages_then_only_the_report(tmp_path: Any) -> None:
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(depth="light", allow_clarification=False)
    question = "What did Hornsdale Power Reserve cost?"
    shown: list[str] = []
    async for values in graph.astream(
        {"messages": [HumanMessage(question)]}, config, context=context, stream_mode="values"
    ):
        lines = [m for m in values["messages"] if is_progress(m)]
        assert len(lines) <= 1  # one message, replaced in place
        if lines:
            assert lines[0].id == progress_id(1) and values["messages"][1] is not None
            assert values["messages"].index(lines[0]) == 1  # right after the question
            if not shown or shown[-1] != lines[0].content:
                shown.append(str(lines[0].content))
    assert shown[0].startswith("Planned ")
    assert any(line.startswith("Researching ") for line in shown)
    assert any(line.startswith("Checked ") for line in shown)

    state = (await graph.aget_state(config)).values
    assert [m.type for m in state["messages"]] == ["human", "ai"]
    assert not any(is_progress(m) for m in state["messages"])
    assert not any(line in state["report"].markdown for line in shown)

    follow_up = await graph.ainvoke(
        {"messages": [HumanMessage("And what did ARENA fund?")]}, config, context=context
    )
    assert follow_up["report"] is not None
    kinds = [m.type for m in (await graph.aget_state(config)).values["messages"]]
    assert kinds == ["human", "ai", "human", "ai"]


def test_a_progress_message_left_behind_is_not_chat_history() -> None:
    messages = [
        HumanMessage("batteries"),
        AIMessage("Researching 3 steps", id=progress_id(1), name=PROGRESS_NAME),
        HumanMessage("costs, then"),
    ]
    question, history = split_chat(messages)
    assert question == "costs, then" and history == [("user", "batteries")]
