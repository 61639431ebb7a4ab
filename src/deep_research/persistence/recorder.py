"""Recording research into the domain store while it runs, one batch per node.

A node hands its typed records (:mod:`.records`) to
:meth:`Services.record <deep_research.services.Services.record>` in a :class:`Batch`, which
resolves the run's :class:`RunScope` (user, thread, question number), adds the events the
node emitted, and passes one :class:`Batch` to the :class:`Recorder`. :class:`SqlRecorder`
writes a batch in one transaction of upserts on natural keys, so a retried or resumed node
rewrites its rows instead of duplicating them. :class:`NullRecorder` writes nothing: runs
without a configured database (tests, the Python API) are not recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from langgraph.config import get_config
from langgraph.runtime import Runtime
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.events import RecordedEvent, RunIds, stamp_run_ids
from deep_research.persistence import repository as repo
from deep_research.persistence import tables as tables
from deep_research.persistence.db import (
    Database,
    create_engine,
    ensure_schema,
    finished,
    open_database,
)
from deep_research.persistence.records import (
    IterationRecord,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
    SubStepRecord,
    question_position,
)
from deep_research.settings import get_settings
from deep_research.state.models import BibRecord, Citation, Claim, EvidenceSpan, Source

MAX_REMEMBERED_THREADS = 10_000
"""Threads whose ids a recorder keeps (least recently used are forgotten first)."""

T = TypeVar("T")


@dataclass(frozen=True)
class RunScope:
    """Whose run, on which thread, for which question of the chat."""

    user_id: str
    thread_id: str
    question_nr: int


@dataclass
class Batch:
    """What one node records; every part is optional (see :mod:`.records`)."""

    session: SessionUpdate = field(default_factory=SessionUpdate)
    title: str = ""
    """The chat's title (written by the engine, see ``Engine.title``), set when the chat has
    none yet."""
    messages: Sequence[MessageRecord] = ()
    iterations: Sequence[IterationRecord] = ()
    sub_steps: Sequence[SubStepRecord] = ()
    sources: Sequence[Source] = ()
    evidence: Sequence[EvidenceSpan] = ()
    claims: Sequence[Claim] = ()
    citations: Sequence[Citation] = ()
    final_claims: bool = False
    """True when ``claims`` are the report's final claims: the others are deleted."""
    cited_urls: Sequence[str] | None = None
    """URLs the final report cites; their sources are flagged ``is_cited``."""
    events: Sequence[RecordedEvent] = ()


class Recorder(Protocol):
    """Writes batches to the domain store."""

    async def write(self, scope: RunScope, batch: Batch) -> None:
        """Write one node's batch (idempotently)."""
        ...

    async def load_run_ids(self, scope: RunScope) -> None:
        """Stamp the task's events with the ids of the scope's question, if recorded."""
        ...


class NullRecorder:
    """Records nothing: the run has no domain store."""

    async def write(self, scope: RunScope, batch: Batch) -> None:
        """Discard the batch."""

    async def load_run_ids(self, scope: RunScope) -> None:
        """Nothing is recorded, so there are no ids."""


def url_hash(url: str) -> str:
    """The natural key of a source's URL."""
    return hashlib.sha256(url.encode()).hexdigest()


@dataclass
class SqlRecorder:
    """Writes batches to a SQLAlchemy database, one transaction per batch."""

    database: Database
    max_chats: int = 1000
    max_messages: int = 400
    url: str | None = None
    """When set, the schema is upgraded to head before the first write."""
    known_ids: OrderedDict[str, RunIds] = field(default_factory=OrderedDict, repr=False)
    """Each thread's current question's ids, least recently used first (at most
    :data:`MAX_REMEMBERED_THREADS`); a cache of what the database holds."""

    def _remember(self, thread_id: str, ids: RunIds) -> None:
        self.known_ids[thread_id] = ids
        self.known_ids.move_to_end(thread_id)
        while len(self.known_ids) > MAX_REMEMBERED_THREADS:
            self.known_ids.popitem(last=False)

    def _stamp(self, thread_id: str) -> None:
        """Stamp the thread's known ids on this task's events.

        Here, in the caller's task: :func:`finished` runs the transaction in a task of its
        own, whose context variables the caller does not see.
        """
        known = self.known_ids.get(thread_id)
        if known is not None:
            stamp_run_ids(thread_id, known)

    async def write(self, scope: RunScope, batch: Batch) -> None:
        """Upsert the batch's rows under the scope's chat and session (see :func:`finished`)."""
        await finished(self._write(scope, batch))
        self._stamp(scope.thread_id)

    async def _write(self, scope: RunScope, batch: Batch) -> None:
        if self.url is not None:
            await asyncio.to_thread(ensure_schema, self.url)
        async with self.database.session_scope() as session:
            chat_id = await repo.upsert_chat(
                session,
                user_id=scope.user_id,
                thread_id=scope.thread_id,
                title=batch.title,
                max_chats=self.max_chats,
            )
            values = batch.session.columns()
            if batch.session.status is SessionStatus.COMPLETED:
                values["completed_at"] = tables.utcnow()
            session_id = await repo.upsert_session(
                session, chat_id=chat_id, question_nr=scope.question_nr, values=values
            )
            await repo.upsert_messages(
                session,
                chat_id=chat_id,
                rows=[
                    {"session_id": session_id, **m.columns(scope.question_nr)}
                    for m in batch.messages
                ],
                max_messages=self.max_messages,
            )
            await _write_research(session, session_id, batch)
            known = self.known_ids.get(scope.thread_id)
            if known is None or known.question_nr != scope.question_nr or not known.message_id:
                message_id = await repo.get_message_id(
                    session, chat_id=chat_id, position=question_position(scope.question_nr)
                )
                known = RunIds(scope.question_nr, session_id, message_id)
            self._remember(scope.thread_id, known)

    async def load_run_ids(self, scope: RunScope) -> None:
        """Read the ids of the scope's session and question, if recorded, for its events.

        A run resumed in a new process calls it before its first node, so that the events of
        that node carry the ids too.
        """
        known = self.known_ids.get(scope.thread_id)
        if known is not None and known.question_nr == scope.question_nr:
            stamp_run_ids(scope.thread_id, known)
            return
        await finished(self._load_run_ids(scope))
        self._stamp(scope.thread_id)

    async def _load_run_ids(self, scope: RunScope) -> None:
        if self.url is not None:
            await asyncio.to_thread(ensure_schema, self.url)
        async with self.database.session_scope() as session:
            found = await repo.get_run_ids(
                session,
                user_id=scope.user_id,
                thread_id=scope.thread_id,
                question_nr=scope.question_nr,
                position=question_position(scope.question_nr),
            )
        if found is not None:
            self._remember(scope.thread_id, RunIds(scope.question_nr, *found))


async def _write_research(session: AsyncSession, session_id: int, batch: Batch) -> None:
    def rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"session_id": session_id, **item} for item in items]

    await repo.upsert_rows(
        session,
        model=tables.ResearchIteration,
        rows=rows([i.columns() for i in batch.iterations]),
        keys=["session_id", "iteration_nr"],
    )
    await repo.upsert_rows(
        session,
        model=tables.ResearchSubStep,
        rows=rows([s.columns() for s in batch.sub_steps]),
        keys=["session_id", "iteration_nr", "sub_step_nr"],
    )
    await repo.upsert_rows(
        session,
        model=tables.Source,
        rows=rows([_source(s) for s in batch.sources]),
        keys=["session_id", "url_hash"],
    )
    await repo.upsert_rows(
        session,
        model=tables.EvidenceSpan,
        rows=rows([_evidence(e) for e in batch.evidence]),
        keys=["session_id", "evidence_id"],
    )
    aliases = {
        alias: (url_hash(alias), source.url) for source in batch.sources for alias in source.aliases
    }
    await repo.merge_source_rows(session, session_id=session_id, aliases=aliases)
    await repo.upsert_rows(
        session,
        model=tables.Claim,
        rows=rows([_claim(c) for c in batch.claims]),
        keys=["session_id", "claim_id"],
    )
    if batch.final_claims:
        await repo.keep_only_claims(
            session, session_id=session_id, claim_ids=[c.id for c in batch.claims]
        )
    await repo.upsert_rows(
        session,
        model=tables.Citation,
        rows=rows([c.model_dump(include=_columns(tables.Citation)) for c in batch.citations]),
        keys=["session_id", "claim_id", "evidence_id"],
    )
    if batch.cited_urls is not None:
        await repo.mark_cited(session, session_id=session_id, urls=batch.cited_urls)
    await repo.upsert_rows(
        session,
        model=tables.ResearchEvent,
        rows=rows([_event(e) for e in batch.events]),
        keys=["session_id", "task_id", "seq"],
    )


def _source(source: Source) -> dict[str, Any]:
    return {
        "url": source.url,
        "url_hash": url_hash(source.url),
        "title": source.title,
        "provider": source.provider,
        "crawl_status": source.crawl_status,
        "reason": source.reason,
        "document_id": source.document_id,
        **_bibliographic(source.bib),
    }


def _bibliographic(bib: BibRecord | None) -> dict[str, Any]:
    """A source row's identifier and bibliographic columns (all empty without a record)."""
    if bib is None:
        return dict.fromkeys(
            ("doi", "pmid", "pmcid", "nct_id", "openalex_id", "authors", "year", "published")
            + ("venue", "bibliography")
        )
    return {
        "doi": bib.doi,
        "pmid": bib.pmid,
        "pmcid": bib.pmcid,
        "nct_id": bib.nct_id,
        "openalex_id": bib.openalex_id,
        "authors": bib.authors,
        "year": bib.year,
        "published": bib.date,
        "venue": bib.venue,
        "bibliography": bib.model_dump(mode="json", by_alias=True),
    }


def _columns(table: type[tables.Base]) -> set[str]:
    """The table's own data columns (what a domain model may fill)."""
    own = {"id", "session_id", "created_at", "updated_at"}
    return {column.name for column in table.__table__.columns} - own


def _evidence(span: EvidenceSpan) -> dict[str, Any]:
    columns = _columns(tables.EvidenceSpan)
    row = span.model_dump(mode="json", include=columns)  # leaves out an unset page
    return {"evidence_id": span.id, **dict.fromkeys(columns - {"evidence_id"}), **row}


def _claim(claim: Claim) -> dict[str, Any]:
    row = claim.model_dump(mode="json", include=_columns(tables.Claim))
    return {"claim_id": claim.id, **row}


def _event(event: RecordedEvent) -> dict[str, Any]:
    at = event.payload.get("at")
    return {
        "task_id": event.task_id,
        "seq": event.seq,
        "node": event.node,
        "type": event.payload["type"],
        "data": event.payload.get("data", {}),
        "at": datetime.fromisoformat(at) if isinstance(at, str) else tables.utcnow(),
    }


NULL_RECORDER = NullRecorder()


def authenticated_user_id(configurable: Mapping[str, Any]) -> str | None:
    """The user a LangGraph server authenticated for this run; ``None`` outside a server.

    langgraph-api and Aegra both put the authenticated user in ``langgraph_auth_user``, over
    anything a client sent under that name (an object with ``identity``, or its dict once the
    run's config was stored). Other keys (``user_id``, ``langgraph_auth_user_id``) are not
    trusted: Aegra keeps a ``user_id`` or ``langgraph_auth_user_id`` the client sent.
    """
    user = configurable.get("langgraph_auth_user")
    identity = getattr(user, "identity", None)
    if identity is None and isinstance(user, Mapping):
        identity = user.get("identity")
    return str(identity) if identity else None


def run_scope(runtime: Runtime[Any], question_nr: int) -> RunScope | None:
    """The scope of the node running now; ``None`` without a thread (no checkpointer).

    On a server, the user is the one it authenticated (:func:`authenticated_user_id`) and
    nothing a client sent. Elsewhere (the Python API, the command line) it is the ``user_id``
    the caller passed in the run's configurable, or ``DEEP_RESEARCH_USER_ID`` (``local``).
    """
    info = runtime.execution_info
    if info is None or not info.thread_id:
        return None
    configurable = get_config().get("configurable", {})
    user = (
        authenticated_user_id(configurable) or configurable.get("user_id") or get_settings().user_id
    )
    return RunScope(str(user), info.thread_id, max(question_nr, 1))


def default_recorder() -> Recorder:
    """The recorder for graphs built without one: SQL when ``DEEP_RESEARCH_DATABASE_URL`` is set.

    Without that variable (tests, the Python API, the embedded default) nothing is recorded;
    the command line opens its own recorder on the embedded SQLite file.
    """
    url = get_settings().database_url
    return NULL_RECORDER if url is None else recorder_for_url(url)


def recorder_for_url(url: str) -> Recorder:
    """The shared recorder on ``url``; a null recorder for ``memory``.

    The server's graph records through it on the server's database URL (by default the
    embedded SQLite file).
    """
    if url == "memory":
        return NULL_RECORDER
    settings = get_settings()
    return _shared_recorder(url, settings.max_chats_per_user, settings.max_messages_per_chat)


@lru_cache(maxsize=8)
def _shared_recorder(url: str, max_chats: int, max_messages: int) -> SqlRecorder:
    """One unpooled recorder per URL, usable from any event loop; migrates on first use."""
    database = Database(create_engine(url, pooled=False))
    return SqlRecorder(database, max_chats=max_chats, max_messages=max_messages, url=url)


@asynccontextmanager
async def open_recorder(url: str) -> AsyncIterator[Recorder]:
    """A recorder on ``url`` (schema upgraded first), or a null recorder for ``memory``."""
    if url == "memory":
        yield NULL_RECORDER
        return
    settings = get_settings()
    async with open_database(url) as database:
        yield SqlRecorder(
            database,
            max_chats=settings.max_chats_per_user,
            max_messages=settings.max_messages_per_chat,
        )
