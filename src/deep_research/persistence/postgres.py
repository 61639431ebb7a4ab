"""LangGraph's PostgreSQL checkpointer and store on bounded pools (see :mod:`.timeouts`).

:func:`open_pool` gives psycopg pools whose connections carry the connect, keepalive and
statement timeouts, and whose callers wait at most the operation timeout for a connection.
:class:`BoundedPostgresSaver` and :class:`BoundedPostgresStore` run each of their database
calls under :func:`~deep_research.persistence.timeouts.bounded`, so a lost database ends a
run with a :class:`~deep_research.errors.DatabaseUnavailableError` instead of a hang. Both
refuse writes under a closed thread (a deleted or purged chat's,
:mod:`~deep_research.persistence.closed`): a write runs in one transaction that first takes
the thread's lock shared and looks the thread up (:func:`open_threads`), so no purge closes
it between the lookup and the write.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from typing import Any, Self, cast

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.base import Op, Result, TTLConfig
from langgraph.store.postgres.aio import AsyncPostgresStore
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from deep_research.errors import DatabaseUnavailableError
from deep_research.persistence.closed import (
    POSTGRES_QUERY,
    POSTGRES_WRITER_LOCK,
    closed_error,
    thread_lock_key,
    written_threads,
)
from deep_research.persistence.timeouts import (
    SEVER_GRACE,
    Breaker,
    Call,
    DatabaseTimeouts,
    bounded,
    breaker_for,
    ended_errors,
    hold,
    redact,
    release,
    unavailable,
    within,
)
from deep_research.persistence.urls import postgres_conninfo
from deep_research.persistence.versions import ShortVersions

Connection = psycopg.AsyncConnection[DictRow]


class TrackedPool(AsyncConnectionPool[Connection]):
    """A pool whose connections count, while handed out, for the database calls under way.

    A call that runs out of time, or that the breaker ends, can then sever them (see
    :func:`~deep_research.persistence.timeouts.hold`).
    """

    async def getconn(self, timeout: float | None = None) -> Connection:
        """A connection from the pool, held by the calls under way."""
        connection = await super().getconn(timeout)
        hold(connection)
        return connection

    async def putconn(self, conn: Connection) -> None:
        """Return ``conn`` to the pool (a severed one is discarded)."""
        release(conn)
        await super().putconn(conn)


CLOSE_TIMEOUT = 1.0
"""Seconds a closing pool waits for its workers (one may be stuck connecting to a lost
database; it is abandoned, not awaited). No wait at all once the database was found lost."""


@asynccontextmanager
async def _statement_deadline(connection: BoundedConnection) -> AsyncIterator[None]:
    """End a statement that outlasts the operation timeout as the driver's ``OperationalError``.

    The connection is severed (see :func:`~deep_research.persistence.timeouts.within`), so
    SQLAlchemy treats it as disconnected, and the domain store's session scope reports the
    database as unavailable. The database's breaker trips: SQLAlchemy would otherwise answer
    a failed ping with a new connection, waiting out the connect timeout on a database known
    to be gone.
    """
    seconds = DatabaseTimeouts.from_settings().operation
    breaker = connection.breaker
    call: Call | None = None
    try:
        async with within(seconds, connection=connection, breaker=breaker) as call:
            yield
    except ended_errors() as exc:
        if call is None or not call.ended:
            raise
        if breaker is not None:
            breaker.trip(
                DatabaseUnavailableError(
                    f"the database {redact(connection.url)} did not answer within {seconds:g} s"
                    " while using the domain store"
                )
            )
        raise psycopg.OperationalError(f"no answer within {seconds:g} s") from exc


class BoundedCursor(psycopg.AsyncCursor[Any]):
    """A cursor whose statements end within the operation timeout (for SQLAlchemy)."""

    async def execute(
        self,
        query: Any,
        params: Any = None,
        *,
        prepare: bool | None = None,
        binary: bool | None = None,
    ) -> Self:
        """Run one statement within the timeout."""
        async with _statement_deadline(cast(BoundedConnection, self.connection)):
            return await super().execute(query, params, prepare=prepare, binary=binary)

    async def executemany(
        self, query: Any, params_seq: Iterable[Any], *, returning: bool = False
    ) -> None:
        """Run one statement for many parameter sets within the timeout."""
        async with _statement_deadline(cast(BoundedConnection, self.connection)):
            await super().executemany(query, params_seq, returning=returning)


class BoundedConnection(psycopg.AsyncConnection[Any]):
    """A connection whose commits and rollbacks end within the operation timeout."""

    breaker: Breaker | None = None
    """The breaker of the connection's database (set by :func:`bounded_connector`)."""
    url: str = ""
    """The database's URL, for messages."""

    async def commit(self) -> None:
        """Commit within the timeout."""
        async with _statement_deadline(self):
            await super().commit()

    async def rollback(self) -> None:
        """Roll back within the timeout."""
        async with _statement_deadline(self):
            await super().rollback()


def bounded_connector(url: str, timeouts: DatabaseTimeouts) -> Callable[[], Awaitable[Any]]:
    """SQLAlchemy's ``async_creator`` for ``url``: bounded connections and cursors.

    While the database's breaker is open, connecting fails at once; a connection under way
    when it trips is abandoned (cancelling a connection attempt costs nothing).
    """
    conninfo = postgres_conninfo(url)
    options = timeouts.libpq_options()
    breaker = breaker_for(url)
    seconds = options["connect_timeout"] + SEVER_GRACE  # libpq's own timeout comes first

    async def connect() -> BoundedConnection:
        breaker.check()
        call: Call | None = None
        try:
            async with within(seconds, breaker=breaker) as call:
                connection = await BoundedConnection.connect(
                    conninfo, cursor_factory=BoundedCursor, **options
                )
        except ended_errors() as exc:
            if call is None or not call.ended:
                raise
            breaker.check()  # ended by the breaker: say why
            raise psycopg.OperationalError(f"no connection within {seconds:g} s") from exc
        connection.breaker, connection.url = breaker, url
        return connection

    return connect


@asynccontextmanager
async def open_pool(
    url: str, timeouts: DatabaseTimeouts, *, max_size: int, what: str
) -> AsyncIterator[TrackedPool]:
    """A psycopg pool on ``url`` for LangGraph (autocommit, dict rows), open and then closed.

    Raises:
        DatabaseUnavailableError: no connection could be made within the connect timeout.
    """
    options = timeouts.libpq_options()
    try:  # one plain connection first: a clear, immediate error when the server is down
        probe = await psycopg.AsyncConnection.connect(postgres_conninfo(url), **options)
    except psycopg.OperationalError as exc:
        raise unavailable(url, f"connecting to {what}", exc) from exc
    await probe.close()
    pool = TrackedPool(
        postgres_conninfo(url),
        min_size=1,
        max_size=max_size,
        open=False,
        timeout=timeouts.operation,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row, **options},
    )
    try:
        await pool.open(wait=True, timeout=timeouts.connect)
    except PoolTimeout as exc:
        await pool.close(timeout=CLOSE_TIMEOUT)
        raise DatabaseUnavailableError(
            f"could not connect to {what} {redact(url)} within {timeouts.connect:g} s"
        ) from exc
    try:
        yield pool
    finally:
        lost = breaker_for(url).is_open
        await pool.close(timeout=0.0 if lost else CLOSE_TIMEOUT)


async def postgres_closed(cursor: psycopg.AsyncCursor[DictRow], thread_id: str) -> bool | None:
    """In a transaction: take the thread's lock shared, then look it up.

    Returns:
        ``None`` if the thread is open, else whether it was purged.
    """
    await cursor.execute(POSTGRES_WRITER_LOCK, (thread_lock_key(thread_id),))
    locked = await cursor.fetchone()
    if locked is None or not locked["closable"]:
        return None  # no domain store in this database, so no closed thread
    # A statement of its own: its snapshot is taken once the lock is held, so it sees a
    # closing committed while the lock was awaited.
    await cursor.execute(POSTGRES_QUERY, (thread_id,))
    row = await cursor.fetchone()
    return None if row is None else bool(row["purged"])


_open_writes: ContextVar[tuple[object, Connection] | None] = ContextVar(
    "deep_research_open_writes", default=None
)
"""The saver or store writing in this task, and the connection of its transaction."""


@asynccontextmanager
async def open_threads(
    owner: object, pool: TrackedPool, thread_ids: Sequence[str]
) -> AsyncIterator[None]:
    """One transaction in which ``thread_ids`` are open, and stay open until it ends.

    Each thread's lock is taken shared, then the thread is looked up, in order
    (:func:`postgres_closed`, :mod:`~deep_research.persistence.closed`). Inside the block,
    ``owner``'s cursors (:meth:`BoundedPostgresSaver._cursor`,
    :meth:`BoundedPostgresStore._cursor`) are on the transaction's connection, so what
    LangGraph writes there is committed with the lookup.

    Raises:
        ChatClosedError: a thread's chat is deleted or was purged.
    """
    async with pool.connection() as connection, connection.transaction():
        async with connection.cursor(row_factory=dict_row) as cursor:
            for thread_id in sorted(set(thread_ids)):
                purged = await postgres_closed(cursor, thread_id)
                if purged is not None:
                    raise closed_error(thread_id, purged=purged)
        token = _open_writes.set((owner, connection))
        try:
            yield
        finally:
            _open_writes.reset(token)


def _writing_connection(owner: object) -> Connection | None:
    """The connection of ``owner``'s transaction under :func:`open_threads`, if in one."""
    writing = _open_writes.get()
    return writing[1] if writing is not None and writing[0] is owner else None


class _WritesInOpenThreads:
    """A LangGraph PostgreSQL saver or store that writes in the transaction of :func:`open_threads`.

    ``_cursor`` is where LangGraph's saver and store take their connections
    (:mod:`~deep_research.langgraph_internals`).
    """

    @asynccontextmanager
    async def _cursor(
        self, *, pipeline: bool = False
    ) -> AsyncIterator[psycopg.AsyncCursor[DictRow]]:
        """A cursor as LangGraph's, or in the transaction of a write (:func:`open_threads`)."""
        connection = _writing_connection(self)
        if connection is None:
            async with super()._cursor(pipeline=pipeline) as cursor:  # type: ignore[misc]
                yield cursor
            return
        async with connection.cursor(binary=True, row_factory=dict_row) as cursor:
            yield cursor


class BoundedPostgresSaver(_WritesInOpenThreads, ShortVersions, AsyncPostgresSaver):
    """``AsyncPostgresSaver`` whose every call ends within the operation timeout.

    Its channel versions are short (:mod:`~deep_research.persistence.versions`).
    """

    def __init__(
        self,
        conn: TrackedPool,
        *,
        url: str,
        timeouts: DatabaseTimeouts,
        serde: SerializerProtocol | None = None,
    ) -> None:
        """Wrap ``conn``; ``url`` names the database in error messages."""
        super().__init__(conn, serde=serde)
        self.pool, self.url, self.timeouts = conn, url, timeouts
        self.breaker = breaker_for(url)

    def _bounded(self, what: str) -> Any:
        return bounded(self.url, what, self.timeouts.operation, self.breaker)

    async def setup(self) -> None:
        """Create or migrate the checkpoint tables."""
        async with self._bounded("setting up the checkpoint tables"):
            await super().setup()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Read one checkpoint."""
        async with self._bounded("reading a checkpoint"):
            return await super().aget_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """List checkpoints, each one read within the timeout."""
        rows = super().alist(config, filter=filter, before=before, limit=limit)
        while True:
            async with self._bounded("listing checkpoints"):
                try:
                    item = await anext(rows)
                except StopAsyncIteration:
                    return
            yield item

    def _open_thread(self, config: RunnableConfig) -> AbstractAsyncContextManager[None]:
        return open_threads(self, self.pool, [str(config["configurable"]["thread_id"])])

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Write one checkpoint, unless its thread is closed."""
        async with self._bounded("writing a checkpoint"):
            async with self._open_thread(config):
                return await super().aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Write a task's pending writes, unless its thread is closed."""
        async with self._bounded("writing a step's results"):
            async with self._open_thread(config):
                await super().aput_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete a thread's checkpoints and writes."""
        async with self._bounded("deleting a thread's checkpoints"):
            await super().adelete_thread(thread_id)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """Read the writes that rebuild the state's delta channels."""
        async with self._bounded("reading a checkpoint's history"):
            return await super().aget_delta_channel_history(config=config, channels=channels)


class BoundedPostgresStore(_WritesInOpenThreads, AsyncPostgresStore):
    """``AsyncPostgresStore`` whose every batch ends within the operation timeout."""

    def __init__(
        self,
        conn: TrackedPool,
        *,
        url: str,
        timeouts: DatabaseTimeouts,
        ttl: TTLConfig | None = None,
    ) -> None:
        """Wrap ``conn``; ``url`` names the database in error messages."""
        super().__init__(conn, ttl=ttl)
        self.pool, self.url, self.timeouts = conn, url, timeouts
        self.breaker = breaker_for(url)

    def _bounded(self, what: str) -> Any:
        return bounded(self.url, what, self.timeouts.operation, self.breaker)

    async def setup(self) -> None:
        """Create or migrate the store's tables."""
        async with self._bounded("setting up the store"):
            await super().setup()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run a batch of store operations, unless it puts items under a closed thread."""
        ops = list(ops)
        async with self._bounded("reading or writing page text"):
            threads = written_threads(ops)
            if not threads:
                return await super().abatch(ops)
            async with open_threads(self, self.pool, threads):
                return await super().abatch(ops)
