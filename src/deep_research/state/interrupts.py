"""The graph's interrupts: what a paused run shows, and what resumes it.

A run pauses with ``interrupt(payload)``, where the payload is the JSON dump of a request model
below; Studio shows it and the SDK returns it under ``__interrupt__``. The caller resumes with
``Command(resume=value)``; the value is validated here, and an invalid one does not fail the
run: the node asks again, with ``error`` saying what was wrong.

- :class:`ClarificationRequest` (``type: "clarification"``) is resumed with the answer: a
  string, or ``{"answer": "..."}``; an empty answer lets the agent proceed as it is.
- :class:`PlanReviewRequest` (``type: "plan_review"``) is resumed with ``{"approve": true}``
  (or ``true``, ``"approve"``, ``""``), or with the plan as it should be, ``{"steps": [...]}``
  (see :class:`PlanReviewResponse`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from deep_research.state.models import PlanStep

APPROVALS = frozenset({"", "approve", "approved", "ok", "yes", "y"})
"""Strings that approve a plan as it stands (compared in lower case, trimmed)."""

MAX_STEP_TITLE_CHARS = 300
"""Longest accepted step title."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ClarificationRequest(_Strict):
    """The payload of the clarifying question's interrupt."""

    type: Literal["clarification"] = "clarification"
    question: str
    """The one question the agent asks before researching."""
    error: str | None = None
    """Why the previous answer was refused, when the question is asked again."""


class ClarificationAnswer(_Strict):
    """The answer to a clarifying question; an empty answer lets the agent proceed as it is."""

    answer: str = Field(default="", max_length=4000)


class PlanReviewRequest(_Strict):
    """The payload of the plan review's interrupt."""

    type: Literal["plan_review"] = "plan_review"
    brief: str
    """What the report must answer."""
    steps: list[PlanStep]
    """The proposed steps, in order (``id``, ``title``, ``intent``, ``evidence_needed``)."""
    max_steps: int
    """Most steps an edited plan may have (the depth's budget)."""
    error: str | None = None
    """Why the previous response was refused, when the plan is shown again."""


class StepEdit(_Strict):
    """One step of an edited plan.

    With the ``id`` of a proposed step, it keeps that step and changes the fields given (a
    reworded title, say); without one, it adds a step. Proposed steps not listed are removed.
    """

    id: str | None = None
    """The id of the proposed step this one keeps; unset for a new step."""
    title: str | None = Field(default=None, max_length=MAX_STEP_TITLE_CHARS)
    """The step's title (required for a new step)."""
    intent: str | None = None
    """What the step must find out; unset keeps the proposed step's."""
    evidence_needed: str | None = None
    """What evidence would settle it; unset keeps the proposed step's."""


class PlanReviewResponse(_Strict):
    """A reviewer's answer: approve the plan, or send it back as it should be."""

    approve: bool = False
    """Approve the proposed plan unchanged."""
    steps: list[StepEdit | str] | None = None
    """The edited plan, in order: a title for a new step, or a :class:`StepEdit`."""

    @model_validator(mode="after")
    def _approve_or_edit(self) -> PlanReviewResponse:
        if self.steps is None and not self.approve:
            raise ValueError('send {"approve": true} or the edited plan as {"steps": [...]}')
        if self.steps is not None and not self.steps:
            raise ValueError("an edited plan needs at least one step")
        return self


def parse_clarification_answer(value: Any) -> str:
    """The answer text of a resume value (a string, ``{"answer": ...}``, or ``None``).

    Raises:
        ValueError: the value is neither (pydantic's ``ValidationError`` is a ``ValueError``).
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return ClarificationAnswer(answer=value).answer.strip()
    return ClarificationAnswer.model_validate(value).answer.strip()


def parse_plan_review(value: Any) -> PlanReviewResponse:
    """The reviewer's response from a resume value, approval shorthands included.

    Raises:
        ValueError: the value is not a valid response.
    """
    if value is None or value is True:
        return PlanReviewResponse(approve=True)
    if isinstance(value, str):
        if value.strip().lower() in APPROVALS:
            return PlanReviewResponse(approve=True)
        raise ValueError(
            f'{value!r} is not an approval: send {{"approve": true}} or {{"steps": [...]}}'
        )
    return PlanReviewResponse.model_validate(value)


def describe_error(error: ValueError) -> str:
    """One line saying what was wrong with a resume value."""
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in error.errors()
        )
    return str(error)
