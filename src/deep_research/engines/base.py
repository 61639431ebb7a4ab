"""The reasoning interface: one method per research task, two engines behind it.

Nodes call these methods; they never build prompts. Evidence is shown to an engine as a
numbered list, and the engine cites it with keys ``[E1]``, ``[E2]``... (1-based positions in
the list it was given); the nodes map keys back to evidence ids.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

from deep_research.engines.schemas import (
    TITLE_CHARS,
    ClaimVerdict,
    ClarifyDecision,
    PartAnswer,
    PickedQuote,
    Reflection,
    ReportAssessment,
    ResearchPlan,
    Rewrite,
    StepNotes,
)
from deep_research.state.models import (
    Claim,
    EvidenceSpan,
    Finding,
    Passage,
    PlanStep,
    Requirements,
    TokenUsage,
)
from deep_research.state.models import Turn as Turn
from deep_research.verification.citations import TableCell

T = TypeVar("T")


ProgressCallback = Callable[[str], None]
"""Called with each piece of report text as it is written."""


def evidence_key(index: int) -> str:
    """Return the citation key of the evidence at 0-based ``index``: ``E1``, ``E2``..."""
    return f"E{index + 1}"


def passage_key(index: int) -> str:
    """Return the key of the passage at 0-based ``index``: ``P1``, ``P2``..."""
    return f"P{index + 1}"


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
    fallback: bool = False
    """The model gave no usable answer, and this one comes from the engine's fallback (the
    offline engine's method, or a safe default such as no clarifying question)."""


def fell_back(task: str, value: T, usage: TokenUsage | None = None, answers: int = 1) -> Reply[T]:
    """A fallback's :class:`Reply`, its usage counting ``answers`` unusable answers of ``task``.

    The count travels with the tokens (:attr:`TokenUsage.fallbacks`) into the run's metrics,
    so that a report says when the model's answers were not what it was written from.
    """
    counted = (usage or TokenUsage()) + TokenUsage(fallbacks={task: answers})
    return Reply(value, counted, fallback=True)


@dataclass(frozen=True)
class WritingInputs:
    """What the writer sees besides the question, the brief, the plan and the evidence."""

    findings: Sequence[Finding] = ()
    """The researchers' notes per step (the replaced steps' left out)."""
    titles: Mapping[str, str] = field(default_factory=dict)
    """Page title by URL, shown in each evidence header."""
    depth: str = "medium"
    """The run's depth, which sets the report's target length and how much research the
    writer is shown."""
    requirements: Requirements = field(default_factory=Requirements)
    """What the question explicitly asks for (the plan's); the report is outlined from it."""
    unmet: Sequence[str] = ()
    """The requirements the last reflection found the research does not meet."""


@dataclass(frozen=True)
class ClaimCheck:
    """A claim to judge and the evidence it is judged against (keys E1.. in this order)."""

    claim: Claim
    evidence: Sequence[EvidenceSpan]
    cell: TableCell | None = None
    """Where the claim stands when it is a table cell (its column and row), else ``None``."""


@dataclass(frozen=True)
class Assessment:
    """What an engine is shown to summarize a finished report and state its limits.

    ``report`` is the verified report's body citing ``evidence`` with keys ``E1``.. (in this
    order); ``uncovered`` are the plan steps no supported claim answers; ``conflicts`` are
    pairs of 0-based positions in ``evidence`` whose quotes disagree on a figure or a fact.
    """

    question: str
    report: str
    evidence: Sequence[EvidenceSpan]
    uncovered: Sequence[PlanStep] = ()
    conflicts: Sequence[tuple[int, int]] = ()
    parts: Sequence[PartAnswer] = ()
    """Each part of the question as the claims answer it, judged by what the supported claims
    state (:func:`deep_research.assessment.judge_parts`); its keys are positions in
    ``evidence``. A model judges them again; the offline engine keeps these."""
    supported_keys: frozenset[str] = frozenset()
    """The keys of the evidence that supported claims cite (what a model's judgement of a
    part must name to stand)."""


class Engine(Protocol):
    """A reasoning engine; see :mod:`deep_research.engines.llm.engine` and ``offline``.

    Every step of a run that needs judgement asks the run's engine;
    :func:`~deep_research.engines.load_engine` makes one from a model name, and
    ``build_graph(engine=...)`` takes any object with these methods.

    Example:
        The offline engine needs no model; each answer is a :class:`Reply` with its usage:

        >>> import asyncio
        >>> from deep_research.engines import OfflineEngine
        >>> engine: Engine = OfflineEngine()
        >>> reply = asyncio.run(engine.title("How do LFP and NMC batteries compare?"))
        >>> reply.value, reply.usage.calls
        ('How do LFP and NMC batteries compare?', 0)
    """

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
        self,
        question: str,
        step: PlanStep,
        previous: Sequence[str],
        n: int,
        *,
        finding: Finding | None = None,
    ) -> Reply[list[str]]:
        """Propose at most ``n`` new search queries for a step.

        ``finding``: the step's notes so far, and what they say is missing (second rounds).
        """
        ...

    async def pick_evidence(
        self,
        question: str,
        step: PlanStep,
        queries: Sequence[str],
        passages: Sequence[Passage],
    ) -> Reply[list[PickedQuote]]:
        """Pick the quotes of ``passages`` (keyed ``P1``, ``P2``...) that answer a step.

        Each quote names its passage and should be copied verbatim from it; the caller locates
        it in the page (:func:`deep_research.engines.quotes.locate_quotes`) and drops any
        quote it cannot find. How many quotes a passage gives depends on what it holds.
        """
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
        *,
        brief: str = "",
    ) -> Reply[Reflection]:
        """Decide whether to continue, adjust or complete the research (against the brief)."""
        ...

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
        *,
        inputs: WritingInputs | None = None,
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
        """Correct, narrow or hedge a claim not fully supported, or remove it (empty text)."""
        ...

    async def assess(self, facts: Assessment) -> Reply[ReportAssessment]:
        """Summarize a verified report and state its limits, citing ``[E#]`` keys."""
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


@runtime_checkable
class Windowed(Protocol):
    """An engine whose reading is sized to its models' context windows (the LLM engine).

    Engines without a window (the offline engine) read the depth's fixed budget
    (:data:`~deep_research.sources.passages.PASSAGE_BUDGET`) and keep their own counts.
    """

    def passage_words(self, depth: str) -> int:
        """Words of passages one pick of evidence is shown at ``depth``."""
        ...
