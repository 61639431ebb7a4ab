"""The server's domain store: one pooled engine per event loop, disposed when the loop ends.

On the embedded SQLite file (no database server): the routes reuse pooled connections, each
event loop gets an engine of its own, nothing is left open when a loop or the app shuts down
(an idle aiosqlite connection is a thread that would keep the process from exiting), and the
routes read and write while the graph's recorder writes from another loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from deep_research.persistence import queries
from deep_research.persistence.preferences import (
    Preferences,
    get_user_preferences,
    put_user_preferences,
)
from deep_research.persistence.recorder import Batch, RunScope, recorder_for_url
from deep_research.persistence.records import (
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
)
from deep_research.persistence.tables import Chat
from deep_research.server import routes
from deep_research.server.database import (
    DomainStores,
    close_domain_stores,
    domain_database,
    server_database_url,
)
from deep_research.settings import get_settings

SESSIONS = 20
"""Sequential transactions per loop in the tests that count connections."""


def _sqlite_threads() -> list[threading.Thread]:
    """The live worker threads of aiosqlite connections (one per open connection)."""
    return [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]


def _assert_no_open_sqlite_connection() -> None:
    for thread in _sqlite_threads():
        thread.join(timeout=5)  # a closed connection's thread ends just after close()
    assert _sqlite_threads() == []


def _idle_connections(engine: AsyncEngine) -> int:
    """The connections waiting in the engine's pool."""
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    return pool.checkedin()


@pytest.fixture
def connects() -> Iterator[list[object]]:
    """Every DB-API connection opened while the test runs, by any engine of the process."""
    opened: list[object] = []

    def count(dbapi_connection: object, _record: object) -> None:
        opened.append(dbapi_connection)

    event.listen(Engine, "connect", count)
    yield opened
    event.remove(Engine, "connect", count)


def test_sequential_route_requests_reuse_one_pooled_connection(
    connects: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(routes.app.dependency_overrides, routes.current_user, lambda: "alice")
    with TestClient(routes.app) as http:  # one event loop, and the app's lifespan
        assert http.get("/chats").json() == []  # first use: the schema, then the engine
        connects.clear()
        for depth in ("light", "medium") * (SESSIONS // 2):
            assert http.put("/preferences", json={"depth": depth}).status_code == 200
            assert http.get("/preferences").json()["depth"] == depth
            assert http.get("/chats/no-such-thread").status_code == 404
        assert len(connects) == 0, "the first request's connection serves all the others"
        assert len(_sqlite_threads()) == 1
    _assert_no_open_sqlite_connection()


async def test_the_apps_lifespan_closes_the_pool_at_shutdown() -> None:
    async with routes.lifespan(routes.app):
        async with (await domain_database()).session_scope() as session:
            await get_user_preferences(session, user_id="alice")
            engine = session.bind
        assert isinstance(engine, AsyncEngine)
        assert _idle_connections(engine) == 1
    assert _idle_connections(engine) == 0, "disposed before the loop ends"


async def _engine_after_sequential_sessions() -> AsyncEngine:
    """Run many transactions on this loop; the engine they all used (one pooled connection)."""
    engines = set()
    for n in range(SESSIONS):
        async with (await domain_database()).session_scope() as session:
            await put_user_preferences(
                session, user_id="alice", preferences=Preferences(system_instructions=str(n))
            )
            assert isinstance(session.bind, AsyncEngine)
            engines.add(session.bind)
    (engine,) = engines
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool) and (pool.checkedin(), pool.checkedout()) == (1, 0)
    return engine


def test_each_event_loop_gets_its_own_engine_and_leaves_nothing_open() -> None:
    first = asyncio.run(_engine_after_sequential_sessions())
    _assert_no_open_sqlite_connection()
    second = asyncio.run(_engine_after_sequential_sessions())
    with ThreadPoolExecutor(2) as threads:  # two more loops, at the same time
        running = [threads.submit(asyncio.run, _engine_after_sequential_sessions()) for _ in "ab"]
        others = [future.result() for future in running]
    assert len({id(e) for e in (first, second, *others)}) == 4
    _assert_no_open_sqlite_connection()


async def test_closing_the_stores_disposes_the_engine_and_the_next_use_opens_another() -> None:
    async with (await domain_database()).session_scope() as session:
        await get_user_preferences(session, user_id="alice")
        engine = session.bind
    assert isinstance(engine, AsyncEngine)
    assert _idle_connections(engine) == 1
    await close_domain_stores()
    assert _idle_connections(engine) == 0
    await close_domain_stores()  # nothing left to close
    async with (await domain_database()).session_scope() as session:
        assert session.bind is not engine
        assert await get_user_preferences(session, user_id="alice") == Preferences()


def _batch(n: int) -> Batch:
    return Batch(
        title=f"question {n}",
        session=SessionUpdate(question=f"question {n}", status=SessionStatus.IN_PROGRESS),
        messages=[MessageRecord(MessageKind.QUESTION, f"question {n}")],
    )


async def _record(count: int) -> None:
    """Write as the server's graph does: its own recorder, on the server's database URL."""
    recorder = recorder_for_url(get_settings().resolved_database_url)
    for n in range(count):
        await recorder.write(RunScope("alice", f"thread-{n}", 1), _batch(n))


async def test_routes_read_and_write_while_the_graph_records_from_another_loop() -> None:
    """No "database is locked": WAL, the busy timeout, and no lock held by an idle connection."""
    batches = 30

    async def read_and_write(worker: int) -> None:
        for n in range(batches):
            database = await domain_database()  # this loop's, as a route's
            async with database.session_scope() as session:  # as GET /chats does
                assert len(await queries.list_chats(session, user_id="alice")) <= batches
            async with database.session_scope() as session:  # as PUT /preferences does
                preferences = Preferences(system_instructions=f"{worker}-{n}")
                await put_user_preferences(session, user_id="alice", preferences=preferences)

    recording = asyncio.to_thread(asyncio.run, _record(batches))  # a run on a loop of its own
    await asyncio.gather(recording, *(read_and_write(worker) for worker in range(3)))
    async with (await domain_database()).session_scope() as session:
        chats = (await session.scalars(select(Chat).where(Chat.user_id == "alice"))).all()
        preferences = await get_user_preferences(session, user_id="alice")
    assert len(chats) == batches
    assert preferences.system_instructions.endswith(f"-{batches - 1}")


async def test_a_stores_object_of_its_own_shares_no_engine_with_the_servers() -> None:
    url = server_database_url()
    assert url is not None
    mine = DomainStores()
    database = await mine.database(url)
    assert await mine.database(url) is database  # pooled: the same engine on this loop
    async with (await domain_database()).session_scope() as session:
        assert session.bind is not database.engine
    await mine.close()
    assert await mine.database(url) is not database  # closed: the next use opens another
    await mine.close()
