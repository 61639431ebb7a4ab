"""What nodes record, as typed records; their mapping to table rows lives here, once.

Nodes build these from domain objects (a plan step, a finding, a report) and hand them to
:meth:`Services.record <deep_research.services.Services.record>` in a
:class:`~deep_research.persistence.recorder.Batch`. Each record's ``columns()`` is the row the
recorder upserts; fields left unset are not written, so that a record updates only what it
knows (reflect writes an iteration's decision without touching the steps dispatch wrote).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import Any

from deep_research.state.models import EvidenceSpan, Finding, PlanStep, Report, VerificationSummary


class SessionStatus(StrEnum):
    """Where a question's research session is in its life."""

    IN_PROGRESS = "in_progress"
    INTERRUPTED = "interrupted"
    """Waiting for an answer (clarification, plan review), or stopped by Ctrl-C or SIGTERM."""
    COMPLETED = "completed"
    FAILED = "failed"


class _Unset(Enum):
    UNSET = "unset"


UNSET = _Unset.UNSET
"""The value of a :class:`SessionUpdate` field that is not written (for ``error``, where
``None`` means "clear it")."""


@dataclass(frozen=True)
class SessionUpdate:
    """Columns of a research session to write; ``None`` (``UNSET`` for ``error``) skips one."""

    status: SessionStatus | None = None
    question: str | None = None
    query_mode: str | None = None
    depth: str | None = None
    brief: str | None = None
    plan: Sequence[PlanStep] | None = None
    classification: Mapping[str, Any] | None = None
    verification: VerificationSummary | None = None
    report: Report | None = None
    error: str | None | _Unset = UNSET
    """The error a failed run stopped with; ``None`` clears it."""

    def columns(self) -> dict[str, Any]:
        """The session row's columns this update sets."""
        values: dict[str, Any] = {
            "status": self.status.value if self.status else None,
            "question": self.question,
            "query_mode": self.query_mode,
            "depth": self.depth,
            "brief": self.brief,
            "plan": [s.model_dump(mode="json") for s in self.plan]
            if self.plan is not None
            else None,
            "classification": dict(self.classification)
            if self.classification is not None
            else None,
            "verification": self.verification.model_dump(mode="json")
            if self.verification is not None
            else None,
            "report": self.report.model_dump(mode="json", by_alias=True) if self.report else None,
        }
        columns = {k: v for k, v in values.items() if v is not None}
        if self.error is not UNSET:
            columns["error"] = self.error
        return columns


class MessageKind(IntEnum):
    """The four messages a question can add to its chat, in chat order."""

    QUESTION = 0
    CLARIFYING_QUESTION = 1
    CLARIFICATION_ANSWER = 2
    REPORT = 3


_ROLES = {
    MessageKind.QUESTION: "user",
    MessageKind.CLARIFYING_QUESTION: "assistant",
    MessageKind.CLARIFICATION_ANSWER: "user",
    MessageKind.REPORT: "assistant",
}


def question_position(question_nr: int) -> int:
    """The position of a question's own message in its chat (see :class:`MessageRecord`)."""
    return question_nr * len(MessageKind) + MessageKind.QUESTION


@dataclass(frozen=True)
class MessageRecord:
    """A chat message of one question; its kind fixes its role and its place in the chat."""

    kind: MessageKind
    content: str
    query_mode: str | None = None
    tool_calls: Sequence[Mapping[str, Any]] | None = None
    """The tools the answer used (searches per step, verification), for the report."""

    def columns(self, question_nr: int) -> dict[str, Any]:
        """The message row: at ``question_nr * 4 + kind``, so a rewrite lands on the same row."""
        clarification = self.kind in (
            MessageKind.CLARIFYING_QUESTION,
            MessageKind.CLARIFICATION_ANSWER,
        )
        row: dict[str, Any] = {
            "position": question_nr * len(MessageKind) + self.kind,
            "role": _ROLES[self.kind],
            "content": self.content,
        }
        if self.query_mode is not None:
            row["query_mode"] = self.query_mode
        if self.tool_calls is not None:
            row["tool_calls"] = [dict(call) for call in self.tool_calls]
        if clarification:
            row["is_clarification"] = True
        return row


@dataclass(frozen=True)
class IterationRecord:
    """A research round: the steps it ran, and reflect's decision when it has one."""

    round: int
    steps: Sequence[str] | None = None
    decision: str | None = None
    reasoning: str | None = None

    def columns(self) -> dict[str, Any]:
        """The iteration row's columns this record sets."""
        values = {
            "iteration_nr": self.round,
            "steps": list(self.steps) if self.steps is not None else None,
            "decision": self.decision,
            "reasoning": self.reasoning,
        }
        return {k: v for k, v in values.items() if v is not None}


@dataclass(frozen=True)
class SubStepRecord:
    """What is known of a plan step's research so far (see the builders below)."""

    step: PlanStep
    instructions: str | None = None
    reasoning: str | None = None
    tool: str | None = None
    sub_answer: str | None = None
    cited_docs: Sequence[str] | None = None
    claims: Sequence[str] | None = None
    extra_data: Mapping[str, Any] | None = None

    def columns(self) -> dict[str, Any]:
        """The sub-step row: keyed by the step's round and number, with the fields set."""
        digits = "".join(ch for ch in self.step.id if ch.isdigit())
        values = {
            "iteration_nr": self.step.round,
            "sub_step_nr": int(digits or 0),
            "step_id": self.step.id,
            "instructions": self.instructions,
            "tool": self.tool,
            "reasoning": self.reasoning,
            "sub_answer": self.sub_answer,
            "cited_docs": list(self.cited_docs) if self.cited_docs is not None else None,
            "claims": list(self.claims) if self.claims is not None else None,
            "extra_data": dict(self.extra_data) if self.extra_data is not None else None,
        }
        return {k: v for k, v in values.items() if v is not None}


def planned_step(step: PlanStep) -> SubStepRecord:
    """A step as dispatch sends it: its title as instructions, its intent as reasoning."""
    return SubStepRecord(
        step, instructions=step.title, reasoning=step.intent, extra_data=step.model_dump()
    )


def searched_step(step: PlanStep, providers: Sequence[str]) -> SubStepRecord:
    """A step once searched: the tool is ``search:`` and the providers' names."""
    return SubStepRecord(step, tool="search:" + "+".join(providers))


def answered_step(step: PlanStep, finding: Finding, cited: Sequence[EvidenceSpan]) -> SubStepRecord:
    """A step once its notes are taken: the notes, and the documents and spans they cite."""
    return SubStepRecord(
        step,
        sub_answer=finding.notes,
        cited_docs=sorted({e.url for e in cited}),
        claims=[e.id for e in cited],
        extra_data=finding.model_dump(exclude={"notes"}),
    )
