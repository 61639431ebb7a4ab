"""The reasoning interface: one method per research task, two engines behind it.

Nodes call these methods; they never build prompts. Evidence is shown to an engine as a
numbered list, and the engine cites it with keys ``[E1]``, ``[E2]``... (1-based positions in
the list it was given); the nodes map keys back to evidence ids.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

from deep_research.engines.schemas import (
    TITLE_CHARS,
    ClaimVerdict,
    ClarifyDecision,
    Reflection,
    ResearchPlan,
    Rewrite,
    StepNotes,
)
from deep_research.state.models import Claim, EvidenceSpan, Finding, PlanStep, TokenUsage
from deep_research.state.models import Turn as Turn

T = TypeVar("T")


ProgressCallback = Callable[[str], None]
"""Called with each piece of report text as it is written."""


def evidence_key(index: int) -> str:
    """Return the citation key of the evidence at 0-based ``index``: ``E1``, ``E2``..."""
    return f"E{index + 1}"


def chat_title(text: str) -> str:
    """A chat title from ``text``: one line, cut at a word, at most :data:`TITLE_CHARS` long.

    The offline engine titles a chat with its first question this way; the LLM engine passes
    its model's title through it and falls back to it.
    """
    line = " ".join(text.split())
    if len(line) <= TITLE_CHARS:
        return line
    cut = line[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:.-")
    return f"{cut}…"


@dataclass(frozen=True)
class Reply(Generic[T]):
    """An engine's answer and the tokens it cost."""

    value: T
    usage: TokenUsage = field(default_factory=TokenUsage)


@dataclass(frozen=True)
class ClaimCheck:
    """A claim to judge and the evidence it is judged against (keys E1.. in this order)."""

    claim: Claim
    evidence: Sequence[EvidenceSpan]


class Engine(Protocol):
    """A reasoning engine; see :mod:`deep_research.engines.llm` and ``offline``."""

    name: str
    """``offline`` or the model name."""

    extractive: bool
    """True when reports are made of extracted sentences rather than written by a model."""

    async def title(self, question: str) -> Reply[str]:
        """Write a short title for a chat from its first question (see :func:`chat_title`)."""
        ...

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """Decide whether to ask a clarifying question."""
        ...

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """Write a brief and at most ``max_steps`` research steps."""
        ...

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int
    ) -> Reply[list[str]]:
        """Propose at most ``n`` new search queries for a step."""
        ...

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        """Summarize what the evidence establishes for a step, citing ``[E#]`` keys."""
        ...

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
    ) -> Reply[Reflection]:
        """Decide whether to continue, adjust or complete the research."""
        ...

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
    ) -> Reply[str]:
        """Write the report in Markdown, ``##`` per section, citing evidence as ``[E#]``."""
        ...

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """Answer directly, without research (``simple`` mode)."""
        ...

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """Return one verdict per claim, in the order given."""
        ...

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """Correct or hedge an unsupported claim from its evidence, or remove it (empty text)."""
        ...


@runtime_checkable
class Instructable(Protocol):
    """An engine that can follow the user's standing instructions (``Context.system_instructions``).

    Engines without prompts of their own (the offline engine) do not implement it, and
    instructions are then ignored.
    """

    def with_instructions(self, instructions: str) -> Engine:
        """A copy of this engine that adds ``instructions`` to its writing prompts."""
        ...
