"""The server on PostgreSQL: its routes and auth handlers share a pool, per event loop.

A ``langgraph dev`` whose ``DEEP_RESEARCH_DATABASE_URL`` is a PostgreSQL database of its own
(created and dropped here) records a run that the routes then read back; many route requests
open only a few connections (``pg_stat_database.sessions``). In this process, the same store is
used from several event loops at once, each with its own pool, and nothing is left open.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from psycopg import sql
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from deep_research.persistence.db import ensure_schema
from deep_research.server.database import domain_session
from deep_research.sources import SAMPLE_CORPUS
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
    parts = urlsplit(postgres_url)
    name = f"test_server_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin(postgres_url), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        with psycopg.connect(_admin(postgres_url), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="module")
def slow_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus whose first indexing takes seconds: a run on it is still going when purged."""
    folder = tmp_path_factory.mktemp("slow-corpus")
    words = " ".join(f"storage{n}" for n in range(400))
    for n in range(2000):
        (folder / f"cells-{n:04d}.md").write_text(
            f"# LFP and NMC cells, note {n}\n\nGrid storage costs {n} dollars. {words}\n"
        )
    return folder


@pytest.fixture(scope="module")
def server(
    server_database: str, slow_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``langgraph dev`` on the PostgreSQL database, with one listed user (alice)."""
    env = {
        "DEEP_RESEARCH_DATABASE_URL": server_database,
        "DEEP_RESEARCH_AUTH_TOKENS": f"{TOKEN}=alice",
        "DEEP_RESEARCH_CORPUS_ROOTS": os.pathsep.join([str(SAMPLE_CORPUS), str(slow_corpus)]),
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
        async with domain_session() as session:
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


def _left_of(database_url: str, thread: str) -> dict[str, int]:
    """What PostgreSQL still holds of a thread: chat rows, checkpoints, writes, blobs, items."""
    queries = {
        "chats": "SELECT count(*) FROM chats WHERE thread_id = %s",
        "checkpoints": "SELECT count(*) FROM checkpoints WHERE thread_id = %s",
        "writes": "SELECT count(*) FROM checkpoint_writes WHERE thread_id = %s",
        "blobs": "SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %s",
        "store items": "SELECT count(*) FROM store WHERE prefix LIKE '%%' || %s || '%%'",
    }
    plain = database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain) as conn:
        return {
            name: int(conn.execute(query, (thread,)).fetchone()[0])  # type: ignore[index]
            for name, query in queries.items()
        }


@pytest.mark.parametrize("route", ["chat", "me"])
async def test_purge_with_a_run_in_flight_leaves_nothing(
    server: str, server_database: str, slow_corpus: Path, route: str
) -> None:
    """Issue 30, item 1: a purge used to be undone by the run still in flight (40 s later the
    chat, its checkpoints and its report were back). Deleting and purging now stop the run."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        get_client(url=server, headers=headers) as client,
        httpx.AsyncClient(base_url=server, headers=headers, timeout=90) as http,
    ):
        thread = (await client.threads.create())["thread_id"]
        question = "Compare LFP and NMC cells for grid storage: costs, safety and lifetime."
        context = {
            "allow_clarification": False,
            "depth": "extended",
            "sources": "local",
            "corpus_dir": str(slow_corpus),
        }
        run = await client.runs.create(
            thread, GRAPH_ID, input={"messages": [["user", question]]}, context=context
        )
        sessions: list[int] = []
        for _ in range(300):  # until the run has recorded its chat and its session
            chat = await http.get(f"/chats/{thread}")
            if chat.status_code == 200 and chat.json()["sessions"]:
                sessions = [session["id"] for session in chat.json()["sessions"]]
                break
            await asyncio.sleep(0.1)
        assert sessions and (await client.runs.get(thread, run["run_id"]))["status"] == "running"
        if route == "chat":
            assert (await http.delete(f"/chats/{thread}")).status_code == 204  # stops the run
            assert (await client.runs.get(thread, run["run_id"]))["status"] != "running"
            purged = await http.post(f"/chats/{thread}/purge")
        else:
            purged = await http.post("/me/purge")
        assert purged.status_code == 200, purged.text
        assert thread in purged.json()["threads"]
        await asyncio.sleep(5)  # time for a run that went on to write again
        assert thread not in [
            c["thread_id"] for c in (await http.get("/chats?include_deleted=true")).json()
        ]
        for session in sessions:
            for part in ("", "/report", "/report.md", "/sources"):
                assert (await http.get(f"/sessions/{session}{part}")).status_code == 404
        assert _left_of(server_database, thread) == dict.fromkeys(
            ("chats", "checkpoints", "writes", "blobs", "store items"), 0
        )
