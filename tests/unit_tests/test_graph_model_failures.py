"""The whole graph on a model that misbehaves: the report keeps its claims and is verified.

The scripted model of :mod:`tests.unit_tests.test_graph_llm` is wrapped so that its replies
are malformed: a judge answering about claim ids it was not given (the failure seen through a
real OpenAI-compatible endpoint, which once emptied a report), and a share of every reply
replaced by each kind of malformed reply in turn.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import VerdictBatch
from deep_research.graph import build_graph
from deep_research.nodes.finalize import STOOD_IN
from deep_research.persistence.checkpointer import make_serde
from deep_research.report.build import verification_note
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Report
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text
from tests.unit_tests.test_graph_llm import REPORT, WRONG, respond

Responder = Callable[[list[BaseMessage], list[dict[str, Any]] | None], AIMessage]


async def run(responder: Responder, tmp_path: Any, calls: int = 200) -> Report:
    model = ScriptedChatModel(responses=[responder] * calls)
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=LLMEngine(model, name="scripted-model"),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")]},
        config,
        context=Context(depth="light"),
    )
    report: Report = (await graph.aget_state(config)).values["report"]
    return report


def judge_of_other_ids(
    messages: list[BaseMessage], tools: list[dict[str, Any]] | None
) -> AIMessage:
    """Like :func:`respond`, but verdicts name claim ids that were never given."""
    names = [tool["function"]["name"] for tool in tools or []]
    asked_json = "one JSON object for VerdictBatch" in str(messages[-1].content)
    if names == ["VerdictBatch"] or asked_json:
        verdict = {"claim_id": "claim_1", "verdict": "UNSUPPORTED", "confidence": 0.9}
        return structured(VerdictBatch, verdicts=[verdict])
    return respond(messages, tools)


async def test_a_judge_that_never_answers_about_the_claims_deletes_nothing(
    tmp_path: Any,
) -> None:
    report = await run(judge_of_other_ids, tmp_path)

    assert report.claims, "the report lost its claims"
    assert report.markdown.count("[") >= 3  # citations are still there
    assert WRONG in report.markdown  # not removed: the judge never answered about it
    assert all(c.checked_by == "fallback" for c in report.claims)
    summary = report.verification
    assert summary.fallback == summary.total == len(report.claims)
    assert (summary.removed, summary.corrected) == (0, 0)
    assert "judged by the offline checker" in verification_note(summary)


KINDS = ["empty", "prose", "refusal", "truncated", "missing-fields"]

JSON_MODE = re.compile(r"one JSON object for (\w+)")
"""How the engine asks for a structured answer without tools (its last resort)."""


def _malformed(tools: list[dict[str, Any]] | None, kind: int) -> AIMessage:
    name = tools[0]["function"]["name"] if tools else "Reply"
    bad = [
        text(""),
        text("I would rather describe this in prose."),
        AIMessage(content="", additional_kwargs={"refusal": "No."}),
        AIMessage(
            content="",
            invalid_tool_calls=[
                {
                    "name": name,
                    "args": '{"x": ',
                    "id": "c",
                    "error": "",
                    "type": "invalid_tool_call",
                }
            ],
            response_metadata={"finish_reason": "length"},
        ),
        AIMessage(content="", tool_calls=[{"name": name, "args": {"unexpected": 1}, "id": "c"}]),
    ]
    return bad[kind % len(bad)]


def asked(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The request as first asked: a re-ask's conversation without the failed reply and the
    retry message (the scripted replies read the request's last message)."""
    first = next((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), 0)
    return messages[: first + 1]


def flaky(share: float, faults: list[AIMessage], kinds: list[int] | None = None) -> Responder:
    """:func:`respond`, with ``share`` of the structured replies malformed, each kind in turn.

    The malformed replies sent are appended to ``faults``; ``kinds`` limits them to some kinds.
    """
    rotation = kinds or list(range(len(KINDS)))
    counter = itertools.count()

    def reply(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
        n = next(counter)
        if tools and int((n + 1) * share) > int(n * share):  # evenly spread, deterministic
            faults.append(_malformed(tools, rotation[len(faults) % len(rotation)]))
            return faults[-1]
        # asked in JSON mode, after tool calls failed: answered as the tool would have been
        # (which calls fail depends on the order concurrent requests reach the model)
        if not tools and (json_mode := JSON_MODE.search(str(messages[-1].content))):
            tools = [{"function": {"name": json_mode.group(1)}}]
        return respond(asked(messages), tools)

    return reply


async def test_a_third_of_replies_malformed_still_gives_a_verified_report(tmp_path: Any) -> None:
    faults: list[AIMessage] = []
    report = await run(flaky(0.3, faults), tmp_path)

    assert len(faults) >= 3
    assert report.claims
    assert "Hornsdale" in report.markdown
    assert all(c.verdict is not None for c in report.claims)
    assert report.verification.total == len(report.claims)
    assert report.metrics.model_calls > 0


async def test_the_scripted_report_is_the_one_written(tmp_path: Any) -> None:
    """Guards the tests above: without faults, the report is the scripted one, revised."""
    report = await run(respond, tmp_path)

    assert REPORT.split("[E1]")[0].removeprefix("## Hornsdale\n\n") in report.markdown
    assert all(c.checked_by == "model" for c in report.claims)
    assert report.verification.fallback == 0
    assert report.metrics.fallbacks == {}
    assert "could not be used" not in report.markdown


def notes_never_usable(
    messages: list[BaseMessage], tools: list[dict[str, Any]] | None
) -> AIMessage:
    """Like :func:`respond`, but every notes reply is prose, asked again or not."""
    names = [tool["function"]["name"] for tool in tools or []]
    if names == ["StepNotes"] or "one JSON object for StepNotes" in str(messages[-1].content):
        return text("The evidence mostly concerns batteries.")
    return respond(asked(messages), tools)


async def test_answers_the_model_never_made_usable_are_counted_and_stated(
    tmp_path: Any,
) -> None:
    """Each step's notes fell back to the offline engine's: report.json and Limitations say so."""
    report = await run(notes_never_usable, tmp_path)

    assert report.metrics.fallbacks.get("notes", 0) >= 1
    limitations = report.markdown.split("## Limitations", 1)[1]
    count = sum(report.metrics.fallbacks.get(t, 0) for t in STOOD_IN)
    assert f"The model gave {count} answers that could not be used" in limitations


@pytest.mark.parametrize("kind", range(len(KINDS)), ids=KINDS)
async def test_each_malformed_kind_at_graph_level(kind: int, tmp_path: Any) -> None:
    faults: list[AIMessage] = []
    report = await run(flaky(0.5, faults, [kind]), tmp_path)

    assert len(faults) >= 4
    assert report.claims and all(c.verdict is not None for c in report.claims)
    assert report.verification.removed == 0  # nothing lost to a malformed reply
