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

Each payload (:meth:`ClarificationRequest.payload`, :meth:`PlanReviewRequest.payload`) also
carries LangChain's human-in-the-loop shape beside those keys: ``action_requests`` (one action,
its ``name``, ``args`` and ``description``) and ``review_configs`` (the decisions allowed), as
LangChain's ``HumanInTheLoopMiddleware`` interrupts, so that agent-chat-ui and Agent Inbox show
reply, approve and edit controls. Their resume value, ``{"decisions": [decision]}``, is
accepted too (:func:`hitl_decision`):

- the clarification (action ``clarifying_question``, args ``{"answer": ""}``): ``edit`` answers
  with ``edited_action.args.answer``; ``respond`` and ``reject`` answer with their ``message``
  (what the person wrote instead); ``approve`` proceeds as asked;
- the plan review (action ``review_plan``, args ``{"steps": [{"id", "title"}, ...]}``):
  ``approve`` keeps the plan; ``edit`` sends ``edited_action.args.steps`` as the plan should
  be: a list, its JSON text (chat clients edit arguments as text), or one title per line.

Agent Inbox reads the same keys (an action's arguments under ``arguments``, given too) and
resumes in its older shape, a list of one ``{"type": "accept" | "edit" | "response" |
"ignore", "args"}``, which is accepted as the decision it stands for.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from deep_research.state.models import PlanStep

APPROVALS = frozenset({"", "approve", "approved", "ok", "yes", "y"})
"""Strings that approve a plan as it stands (compared in lower case, trimmed)."""

MAX_STEP_TITLE_CHARS = 300
"""Longest accepted step title."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


CLARIFICATION_ACTION = "clarifying_question"
"""The action name of the clarification in the human-in-the-loop shape."""

PLAN_REVIEW_ACTION = "review_plan"
"""The action name of the plan review in the human-in-the-loop shape."""


def _review(
    action: str, args: dict[str, Any], description: str, allowed: list[str]
) -> dict[str, Any]:
    """The human-in-the-loop keys of one action (LangChain's ``HITLRequest``)."""
    request = {"name": action, "args": args, "description": description}
    return {
        # Agent Inbox reads an action's arguments as "arguments": given under both names
        "action_requests": [request | {"arguments": args}],
        "review_configs": [{"action_name": action, "allowed_decisions": allowed}],
    }


def _with_error(text: str, error: str | None) -> str:
    return f"{text}\n\n(Not accepted: {error})" if error else text


class ClarificationRequest(_Strict):
    """The payload of the clarifying question's interrupt."""

    type: Literal["clarification"] = "clarification"
    question: str
    """The one question the agent asks before researching."""
    error: str | None = None
    """Why the previous answer was refused, when the question is asked again."""

    def payload(self) -> dict[str, Any]:
        """The interrupt's value: this model's keys plus the human-in-the-loop shape."""
        description = _with_error(
            f"{self.question}\n\nWrite your answer, or approve to research the question as it is.",
            self.error,
        )
        allowed = ["edit", "respond", "approve", "reject"]
        return self.model_dump(mode="json") | _review(
            CLARIFICATION_ACTION, {"answer": ""}, description, allowed
        )


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

    def payload(self) -> dict[str, Any]:
        """The interrupt's value: this model's keys plus the human-in-the-loop shape."""
        lines = [f"{self.brief}", ""] if self.brief else []
        lines += [f"{step.id}. {step.title}" for step in self.steps]
        lines += [
            "",
            f"Approve the plan, or edit its steps (at most {self.max_steps}): keep a step's id"
            " to keep it, leave a step out to remove it, give a title without an id to add one.",
        ]
        steps = [{"id": step.id, "title": step.title} for step in self.steps]
        return self.model_dump(mode="json") | _review(
            PLAN_REVIEW_ACTION,
            {"steps": steps},
            _with_error("\n".join(lines), self.error),
            ["approve", "edit"],
        )


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


_INBOX_TYPES = frozenset({"accept", "ignore", "response", "edit"})
"""The ``type`` of Agent Inbox's responses (the older human-interrupt schema)."""


def _inbox_decision(response: dict[str, Any]) -> dict[str, Any]:
    """An Agent Inbox response (``{"type", "args"}``) as the decision it stands for."""
    kind, args = response["type"], response.get("args")
    if kind in ("accept", "ignore"):
        return {"type": "approve"}
    if kind == "response":
        return {"type": "respond", "message": args if isinstance(args, str) else ""}
    edited = args if isinstance(args, dict) else {}
    return {
        "type": "edit",
        "edited_action": {"name": edited.get("action"), "args": edited.get("args")},
    }


def hitl_decision(value: Any) -> dict[str, Any] | None:
    """The one decision of a human-in-the-loop resume value, ``None`` when it is not one.

    Agent Inbox's response (a list of one ``{"type": "accept" | "edit" | "response" |
    "ignore", "args"}``) is read as the decision it stands for: accept and ignore approve,
    ``response`` responds with its text, ``edit`` edits with ``args.args``.

    Raises:
        ValueError: ``{"decisions": ...}`` does not hold exactly one decision with a ``type``.
    """
    if (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and value[0].get("type") in _INBOX_TYPES
    ):
        return _inbox_decision(value[0])
    if not isinstance(value, dict) or "decisions" not in value:
        return None
    decisions = value["decisions"]
    if not isinstance(decisions, list) or len(decisions) != 1:
        raise ValueError("decisions: send exactly one decision, for the one action asked")
    decision = decisions[0]
    if not isinstance(decision, dict) or not isinstance(decision.get("type"), str):
        raise ValueError('decisions: a decision is {"type": "approve" | "edit" | ...}')
    return decision


def _edited_args(decision: dict[str, Any]) -> dict[str, Any]:
    action = decision.get("edited_action")
    args = action.get("args") if isinstance(action, dict) else None
    if not isinstance(args, dict):
        raise ValueError('an edit decision needs "edited_action": {"name": ..., "args": {...}}')
    return args


def _clarification_decision(decision: dict[str, Any]) -> Any:
    """The resume value a clarification decision stands for."""
    kind = decision["type"]
    if kind == "approve":
        return ""
    if kind == "edit":
        return {"answer": _edited_args(decision).get("answer", "")}
    if kind in ("respond", "reject"):
        return {"answer": decision.get("message") or ""}
    raise ValueError(f"decision {kind!r} is not one of edit, respond, approve, reject")


def _plan_steps(steps: Any) -> Any:
    """An edited plan's steps: a list, its JSON text, or one title per line."""
    if not isinstance(steps, str):
        return steps
    try:
        return json.loads(steps)
    except ValueError:
        return [line.strip() for line in steps.splitlines() if line.strip()]


def _plan_decision(decision: dict[str, Any]) -> Any:
    """The resume value a plan review decision stands for."""
    kind = decision["type"]
    if kind == "approve":
        return {"approve": True}
    if kind == "edit":
        return {"steps": _plan_steps(_edited_args(decision).get("steps"))}
    raise ValueError(f"decision {kind!r} is not one of approve, edit")


def parse_clarification_answer(value: Any) -> str:
    """The answer text of a resume value (a string, ``{"answer": ...}``, or ``None``).

    A human-in-the-loop response (``{"decisions": [...]}``) is read as the module says.

    Raises:
        ValueError: the value is neither (pydantic's ``ValidationError`` is a ``ValueError``).
    """
    decision = hitl_decision(value)
    if decision is not None:
        value = _clarification_decision(decision)
    if value is None:
        return ""
    if isinstance(value, str):
        return ClarificationAnswer(answer=value).answer.strip()
    return ClarificationAnswer.model_validate(value).answer.strip()


def parse_plan_review(value: Any) -> PlanReviewResponse:
    """The reviewer's response from a resume value, approval shorthands included.

    A human-in-the-loop response (``{"decisions": [...]}``) is read as the module says.

    Raises:
        ValueError: the value is not a valid response.
    """
    decision = hitl_decision(value)
    if decision is not None:
        value = _plan_decision(decision)
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
