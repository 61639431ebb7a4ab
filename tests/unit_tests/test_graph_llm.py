"""The whole graph on the LLM engine, driven by a scripted chat model.

The scripted model answers by the tool it is bound to (the structured-output schema) or, for
the report, with Markdown citing ``[E#]`` keys. One sentence states a wrong figure; the judge
calls it CONTRADICTED, revise has it rewritten from the evidence, and verify runs again.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import (
    ChatTitle,
    ClarifyDecision,
    EvidencePicks,
    Reflection,
    ReportAssessment,
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
from deep_research.text.words import split_line
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

TITLE = "Grid battery chemistries and Hornsdale"
"""The chat title the scripted model writes."""
WRONG = "Hornsdale Power Reserve stores 9999 MWh"
UNCOVERED = "The evidence gives no construction cost for Hornsdale."
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


INVENTED = "Hornsdale Power Reserve is the largest battery on the Moon."
"""A quote the scripted model invents: no page states it, so it must be dropped."""


def _picks(prompt: str) -> AIMessage:
    """The first sentence of each passage shown, its spaces doubled, and one invented quote."""
    quotes = [
        {"passage": key, "quote": "  ".join(next(split_line(line)).split()), "relevance": 0.8}
        for key, line in re.findall(r"^\[(P\d+)\] \(.*\n> (.*)", prompt, re.M)
    ]
    quotes.append({"passage": "P1", "quote": INVENTED, "relevance": 1.0})
    return structured(EvidencePicks, quotes=quotes)


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
        "EvidencePicks": lambda: _picks(prompt),
        "StepNotes": lambda: structured(StepNotes, notes="Found it [E1].", sufficient=True),
        "Reflection": lambda: structured(Reflection, decision="complete", reasoning="done"),
        "VerdictBatch": lambda: _verdicts(prompt),
        "Rewrite": lambda: structured(
            Rewrite, text="Hornsdale Power Reserve was expanded in 2020", evidence_key="E1"
        ),
        "ReportAssessment": lambda: structured(
            ReportAssessment,
            summary="Hornsdale is a Tesla battery; grid batteries mostly use LFP [E1][E99].",
            limitations=[
                {"kind": "uncovered", "text": UNCOVERED},
                {"kind": "conflict", "text": "One source only [E1][E9]."},
            ],
        ),
    }
    tool = _tool(tools)
    if tool is None:
        return text(REPORT)
    return replies[tool]()


def _scripted_graph(model: ScriptedChatModel, tmp_path: Any) -> tuple[Any, Any]:
    """The graph on the LLM engine over ``model``, the sample corpus and a memory
    checkpointer, and the config of a new thread."""
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=LLMEngine(model, name="scripted-model"),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    return graph, {"configurable": {"thread_id": uuid.uuid4().hex}}


async def test_llm_engine_runs_the_whole_graph_and_revises_a_contradicted_claim(
    tmp_path: Any,
) -> None:
    model = ScriptedChatModel(responses=[respond] * 60)
    graph, config = _scripted_graph(model, tmp_path)
    tokens: list[str] = []
    picked: list[dict[str, Any]] = []
    async for _namespace, mode, chunk in graph.astream(
        {"messages": [HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")]},
        config,
        context=Context(depth="auto"),
        stream_mode=["messages", "custom"],
        subgraphs=True,  # researcher events come from the subgraph
    ):
        if mode == "messages" and chunk[1].get("langgraph_node") == "synthesize":
            tokens.append(chunk[0].text)
        if mode == "custom" and chunk["type"] == "evidence_picked":
            picked.append(chunk["data"])
    report: Report = (await graph.aget_state(config)).values["report"]

    # every step showed passages and dropped the invented quote; the others became evidence
    assert picked and all(p["passages"] > 0 and p["dropped"] == 1 for p in picked)
    assert all(p["located"] == p["quotes"] - 1 for p in picked)
    state = (await graph.aget_state(config)).values
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    texts = {d.url: d.text for d in [await corpus.read(s.url) for s in state["sources"]]}
    assert state["evidence"] and INVENTED not in {e.quote for e in state["evidence"]}
    for span in state["evidence"]:
        assert texts[span.url][span.start : span.end] == span.quote
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
    # it stays, marked after its citations, with the reason as a footnote; it was revised once
    # (the budget of a light run) and not removed by the last pass, which keeps partial claims
    after = report.markdown[rewritten.position_end :]
    assert re.match(r" \[\d\] \*\(partly supported\)\*\[\^v1\]\.", after)
    assert "\n[^v1]: Partly supported: the evidence does not state the claim's 2020" in (
        report.markdown
    )
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
    assert tools_used[-1] == "ReportAssessment"  # after the last verification pass
    # the model's summary and limits, keys as reference numbers; E9 names no evidence shown
    assert report.summary.endswith("mostly use LFP [1].")
    part, uncovered, conflict, weak = report.limitations
    # the model judged no part: the claims' own judgement of the one part stands, and is stated
    assert report.confidence is not None and len(report.confidence.parts) == 1
    assert report.confidence.parts[0].judged_by == "offline"
    assert report.confidence.parts[0].status != "answered"
    assert part.text.startswith(("Not answered: Compare LFP", "Partly answered: Compare LFP"))
    assert uncovered.kind == "uncovered" and uncovered.text == UNCOVERED
    assert conflict.kind == "other"  # a "conflict" citing one source is no conflict
    assert conflict.text == "One source only [1]." and conflict.references == [1]
    # a third of the checked claims not fully supported: the confidence is low, and says why
    assert (
        weak.text
        == "Weak support: only 2 of 3 checked claims are fully supported by their evidence."
    )
    assert report.confidence is not None and "2 of 3 checked claims fully supported" in (
        report.confidence.basis
    )
    limits = report.markdown.split("## Limitations\n\n", 1)[1].split("\n## ", 1)[0]
    assert limits.startswith(f"- {part.text}\n- {UNCOVERED}\n- One source only [1].")
    assert report.confidence is not None and f"**Confidence: {report.confidence.level}.**" in limits
    assert "Limitations" not in report.outline


ASKED = "Compare LFP and NMC and describe Hornsdale Power Reserve"


async def _run_in_order(
    tmp_path: Any, *, while_writing: bool, answer_seconds: float = 0.0, ask_ahead: bool = True
) -> tuple[Report, list[str], int]:
    """A run on the scripted model with claims judged while writing or after; its report, the
    order of its ``claim_verified`` events and node updates, and how many claims the model
    judged. The writer takes its time, as a real one does, and so does every other call with
    ``answer_seconds``. ``ask_ahead``: rewrites and their verdicts asked as soon as known."""
    # the module (the package's name ``synthesize`` is the node function)
    synthesize = importlib.import_module("deep_research.nodes.synthesize")
    ahead = importlib.import_module("deep_research.nodes._ahead")
    judged: list[str] = []

    def counting(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
        reply = respond(messages, tools)
        if _tool(tools) == "VerdictBatch":
            judged.extend(v["claim_id"] for v in reply.tool_calls[0]["args"]["verdicts"])
        elif _tool(tools) == "Rewrite":
            judged.append("rewrite")
        return reply

    model = ScriptedChatModel(
        responses=[counting] * 60,
        stream_pieces=40,
        piece_seconds=0.02,
        answer_seconds=answer_seconds,
    )
    graph, config = _scripted_graph(model, tmp_path)
    seen: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(synthesize, "JUDGE_WHILE_WRITING", while_writing)
        patch.setattr(ahead, "ASK_AHEAD", ask_ahead)
        async for _namespace, mode, chunk in graph.astream(
            {
                "messages": [
                    HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")
                ]
            },
            config,
            context=Context(depth="auto"),
            stream_mode=["custom", "updates"],
            subgraphs=True,
        ):
            if mode == "custom" and chunk["type"] == "claim_verified":
                seen.append("claim_verified")
            elif mode == "updates":
                seen.extend(chunk)
    report: Report = (await graph.aget_state(config)).values["report"]
    return report, seen, len(judged)


async def test_claims_judged_while_writing_get_the_verdicts_and_report_of_judging_after(
    tmp_path: Any,
) -> None:
    # issue #45: judging a paragraph's claims as soon as it is written changes when verdicts
    # come, never what they are: same claims, verdicts, evidence and report text
    after, after_order, after_judged = await _run_in_order(tmp_path, while_writing=False)
    during, during_order, during_judged = await _run_in_order(tmp_path, while_writing=True)

    def judged(report: Report) -> list[tuple[Any, ...]]:
        return [
            (
                c.id,
                c.text,
                c.verdict,
                c.confidence,
                c.reasoning,
                c.evidence_id,
                c.citation_keys,
                c.claim_type,
                c.position_start,
                c.position_end,
            )
            for c in report.claims
        ]

    assert judged(during) == judged(after) and len(after.claims) >= 3
    assert during.markdown == after.markdown
    assert during.verification == after.verification
    assert during.verification.corrected == 1
    # judged after: every verdict comes after the draft; while writing: the first come before
    assert after_order.index("claim_verified") > after_order.index("synthesize")
    assert during_order.index("claim_verified") < during_order.index("synthesize")
    assert during_judged == after_judged


async def test_a_judgement_in_flight_when_the_writer_is_done_is_finished_by_verify(
    tmp_path: Any,
) -> None:
    # issue #45: synthesize returns with the draft as soon as the writer is done; a paragraph's
    # judgement still in flight is handed to verify, which waits for it while it judges the
    # last paragraph: nothing is judged twice, and the verdicts and report are the same
    after, _, after_judged = await _run_in_order(tmp_path, while_writing=False)
    slow, slow_order, slow_judged = await _run_in_order(
        tmp_path, while_writing=True, answer_seconds=0.3
    )

    assert slow_order.index("claim_verified") > slow_order.index("synthesize")  # in flight
    assert [(c.text, c.verdict, c.citation_keys) for c in slow.claims] == [
        (c.text, c.verdict, c.citation_keys) for c in after.claims
    ]
    assert slow.markdown == after.markdown and slow.verification == after.verification
    assert slow_judged == after_judged


async def test_rewrites_and_their_verdicts_asked_ahead_change_nothing_but_the_wait(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue #45: a contradicted claim's rewrite is asked as soon as its verdict is known, and the
    # rewrite's verdict as soon as the rewrite is back; revise and verify take them by the keys
    # of their own requests: the same calls, claims, verdicts and report as asking in turn
    reports = importlib.import_module("deep_research.report.ahead")
    taken: list[str] = []
    take = reports.Ahead.take

    def spy(self: Any, scope: str, key: str) -> Any:
        task = take(self, scope, key)
        if task is not None:
            taken.append(key)
        return task

    monkeypatch.setattr(reports.Ahead, "take", spy)
    in_turn, _, in_turn_calls = await _run_in_order(tmp_path, while_writing=True, ask_ahead=False)
    assert not taken
    early, _, early_calls = await _run_in_order(tmp_path, while_writing=True)

    assert [(c.text, c.verdict, c.citation_keys, c.reasoning) for c in early.claims] == [
        (c.text, c.verdict, c.citation_keys, c.reasoning) for c in in_turn.claims
    ]
    assert early.markdown == in_turn.markdown and early.verification == in_turn.verification
    assert early.verification.corrected == 1
    assert early_calls == in_turn_calls  # nothing asked twice, nothing wasted
    assert early.metrics.model_calls == in_turn.metrics.model_calls  # and counted once
    # the rewrite and the rewritten claim's verdict were taken from the calls made ahead
    assert any(key.startswith("verdict:") for key in taken)
    assert any(not key.startswith("verdict:") for key in taken)


class _Timed(ScriptedChatModel):
    """The scripted model, noting when each call that is not streamed starts and ends."""

    started: list[str] = []
    ended: list[str] = []

    async def _agenerate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        name = _tool(kwargs.get("tools")) or "text"
        self.started.append(name)
        result = await super()._agenerate(messages, stop, run_manager, **kwargs)
        self.ended.append(name)
        return result


async def test_a_cancelled_run_stops_the_calls_it_asked_ahead(tmp_path: Any) -> None:
    # issue #45: calls asked ahead run beside the nodes; when the run is cancelled (a served
    # run stopped by its user) they are cancelled too, and an answer that would have started the
    # next call (a rewrite's verdict) starts nothing: a cancelled run spends no more tokens
    model = _Timed(
        responses=[respond] * 60, stream_pieces=40, piece_seconds=0.02, answer_seconds=0.3
    )
    model.started, model.ended = [], []
    graph, config = _scripted_graph(model, tmp_path)

    async def run() -> None:
        async for _ in graph.astream(
            {"messages": [HumanMessage(ASKED)]}, config, context=Context(depth="auto")
        ):
            pass

    task = asyncio.create_task(run())
    for _ in range(400):  # until the contradicted claim's rewrite is asked, ahead of revise
        await asyncio.sleep(0.01)
        if "Rewrite" in model.started or task.done():
            break
    assert "Rewrite" in model.started and not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    started, ended = len(model.started), len(model.ended)
    await asyncio.sleep(1.0)  # three answers' time: a rewrite, its verdict, a second rewrite

    assert "Rewrite" not in model.ended  # the rewrite in flight was cancelled
    assert (len(model.started), len(model.ended)) == (started, ended)  # nothing more asked
