"""Request and response bodies of the server's HTTP routes (their OpenAPI schemas).

Keys are snake_case, like the LangGraph server API beside them; the report itself is the v1
export (camelCase), exactly as ``report.json`` holds it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from deep_research.context import PlainText


class _Row(BaseModel):
    model_config = ConfigDict(from_attributes=True, use_attribute_docstrings=True)


class ChatSummary(_Row):
    """A chat: one LangGraph thread of the user."""

    thread_id: str
    title: str
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None = None


class MessageOut(_Row):
    """One turn of a chat."""

    id: int
    """The message id (for feedback)."""
    position: int
    role: str
    content: str
    query_mode: str | None
    is_clarification: bool
    session_id: int | None
    """The research session the message belongs to."""
    created_at: datetime


class SessionSummary(_Row):
    """The research done for one question of a chat."""

    id: int
    question_nr: int
    question: str
    status: str
    """``in_progress``, ``interrupted``, ``completed`` or ``failed``."""
    query_mode: str | None
    depth: str | None
    error: str | None
    started_at: datetime
    completed_at: datetime | None


class ChatDetail(ChatSummary):
    """A chat with its messages and research sessions."""

    messages: list[MessageOut]
    sessions: list[SessionSummary]


class SessionDetail(SessionSummary):
    """A research session with its plan and verification summary."""

    thread_id: str
    brief: str | None
    plan: list[Any] | None
    classification: dict[str, Any] | None
    verification: dict[str, Any] | None
    has_report: bool


class SourceOut(_Row):
    """A source the session consulted."""

    url: str
    title: str
    provider: str
    crawl_status: str
    reason: str | None
    document_id: str | None
    is_cited: bool
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    nct_id: str | None = None
    openalex_id: str | None = None
    authors: list[str] | None = None
    year: int | None = None
    published: str | None = None
    """Publication date, ISO, as precise as known."""
    venue: str | None = None
    bibliography: dict[str, Any] | None = None
    """The whole bibliographic record, as a report's ``bib`` (docs/scholarly-sources.md)."""


class EvidenceOut(_Row):
    """A verbatim quote selected as evidence, with its offsets in the document."""

    evidence_id: str
    url: str
    document_id: str
    step_id: str
    quote: str
    start: int
    end: int
    section: str | None
    relevance: float
    has_numbers: bool


class CitationOut(_Row):
    """A claim's link to evidence: primary (cited by the report) or an alternate."""

    evidence_id: str
    is_primary: bool


class ClaimOut(_Row):
    """A claim of the report and its verdict."""

    claim_id: str
    text: str
    claim_type: str
    position_start: int
    position_end: int
    numeric: bool
    citation_keys: list[Any]
    verdict: str | None
    """``SUPPORTED``, ``PARTIAL``, ``UNSUPPORTED`` or ``CONTRADICTED``."""
    confidence: float | None
    reasoning: str
    evidence_id: str | None
    citations: list[CitationOut] = Field(default_factory=list)


class EventOut(_Row):
    """A progress event, as streamed on ``stream_mode="custom"``."""

    type: str
    at: datetime
    data: dict[str, Any]
    node: str
    task_id: str
    seq: int


class SubStepOut(_Row):
    """One plan step's research within a round."""

    sub_step_nr: int
    step_id: str
    instructions: str | None
    """The step's title, as dispatch sent it."""
    reasoning: str | None
    """The step's intent."""
    tool: str | None
    """``search:`` and the providers it searched."""
    sub_answer: str | None
    """The researcher's notes, with citation markers."""
    cited_docs: list[Any] | None
    """URLs of the documents the notes cite."""
    claims: list[Any] | None
    """Ids of the evidence spans the notes cite."""
    extra_data: dict[str, Any] | None
    """The plan step or finding as recorded (queries, searches, sufficiency...)."""


class IterationOut(_Row):
    """A research round: its steps, reflect's decision, and each step's research."""

    iteration_nr: int
    steps: list[Any] | None
    decision: str | None
    reasoning: str | None
    sub_steps: list[SubStepOut] = Field(default_factory=list)


class ChatRename(BaseModel):
    """A chat's new title."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    title: PlainText = Field(min_length=1, max_length=200)
    """The title, 1 to 200 characters."""


class FeedbackIn(BaseModel):
    """A rating of an answer."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    rating: Literal[1, -1]
    """1 (thumbs up) or -1 (thumbs down)."""
    text: PlainText | None = Field(default=None, max_length=4000)
    """An optional comment."""
    trace_id: str | None = Field(default=None, max_length=100)
    """The run's trace id (LangSmith), if any."""


class FeedbackOut(_Row):
    """The user's feedback on a message."""

    message_id: int
    rating: int
    text: str | None
    trace_id: str | None
    updated_at: datetime


class PurgeOut(BaseModel):
    """What a purge erased for good."""

    threads: list[str]
    """The thread ids of the chats erased (rows and every checkpoint)."""
    documents: int
    """Pages of text removed from the content store (no other chat referred to them)."""
    items: int = 0
    """Items removed from your own store namespaces (``POST /me/purge``)."""


class Options(BaseModel):
    """What a run on this server may choose (``GET /options``)."""

    user: str
    """The user the request acts as."""
    models: list[str]
    """The models a run may pick (``offline`` is the extractive engine)."""
    default_model: str
    """The model a run uses when it picks none."""
    sources: list[str]
    """Source choices: ``auto``, the configured providers and the scholarly ones."""
    modes: list[str]
    depths: list[str]
    store: bool
    """Whether the server keeps chats (``False``: ``DEEP_RESEARCH_DATABASE_URL=memory``)."""
