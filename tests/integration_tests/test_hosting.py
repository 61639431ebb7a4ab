"""Hosting a research server: events a client can join with the routes' rows.

Against a real ``langgraph dev`` with auth on (the session's ``auth_server``).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from deep_research.sources import SAMPLE_CORPUS
from tests.integration_tests.conftest import AuthServer
from tests.integration_tests.server_process import REPO_ROOT

pytestmark = pytest.mark.server

GRAPH_ID = "deep_research"
RUN_TIMEOUT = 120.0
CONTEXT = {"depth": "light", "allow_clarification": False}


@pytest.fixture
async def carol(auth_server: AuthServer) -> AsyncIterator[httpx.AsyncClient]:
    """A user of her own (signed token), so that her chats are hers alone."""
    async with auth_server.http("carol") as http:
        yield http


@pytest.fixture
async def bob(auth_server: AuthServer) -> AsyncIterator[httpx.AsyncClient]:
    """Another user."""
    async with auth_server.http("bob") as http:
        yield http


async def _stream_question(
    auth_server: AuthServer, user: str, question: str, thread: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Ask ``question`` on a (new) thread, streaming; its thread and custom events."""
    events: list[dict[str, Any]] = []
    async with get_client(
        url=auth_server.url, api_key=None, headers=auth_server.headers(user)
    ) as client:
        thread = thread or (await client.threads.create())["thread_id"]

        async def collect() -> None:
            async for part in client.runs.stream(
                thread,
                GRAPH_ID,
                input={"messages": [{"role": "user", "content": question}]},
                context=CONTEXT,
                stream_mode=["custom"],
                stream_subgraphs=True,  # the researchers' events too
            ):
                assert part.event != "error", part.data
                if part.event.startswith("custom"):
                    events.append(part.data)

        await asyncio.wait_for(collect(), RUN_TIMEOUT)
    return thread, events


async def test_streamed_events_carry_the_session_and_message_ids(
    auth_server: AuthServer, carol: httpx.AsyncClient
) -> None:
    thread, first = await _stream_question(auth_server, "carol", "grid battery costs")
    _, second = await _stream_question(auth_server, "carol", "flow batteries", thread)

    chat = (await carol.get(f"/chats/{thread}")).json()
    sessions = [s["id"] for s in chat["sessions"]]
    questions = [m["id"] for m in chat["messages"] if m["role"] == "user"]
    assert len(sessions) == len(questions) == 2
    for events, session_id, message_id in zip((first, second), sessions, questions, strict=True):
        assert events[0]["type"] == "research_started"
        assert events[-1]["type"] == "research_completed"
        assert "source_found" in {e["type"] for e in events}  # emitted inside researchers
        ids = {(e["session_id"], e["message_id"]) for e in events}
        assert ids == {(session_id, message_id)}, [(e["type"], e["session_id"]) for e in events]
        detail = await carol.get(f"/sessions/{session_id}")
        assert detail.json()["thread_id"] == thread


async def test_a_served_report_names_no_folder_of_the_server(
    auth_server: AuthServer, carol: httpx.AsyncClient
) -> None:
    thread, events = await _stream_question(auth_server, "carol", "grid battery costs")
    async with get_client(
        url=auth_server.url, api_key=None, headers=auth_server.headers("carol")
    ) as client:
        state = (await client.threads.get_state(thread))["values"]
    chat = (await carol.get(f"/chats/{thread}")).json()
    (session,) = chat["sessions"]
    served: dict[str, Any] = {"events": events, "state": state, "chat": chat}
    for part in ("", "/sources", "/evidence", "/claims", "/events", "/iterations", "/report"):
        answer = await carol.get(f"/sessions/{session['id']}{part}")
        assert answer.status_code == 200, (part, answer.text)
        served[part or "session"] = answer.json()
    served["report.md"] = (await carol.get(f"/sessions/{session['id']}/report.md")).text

    text = json.dumps(served)
    assert state["report"]["references"] and served["/sources"]
    for folder in (SAMPLE_CORPUS.resolve(), auth_server.data_dir.resolve(), REPO_ROOT):
        assert str(folder) not in text, folder
    assert "file://" not in text
    references = state["report"]["references"]
    assert all(r["url"].startswith("corpus:///") for r in references), references
    assert all(r["location"] == r["url"].removeprefix("corpus:///") for r in references)


def _count(server: AuthServer, sql: str, *params: Any) -> int:
    with sqlite3.connect(server.data_dir / "deep_research.sqlite") as db:
        return int(db.execute(sql, params).fetchone()[0])


def _only_theirs(server: AuthServer, user: str) -> set[str]:
    """Documents the user's sources refer to and nobody else's do."""
    with sqlite3.connect(server.data_dir / "deep_research.sqlite") as db:
        rows = db.execute(
            "SELECT s.document_id, c.user_id FROM sources s"
            " JOIN research_sessions r ON r.id = s.session_id JOIN chats c ON c.id = r.chat_id"
            " WHERE s.document_id IS NOT NULL"
        ).fetchall()
    theirs = {doc for doc, owner in rows if owner == user}
    return theirs - {doc for doc, owner in rows if owner != user}


def _documents_stored(server: AuthServer, documents: set[str]) -> int:
    marks = ",".join("?" * len(documents)) or "''"
    return _count(
        server,
        f"SELECT count(*) FROM store WHERE prefix = 'documents' AND key IN ({marks})",
        *documents,
    )


async def test_purge_routes_erase_rows_checkpoints_and_page_text(
    auth_server: AuthServer, bob: httpx.AsyncClient
) -> None:
    headers = auth_server.headers("dave")
    async with httpx.AsyncClient(
        base_url=auth_server.url, headers=headers, trust_env=False
    ) as dave:
        first, _ = await _stream_question(auth_server, "dave", "flow battery costs")
        second, _ = await _stream_question(auth_server, "dave", "grid battery costs")
        assert (await dave.put("/preferences", json={"depth": "light"})).status_code == 200
        checkpoints = "SELECT count(*) FROM checkpoints WHERE thread_id = ?"
        writes = "SELECT count(*) FROM writes WHERE thread_id = ?"
        chats = "SELECT count(*) FROM chats WHERE user_id = ?"
        assert _count(auth_server, checkpoints, first) > 0
        assert _count(auth_server, chats, "dave") == 2

        assert (await dave.post(f"/chats/{first}/purge")).status_code == 409  # not deleted
        assert (await dave.delete(f"/chats/{first}")).status_code == 204
        assert (await bob.post(f"/chats/{first}/purge")).status_code == 404  # not bob's
        purged = await dave.post(f"/chats/{first}/purge")
        assert purged.status_code == 200, purged.text
        assert purged.json()["threads"] == [first]
        assert _count(auth_server, checkpoints, first) == 0  # every namespace
        assert _count(auth_server, writes, first) == 0
        assert _count(auth_server, chats, "dave") == 1
        assert _count(auth_server, checkpoints, second) > 0
        assert (await dave.get(f"/chats/{first}")).status_code == 404
        async with get_client(url=auth_server.url, api_key=None, headers=headers) as client:
            with pytest.raises(httpx.HTTPStatusError) as gone:
                await client.threads.get(first)
            assert gone.value.response.status_code == 404

        only_dave = _only_theirs(auth_server, "dave")
        stored = _documents_stored(auth_server, only_dave)
        everything = await dave.post("/me/purge")
        assert everything.status_code == 200, everything.text
        assert everything.json()["threads"] == [second]
        assert everything.json()["documents"] == stored
        assert _documents_stored(auth_server, only_dave) == 0
        assert _count(auth_server, checkpoints, second) == 0
        assert _count(auth_server, writes, second) == 0
        assert _count(auth_server, chats, "dave") == 0
        prefs = "SELECT count(*) FROM user_preferences WHERE user_id = ?"
        assert _count(auth_server, prefs, "dave") == 0
        assert (await dave.get("/chats?include_deleted=true")).json() == []
