"""Domain models: what research finds, what the report says, and how it was checked.

snake_case in Python, camelCase in JSON exports (``model_dump(by_alias=True)``). Every model
is small: page text lives in the content store, never here.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, computed_field, model_validator
from pydantic.alias_generators import to_camel

from deep_research.urls import normalize_url

Url = Annotated[str, AfterValidator(normalize_url)]
"""An absolute http(s) or file URL, stored in normalized form."""

Confidence = Annotated[float, Field(ge=0.0, le=1.0)]

Turn = tuple[Literal["user", "assistant"], str]
"""One earlier turn of the chat: (role, text)."""


def _now() -> datetime:
    return datetime.now(UTC)


def stable_id(prefix: str, *parts: object) -> str:
    """Return a short deterministic id, so that a retried step produces the same ids."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()
    return f"{prefix}_{digest[:12]}"


class DomainModel(BaseModel):
    """Base of the domain models: camelCase aliases, docstrings as field descriptions."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        use_attribute_docstrings=True,
        extra="forbid",
    )


CrawlStatus = Literal["ok", "blocked", "failed", "skipped"]

CacheStatus = Literal["hit", "miss"]
"""Whether a web page came from the page cache or from the network."""


class SearchResult(DomainModel):
    """One hit of a source provider."""

    url: Url
    title: str
    snippet: str = ""
    score: float = 0.0
    """Provider's relevance score; higher is better, comparable only within one provider."""
    provider: str
    raw_content: str | None = None
    """Full text carried with the result. Kept for providers without a page cache; the
    Tavily provider puts raw content in the page cache instead, so that page text never
    travels in graph state."""


class Document(DomainModel):
    """A page or file read in full. Its text lives in the content store, keyed by ``id``."""

    id: str
    """``doc_`` + the sha256 prefix of the normalized text."""
    url: Url
    title: str
    text: str
    content_type: str = "text/plain"
    metadata: dict[str, str] = Field(default_factory=dict)
    cache: CacheStatus | None = None
    """``hit`` when the page cache served the text, ``miss`` when it was fetched; ``None``
    when no page cache was involved (local corpus, text delivered with search results)."""


class Chunk(DomainModel):
    """A token-bounded slice of a document, with its character offsets."""

    id: str
    document_id: str
    index: int = Field(ge=0)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    sha256: str
    token_count: int = Field(ge=0)


class Source(DomainModel):
    """A source consulted by the run (cited or not), with how reading it went."""

    url: Url
    title: str
    provider: str
    crawl_status: CrawlStatus = "ok"
    reason: str | None = None
    """Why the source was blocked, skipped or failed."""
    document_id: str | None = None
    cache: CacheStatus | None = None
    """Page-cache outcome of the read (see :attr:`Document.cache`); counted in the metrics."""
    flags: list[str] = Field(default_factory=list)
    """Warnings about the page, such as ``prompt_injection:instruction_override`` when its
    text tries to instruct the agent. Flagged text stays data: it is never obeyed."""


class EvidenceSpan(DomainModel):
    """A minimal verbatim quote from a document, with its exact offsets."""

    id: str
    url: Url
    document_id: str
    step_id: str
    quote: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    section: str | None = None
    """Heading of the section the quote stands in."""
    relevance: Confidence = 0.0
    has_numbers: bool = False

    @model_validator(mode="after")
    def _offsets_match_quote(self) -> EvidenceSpan:
        if self.end - self.start != len(self.quote):
            raise ValueError("evidence offsets must span exactly the quote")
        return self


class PlanStep(DomainModel):
    """One step of the research plan."""

    id: str
    title: str
    intent: str = ""
    """What the step should find out."""
    evidence_needed: str = ""
    """What evidence would settle it."""
    round: int = Field(default=1, ge=1)
    """The research round in which the step was added."""


class Finding(DomainModel):
    """What a researcher found for one plan step."""

    step_id: str
    notes: str
    evidence_ids: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    searches: int = 0
    sufficient: bool = True


class Verdict(StrEnum):
    """How well the cited evidence supports a claim."""

    SUPPORTED = "SUPPORTED"
    PARTIAL = "PARTIAL"
    UNSUPPORTED = "UNSUPPORTED"
    CONTRADICTED = "CONTRADICTED"


class Claim(DomainModel):
    """An atomic factual claim of the report, located by offsets into its Markdown."""

    id: str
    text: str
    position_start: int = Field(ge=0)
    position_end: int = Field(ge=0)
    claim_type: Literal["fact", "estimate", "opinion"] = "fact"
    numeric: bool = False
    citation_keys: list[str] = Field(default_factory=list)
    """Ids of the evidence spans the claim cites."""
    verdict: Verdict | None = None
    confidence: Confidence | None = None
    reasoning: str = ""
    evidence_id: str | None = None
    """The evidence span the verdict relied on."""


class Citation(DomainModel):
    """A link from a claim to an evidence span; alternates were found by the verifier."""

    claim_id: str
    evidence_id: str
    is_primary: bool = True
    reference_number: int | None = None
    """The reference the evidence is listed under in the final report (set by finalize)."""
    quote: str | None = None
    """The evidence's verbatim quote (set in the final report, so it can be audited)."""


class Reference(DomainModel):
    """A numbered entry of the report's reference list."""

    number: int = Field(ge=1)
    url: Url
    title: str
    location: str
    """The URL of a web page, or the file path of a local document."""


class VerificationSummary(DomainModel):
    """Counts of verdicts over the final report, and what revision changed."""

    supported: int = 0
    partial: int = 0
    unsupported: int = 0
    contradicted: int = 0
    removed: int = 0
    corrected: int = 0
    recited: int = 0
    passes: int = 0

    @model_validator(mode="before")
    @classmethod
    def _ignore_derived(cls, data: Any) -> Any:
        """Accept its own JSON export: the derived fields are recomputed, not read."""
        if isinstance(data, dict):
            derived = {"total", "supported_ratio", "supportedRatio"}
            return {key: value for key, value in data.items() if key not in derived}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        """Number of claims judged."""
        return self.supported + self.partial + self.unsupported + self.contradicted

    @computed_field  # type: ignore[prop-decorator]
    @property
    def supported_ratio(self) -> float | None:
        """Share of the checked claims fully supported; ``None`` when none could be checked."""
        return round(self.supported / self.total, 4) if self.total else None


class TokenUsage(DomainModel):
    """Model tokens spent; summed across nodes and branches."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
        )


class Metrics(DomainModel):
    """Figures of one run."""

    duration_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0
    cost_estimate_usd: float = 0.0
    searches: int = 0
    sources_consulted: int = 0
    sources_cited: int = 0
    distinct_domains: int = 0
    evidence_spans: int = 0
    rounds: int = 0
    cache_hits: int = 0
    cache_misses: int = 0


EventType = Literal[
    "research_started",
    "clarification_requested",
    "plan_created",
    "plan_reviewed",
    "step_started",
    "query_issued",
    "source_found",
    "step_completed",
    "reflection_decision",
    "synthesis_progress",
    "claim_verified",
    "verification_summary",
    "research_completed",
    "error",
]


class TraceEvent(DomainModel):
    """A typed progress event, streamed on ``stream_mode="custom"``."""

    type: EventType
    at: datetime = Field(default_factory=_now)
    data: dict[str, Any] = Field(default_factory=dict)


class Budget(DomainModel):
    """The numbers a depth stands for."""

    max_steps: int = Field(ge=1, le=16)
    max_rounds: int = Field(ge=1, le=10)
    queries_per_step: int = Field(ge=1, le=6)
    results_per_query: int = Field(ge=3, le=10)
    max_parallel_researchers: int = Field(ge=1, le=16)
    max_revisions: int = Field(ge=0, le=5)
    spans_per_step: int = Field(ge=1, le=20)


DEPTH_BUDGETS: dict[str, Budget] = {
    "light": Budget(
        max_steps=3,
        max_rounds=1,
        queries_per_step=2,
        results_per_query=4,
        max_parallel_researchers=3,
        max_revisions=1,
        spans_per_step=4,
    ),
    "medium": Budget(
        max_steps=5,
        max_rounds=2,
        queries_per_step=3,
        results_per_query=5,
        max_parallel_researchers=4,
        max_revisions=2,
        spans_per_step=5,
    ),
    "extended": Budget(
        max_steps=8,
        max_rounds=3,
        queries_per_step=4,
        results_per_query=8,
        max_parallel_researchers=6,
        max_revisions=2,
        spans_per_step=6,
    ),
}
"""Named budgets. ``auto`` resolves to light or medium when the plan is made."""

AUTO_DEPTH: dict[str, str] = {"simple": "light", "moderate": "medium", "complex": "medium"}
"""The depth ``auto`` becomes, by the plan's classification of the question."""


def concrete_depth(depth: str, complexity: str | None = None) -> str:
    """The depth a run keeps to: ``auto`` resolved by the plan's ``complexity``.

    Before the plan has classified the question, ``auto`` is ``medium``, the budget the
    planner plans within.
    """
    if depth != "auto":
        return depth
    return AUTO_DEPTH[complexity] if complexity is not None else "medium"


class Config(DomainModel):
    """The resolved configuration of a run, recorded in its report."""

    mode: Literal["simple", "web_search", "deep_research"]
    depth: Literal["light", "medium", "extended"]
    engine: str
    """``offline`` or the model name."""
    extractive: bool = False
    """True when the engine quotes sentences instead of writing them (the offline engine)."""
    sources: list[str]
    budget: Budget
    per_domain_cap: int = Field(ge=1, le=10)
    fetch_timeout: float = Field(ge=5, le=60)


class ReportSection(DomainModel):
    """One section of the report's Markdown."""

    title: str
    markdown: str


class Report(DomainModel):
    """The final report, schema version v1."""

    schema_version: Literal["v1"] = "v1"
    question: str
    topic: str
    outline: list[str]
    sections: list[ReportSection]
    markdown: str
    claims: list[Claim]
    citations: list[Citation]
    references: list[Reference]
    sources: list[Source]
    verification: VerificationSummary
    metrics: Metrics
    config: Config
    extractive: bool
    """True when the offline engine wrote the report from extracted sentences."""
    created_at: datetime = Field(default_factory=_now)
