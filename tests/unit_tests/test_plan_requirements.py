"""The question's requirements: plans split an items-by-dimensions grid, the writer follows them."""

from __future__ import annotations

from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.llm.outline import REPORT_WORDS
from deep_research.engines.llm.validation import covers_grid
from deep_research.engines.schemas import ResearchPlan
from deep_research.nodes import plan, synthesize
from deep_research.services import Services
from deep_research.state import EvidenceSpan, Finding, PlanStep, Requirements, State
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

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


# --- the writer follows an outline planned from the requirements --------------------------------


def writer_state(requirements: Requirements, unmet: list[str], question: str) -> State:
    quote = "LFP cells cost 95 USD per kWh in 2024."
    evidence = EvidenceSpan(
        id="ev_one",
        url="https://a.example/1",
        document_id="doc_1",
        step_id="s01",
        quote=quote,
        start=0,
        end=len(quote),
    )
    return State(
        question=question,
        requirements=requirements,
        unmet=unmet,
        plan=[PlanStep(id="s01", title="LFP cost"), PlanStep(id="s02", title="NMC cost")],
        evidence=[evidence],
        findings=[Finding(step_id="s01", notes="Cheap [@ev_one].", evidence_ids=["ev_one"])],
        config=resolve_config(  # the writer's prompt is what is checked: no judge is asked
            Context(depth="extended", verify=False), depth="extended", engine="m", sources=["local"]
        ),
    )


async def write(state: State) -> tuple[str, str]:
    model = ScriptedChatModel(responses=[text("## Summary\n\nLFP is cheap [E1].")])
    services = Services(engine=LLMEngine(model, name="m"))
    context = Context(depth="extended", verify=False)
    await synthesize(state, Runtime(context=context), services=services)
    (call,) = model.calls
    return str(call[0].content), str(call[-1].content)


async def test_the_questions_requirements_and_unmet_checklist_reach_the_writer() -> None:
    requirements = Requirements(**REQUIREMENTS, periods=["2020-2024"], regions=["EU", "China"])
    unmet = ["flow battery lifetime"]
    system, prompt = await write(writer_state(requirements, unmet, QUESTION))
    outline = prompt.split("Outline of the report:\n", 1)[1].split("\n\n", 1)[0]
    # an item-by-dimension question gets a comparison table of every item by every dimension
    table = next(line for line in outline.splitlines() if "comparison table" in line)
    assert all(name in table for name in [*REQUIREMENTS["items"], *REQUIREMENTS["dimensions"]])
    # ... and a section per dimension, each treating every item
    for dimension in REQUIREMENTS["dimensions"]:
        assert f"A section on {dimension}, treating every item" in outline
    # a judgement asked for gets a stated position
    assert "which chemistry suits grid storage best" in outline and "clear position" in outline
    # periods and regions named are covered; the formats asked for win over the defaults
    assert "(2020-2024)" in outline and "(EU; China)" in outline
    assert "a comparison table. Follow them exactly; they take precedence" in outline
    # reflection's unmet requirements reach the writer, to be stated as gaps
    assert "could not establish: flow battery lifetime" in outline
    sections = [line for line in outline.splitlines() if line[0].isdigit()]
    assert sections[0].startswith("1. Summary") and "State the position" in sections[0]
    assert "An assessment" in sections[-2] and sections[-1].startswith("7. Conclusion")
    assert "follow the outline" in system and REPORT_WORDS["extended"] in system


async def test_without_named_items_the_outline_follows_the_plan_not_a_keyword_template() -> None:
    # "如何" once made any question a how-to: now only what the question asks shapes the report
    system, prompt = await write(writer_state(Requirements(), [], "如何评价磷酸铁锂电池的成本？"))
    outline = prompt.split("Outline of the report:\n", 1)[1].split("\n\n", 1)[0]
    assert outline.splitlines() == [
        "1. Summary: the direct answer to the question, with its key figures.",
        "2. A section on what the research found for: LFP cost.",
        "3. A section on what the research found for: NMC cost.",
        "4. Conclusion: answer the question directly and state what remains uncertain.",
    ]
    assert "numbered list" not in system + prompt and "Write in Chinese" in system


def test_lengths_follow_the_peer_reports_by_depth() -> None:
    # docs/models.md: the peer's English reports run 2,303 / 3,277 words (quartile / median)
    assert REPORT_WORDS["extended"].startswith("3,300 words")
    assert REPORT_WORDS["medium"].startswith("2,300 words")
    assert "4,200 characters" in REPORT_WORDS["extended"]
