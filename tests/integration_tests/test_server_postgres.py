"""The server on PostgreSQL: its routes and auth handlers share a pool, per event loop.

A ``langgraph dev`` whose ``DEEP_RESEARCH_DATABASE_URL`` is a PostgreSQL database of its own
(created and dropped here) records a run that the routes then read back; many route requests
open only a few connections (``pg_stat_database.sessions``). In this process, the same store is
used from several event loops at once, each with its own pool, and nothing is left open.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from deep_research.persistence.db import ensure_schema
from deep_research.server.database import domain_database
from deep_research.sources import SAMPLE_CORPUS
from tests.integration_tests.conftest import own_database
from tests.integration_tests.server_process import langgraph_dev

pytestmark = pytest.mark.postgres

GRAPH_ID = "deep_research"
RUN_TIMEOUT = 120.0
TOKEN = "alice-token-postgres-0123456789"
REQUESTS = 40
"""Sequential route requests whose connections are counted."""


def _admin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))


@pytest.fixture(scope="module")
def server_database(postgres_url: str) -> Iterator[str]:
    """A database of this module's own (the session's is shared with other tests)."""
    with own_database(postgres_url, "test_server") as url:
        yield url


@pytest.fixture(scope="module")
def server(server_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``langgraph dev`` on the PostgreSQL database, with one listed user (alice)."""
    env = {
        "DEEP_RESEARCH_DATABASE_URL": server_database,
        "DEEP_RESEARCH_AUTH_TOKENS": f"{TOKEN}=alice",
        "DEEP_RESEARCH_CORPUS_ROOTS": str(SAMPLE_CORPUS),
    }
    with langgraph_dev(tmp_path_factory.mktemp("langgraph-postgres"), env) as url:
        yield url


def _sessions_opened(database_url: str) -> int:
    """Connections ever opened to the database (PostgreSQL 14+), as the statistics say now."""
    name = urlsplit(database_url).path.lstrip("/")
    with psycopg.connect(_admin(database_url), autocommit=True) as conn:
        row = conn.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (name,)
        ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.server
def test_route_requests_reuse_the_servers_pooled_connections(
    server: str, server_database: str
) -> None:
    with httpx.Client(
        base_url=server, headers={"Authorization": f"Bearer {TOKEN}"}, trust_env=False
    ) as http:
        assert http.get("/preferences").status_code == 200  # the pool's first connection
        before = _sessions_opened(server_database)
        started = time.perf_counter()
        for n in range(REQUESTS // 2):
            assert http.put("/preferences", json={"system_instructions": str(n)}).is_success
            assert http.get("/chats").json() == []
        per_request = (time.perf_counter() - started) / REQUESTS
        opened = _sessions_opened(server_database) - before
    print(f"{REQUESTS} route requests: {per_request * 1000:.1f} ms each,", file=sys.stderr)
    print(f"{opened} new PostgreSQL connection(s)", file=sys.stderr)
    assert opened <= 2, f"{REQUESTS} sequential requests opened {opened} connections"


@pytest.mark.server
async def test_a_run_is_recorded_and_read_back_with_the_users_preferences(server: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=server, headers=headers, trust_env=False) as http:
        saved = await http.put("/preferences", json={"depth": "light"})
        assert saved.status_code == 200, saved.text
        async with get_client(url=server, api_key=None, headers=headers) as client:
            thread = (await client.threads.create())["thread_id"]
            question: dict[str, Any] = {
                "messages": [{"role": "user", "content": "grid battery costs"}]
            }
            run = client.runs.wait(
                thread, GRAPH_ID, input=question, context={"allow_clarification": False}
            )
            state: Any = await asyncio.wait_for(run, RUN_TIMEOUT)
        assert state["report"]["markdown"]
        chat = (await http.get(f"/chats/{thread}")).json()
        (session,) = chat["sessions"]
        detail = (await http.get(f"/sessions/{session['id']}")).json()
        assert detail["depth"] == "light"  # the preference, filled in by the run's auth handler
        report = (await http.get(f"/sessions/{session['id']}/report")).json()
    assert report["markdown"] == state["report"]["markdown"]


async def _engine_after_sequential_sessions() -> AsyncEngine:
    engines = set()
    for _ in range(10):
        async with (await domain_database()).session_scope() as session:
            assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
            assert isinstance(session.bind, AsyncEngine)
            engines.add(session.bind)
    (engine,) = engines
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool) and (pool.checkedin(), pool.checkedout()) == (1, 0)
    return engine


def test_several_event_loops_each_use_their_own_pool(
    server_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", server_database)
    ensure_schema(server_database)  # its connections are not the store's
    before = _sessions_opened(server_database)
    first = asyncio.run(_engine_after_sequential_sessions())
    with ThreadPoolExecutor(2) as threads:  # two loops at the same time, in two threads
        running = [threads.submit(asyncio.run, _engine_after_sequential_sessions()) for _ in "ab"]
        others = [future.result() for future in running]
    assert len({id(engine) for engine in (first, *others)}) == 3
    assert _sessions_opened(server_database) - before <= 3, "one connection per loop"
