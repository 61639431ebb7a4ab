"""Run budgets: once ``max_tokens`` or ``max_cost_usd`` is spent, research stops and the
report, written from what was found, says so."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context, resolve_config
from deep_research.engines.llm.catalog import ModelLimits
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import Reflection
from deep_research.graph import build_graph
from deep_research.graph.routing import route_after_reflect
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import DEPTH_BUDGETS, Report, State, TokenUsage
from tests.unit_tests.scripted_model import ScriptedChatModel, structured
from tests.unit_tests.test_graph_llm import respond


def test_budget_reached_by_tokens_or_cost() -> None:
    budget = DEPTH_BUDGETS["light"].model_copy(update={"max_tokens": 1000, "max_cost_usd": 0.5})
    assert budget.reached(TokenUsage(prompt_tokens=900, completion_tokens=99)) is None
    assert budget.reached(TokenUsage(prompt_tokens=900, completion_tokens=100)) == "tokens"
    assert budget.reached(TokenUsage(cost_usd=0.5)) == "cost"
    assert DEPTH_BUDGETS["light"].reached(TokenUsage(prompt_tokens=10**9)) is None


def test_the_context_sets_the_budget() -> None:
    config = resolve_config(
        Context(max_tokens=5000, max_cost_usd=0.25), depth="medium", engine="m", sources=[]
    )
    assert (config.budget.max_tokens, config.budget.max_cost_usd) == (5000, 0.25)


def test_research_stops_mid_round_once_the_budget_is_reached() -> None:
    state = State(plan=[], budget_reached="tokens")
    assert route_after_reflect(state) == "synthesize"


def keep_going(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
    """:func:`respond`, but reflection always asks for another step."""
    if tools and tools[0]["function"]["name"] == "Reflection":
        return structured(
            Reflection, decision="continue", new_steps=[{"title": "Hornsdale expansion"}]
        )
    return respond(messages, tools)


async def run(
    context: Context, tmp_path: Any, limits: ModelLimits | None = None
) -> tuple[Report, ScriptedChatModel]:
    model = ScriptedChatModel(responses=[keep_going] * 80)
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    engine = LLMEngine(model, name="m", limits={"writer": limits} if limits else None)
    graph = build_graph(
        engine=engine, sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage("Compare LFP and NMC and describe Hornsdale Power Reserve")]},
        config,
        context=context,
    )
    report: Report = (await graph.aget_state(config)).values["report"]
    return report, model


def reflections(model: ScriptedChatModel) -> int:
    return sum(
        1
        for kwargs in model.call_kwargs
        if kwargs.get("tools") and kwargs["tools"][0]["function"]["name"] == "Reflection"
    )


async def test_without_a_budget_reflection_runs(tmp_path: Any) -> None:
    report, model = await run(Context(depth="medium", allow_clarification=False), tmp_path)

    assert reflections(model) >= 1
    assert report.metrics.budget_reached is None
    assert "Research stopped early" not in report.markdown


@pytest.mark.parametrize(
    ("knobs", "limits", "reached", "said"),
    [
        ({"max_tokens": 500}, None, "tokens", "500 model tokens"),
        ({"max_cost_usd": 0.001}, ModelLimits(None, 5.0, 20.0), "cost", "an estimated $0.001"),
    ],
    ids=["tokens", "cost"],
)
async def test_a_spent_budget_stops_research_and_the_report_says_so(
    tmp_path: Any, knobs: dict[str, Any], limits: ModelLimits | None, reached: str, said: str
) -> None:
    context = Context(depth="medium", allow_clarification=False, **knobs)

    report, model = await run(context, tmp_path, limits)

    assert reflections(model) == 0  # stopped before asking whether to go on
    assert report.metrics.budget_reached == reached
    assert f"Research stopped early: the run's budget of {said} was reached" in report.markdown
    assert report.claims and all(c.verdict is not None for c in report.claims)
    for claim in report.claims:  # the notice under the title moved no claim
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
    if reached == "cost":
        assert report.metrics.cost_estimate_usd > 0.001
