"""Plans split a question of several items by several dimensions, and keep its requirements."""

from __future__ import annotations

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import ResearchPlan
from deep_research.engines.validation import covers_grid
from deep_research.nodes import plan
from deep_research.services import Services
from deep_research.state import Requirements, State
from tests.unit_tests.scripted_model import ScriptedChatModel, structured

QUESTION = "Compare LFP, NMC, sodium-ion and flow batteries on cost, lifetime and safety."
REQUIREMENTS = {
    "items": ["LFP", "NMC", "sodium-ion", "flow batteries"],
    "dimensions": ["cost", "lifetime", "safety"],
    "formats": ["a comparison table"],
    "judgement": "which chemistry suits grid storage best",
}
ONE_STEP = [
    {
        "title": "LFP, NMC, sodium-ion and flow batteries: cost, lifetime and safety",
        "intent": "everything",
    }
]
BY_ITEM = [
    {"title": f"{item} cost, lifetime and safety", "intent": f"characterise {item}"}
    for item in REQUIREMENTS["items"]
]


def drafted(steps: list[dict[str, str]]) -> object:
    return structured(
        ResearchPlan,
        brief="Compare four chemistries.",
        complexity="complex",
        requirements=REQUIREMENTS,
        steps=steps,
    )


async def run_plan(*replies: object) -> tuple[dict[str, object], ScriptedChatModel]:
    model = ScriptedChatModel(responses=list(replies))
    services = Services(engine=LLMEngine(model, name="m"))
    state = State(question=QUESTION)
    update = await plan(state, Runtime(context=Context(depth="auto")), services=services)
    return update, model


def test_a_step_naming_every_item_and_every_dimension_covers_the_grid() -> None:
    grid = Requirements(**REQUIREMENTS)
    step = ResearchPlan.model_validate({"brief": "b", "steps": ONE_STEP}).steps[0]
    assert covers_grid(step, grid)
    by_item = ResearchPlan.model_validate({"brief": "b", "steps": BY_ITEM}).steps
    assert not any(covers_grid(s, grid) for s in by_item)
    # one item, or one dimension, is no grid: a single step may cover it
    assert not covers_grid(step, Requirements(items=["LFP"], dimensions=["cost", "safety"]))


async def test_a_plan_that_leaves_the_whole_grid_to_one_step_is_asked_again() -> None:
    update, model = await run_plan(drafted(ONE_STEP), drafted(BY_ITEM))
    assert len(model.calls) == 2
    asked_again = str(model.calls[1][-1].content)
    assert "covers every item and every dimension" in asked_again
    steps = update["plan"]
    assert [s.title for s in steps] == [s["title"] for s in BY_ITEM]  # type: ignore[attr-defined]
    # the requirements are kept for the writer
    assert update["requirements"] == Requirements(**REQUIREMENTS)


async def test_a_plan_the_model_will_not_split_is_kept_not_replaced_offline() -> None:
    update, model = await run_plan(*[drafted(ONE_STEP)] * 4)
    assert update["brief"] == "Compare four chemistries."
    assert [s.title for s in update["plan"]] == [ONE_STEP[0]["title"]]  # type: ignore[attr-defined]
