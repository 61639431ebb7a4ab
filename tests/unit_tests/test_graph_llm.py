"""The whole graph on the LLM engine, driven by a scripted chat model.

The scripted model answers by the tool it is bound to (the structured-output schema) or, for
the report, with Markdown citing ``[E#]`` keys. One sentence states a wrong figure; the judge
calls it CONTRADICTED, revise has it rewritten from the evidence, and verify runs again.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import (
    ChatTitle,
    ClarifyDecision,
    Reflection,
    ResearchPlan,
    Rewrite,
    SearchQueries,
    StepNotes,
    VerdictBatch,
)
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Report, Verdict
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

TITLE = "Grid battery chemistries and Hornsdale"
"""The chat title the scripted model writes."""
WRONG = "Hornsdale Power Reserve stores 9999 MWh"
REPORT = f"""## Hornsdale

Hornsdale Power Reserve is a Tesla battery in South Australia [E1]. {WRONG} [E1].

## Chemistry

Grid batteries mostly use LFP cells [E2][E3].
"""


def _tool(kwargs_tools: list[dict[str, Any]] | None) -> str | None:
    if not kwargs_tools:
        return None
    return str(kwargs_tools[0]["function"]["name"])


def _verdicts(prompt: str) -> AIMessage:
    blocks = re.findall(r"claim_id: (cl_[0-9a-f]+)\nClaim:\n> (.*)", prompt)
    return structured(
        VerdictBatch,
        verdicts=[
            {
                "claim_id": claim_id,
                "verdict": "CONTRADICTED" if "9999" in claim else "SUPPORTED",
                "confidence": 0.9,
                "reasoning": "scripted",
                "evidence_key": "E1",
            }
            for claim_id, claim in blocks
        ],
    )


def respond(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
    prompt = str(messages[-1].content)
    replies = {
        "ChatTitle": lambda: structured(ChatTitle, title=TITLE),
        "ClarifyDecision": lambda: structured(ClarifyDecision, needs_clarification=False),
        "ResearchPlan": lambda: structured(
            ResearchPlan,
            brief="Compare chemistries and describe Hornsdale.",
            complexity="simple",
            steps=[
                {"title": "Hornsdale Power Reserve capacity", "intent": "size and cost"},
                {"title": "LFP versus NMC for grid storage", "intent": "chemistry choice"},
            ],
        ),
        "SearchQueries": lambda: structured(
            SearchQueries, queries=["Hornsdale Power Reserve", "LFP NMC grid batteries"]
        ),
        "StepNotes": lambda: structured(StepNotes, notes="Found it [E1].", sufficient=True),
        "Reflection": lambda: structured(Reflection, decision="complete", reasoning="done"),
        "VerdictBatch": lambda: _verdicts(prompt),
        "Rewrite": lambda: structured(
            Rewrite, text="Hornsdale Power Reserve was expanded in 2020", evidence_key="E1"
        ),
    }
    tool = _tool(tools)
    if tool is None:
        return text(REPORT)
    return replies[tool]()


async def test_llm_engine_runs_the_whole_graph_and_revises_a_contradicted_claim(
    tmp_path: Any,
) -> None:
    model = ScriptedChatModel(responses=[respond] * 60)
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=LLMEngine(model, name="scripted-model"),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    tokens: list[str] = []
    async for mode, chunk in graph.astream(
        {"messages": [HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")]},
        config,
        context=Context(depth="auto"),
        stream_mode=["messages", "custom"],
    ):
        if mode == "messages" and chunk[1].get("langgraph_node") == "synthesize":
            tokens.append(chunk[0].text)
    report: Report = (await graph.aget_state(config)).values["report"]

    assert "".join(tokens).startswith("## Hornsdale")  # the report streamed token by token
    assert report.config.engine == "scripted-model" and not report.extractive
    assert report.config.depth == "light"  # complexity "simple" under depth auto
    assert WRONG not in report.markdown
    assert "Hornsdale Power Reserve was expanded in 2020" in report.markdown
    assert report.verification.corrected == 1 and report.verification.passes == 2
    verdicts = {c.text: c for c in report.claims}
    # The scripted judge calls the rewrite SUPPORTED, but its evidence states no 2020: the
    # verifier holds model verdicts to the figure rule, so it is only PARTIAL.
    rewritten = verdicts.pop("Hornsdale Power Reserve was expanded in 2020")
    assert rewritten.verdict is Verdict.PARTIAL and "2020" in rewritten.reasoning
    assert all(c.verdict is Verdict.SUPPORTED for c in verdicts.values())
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
    assert [r.number for r in report.references] == list(range(1, len(report.references) + 1))
    assert report.metrics.prompt_tokens > 0 and report.metrics.model_calls > 5
    assert report.metrics.model_calls == len(model.calls)  # the title's call included
    tools_used = [_tool(kw.get("tools")) for kw in model.call_kwargs]
    assert {"ResearchPlan", "SearchQueries", "VerdictBatch", "Rewrite", None} <= set(tools_used)
    assert tools_used[0] == "ClarifyDecision"
    assert set(tools_used[1:3]) == {"ChatTitle", "ResearchPlan"}  # asked side by side
    assert tools_used.count("ChatTitle") == 1
