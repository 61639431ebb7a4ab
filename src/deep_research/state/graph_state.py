"""Graph state: what the next decision needs, in small typed records.

``InputState`` is what Studio and the SDK send (a chat); ``State`` adds the run's working
memory; ``OutputState`` is what a caller gets back. ``ResearcherInput``/``ResearcherState``/
``ResearcherOutput`` belong to the researcher subgraph, one instance per plan step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.channels.delta import DeltaChannel

from deep_research.state.channels import NullableDeltaChannel, TypedDeltaChannel
from deep_research.state.models import (
    BudgetLimit,
    Citation,
    Claim,
    Config,
    EvidenceSpan,
    Finding,
    PlanStep,
    Report,
    Requirements,
    SearchResult,
    Source,
    TokenUsage,
    Turn,
    VerificationSummary,
    citations_of,
)
from deep_research.state.reducers import (
    add_message_batches,
    add_usage,
    latest_write,
    merge_evidence_batches,
    merge_finding_batches,
    merge_source_batches,
    replace_claims,
)


@dataclass(kw_only=True)
class InputState:
    """A chat: the last human message is the question, earlier turns are context.

    ``messages`` merge as LangGraph's ``add_messages`` merges them, in a ``DeltaChannel``: a
    checkpoint keeps the writes that added messages, not the whole chat again, so a long
    chat does not store its earlier reports once more for every question
    (:func:`~deep_research.state.reducers.add_message_batches`).
    """

    messages: Annotated[list[AnyMessage], TypedDeltaChannel(add_message_batches)] = field(
        default_factory=list
    )


@dataclass(kw_only=True)
class OutputState(InputState):
    """What a finished run returns: the chat (the report appended) and the report itself.

    ``report`` is a ``DeltaChannel`` whose latest write wins, like ``State.draft``: it is
    stored once, as finalize's write, not again in each later checkpoint.
    """

    report: Annotated[Report | None, NullableDeltaChannel(latest_write)] = None


@dataclass(kw_only=True)
class State(OutputState):
    """Working memory of one question. Fields are reset when a new question arrives.

    ``findings``, ``sources`` and ``evidence`` grow with the run, so they are LangGraph
    ``DeltaChannel``s: a checkpoint stores the writes that add to them, not the whole lists,
    and reading the state replays those writes (see docs/decisions.md). ``draft``, which
    grows with the sources and is replaced whole, is a ``DeltaChannel`` whose latest write
    wins, so it is stored once, as its write; so are ``claims`` and ``report`` (see
    :class:`OutputState`). ``citations`` are the claims' own, derived rather than stored.
    Evidence spans carry their quotes: a quote is a sentence or two, and the pages they come
    from stay in the content store.
    """

    question: str = ""
    title: str = ""
    """The chat's title, written for its first question (the first report's H1)."""
    question_nr: int = 0
    """Number of the question in this thread (1, 2...); keys the domain store's session."""
    pool: list[Source] = field(default_factory=list)
    """Sources read by the thread's earlier questions, searchable by follow-ups."""
    run_context: dict[str, Any] = field(default_factory=dict)
    """The run's context as given, so that a resumed run can be given the same one."""
    history: list[tuple[str, str]] = field(default_factory=list)
    """Earlier turns of the chat as (role, text), most recent last."""
    clarifying_question: str = ""
    """The question clarify decided to ask (ask_clarification asks it), or empty."""
    clarification: str = ""
    """The user's answer to the clarifying question, if one was asked."""
    config: Config | None = None
    brief: str = ""
    requirements: Requirements = field(default_factory=Requirements)
    """What the question explicitly asks for (plan extracts it); the report is outlined from it."""
    unmet: list[str] = field(default_factory=list)
    """The requirements the last reflection found the research does not meet yet."""
    plan: list[PlanStep] = field(default_factory=list)
    dispatched: list[str] = field(default_factory=list)
    """Ids of the plan steps already sent to researchers."""
    active: list[str] = field(default_factory=list)
    """Ids of the steps the current dispatch sends."""
    round: int = 0
    findings: Annotated[list[Finding], DeltaChannel(merge_finding_batches)] = field(
        default_factory=list
    )
    sources: Annotated[list[Source], DeltaChannel(merge_source_batches)] = field(
        default_factory=list
    )
    evidence: Annotated[list[EvidenceSpan], DeltaChannel(merge_evidence_batches)] = field(
        default_factory=list
    )
    usage: Annotated[TokenUsage, add_usage] = field(default_factory=TokenUsage)
    draft: Annotated[str, DeltaChannel(latest_write)] = ""
    """The report's Markdown with ``[@evidence_id]`` citation markers."""
    claims: Annotated[list[Claim], DeltaChannel(replace_claims)] = field(default_factory=list)
    """The latest verification pass's claims."""
    verification: VerificationSummary = field(default_factory=VerificationSummary)
    revisions: int = 0
    unchanged_rewrites: list[str] = field(default_factory=list)
    """Digests of the rewrite requests the engine answered by leaving the claim as it was
    (:func:`~deep_research.report.revision.request_key`): a later revise pass does not send
    them again."""
    budget_reached: BudgetLimit | None = None
    """The spending limit that stopped research (reflect sets it), if one did."""
    started_at: float = 0.0
    """Wall-clock start of the question (epoch seconds), for the run's duration."""

    @property
    def turns(self) -> list[Turn]:
        """The earlier turns as (role, text) pairs (checkpoints store them as lists)."""
        return [("user" if role == "user" else "assistant", text) for role, text in self.history]

    @property
    def citations(self) -> list[Citation]:
        """The claims' citations (:func:`~deep_research.state.models.citations_of`).

        Derived from ``claims``, which verify writes, rather than stored a second time.
        """
        return [citation for claim in self.claims for citation in citations_of(claim)]

    @property
    def research_question(self) -> str:
        """The question, with the answer to the clarifying question when there was one."""
        if self.clarification:
            return f"{self.question} ({self.clarification})"
        return self.question

    @property
    def run_config(self) -> Config:
        """The run's mode and budget, which plan resolves; every node after plan reads this.

        Raises:
            RuntimeError: plan has not run for this question (a wiring error).
        """
        if self.config is None:
            raise RuntimeError("the run's config is set by plan, which has not run yet")
        return self.config

    @property
    def round_open(self) -> bool:
        """Whether steps of the plan are still to be sent: the round is not over."""
        return any(step.id not in self.dispatched for step in self.plan)


@dataclass(kw_only=True)
class ResearcherInput:
    """What dispatch sends to one researcher."""

    step: PlanStep
    question: str
    config: Config
    question_nr: int = 0
    """Number of the thread's question being researched (for the domain store)."""
    pool: list[Source] = field(default_factory=list)
    """The chat's source pool (see :mod:`deep_research.sources.pool`)."""


class ResearcherTask(TypedDict):
    """What dispatch's ``Send`` carries to one researcher: a :class:`ResearcherInput`'s fields."""

    step: PlanStep
    question: str
    config: Config
    question_nr: int
    pool: list[Source]


@dataclass(kw_only=True)
class ResearcherOutput:
    """What a researcher hands back; merged into the parent by key."""

    findings: Annotated[list[Finding], DeltaChannel(merge_finding_batches)] = field(
        default_factory=list
    )
    sources: Annotated[list[Source], DeltaChannel(merge_source_batches)] = field(
        default_factory=list
    )
    evidence: Annotated[list[EvidenceSpan], DeltaChannel(merge_evidence_batches)] = field(
        default_factory=list
    )
    usage: Annotated[TokenUsage, add_usage] = field(default_factory=TokenUsage)


@dataclass(kw_only=True)
class ResearcherState(ResearcherInput, ResearcherOutput):
    """Working memory of one researcher.

    Its records (``findings``, ``sources``, ``evidence``) and the latest ``results`` are
    ``DeltaChannel``s like the main state's lists: the subgraph's checkpoints keep the writes
    that produced them, not a second copy of each value (see docs/decisions.md).
    """

    queries: list[str] = field(default_factory=list)
    """Queries issued so far, in order."""
    new_queries: list[str] = field(default_factory=list)
    results: Annotated[list[SearchResult], DeltaChannel(latest_write)] = field(default_factory=list)
    """Results of the latest searches, not yet read."""
    iteration: int = 0
