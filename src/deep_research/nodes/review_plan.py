"""review_plan: optionally pause so that a person approves or edits the plan."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from deep_research.context import Context
from deep_research.engines.schemas import StepDraft
from deep_research.events import emit
from deep_research.nodes._steps import make_steps
from deep_research.services import Services, context_of
from deep_research.state import PlanStep, State
from deep_research.state.interrupts import (
    PlanReviewRequest,
    StepEdit,
    describe_error,
    parse_plan_review,
)


def _draft(item: StepEdit | str, proposed: dict[str, PlanStep]) -> StepDraft:
    if isinstance(item, str):
        return StepDraft(title=item)
    if item.id is None:
        if not (item.title or "").strip():
            raise ValueError("a new step needs a title")
        return StepDraft(
            title=item.title or "",
            intent=item.intent or "",
            evidence_needed=item.evidence_needed or "",
        )
    if item.id not in proposed:
        raise ValueError(f"no step {item.id!r} in the plan; leave out the id to add a step")
    kept = proposed[item.id]
    changes = item.model_dump(exclude={"id"}, exclude_none=True)
    return StepDraft.model_validate(
        {"title": kept.title, "intent": kept.intent, "evidence_needed": kept.evidence_needed}
        | changes
    )


def apply_plan_edits(plan: list[PlanStep], response: Any, *, max_steps: int = 16) -> list[PlanStep]:
    """Apply a reviewer's resume value to the plan.

    Approval keeps the plan. ``{"steps": [...]}`` is the plan as it should be: a string adds a
    step with that title; ``{"id": "s02", "title": ...}`` keeps proposed step ``s02`` with the
    fields given changed (reworded); ``{"title": ..., "intent": ...}`` adds a step; proposed
    steps left out are removed. Steps are numbered ``s01``, ``s02``... in the order given.

    Raises:
        ValueError: the value is neither an approval nor a valid plan (an unknown or repeated
            id, a step without a title, no steps, or more than ``max_steps``).
    """
    decision = parse_plan_review(response)
    if decision.steps is None:
        return plan
    ids = [item.id for item in decision.steps if isinstance(item, StepEdit) and item.id]
    if len(ids) != len(set(ids)):
        raise ValueError("each proposed step can be kept once; a step id appears twice")
    if len(decision.steps) > max_steps:
        raise ValueError(f"the plan may have at most {max_steps} steps at this depth")
    proposed = {step.id: step for step in plan}
    drafts = [_draft(item, proposed) for item in decision.steps]
    edited = make_steps(drafts, first_index=1, round=1)
    if len(edited) != len(drafts):
        raise ValueError("every step needs a title")
    return edited


async def review_plan(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Interrupt with the plan when the run asks for review; resume with approval or edits.

    An invalid response shows the plan again with ``error`` set (see
    :mod:`deep_research.state.interrupts`).
    """
    if not context_of(runtime).review_plan or not state.plan:
        return {}
    max_steps = state.run_config.budget.max_steps
    request = PlanReviewRequest(brief=state.brief, steps=state.plan, max_steps=max_steps)
    while True:
        response = interrupt(request.payload())
        try:
            edited = apply_plan_edits(state.plan, response, max_steps=max_steps)
        except ValueError as exc:
            request = request.model_copy(update={"error": describe_error(exc)})
            continue
        break
    changed = edited != state.plan
    emit(
        runtime,
        "plan_reviewed",
        edited=changed,
        steps=[{"id": s.id, "title": s.title} for s in edited],
    )
    return {"plan": edited} if changed else {}
