"""Nothing found is lost: a reworded step adds to what the step it replaces found.

The shape of issue #44's heat-pump run: a two-part question; the cost step quoted the answer,
was found thin and was replaced by a reworded step that found only a tax credit. The writer
must still be offered the answer, on both engines, under the part of the question it answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines import OfflineEngine, Reply
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import Reflection, StepDraft
from deep_research.nodes import reflect, synthesize
from deep_research.report.build import kept_findings, report_evidence, report_plan
from deep_research.services import Services
from deep_research.state import EvidenceSpan, Finding, PlanStep, State
from tests.unit_tests.scripted_model import ScriptedChatModel, text

QUESTION = (
    "How much do residential heat pumps cost to install and how efficient are they in cold "
    "climates?"
)
COST = "How much do residential heat pumps cost to install"
COLD = "how efficient are they in cold climates"
ANSWER = (
    "The median installed cost of a ducted air-source heat pump was 14,500 dollars in 2023, "
    "according to the national installer survey."
)
CREDIT = "Homeowners can claim a federal tax credit of 30 percent, up to 2,000 dollars per year."
COLD_FACT = (
    "Cold-climate air-source heat pumps keep a coefficient of performance of about 2 at "
    "minus 15 degrees Celsius."
)


def _span(span_id: str, step_id: str, page: str, quote: str, relevance: float) -> EvidenceSpan:
    return EvidenceSpan(
        id=span_id,
        url=f"file:///pages/{page}.md",
        document_id=f"doc_{page}",
        step_id=step_id,
        quote=quote,
        start=0,
        end=len(quote),
        relevance=relevance,
        has_numbers=True,
    )


def heat_pump_state(*, verify: bool = True) -> State:
    """After reflection replaced the cost step (s01) by a rewording (s03)."""
    return State(
        question=QUESTION,
        plan=[
            PlanStep(id="s01", title=COST, intent=COST, replaced=True, replaced_by="s03"),
            PlanStep(id="s02", title=COLD, intent=COLD),
            PlanStep(id="s03", title="residential heat pumps cost tax", intent=COST, round=2),
        ],
        findings=[
            Finding(
                step_id="s01",
                notes=f"{ANSWER} [@ev_cost]",
                evidence_ids=["ev_cost"],
                sufficient=False,
            ),
            Finding(step_id="s02", notes=f"{COLD_FACT} [@ev_cold]", evidence_ids=["ev_cold"]),
            Finding(step_id="s03", notes=f"{CREDIT} [@ev_credit]", evidence_ids=["ev_credit"]),
        ],
        evidence=[
            _span("ev_cost", "s01", "install-costs", ANSWER, 0.4),
            _span("ev_cold", "s02", "cold-climate", COLD_FACT, 0.5),
            _span("ev_credit", "s03", "tax-credit", CREDIT, 0.3),
        ],
        config=resolve_config(
            Context(verify=verify), depth="medium", engine="offline", sources=["local"]
        ),
    )


def test_a_replaced_steps_evidence_joins_the_step_that_replaced_it() -> None:
    state = heat_pump_state()
    offered = {e.id: e.step_id for e in report_evidence(state)}
    assert offered == {"ev_cost": "s03", "ev_cold": "s02", "ev_credit": "s03"}
    merged = {f.step_id: f for f in kept_findings(state)}
    assert set(merged) == {"s02", "s03"}
    assert merged["s03"].evidence_ids == ["ev_credit", "ev_cost"]
    assert ANSWER in merged["s03"].notes and CREDIT in merged["s03"].notes
    # the rewording stands where the step it rewords stood: the question's order
    assert [s.id for s in report_plan(state.plan)] == ["s03", "s02"]


async def test_the_offline_report_still_carries_the_answer_the_replaced_step_found() -> None:
    update = await synthesize(
        heat_pump_state(), Runtime(context=Context()), services=Services(engine=OfflineEngine())
    )
    draft = update["draft"]
    assert "14,500 dollars in 2023" in draft
    # under the part of the question it answers, not under the words it was searched with
    section = draft.split(f"## {COST}", 1)[1].split("\n## ", 1)[0]
    assert "14,500 dollars" in section
    assert "residential heat pumps cost tax" not in draft.lower()


async def test_the_model_writer_is_shown_the_answer_the_replaced_step_found() -> None:
    model = ScriptedChatModel(responses=[text("## Cost\n\nIt cost 14,500 dollars [E1].")])
    services = Services(engine=LLMEngine(model, name="m"))
    # the writer's prompt is what this checks: verification off, no judge is asked
    state = heat_pump_state(verify=False)
    await synthesize(state, Runtime(context=Context(verify=False)), services=services)
    (call,) = model.calls
    prompt = str(call[-1].content)
    assert ANSWER in prompt
    # shown under the step that replaced its own, with both steps' notes
    block = prompt.split("Step [s03]", 1)[1].split("### Step", 1)[0]
    assert ANSWER in block and CREDIT in block


async def test_reflection_records_which_step_replaced_which() -> None:
    class Rewording(OfflineEngine):
        async def reflect(
            self,
            question: str,
            plan: Sequence[PlanStep],
            findings: Sequence[Finding],
            max_new_steps: int,
            *,
            brief: str = "",
        ) -> Reply[Reflection]:
            return Reply(
                Reflection(
                    decision="adjust",
                    reasoning="thin",
                    new_steps=[StepDraft(title="heat pump install price", intent=COST)],
                    replaces=["s01"],
                )
            )

    state = State(
        question=QUESTION,
        plan=[PlanStep(id="s01", title=COST, intent=COST), PlanStep(id="s02", title=COLD)],
        findings=[
            Finding(step_id="s01", notes="", sufficient=False),
            Finding(step_id="s02", notes=""),
        ],
        round=1,
        dispatched=["s01", "s02"],
        config=resolve_config(Context(), depth="medium", engine="offline", sources=["local"]),
    )
    update = await reflect(state, Runtime(context=Context()), services=Services(engine=Rewording()))
    plan = {s.id: s for s in update["plan"]}
    assert plan["s01"].replaced and plan["s01"].replaced_by == "s03"
    assert plan["s03"].title == "heat pump install price"
