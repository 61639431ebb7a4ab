"""The domain store's tables: chats and their messages, research sessions and what they found.

Every table hangs off a :class:`Chat`, which belongs to one user; reads are scoped through it
(see :mod:`deep_research.persistence.repository`). Rows written while research runs carry a
natural key (a unique constraint), so that the recorder's upserts never duplicate a row::

    Chat (user_id, thread_id) ─┬─ Message          (chat, position)
                               └─ ResearchSession  (chat, question_nr)
                                   ├─ ResearchIteration (session, iteration_nr)
                                   ├─ ResearchSubStep   (session, iteration_nr, sub_step_nr)
                                   ├─ Source            (session, url_hash)
                                   ├─ EvidenceSpan      (session, evidence_id)
                                   ├─ Claim             (session, claim_id) ─ Citation
                                   └─ ResearchEvent     (session, task_id, seq)
    UserPreferences (user_id)      MessageFeedback (message, user_id)
    ActiveRun (run_id): the server's run cap, shared by its replicas
    ClosedThread (thread_id): a deleted or purged chat's thread, which takes no more writes

JSON columns are JSONB on PostgreSQL and JSON elsewhere. Deleting a chat (a purge) cascades
to everything under it, in the database (``ON DELETE CASCADE``) and in the ORM.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint names Alembic can reproduce on every backend."""

PortableJSON = JSON().with_variant(JSONB(), "postgresql")
"""JSON everywhere, JSONB on PostgreSQL."""

Id = BigInteger().with_variant(Integer(), "sqlite")
"""64-bit keys; SQLite auto-increments only an ``INTEGER PRIMARY KEY``."""

SESSION_STATUSES = ("in_progress", "completed", "failed", "interrupted")
MESSAGE_ROLES = ("user", "assistant", "system")
CRAWL_STATUSES = ("ok", "blocked", "failed", "skipped")


def utcnow() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Base(DeclarativeBase):
    """Declarative base with the naming convention and the portable JSON type."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        dict[str, Any]: PortableJSON,
        list[Any]: PortableJSON,
        datetime: DateTime(timezone=True),
    }


class Timestamps:
    """``created_at`` and ``updated_at`` columns."""

    created_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        server_default=func.now(), default=utcnow, onupdate=utcnow
    )


class Chat(Timestamps, Base):
    """A conversation: one LangGraph thread of one user, holding many questions."""

    __tablename__ = "chats"
    __table_args__ = (Index(None, "user_id", "deleted_at", "updated_at"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    user_id: Mapped[str] = mapped_column(String(255))
    thread_id: Mapped[str] = mapped_column(String(255), unique=True)
    """The LangGraph thread the chat's runs are checkpointed under."""
    title: Mapped[str] = mapped_column(String(200), default="")
    deleted_at: Mapped[datetime | None]
    """Set by a soft delete; the chat is purged after the recovery window."""

    messages: Mapped[list[Message]] = relationship(
        back_populates="chat", cascade="all, delete-orphan", passive_deletes=True
    )
    sessions: Mapped[list[ResearchSession]] = relationship(
        back_populates="chat", cascade="all, delete-orphan", passive_deletes=True
    )


class ResearchSession(Timestamps, Base):
    """The research done for one question of a chat."""

    __tablename__ = "research_sessions"
    __table_args__ = (
        UniqueConstraint("chat_id", "question_nr"),
        CheckConstraint(_in("status", SESSION_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"))
    question_nr: Mapped[int]
    """1 for the chat's first question, 2 for the follow-up, and so on."""
    question: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="in_progress")
    query_mode: Mapped[str | None] = mapped_column(String(20))
    depth: Mapped[str | None] = mapped_column(String(20))
    brief: Mapped[str | None] = mapped_column(Text)
    plan: Mapped[list[Any] | None]
    classification: Mapped[dict[str, Any] | None]
    verification: Mapped[dict[str, Any] | None]
    report: Mapped[dict[str, Any] | None]
    """The final v1 report (camelCase JSON), once the session completed."""
    error: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow)
    completed_at: Mapped[datetime | None]

    chat: Mapped[Chat] = relationship(back_populates="sessions")


class Message(Timestamps, Base):
    """One turn of a chat: the question, a clarification exchange, or the report."""

    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("chat_id", "position"),
        CheckConstraint(_in("role", MESSAGE_ROLES), name="role"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"))
    session_id: Mapped[int | None] = mapped_column(
        ForeignKey("research_sessions.id", ondelete="SET NULL"), index=True
    )
    position: Mapped[int]
    """Order in the chat; derived from the question number, so a rewrite lands in place."""
    role: Mapped[str] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text)
    query_mode: Mapped[str | None] = mapped_column(String(20))
    is_clarification: Mapped[bool] = mapped_column(Boolean, default=False)
    tool_calls: Mapped[list[Any] | None]

    chat: Mapped[Chat] = relationship(back_populates="messages")


class ResearchIteration(Timestamps, Base):
    """One research round of a session: the steps dispatched and reflect's decision."""

    __tablename__ = "research_iterations"
    __table_args__ = (UniqueConstraint("session_id", "iteration_nr"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    iteration_nr: Mapped[int]
    steps: Mapped[list[Any] | None]
    decision: Mapped[str | None] = mapped_column(String(20))
    reasoning: Mapped[str | None] = mapped_column(Text)


class ResearchSubStep(Timestamps, Base):
    """One researcher's work on one plan step within an iteration."""

    __tablename__ = "research_sub_steps"
    __table_args__ = (UniqueConstraint("session_id", "iteration_nr", "sub_step_nr"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    iteration_nr: Mapped[int]
    sub_step_nr: Mapped[int]
    step_id: Mapped[str] = mapped_column(String(32))
    instructions: Mapped[str | None] = mapped_column(Text)
    tool: Mapped[str | None] = mapped_column(String(100))
    reasoning: Mapped[str | None] = mapped_column(Text)
    sub_answer: Mapped[str | None] = mapped_column(Text)
    cited_docs: Mapped[list[Any] | None]
    claims: Mapped[list[Any] | None]
    extra_data: Mapped[dict[str, Any] | None]


class Source(Timestamps, Base):
    """A source the session consulted, cited or not."""

    __tablename__ = "sources"
    __table_args__ = (
        UniqueConstraint("session_id", "url_hash"),
        CheckConstraint(_in("crawl_status", CRAWL_STATUSES), name="crawl_status"),
        Index(None, "doi"),
        Index(None, "pmid"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(Text)
    """Normalized URL."""
    url_hash: Mapped[str] = mapped_column(String(64))
    """sha256 of the URL: the natural key, since URLs can exceed an index entry."""
    title: Mapped[str] = mapped_column(Text, default="")
    provider: Mapped[str] = mapped_column(String(50), default="")
    crawl_status: Mapped[str] = mapped_column(String(20), default="ok")
    reason: Mapped[str | None] = mapped_column(Text)
    document_id: Mapped[str | None] = mapped_column(String(100))
    """Key of the page text in the content store."""
    is_cited: Mapped[bool] = mapped_column(Boolean, default=False)
    doi: Mapped[str | None] = mapped_column(String(255))
    """The work's DOI, lower case, without ``https://doi.org/``."""
    pmid: Mapped[str | None] = mapped_column(String(20))
    pmcid: Mapped[str | None] = mapped_column(String(20))
    nct_id: Mapped[str | None] = mapped_column(String(20))
    openalex_id: Mapped[str | None] = mapped_column(String(40))
    authors: Mapped[list[str] | None] = mapped_column(PortableJSON)
    """Authors in citation form (``Surname Initials``)."""
    year: Mapped[int | None] = mapped_column(Integer)
    published: Mapped[str | None] = mapped_column(String(10))
    """Publication date, ISO, as precise as known (``2021``, ``2021-03``, ``2021-03-04``)."""
    venue: Mapped[str | None] = mapped_column(Text)
    """Journal, preprint server, registry or site."""
    bibliography: Mapped[dict[str, Any] | None] = mapped_column(PortableJSON)
    """The whole bibliographic record (volume, issue, pages, versions...), as in report.json."""


class EvidenceSpan(Timestamps, Base):
    """A verbatim quote a researcher selected, with its offsets in the document."""

    __tablename__ = "evidence_spans"
    __table_args__ = (UniqueConstraint("session_id", "evidence_id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    evidence_id: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(Text)
    document_id: Mapped[str] = mapped_column(String(100))
    step_id: Mapped[str] = mapped_column(String(32))
    quote: Mapped[str] = mapped_column(Text)
    start: Mapped[int]
    end: Mapped[int]
    section: Mapped[str | None] = mapped_column(Text)
    relevance: Mapped[float] = mapped_column(Float, default=0.0)
    has_numbers: Mapped[bool] = mapped_column(Boolean, default=False)
    page: Mapped[int | None]
    """The page (or slide) of a PDF (or presentation) the quote starts on, from 1."""
    page_kind: Mapped[str | None] = mapped_column(String(8))
    """``page`` or ``slide``."""


class Claim(Timestamps, Base):
    """An atomic claim of the session's report and its verdict."""

    __tablename__ = "claims"
    __table_args__ = (UniqueConstraint("session_id", "claim_id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    claim_id: Mapped[str] = mapped_column(String(100))
    text: Mapped[str] = mapped_column(Text)
    claim_type: Mapped[str] = mapped_column(String(20), default="fact")
    position_start: Mapped[int]
    position_end: Mapped[int]
    numeric: Mapped[bool] = mapped_column(Boolean, default=False)
    citation_keys: Mapped[list[Any]] = mapped_column(default=list)
    verdict: Mapped[str | None] = mapped_column(String(20))
    confidence: Mapped[float | None] = mapped_column(Float)
    reasoning: Mapped[str] = mapped_column(Text, default="")
    reason: Mapped[dict[str, Any] | None]
    """The verifier's reason as ``{"code": ..., "params": {...}}``; empty for a model's."""
    evidence_id: Mapped[str | None] = mapped_column(String(100))
    checked_by: Mapped[str | None] = mapped_column(String(20))
    """``model``, ``offline``, or ``fallback``: the offline checker stood in for the model."""


class Citation(Timestamps, Base):
    """A claim ↔ evidence link; alternates (``is_primary`` false) were found by the verifier."""

    __tablename__ = "citations"
    __table_args__ = (
        UniqueConstraint("session_id", "claim_id", "evidence_id"),
        ForeignKeyConstraint(
            ["session_id", "claim_id"],
            ["claims.session_id", "claims.claim_id"],
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["session_id", "evidence_id"],
            ["evidence_spans.session_id", "evidence_spans.evidence_id"],
            ondelete="CASCADE",
        ),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    claim_id: Mapped[str] = mapped_column(String(100))
    evidence_id: Mapped[str] = mapped_column(String(100))
    is_primary: Mapped[bool] = mapped_column(Boolean, default=True)


class ResearchEvent(Base):
    """A progress event of a session, as streamed on ``stream_mode="custom"``."""

    __tablename__ = "research_events"
    __table_args__ = (
        UniqueConstraint("session_id", "task_id", "seq"),
        Index(None, "session_id", "at"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("research_sessions.id", ondelete="CASCADE"))
    task_id: Mapped[str] = mapped_column(String(64))
    """The LangGraph task that emitted it; a re-run of the task reuses the id."""
    seq: Mapped[int]
    """Position among the task's events."""
    node: Mapped[str] = mapped_column(String(64), default="")
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class UserPreferences(Timestamps, Base):
    """A user's defaults (mode, depth, model...), one row per user."""

    __tablename__ = "user_preferences"

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    user_id: Mapped[str] = mapped_column(String(255), unique=True)
    preferences: Mapped[dict[str, Any]] = mapped_column(default=dict)


class MessageFeedback(Timestamps, Base):
    """A user's rating of an answer: thumbs up (1) or down (-1), a comment, a trace id."""

    __tablename__ = "message_feedback"
    __table_args__ = (
        UniqueConstraint("message_id", "user_id"),
        CheckConstraint("rating IN (-1, 1)", name="rating"),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(255))
    rating: Mapped[int] = mapped_column(SmallInteger)
    text: Mapped[str | None] = mapped_column(Text)
    trace_id: Mapped[str | None] = mapped_column(String(100))


class ActiveRun(Base):
    """A run the server admitted under its user's cap, counted while it may still be active.

    The replicas of a server that share the database count a user's runs here
    (``DEEP_RESEARCH_MAX_RUNS_PER_USER``, see :mod:`deep_research.server.run_cap`). The replica
    that admitted a run renews its lease while the run is pending or running and deletes the
    row once it is not; a row whose lease ran out (its replica stopped) no longer counts.
    Times are Unix seconds, compared across replicas (their clocks are assumed in sync).
    """

    __tablename__ = "active_runs"
    __table_args__ = (Index(None, "user_id", "lease_until"),)

    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(255))
    thread_id: Mapped[str | None] = mapped_column(String(64))
    """``None`` for a thread-less run (``POST /runs``), whose thread the cap is not told."""
    replica: Mapped[str] = mapped_column(String(100))
    """The server process that admitted the run and renews its lease."""
    admitted_at: Mapped[float] = mapped_column(Float)
    lease_until: Mapped[float] = mapped_column(Float)


class ClosedThread(Base):
    """The thread of a deleted or purged chat: nothing may be written under it any more.

    Deleting a chat closes its thread (restoring it opens it again); purging it closes it for
    good, and the row outlives the chat, so its thread id is never used again. The recorder,
    the checkpointers and the content store look the thread up here before they write
    (:mod:`deep_research.persistence.closed`), so a run that outlives its chat's deletion or
    purge cannot write anything back.
    """

    __tablename__ = "closed_threads"

    thread_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(255))
    purged: Mapped[bool] = mapped_column(Boolean)
    """``True`` once the chat was purged (for good); ``False`` while it is only deleted."""
    closed_at: Mapped[datetime] = mapped_column(default=utcnow)
