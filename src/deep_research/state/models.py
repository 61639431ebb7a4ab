"""Domain models: what research finds, what the report says, and how it was checked.

snake_case in Python, camelCase in JSON exports (``model_dump(by_alias=True)``). Every model
is small: page text lives in the content store, never here.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal
from urllib.parse import quote

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


def evidence_id(step_id: str, url: str, start: int, end: int) -> str:
    """The id of the evidence a research step found at ``start:end`` of the page at ``url``.

    Derived from these, so that a retried step gives the same ids.
    """
    return stable_id("ev", step_id, url, start, end)


class DomainModel(BaseModel):
    """Base of the domain models: camelCase aliases, docstrings as field descriptions."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        use_attribute_docstrings=True,
        extra="forbid",
    )


CrawlStatus = Literal["ok", "blocked", "failed", "skipped"]

POOL_PROVIDER = "chat"
"""The provider name of a chat's earlier sources, searched by its follow-up questions."""

PageKind = Literal["page", "slide"]
"""What a document's numbered parts are: the pages of a PDF, the slides of a presentation."""


def locator(kind: PageKind, number: int) -> str:
    """How a reference names a page or a slide: ``p. 12``, ``slide 3``.

    Example:
        >>> locator("page", 12), locator("slide", 3)
        ('p. 12', 'slide 3')
    """
    return f"p. {number}" if kind == "page" else f"slide {number}"


CacheStatus = Literal["hit", "miss"]
"""Whether a web page came from the page cache or from the network."""


VenueType = Literal["journal", "preprint", "registry", "repository", "book", "website", "other"]
"""What kind of place published a work: a journal, a preprint server, a trial registry..."""


class BibRecord(DomainModel):
    """What a reference needs to be found again: authors, date, venue, identifiers.

    Scholarly providers fill it from their APIs; for web pages it holds what extraction
    found (author, date, site name). Identifiers are stored in canonical form: a DOI in
    lower case without its ``https://doi.org/`` prefix, a PMID as digits, a PMCID as
    ``PMC`` + digits, an NCT id as ``NCT`` + 8 digits, an OpenAlex id as ``W`` + digits.
    """

    authors: list[str] = Field(default_factory=list)
    """Authors in citation form (``Surname Initials``, as Vancouver writes them), or the
    responsible organization (a trial's sponsor); at most :data:`MAX_AUTHORS`."""
    more_authors: bool = False
    """True when the work has more authors than are listed (``et al.``)."""
    year: int | None = None
    date: str | None = None
    """Publication date in ISO form, as precise as known (``2021``, ``2021-03``, ``2021-03-04``)."""
    venue: str | None = None
    """The journal, preprint server, registry or site that published the work."""
    venue_type: VenueType | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publication_type: str | None = None
    """The kind of work (``Journal Article``, ``Review``, ``preprint``, ``Interventional``)."""
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    nct_id: str | None = None
    openalex_id: str | None = None
    open_access: bool | None = None
    """True when an open-access full text is known to exist."""
    versions: list[str] = Field(default_factory=list)
    """Other versions of the same work (a preprint and its published article), as
    ``doi:...``, ``pmid:...`` or ``pmcid:...``, when the metadata links them."""
    found_by: list[str] = Field(default_factory=list)
    """The providers that found this work (several when their results were merged)."""

    def identifiers(self) -> dict[str, str]:
        """The work's identifiers by kind (``doi``, ``pmid``, ``pmcid``, ``nct``, ``openalex``)."""
        pairs = (
            ("doi", self.doi),
            ("pmid", self.pmid),
            ("pmcid", self.pmcid),
            ("nct", self.nct_id),
            ("openalex", self.openalex_id),
        )
        return {kind: value for kind, value in pairs if value}

    def links(self) -> list[str]:
        """A link for each identifier: the DOI first, then PubMed, PMC, the registry, OpenAlex."""
        pairs = (
            (self.doi, "https://doi.org/{}"),
            (self.pmid, "https://pubmed.ncbi.nlm.nih.gov/{}/"),
            (self.pmcid, "https://pmc.ncbi.nlm.nih.gov/articles/{}/"),
            (self.nct_id, "https://clinicaltrials.gov/study/{}"),
            (self.openalex_id, "https://openalex.org/{}"),
        )
        return [form.format(quote(value, safe="/:;()._-")) for value, form in pairs if value]

    def link(self) -> str | None:
        """The best link to the work (the first of :meth:`links`), or ``None`` without one."""
        return next(iter(self.links()), None)


MAX_AUTHORS = 10
"""Most authors a :class:`BibRecord` lists; the rest are ``et al.``."""


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
    bib: BibRecord | None = None
    """Bibliographic record of a scholarly work (or what is known of a web page)."""
    richness: int = Field(default=0, ge=0, le=3)
    """How much text reading the result gives: 0 a title, 1 a summary, 2 an abstract,
    3 a full text. When results of several providers are merged, the richest reads."""


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


class Passage(DomainModel):
    """A run of whole sentences of a page, ranked for a research step and shown to its engine.

    Passages are computed while a step reads its pages and never stored in graph state: the
    engine picks its evidence from them (:meth:`~deep_research.engines.base.Engine.pick_evidence`).
    """

    id: str
    document_id: str
    url: Url
    title: str = ""
    """Title of the page the passage is from."""
    date: str | None = None
    """Publication date of that page (ISO, as precise as known), when known."""
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    """``document.text[start:end]``."""
    section: str | None = None
    """Heading of the section the passage starts in."""
    score: float = 0.0
    """BM25 relevance to the step, comparable among the passages of one step."""
    tokens: int = Field(default=0, ge=0)
    """Whitespace-separated tokens (about 1.3 model tokens each in English)."""
    clean: bool = False
    """True when the page's whole text was scanned and holds no instruction to the agent."""

    @model_validator(mode="after")
    def _offsets_match_text(self) -> Passage:
        if self.end - self.start != len(self.text):
            raise ValueError("passage offsets must span exactly its text")
        return self


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
    bib: BibRecord | None = None
    """Authors, date, venue and identifiers, when known."""
    aliases: list[str] = Field(default_factory=list, exclude_if=lambda urls: not urls)
    """The source's other URLs, sorted: links under which research steps found the same work
    before their records were merged (evidence quoted under them belongs to this source).
    Left out of exports when empty."""


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
    page: int | None = Field(default=None, ge=1, exclude_if=lambda page: page is None)
    """The page (of a PDF) or slide (of a presentation) on which the quote starts, from 1;
    left out of exports for documents without pages (added in schema v1, compatibly)."""
    page_kind: PageKind | None = Field(default=None, exclude_if=lambda kind: kind is None)
    """Whether :attr:`page` numbers a ``page`` or a ``slide``."""

    @property
    def locator(self) -> str | None:
        """``p. 12`` or ``slide 3``, or ``None`` for a document without pages."""
        if self.page is None or self.page_kind is None:
            return None
        return locator(self.page_kind, self.page)

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
    replaced: bool = False
    """Reflection replaced the step by a reworded one, which reports what both found."""
    replaced_by: str | None = None
    """The id of the step that replaced this one (``None``: not replaced, or not recorded)."""


class Finding(DomainModel):
    """What a researcher found for one plan step."""

    step_id: str
    notes: str
    evidence_ids: list[str] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    searches: int = 0
    sufficient: bool = True
    missing: str = ""
    """What the notes say the step still lacks, for the next queries and for reflection."""


class Requirements(BaseModel):
    """What the question explicitly asks for, as it names it (nothing added).

    The planner fills it (a structured output: the descriptions are part of its prompt); the
    report is outlined from it (:func:`deep_research.engines.llm.outline.report_outline`).
    """

    items: list[str] = Field(
        default_factory=list,
        description=(
            "Every item the question asks about by name or by kind (products, countries, "
            "companies, technologies...), each as the question names it."
        ),
    )
    dimensions: list[str] = Field(
        default_factory=list,
        description=(
            "Every attribute or aspect each item must be covered by (cost, performance, "
            "risks, market share...)."
        ),
    )
    periods: list[str] = Field(
        default_factory=list, description="Every period, year or date range the question names."
    )
    regions: list[str] = Field(
        default_factory=list, description="Every country, region or market the question names."
    )
    formats: list[str] = Field(
        default_factory=list,
        description=(
            "Every output format the question asks for: a table, numbered parts, a list of N, "
            "a recommendation, a length, a language."
        ),
    )
    judgement: str = Field(
        default="",
        description=(
            "The judgement the question asks for (which is best, whether to, a recommendation, "
            "a forecast), in its words; empty when it asks for none."
        ),
    )


class Verdict(StrEnum):
    """How well the cited evidence supports a claim."""

    SUPPORTED = "SUPPORTED"
    PARTIAL = "PARTIAL"
    UNSUPPORTED = "UNSUPPORTED"
    CONTRADICTED = "CONTRADICTED"


CheckedBy = Literal["model", "offline", "fallback"]
"""Who judged a claim (see :attr:`Claim.checked_by`)."""


ClaimType = Literal["fact", "estimate", "opinion", "synthesis", "background"]
"""What a claim states. ``synthesis``: an uncited comparison, cause or conclusion drawn from
the report's cited facts; it states no figure and names nothing the evidence does not, and
is checked for those only. ``background``: an uncited sentence of common background, with no
figure and no name the evidence lacks, that no evidence supports: kept, unsourced, unjudged."""


ReasonCode = Literal[
    "no_evidence",
    "not_aligned",
    "conflict",
    "missing",
    "negation",
    "antonym",
    "stated",
    "partly_stated",
    "not_stated",
    "figure_check",
    "analysis",
    "background",
    "no_reason",
]
"""The reasons the verifier words itself (see :mod:`deep_research.verification.reasons`)."""


class Reason(DomainModel):
    """A reason the verifier gave, as its template's code and the values filling it.

    Stored as data, not words, so that each reader's language can word it:
    :func:`deep_research.verification.reasons.render`. The ``figure_check`` reason wraps the
    figure rule's own reason: its code is the parameter ``cause``, beside that reason's values.
    """

    code: ReasonCode
    params: dict[str, str] = Field(default_factory=dict)


class Claim(DomainModel):
    """An atomic factual claim of the report, located by offsets into its Markdown."""

    id: str
    text: str
    position_start: int = Field(ge=0)
    position_end: int = Field(ge=0)
    claim_type: ClaimType = "fact"
    numeric: bool = False
    citation_keys: list[str] = Field(default_factory=list)
    """Ids of the evidence spans the claim cites."""
    verdict: Verdict | None = None
    confidence: Confidence | None = None
    reasoning: str = ""
    """Why, in words: the verifier's :attr:`reason` worded in English, or the model's own."""
    reason: Reason | None = Field(default=None, exclude_if=lambda reason: reason is None)
    """The verifier's reason as a code with its values, when the verifier wrote it (a model's
    reasoning has none, nor has a claim judged before reasons had codes); report.md and
    report.html word it in the report's language. Added to schema v1 compatibly."""
    evidence_id: str | None = None
    """The evidence span the verdict relied on."""
    checked_by: CheckedBy | None = None
    """Who judged it: the run's ``model``, the ``offline`` engine, or the offline checker as a
    ``fallback`` when the model gave no usable verdict (such a claim is never revised)."""


class Citation(DomainModel):
    """A link from a claim to an evidence span; alternates were found by the verifier."""

    claim_id: str
    evidence_id: str
    is_primary: bool = True
    reference_number: int | None = None
    """The reference the evidence is listed under in the final report (set by finalize)."""
    quote: str | None = None
    """The evidence's verbatim quote (set in the final report, so it can be audited)."""
    locator: str | None = Field(default=None, exclude_if=lambda where: where is None)
    """Where the quote stands in its document, ``p. 12`` or ``slide 3``, for PDFs and
    presentations (set in the final report; added in schema v1, compatibly)."""


def citations_of(claim: Claim) -> list[Citation]:
    """The claim's citations: its cited spans, and the alternate its verdict relied on."""
    citations = [Citation(claim_id=claim.id, evidence_id=key) for key in claim.citation_keys]
    if claim.evidence_id and claim.evidence_id not in claim.citation_keys:
        citations.append(
            Citation(claim_id=claim.id, evidence_id=claim.evidence_id, is_primary=False)
        )
    return citations


class Reference(DomainModel):
    """A numbered entry of the report's reference list."""

    number: int = Field(ge=1)
    url: Url
    title: str
    location: str
    """The URL of a web page, or the file path of a local document."""
    bib: BibRecord | None = None
    """Authors, date, venue and identifiers, when known (added in schema v1, compatibly)."""
    citation: str | None = None
    """The reference as the report lists it, in Vancouver style (see docs/scholarly-sources.md)."""
    locators: list[str] = Field(default_factory=list, exclude_if=lambda where: not where)
    """The pages or slides of the document that the report cites, in order (``p. 3``,
    ``p. 12``); left out of exports when there are none (added in schema v1, compatibly)."""


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
    fallback: int = 0
    """Claims (among those counted above) that the offline checker judged because the model
    gave no usable verdict."""

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
    cost_usd: float = 0.0
    """What the calls cost at the prices of the models that made them (0 when unpriced)."""
    trimmed: int = 0
    """Evidence spans, notes and earlier turns left out of prompts to fit a model's window."""
    picks_dropped: dict[str, int] = Field(default_factory=dict)
    """Quotes a model picked that did not become evidence, by reason (``not_found``,
    ``too_long``, ``instruction``, ``repeat``: see :mod:`deep_research.engines.quotes`)."""
    evidence_left_out: int = 0
    """Evidence spans of the kept findings the writer was not shown: its budget was full, and
    the lowest-ranked went."""
    estimated_calls: int = 0
    """Calls whose tokens the endpoint did not report (many local servers send no usage while
    streaming): their tokens are estimated from the text, so the totals are partly estimates."""
    fallbacks: dict[str, int] = Field(default_factory=dict)
    """Answers of the model that could not be used, by task (``plan``, ``notes``, ``judge``:
    one per claim, ...): the engine's fallback stood in for each (the offline engine's method,
    or a safe default). See :class:`~deep_research.engines.base.Reply`."""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
            cost_usd=self.cost_usd + other.cost_usd,
            trimmed=self.trimmed + other.trimmed,
            picks_dropped=_summed(self.picks_dropped, other.picks_dropped),
            evidence_left_out=self.evidence_left_out + other.evidence_left_out,
            estimated_calls=self.estimated_calls + other.estimated_calls,
            fallbacks=_summed(self.fallbacks, other.fallbacks),
        )


def _summed(left: dict[str, int], right: dict[str, int]) -> dict[str, int]:
    """Two tallies by name, added."""
    total = dict(left)
    for name, count in right.items():
        total[name] = total.get(name, 0) + count
    return total


BudgetLimit = Literal["tokens", "cost"]
"""A spending limit of a run (:attr:`Budget.max_tokens`, :attr:`Budget.max_cost_usd`)."""


class Metrics(DomainModel):
    """Figures of one run."""

    duration_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0
    estimated_calls: int = 0
    """Model calls whose tokens the endpoint did not report and were estimated from the text:
    when not 0, ``prompt_tokens`` and ``completion_tokens`` are partly estimates."""
    cost_estimate_usd: float = 0.0
    trimmed_for_context: int = 0
    """Evidence spans, notes and earlier turns left out of prompts to fit a model's window."""
    picks_dropped: dict[str, int] = Field(default_factory=dict)
    """Quotes the model picked that did not become evidence, by reason."""
    evidence_left_out: int = 0
    """Evidence spans the writer was not shown because its budget was full (lowest-ranked)."""
    fallbacks: dict[str, int] = Field(default_factory=dict, exclude_if=lambda tally: not tally)
    """Answers of the model that could not be used, by task: the engine's fallback stood in
    (:attr:`TokenUsage.fallbacks`). Left out of report.json when there were none."""
    budget_reached: BudgetLimit | None = None
    """The spending limit that stopped research early (the report is written from what was
    found by then), if one did."""
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
    "evidence_picked",
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
    session_id: int | None = None
    """The research session's id in the domain store (``/sessions/{id}``); ``None`` without
    one."""
    message_id: int | None = None
    """The id of the question's message in the domain store (``/messages/{id}``)."""


class Budget(DomainModel):
    """The numbers a depth stands for."""

    max_steps: int = Field(ge=1, le=16)
    max_rounds: int = Field(ge=1, le=10)
    queries_per_step: int = Field(ge=1, le=6)
    results_per_query: int = Field(ge=3, le=10)
    max_parallel_researchers: int = Field(ge=1, le=16)
    max_revisions: int = Field(ge=0, le=5)
    spans_per_step: int = Field(ge=1, le=20)
    max_tokens: int | None = Field(default=None, ge=1)
    """Model tokens (prompt and completion) the run may spend; research stops once spent."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Estimated USD the run may spend (priced models only); research stops once spent."""

    def reached(self, usage: TokenUsage) -> BudgetLimit | None:
        """Which of the run's spending limits ``usage`` has reached, if any."""
        if self.max_tokens is not None:
            if usage.prompt_tokens + usage.completion_tokens >= self.max_tokens:
                return "tokens"
        if self.max_cost_usd is not None and usage.cost_usd >= self.max_cost_usd:
            return "cost"
        return None


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
        max_steps=12,
        max_rounds=3,
        queries_per_step=4,
        results_per_query=8,
        max_parallel_researchers=6,
        max_revisions=2,
        spans_per_step=6,
    ),
}
"""Named budgets. ``auto`` resolves to one of them when the plan is made."""

AUTO_DEPTH: dict[str, str] = {"simple": "light", "moderate": "medium", "complex": "extended"}
"""The depth ``auto`` becomes, by the plan's classification of the question."""


def concrete_depth(depth: str, complexity: str | None = None) -> str:
    """The depth a run keeps to: ``auto`` resolved by the plan's ``complexity``.

    Before the plan has classified the question, ``auto`` is ``medium``. The planner plans
    within the budget of ``concrete_depth(depth, "complex")`` (``extended`` for ``auto``),
    and the plan is cut to the budget its classification resolves to.
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
    verify: bool = True
    """False when the run's claims were not checked (the ``verify`` setting was off)."""


class ReportSection(DomainModel):
    """One section of the report's Markdown."""

    title: str
    markdown: str


LimitationKind = Literal["uncovered", "conflict", "other"]
"""What a limitation is about: a part of the question no supported claim answers, sources that
disagree, or another caveat the writer stated."""


class Limitation(DomainModel):
    """One limit of the report: what it does not cover, or where its sources disagree."""

    kind: LimitationKind
    text: str
    """One sentence stating the limit, its citations rendered as reference numbers ``[n]``."""
    step_id: str | None = None
    """The plan step left uncovered (``uncovered`` limitations of a plan step)."""
    evidence_ids: list[str] = Field(default_factory=list)
    """The evidence it cites; a conflict cites both sides."""
    references: list[int] = Field(default_factory=list)
    """The reference numbers of that evidence, in order of citation."""


ConfidenceLevel = Literal["high", "medium", "low"]

PartStatus = Literal["answered", "partly", "not_answered"]
"""How far the report answers a part of the question (:class:`PartJudgement`)."""


class PartJudgement(DomainModel):
    """Whether the report answers one part of the question, by what its supported claims state."""

    part: str
    """The part of the question, as asked."""
    status: PartStatus
    """``answered``: a supported claim on the part's subject states the kind of answer it asks
    for (a figure, a name, a procedure, a yes or no, a cause); ``partly``: supported claims
    bear on it without stating that; ``not_answered``: none does."""
    asks: str = ""
    """The kind of answer the part asks for (``figure``, ``name``, ``procedure``,
    ``yes_no``, ``cause``, ``account``)."""
    evidence_ids: list[str] = Field(default_factory=list)
    """The evidence cited by the supported claims that answer it."""
    judged_by: Literal["offline", "model"] = "offline"
    """Who judged it: the lexical check, or the model (its answer checked against the claims
    it names)."""


class ReportConfidence(DomainModel):
    """How far the report can be trusted overall, and the figures that judgement rests on."""

    level: ConfidenceLevel
    basis: str
    """One sentence giving the reasons: verdicts, sources and their independence, limits."""
    supported_ratio: float | None = None
    """Share of the checked claims fully supported (``None`` when none was checked)."""
    claims_checked: int = Field(default=0, ge=0)
    sources_cited: int = Field(default=0, ge=0)
    """Distinct documents or pages the report cites."""
    independent_sources: int = Field(default=0, ge=0)
    """Distinct publishers among them: web domains, or documents of a local corpus."""
    conflicts: int = Field(default=0, ge=0)
    uncovered: int = Field(default=0, ge=0)
    parts: list[PartJudgement] = Field(default_factory=list)
    """Each part of the question, judged answered, partly answered or not answered (empty in
    reports written before the judgement existed)."""


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
    summary: str = ""
    """A few sentences answering the question, with the report's citations ``[n]``."""
    limitations: list[Limitation] = Field(default_factory=list)
    """Parts of the question left uncovered and conflicts between sources, both sides cited."""
    confidence: ReportConfidence | None = None
    """The overall confidence and its basis; ``None`` in reports written before it existed
    and in ``simple`` answers, which cite nothing."""
