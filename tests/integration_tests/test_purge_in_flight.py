"""Purge with a run in flight leaves nothing, on a SQLite and a PostgreSQL server (issue 30).

A ``langgraph dev`` on each backend (its own SQLite file; a PostgreSQL database of its own,
created and dropped here) runs a question on a corpus whose first indexing takes seconds, so
the run is still going when its chat is deleted and purged (or its user purges everything).
Afterwards nothing of the chat is left: no chat row, no checkpoint, write or blob, no store
item under its thread, no page text of its corpus, and every route of its sessions is 404.
The purge used to be undone by the run (40 s later the chat, its checkpoints and its report
were back); on SQLite the cancelled run then left the file locked.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from langgraph_sdk import get_client

from deep_research.sources import SAMPLE_CORPUS
from tests.integration_tests.conftest import own_database
from tests.integration_tests.server_process import langgraph_dev

pytestmark = pytest.mark.server

GRAPH_ID = "deep_research"
TOKEN = "alice-token-purge-0123456789"
CORPUS_TEXT = "Grid storage costs"
"""Text of every page of the slow corpus: no page of it may stay in the store after a purge."""


@pytest.fixture(scope="module")
def slow_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus whose first indexing takes seconds: a run on it is still going when purged."""
    folder = tmp_path_factory.mktemp("slow-corpus")
    words = " ".join(f"storage{n}" for n in range(400))
    for n in range(2000):
        (folder / f"cells-{n:04d}.md").write_text(
            f"# LFP and NMC cells, note {n}\n\n{CORPUS_TEXT} {n} dollars. {words}\n"
        )
    return folder


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The server's database URL: a SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('purge-sqlite') / 'server.sqlite'}"
        return
    postgres_url: str = request.getfixturevalue("postgres_url")
    with own_database(postgres_url, "test_purge") as url:
        yield url


@pytest.fixture(scope="module")
def server(
    backend: str, slow_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``langgraph dev`` on the backend's database, with one listed user (alice)."""
    env = {
        "DEEP_RESEARCH_DATABASE_URL": backend,
        "DEEP_RESEARCH_AUTH_TOKENS": f"{TOKEN}=alice",
        "DEEP_RESEARCH_CORPUS_ROOTS": os.pathsep.join([str(SAMPLE_CORPUS), str(slow_corpus)]),
    }
    with langgraph_dev(tmp_path_factory.mktemp("langgraph-purge"), env) as url:
        yield url


def _left_of(database_url: str, thread: str) -> dict[str, int]:
    """What the database still holds of a thread, and page text of the slow corpus.

    Counted in every table with a ``thread_id`` column (the chat, checkpoints, writes, blobs),
    the store's items whose namespace names the thread, and its documents from the corpus.
    """
    engine = sa.create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        metadata = sa.MetaData()
        metadata.reflect(engine)
        counts: dict[str, int] = {}
        with engine.connect() as connection:
            for name, table in sorted(metadata.tables.items()):
                if "thread_id" in table.columns and name != "closed_threads":
                    where = table.columns["thread_id"] == thread
                    counts[name] = connection.execute(
                        sa.select(sa.func.count()).select_from(table).where(where)
                    ).scalar_one()
            store = metadata.tables["store"]
            value = sa.cast(store.c.value, sa.Text)
            counts["store items"] = connection.execute(
                sa.select(sa.func.count()).select_from(store).where(store.c.prefix.contains(thread))
            ).scalar_one()
            counts["page text"] = connection.execute(
                sa.select(sa.func.count()).select_from(store).where(value.contains(CORPUS_TEXT))
            ).scalar_one()
    finally:
        engine.dispose()
    return counts


@pytest.mark.parametrize("route", ["chat", "me"])
async def test_purge_with_a_run_in_flight_leaves_nothing(
    server: str, backend: str, slow_corpus: Path, route: str
) -> None:
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
        listed = await http.get("/chats?include_deleted=true")
        assert listed.status_code == 200, listed.text
        assert thread not in [c["thread_id"] for c in listed.json()]
        for session in sessions:
            for part in ("", "/report", "/report.md", "/sources"):
                assert (await http.get(f"/sessions/{session}{part}")).status_code == 404
        left = _left_of(backend, thread)  # the run cap's lease of the run included
        assert left and not {name: n for name, n in left.items() if n}
        # the server still works on the same file: another chat runs and is listed
        other = (await client.threads.create())["thread_id"]
        done = await client.runs.wait(
            other,
            GRAPH_ID,
            input={"messages": [["user", "What does an LFP cell cost?"]]},
            context={"allow_clarification": False, "depth": "light", "sources": "local"},
        )
        assert isinstance(done, dict) and done.get("report"), done
        listed = await http.get("/chats")
        assert other in [c["thread_id"] for c in listed.json()]
