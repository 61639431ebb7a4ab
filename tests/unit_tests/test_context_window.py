"""Prompts fit the model's window: an 8k-token model is never sent more than it takes.

The scripted model below refuses, as a real endpoint does (HTTP 400, context length), any
request whose messages exceed its window by its own count, which is stricter than the
engine's estimate; what the engine leaves out is counted in the usage's ``trimmed``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core import exceptions as lc_errors
from langchain_core.messages import AIMessage, BaseMessage

from deep_research.engines.base import ClaimCheck
from deep_research.engines.llm.catalog import (
    DEFAULT_CONTEXT_TOKENS,
    ModelLimits,
    estimate_tokens,
    limits_of,
)
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.llm.fitting import fit_evidence, fit_history
from deep_research.engines.llm.prompts import render_evidence
from deep_research.engines.schemas import (
    ClarifyDecision,
    Reflection,
    StepNotes,
    VerdictBatch,
)
from deep_research.errors import EngineError
from deep_research.state.models import Claim, EvidenceSpan, Finding, PlanStep

from .scripted_model import ScriptedChatModel, structured, text

WINDOW = 8192
STEP = PlanStep(id="s1", title="Grid batteries")


def tokens_of(messages: list[BaseMessage]) -> int:
    """The stand-in's own count: a token per three characters (stricter than the engine's)."""
    return sum(len(str(m.content)) for m in messages) // 3


class Small:
    """Responders of a model with a small window; records the size of every prompt."""

    def __init__(self, window: int = WINDOW) -> None:
        self.window = window
        self.sizes: list[int] = []

    def __call__(self, reply: AIMessage) -> Any:
        def respond(messages: list[BaseMessage], tools: Any) -> AIMessage:
            size = tokens_of(messages)
            self.sizes.append(size)
            if size > self.window:
                raise lc_errors.ContextOverflowError(
                    f"This model's maximum context length is {self.window} tokens; "
                    f"your messages resulted in {size} tokens"
                )
            return reply

        return respond


def span(i: int, words: int = 120, relevance: float = 0.5) -> EvidenceSpan:
    quote = " ".join(f"battery{i} stores energy" for _ in range(words // 3)) + "."
    return EvidenceSpan(
        id=f"ev_{i}",
        url=f"https://example.org/{i}",
        document_id=f"d{i}",
        step_id="s1",
        quote=quote,
        start=0,
        end=len(quote),
        relevance=relevance,
    )


def engine(model: ScriptedChatModel, window: int = WINDOW) -> LLMEngine:
    return LLMEngine(model, name="small", limits={"writer": ModelLimits(window)})


def test_known_models_prefixes_and_overrides() -> None:
    assert limits_of("gpt-4.1-mini").input_price == 0.40
    assert limits_of("openai:gpt-4.1-mini-2025-04-14").output_price == 1.60
    assert limits_of("openrouter/openai/gpt-4o-mini").context_tokens == 128_000
    assert limits_of("ollama:qwen3:8b").context_tokens == 40_960
    assert limits_of("claude-sonnet-4-5-20250929").input_price == 3.00
    unknown = limits_of("my-local-model")
    assert (unknown.context_tokens, unknown.input_price) == (DEFAULT_CONTEXT_TOKENS, 0.0)
    overridden = limits_of("gpt-4.1", context_tokens=8192, prices={"gpt-4": (1.0, 2.0)})
    assert (overridden.context_tokens, overridden.input_price) == (8192, 1.0)
    assert ModelLimits(8192).prompt_budget == int((8192 - 2048) * 0.9)
    assert ModelLimits().prompt_budget is None
    assert ModelLimits(None, 2.0, 8.0).cost(1_000_000, 500_000) == pytest.approx(6.0)


def test_estimates_count_other_scripts_high() -> None:
    assert estimate_tokens("a" * 400) == 100
    assert estimate_tokens("電池" * 100) == 200


@pytest.mark.parametrize(
    "text", ["", "abc", "a\x7f", "\x80", "café au lait", "電池 LFP 3 MWh", "🔋 ok", "x" * 1001]
)
def test_token_estimate_counts_ascii_characters_as_a_quarter(text: str) -> None:
    ascii_chars = sum(1 for char in text if ord(char) < 128)
    assert estimate_tokens(text) == (ascii_chars + 3) // 4 + len(text) - ascii_chars


def test_evidence_is_kept_by_relevance_with_its_keys() -> None:
    evidence = [span(1, relevance=0.1), span(2, relevance=0.9), span(3, relevance=0.5)]
    one = estimate_tokens(evidence[0].quote) + 100

    positions, left_out = fit_evidence(evidence, 2 * one)

    assert (positions, left_out) == ([1, 2], 1)
    rendered = render_evidence(evidence, positions)
    assert "[E2]" in rendered and "[E3]" in rendered and "[E1]" not in rendered


def test_history_keeps_the_latest_turns() -> None:
    history = [("user", "old " * 200), ("assistant", "older answer " * 50), ("user", "new")]
    kept, left_out = fit_history(history, 200)
    assert kept == history[1:] and left_out == 1


async def test_the_report_of_an_8k_model_fits_and_says_what_was_left_out() -> None:
    small = Small()
    model = ScriptedChatModel(responses=[small(text("## Report\n\nStored [E2]."))])
    evidence = [span(i, relevance=i / 200) for i in range(200)]

    reply = await engine(model).write_report("q", "brief", [STEP], evidence)

    assert reply.value.startswith("## Report")
    assert small.sizes[0] <= WINDOW
    assert reply.usage.trimmed > 150
    shown = str(model.calls[0][-1].content)
    assert "[E200]" in shown and "[E1]" not in shown  # the most relevant are kept, keyed


async def test_notes_judge_reflect_and_clarify_of_an_8k_model_fit() -> None:
    small = Small()
    checks = [
        ClaimCheck(
            Claim(id=f"c{i}", text=f"Battery {i} stores energy.", position_start=0, position_end=1),
            [span(i, words=600)],
        )
        for i in range(20)
    ]

    def respond(messages: list[BaseMessage], tools: Any) -> AIMessage:
        name = tools[0]["function"]["name"]
        prompt = str(messages[-1].content)
        ids = [c.claim.id for c in checks if f"claim_id: {c.claim.id}\n" in prompt]
        replies = {
            "StepNotes": structured(StepNotes, notes="Stored [E1].", sufficient=True),
            "VerdictBatch": structured(
                VerdictBatch,
                verdicts=[{"claim_id": i, "verdict": "SUPPORTED", "confidence": 0.9} for i in ids],
            ),
            "Reflection": structured(Reflection, decision="complete"),
            "ClarifyDecision": structured(ClarifyDecision, needs_clarification=False),
        }
        return small(replies[name])(messages, tools)  # type: ignore[no-any-return]

    model = ScriptedChatModel(responses=[respond] * 20)
    llm = engine(model)
    notes = await llm.notes("q", STEP, [span(i) for i in range(300)])
    judged = await llm.judge(checks)
    calls_for_judging = len(model.calls) - 1
    findings = [Finding(step_id=f"s{i}", notes="long notes " * 2000) for i in range(5)]
    reflected = await llm.reflect("q", [STEP], findings, 2)
    history = [("user", "earlier question " * 800), ("assistant", "earlier report " * 800)]
    clarified = await llm.clarify("q", history)

    assert max(small.sizes) <= WINDOW
    assert notes.value.notes == "Stored [E1]." and notes.usage.trimmed > 0
    assert calls_for_judging > 1  # 20 long claims do not fit one request
    assert [v.checked_by for v in judged.value] == ["model"] * 20
    assert reflected.value.decision == "complete" and reflected.usage.trimmed == 5
    assert not clarified.value.needs_clarification and clarified.usage.trimmed >= 1


async def test_a_window_smaller_than_declared_is_halved_until_it_fits() -> None:
    small = Small(window=3000)  # the endpoint's real window; the engine was told 8192
    model = ScriptedChatModel(responses=[small(text("## Report\n\nFits [E1]."))] * 4)
    evidence = [span(i) for i in range(200)]

    reply = await engine(model).write_report("q", "brief", [STEP], evidence)

    assert reply.value.startswith("## Report")
    assert len(model.calls) >= 2 and small.sizes[0] > 3000 >= small.sizes[-1]


async def test_a_prompt_that_never_fits_is_an_engine_error_for_the_report() -> None:
    small = Small(window=10)
    model = ScriptedChatModel(responses=[small(text("x"))] * 5)

    with pytest.raises(EngineError, match="context"):
        await engine(model).write_report("q", "brief", [STEP], [span(1)])


async def test_structured_tasks_that_never_fit_fall_back() -> None:
    small = Small(window=10)
    model = ScriptedChatModel(responses=[small(text("x"))] * 5)

    reply = await engine(model).notes("q", STEP, [span(1)])

    assert reply.fallback and reply.value.notes


def test_prices_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from deep_research.engines import load_engine
    from deep_research.settings import get_settings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("DEEP_RESEARCH_PRICES", json.dumps({"house-model": [1.5, 3.0]}))
    monkeypatch.setenv("DEEP_RESEARCH_CONTEXT_TOKENS", "8192")
    get_settings.cache_clear()

    built = load_engine("house-model-v2", judge_model="gpt-4.1-nano")

    assert isinstance(built, LLMEngine)
    assert built.limits["writer"] == ModelLimits(8192, 1.5, 3.0)
    assert built.limits["judge"] == ModelLimits(8192, 0.10, 0.40)


@pytest.mark.parametrize("window", [8192, 4096])
async def test_a_whole_run_on_an_8k_model_never_overflows(tmp_path: Any, window: int) -> None:
    """The graph on a model that refuses anything over its window, with long pages."""
    import uuid

    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from deep_research.context import Context
    from deep_research.graph import build_graph
    from deep_research.persistence.checkpointer import make_serde
    from deep_research.sources import LocalCorpus
    from deep_research.sources.local import default_index_path

    from .test_graph_llm import respond

    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    sentence = (
        "Hornsdale Power Reserve in South Australia is a grid battery of {n} MW built with "
        "lithium-ion cells, and grid batteries using LFP or NMC chemistry store energy for "
        "the network operator, which compares LFP and NMC cells by cost, cycle life, safety, "
        "round-trip efficiency, degradation and supply, as the Hornsdale expansion of {n} "
        "showed for the grid batteries of South Australia and the LFP and NMC suppliers."
    )
    for page in range(40):
        body = " ".join(sentence.format(n=page * 10 + i) for i in range(60))
        (corpus_dir / f"page{page}.md").write_text(f"# Hornsdale page {page}\n\n{body}\n")
    sizes: list[int] = []

    def small(messages: list[BaseMessage], tools: Any) -> AIMessage:
        size = tokens_of(messages)
        sizes.append(size)
        if size > window:
            raise lc_errors.ContextOverflowError(f"maximum context length is {window} tokens")
        return respond(messages, tools)

    model = ScriptedChatModel(responses=[small] * 200)
    corpus = LocalCorpus(corpus_dir, default_index_path(tmp_path, corpus_dir))
    graph = build_graph(
        engine=engine(model, window),
        sources=[corpus],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")]},
        config,
        context=Context(depth="medium", allow_clarification=False, results_per_query=10),
    )
    report = (await graph.aget_state(config)).values["report"]

    assert max(sizes) <= window, sizes  # no request was refused
    assert report.claims and report.markdown.strip()
    if window < 8192:  # an 8k model takes this run whole; a 4k one has passages left out
        assert report.metrics.trimmed_for_context > 0
