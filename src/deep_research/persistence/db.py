"""The domain store's engine, its one transaction scope, and its migrations.

The store uses the same URL as the checkpointer (``DEEP_RESEARCH_DATABASE_URL``): ``sqlite:///``
files through aiosqlite and ``postgresql+psycopg://`` through psycopg's async driver, since
nodes are async and the LangGraph server forbids blocking calls in them. Migrations (Alembic,
sync drivers) run in a worker thread when called from async code.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager, closing, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine
from sqlalchemy.pool import NullPool

from deep_research.errors import DatabaseUnavailableError, StoreError
from deep_research.persistence.locks import sqlite_setup_lock
from deep_research.persistence.timeouts import (
    Breaker,
    DatabaseTimeouts,
    breaker_for,
    translated,
    unavailable,
    within,
)
from deep_research.persistence.urls import async_url

T = TypeVar("T")

SQLITE_BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for the checkpointer's or another process's lock."""


def is_sqlite(url: str) -> bool:
    """True for a SQLite URL, in any of its driver spellings."""
    return url.startswith("sqlite")


def _sqlite_file(url: str) -> Path | None:
    database = make_url(url).database
    return Path(database) if database and database != ":memory:" else None


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def prepare_engine(engine: Any) -> None:
    """Turn on foreign keys, WAL and a busy timeout on every new SQLite connection."""
    sync_engine = getattr(engine, "sync_engine", engine)
    if sync_engine.dialect.name == "sqlite":
        event.listen(sync_engine, "connect", _on_sqlite_connect)


def create_engine(url: str, *, pooled: bool = True, pool_sqlite: bool = False) -> AsyncEngine:
    """An async engine on ``url``; unpooled engines may be shared by several event loops.

    A pooled engine belongs to the event loop that first connects through it. SQLite is
    unpooled unless ``pool_sqlite`` is also set: each idle aiosqlite connection keeps a
    non-daemon thread alive, so only an owner that disposes the engine on every way out (see
    :mod:`deep_research.server.database`) should pool it.

    Raises:
        ConfigurationError: the URL is neither SQLite nor PostgreSQL.
    """
    target = async_url(url)
    if is_sqlite(target) and (path := _sqlite_file(target)) is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {}
    if not is_sqlite(target):
        from deep_research.persistence.postgres import bounded_connector

        timeouts = DatabaseTimeouts.from_settings()
        options["async_creator"] = bounded_connector(url, timeouts)
    if not pooled or (is_sqlite(target) and not pool_sqlite):
        options["poolclass"] = NullPool
    else:
        options.update(pool_size=5, max_overflow=5, pool_pre_ping=True)
        if not is_sqlite(target):
            options["pool_timeout"] = DatabaseTimeouts.from_settings().operation
    engine = _create_async_engine(target, **options)
    prepare_engine(engine)
    return engine


async def finished(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` (one transaction) to its end, even when the caller is cancelled.

    A run is cancelled when its chat is deleted or purged, a request when its client goes away
    or the server stops (and again at each ``await`` that follows). SQLAlchemy cannot roll back
    a connection whose statement a cancellation interrupts: it closes it by force, and on SQLite
    a statement still referenced keeps that closed connection's write lock until the process
    ends (every other connection of the file, this process's too, then waits in vain). So the
    transaction runs in its own task, and every cancellation of the caller (LangGraph cancels
    a node once when a sibling fails and again as its executor exits) only waits, shielded,
    for it to commit or roll back; the first cancellation is raised once it has. Awaited
    unshielded, a second cancellation would be passed on to the transaction's task.

    The wait is bounded: by the busy timeout on SQLite, by the database timeout on PostgreSQL.
    """
    task = asyncio.ensure_future(work)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.wait({task})  # cancelling this wait leaves the task running
        except asyncio.CancelledError as exc:
            cancelled = cancelled or exc
    if cancelled is not None:
        if not task.cancelled():
            task.exception()  # retrieved: the cancellation is what the caller gets
        raise cancelled
    return task.result()


@dataclass
class Database:
    """The domain store: an engine and the sessions it hands out."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession] = field(init=False)
    breaker: Breaker = field(init=False)
    """Fails the transactions that follow a lost database at once, for a connect timeout
    (each would otherwise wait out its own connect or statement timeout, and a node's
    retries would repeat that), and ends those under way. Shared with the checkpointer
    and the content store on the same database (see :func:`.timeouts.breaker_for`)."""

    def __post_init__(self) -> None:
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self.breaker = breaker_for(self.engine.url.render_as_string(hide_password=True))

    @asynccontextmanager
    async def session_scope(self) -> AsyncIterator[AsyncSession]:
        """One transaction: committed when the block ends, rolled back when it raises.

        On PostgreSQL each statement, commit and rollback is bounded by the database timeout
        (``DEEP_RESEARCH_DATABASE_TIMEOUT``, see :mod:`.timeouts`).

        Raises:
            DatabaseUnavailableError: the database could not be reached, or did not answer.
        """
        if self.engine.dialect.name != "postgresql":
            async with self.sessions() as session, session.begin():
                yield session
            return
        where = self.engine.url.render_as_string(hide_password=True)
        self.breaker.check()
        try:
            async with (
                translated(where, "using the domain store"),
                within(None, breaker=self.breaker),
                self.sessions() as session,
                session.begin(),
            ):
                yield session
        except DatabaseUnavailableError as exc:
            self.breaker.trip(exc)
            raise

    async def run_transaction(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction (:meth:`session_scope`) to its end.

        Even when the caller is cancelled: see :func:`finished`.

        Raises:
            DatabaseUnavailableError: the database could not be reached, or did not answer.
        """

        async def transaction() -> T:
            async with self.session_scope() as session:
                return await work(session)

        return await finished(transaction())

    async def dispose(self) -> None:
        """Close the engine's connections."""
        await self.engine.dispose()


@asynccontextmanager
async def open_database(url: str, *, migrate: bool = True) -> AsyncIterator[Database]:
    """Open the domain store at ``url``, upgrading its schema first (once per process).

    Raises:
        ConfigurationError: the URL is neither SQLite nor PostgreSQL.
    """
    if migrate:
        await asyncio.to_thread(ensure_schema, url)
    database = Database(create_engine(url))
    try:
        yield database
    finally:
        await database.dispose()


_schema_lock = threading.Lock()
_upgraded: set[str] = set()


def upgrade(url: str, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (blocking; call it from a thread in async code).

    Raises:
        ConfigurationError: the URL is neither SQLite nor PostgreSQL.
        DatabaseUnavailableError: the database could not be reached.
        StoreError: the database could not be migrated.
    """
    from alembic import command

    from deep_research.persistence.migrate import alembic_config

    target = async_url(url)
    path = _sqlite_file(target) if is_sqlite(target) else None
    across_processes = sqlite_setup_lock(path) if path is not None else nullcontext()
    with _schema_lock, across_processes:
        try:
            command.upgrade(alembic_config(url), revision)
        except (OperationalError, SQLAlchemyTimeoutError) as exc:
            where = make_url(target).render_as_string(hide_password=True)
            raise unavailable(where, "migrating its schema", exc) from exc
        except SQLAlchemyError as exc:
            where = make_url(target).render_as_string(hide_password=True)
            raise StoreError(
                f"could not migrate the database {where}: {getattr(exc, 'orig', None) or exc}"
            ) from exc
        if revision == "head":
            _upgraded.add(url)


def ensure_schema(url: str) -> None:
    """Upgrade to head once per process and URL (blocking).

    A SQLite file already at the head revision is recognised without Alembic (see
    :func:`stored_revisions`), so that commands on an up-to-date store do not pay its import.
    """
    with _schema_lock:
        if url in _upgraded:
            return
    from deep_research.persistence.migrate import head_revisions

    if stored_revisions(url) == head_revisions():
        with _schema_lock:
            _upgraded.add(url)
        return
    upgrade(url)


def stored_revisions(url: str) -> frozenset[str] | None:
    """The revisions an existing SQLite file records in ``alembic_version``, read directly.

    ``None`` when that cannot be told cheaply: not SQLite, no file yet, or no version table.
    """
    target = async_url(url)
    path = _sqlite_file(target) if is_sqlite(target) else None
    if path is None or not path.is_file():
        return None
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            rows = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return None
    return frozenset(str(row[0]) for row in rows)
