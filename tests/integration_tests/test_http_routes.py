"""The server's own HTTP routes return what the domain store holds, to its owner only.

Alice researches one question (with a clarifying question) through the SDK; every route is then
compared with the rows in the server's SQLite file, and bob gets 404 for each of her ids.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from deep_research.report.build import article_markdown
from deep_research.state import Report
from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server

GRAPH_ID = "deep_research"
RUN_TIMEOUT = 120.0
CONTEXT = {"depth": "light"}


@dataclass(frozen=True)
class Researched:
    """Alice's finished chat."""

    thread_id: str
    session_id: int
    state: dict[str, Any]


def _rows(server: AuthServer, sql: str, *params: Any) -> list[sqlite3.Row]:
    with sqlite3.connect(server.data_dir / "deep_research.sqlite") as db:
        db.row_factory = sqlite3.Row
        return db.execute(sql, params).fetchall()


@pytest.fixture(scope="module")
def researched(auth_server: AuthServer) -> Researched:
    async def run() -> Researched:
        async with get_client(
            url=auth_server.url, api_key=None, headers=auth_server.headers("alice")
        ) as alice:
            thread = (await alice.threads.create())["thread_id"]
            question = {"messages": [{"role": "user", "content": "batteries"}]}
            paused = await alice.runs.wait(thread, GRAPH_ID, input=question, context=CONTEXT)
            assert isinstance(paused, dict) and paused["__interrupt__"]
            await alice.runs.wait(
                thread, GRAPH_ID, command={"resume": "costs of grid batteries"}, context=CONTEXT
            )
            state = (await alice.threads.get_state(thread))["values"]
        assert isinstance(state, dict)
        (session,) = _rows(
            auth_server,
            "SELECT s.id FROM research_sessions s JOIN chats c ON c.id = s.chat_id"
            " WHERE c.thread_id = ?",
            thread,
        )
        return Researched(thread, session["id"], state)

    return asyncio.run(asyncio.wait_for(run(), RUN_TIMEOUT))


@pytest.fixture
async def alice(auth_server: AuthServer) -> AsyncIterator[httpx.AsyncClient]:
    async with auth_server.http("alice") as http:
        yield http


@pytest.fixture
async def bob(auth_server: AuthServer) -> AsyncIterator[httpx.AsyncClient]:
    async with auth_server.http("bob") as http:
        yield http


async def _json(http: httpx.AsyncClient, path: str) -> Any:
    response = await http.get(path)
    assert response.status_code == 200, (path, response.text)
    return response.json()


async def test_chats_list_and_chat_detail_with_messages(
    alice: httpx.AsyncClient, researched: Researched, auth_server: AuthServer
) -> None:
    chats = await _json(alice, "/chats")
    assert researched.thread_id in [c["thread_id"] for c in chats]
    chat = await _json(alice, f"/chats/{researched.thread_id}")
    assert chat["title"] == "batteries"
    stored = _rows(
        auth_server,
        "SELECT m.* FROM messages m JOIN chats c ON c.id = m.chat_id"
        " WHERE c.thread_id = ? ORDER BY m.position",
        researched.thread_id,
    )
    got = [(m["id"], m["role"], m["content"], m["is_clarification"]) for m in chat["messages"]]
    assert got == [(r["id"], r["role"], r["content"], bool(r["is_clarification"])) for r in stored]
    assert [m["role"] for m in chat["messages"]] == ["user", "assistant", "user", "assistant"]
    assert chat["messages"][2]["content"] == "costs of grid batteries"
    assert [s["id"] for s in chat["sessions"]] == [researched.session_id]
    assert chat["sessions"][0]["status"] == "completed"


async def test_session_with_sources_evidence_claims_and_events(
    alice: httpx.AsyncClient, researched: Researched, auth_server: AuthServer
) -> None:
    base = f"/sessions/{researched.session_id}"
    session = await _json(alice, base)
    assert session["thread_id"] == researched.thread_id and session["has_report"]
    assert session["verification"] == json.loads(
        _rows(
            auth_server,
            "SELECT verification FROM research_sessions WHERE id = ?",
            researched.session_id,
        )[0][0]
    )
    assert [s["title"] for s in session["plan"]] == [s["title"] for s in researched.state["plan"]]

    def stored(table: str, column: str) -> list[Any]:
        rows = _rows(
            auth_server, f"SELECT {column} FROM {table} WHERE session_id = ?", researched.session_id
        )
        return sorted(r[0] for r in rows)

    sources = await _json(alice, f"{base}/sources")
    assert sorted(s["url"] for s in sources) == stored("sources", "url")
    assert {s["url"] for s in sources if s["is_cited"]} == {
        r["url"] for r in researched.state["report"]["references"]
    }
    evidence = await _json(alice, f"{base}/evidence")
    assert sorted(e["evidence_id"] for e in evidence) == stored("evidence_spans", "evidence_id")
    claims = await _json(alice, f"{base}/claims")
    assert [c["claim_id"] for c in claims] == [c["id"] for c in researched.state["claims"]]
    assert all(c["verdict"] for c in claims)
    links = sorted((c["claim_id"], link["evidence_id"]) for c in claims for link in c["citations"])
    assert links == sorted(
        tuple(r)
        for r in _rows(
            auth_server,
            "SELECT claim_id, evidence_id FROM citations WHERE session_id = ?",
            researched.session_id,
        )
    )
    events = await _json(alice, f"{base}/events")
    assert len(events) == len(stored("research_events", "id"))
    types = [e["type"] for e in events]
    assert types[0] == "research_started" and types[-1] == "research_completed"
    assert "clarification_requested" in types and "claim_verified" in types


async def test_iterations_read_back_every_round_and_step(
    alice: httpx.AsyncClient, researched: Researched
) -> None:
    rounds = await _json(alice, f"/sessions/{researched.session_id}/iterations")
    assert rounds and rounds[0]["iteration_nr"] == 1 and rounds[-1]["decision"]
    steps = [step for r in rounds for step in r["sub_steps"]]
    assert steps and all(s["instructions"] and s["tool"].startswith("search:") for s in steps)
    assert any(s["sub_answer"] and s["cited_docs"] for s in steps)
    assert all(s["step_id"] in r["steps"] for r in rounds for s in r["sub_steps"])


async def test_report_as_json_and_markdown(
    alice: httpx.AsyncClient, researched: Researched
) -> None:
    report = await _json(alice, f"/sessions/{researched.session_id}/report")
    assert report["schemaVersion"] == "v1"
    assert report["markdown"] == researched.state["report"]["markdown"]
    markdown = await alice.get(f"/sessions/{researched.session_id}/report.md")
    assert markdown.status_code == 200
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text == report["markdown"]
    article = await alice.get(f"/sessions/{researched.session_id}/report.article.md")
    assert article.status_code == 200
    assert article.headers["content-type"].startswith("text/markdown")
    assert article.text == article_markdown(Report.model_validate(report))
    # the body and references stay; the verification line and Limitations go
    assert article.text.startswith(markdown.text.split("\n", 1)[0])
    assert "## References" in article.text and "## Limitations" not in article.text
    assert "*Verification:" in markdown.text and "*Verification:" not in article.text
    async with httpx.AsyncClient(base_url=str(alice.base_url), trust_env=False) as anonymous:
        path = f"/sessions/{researched.session_id}/report.article.md"
        assert (await anonymous.get(path)).status_code == 401


async def test_report_as_a_self_contained_page_for_its_owner_only(
    alice: httpx.AsyncClient, bob: httpx.AsyncClient, researched: Researched
) -> None:
    path = f"/reports/{researched.session_id}.html"
    page = await alice.get(path)
    assert page.status_code == 200, page.text
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "private, no-store"
    report = researched.state["report"]
    claims = re.findall(r'<span class="claim v-\w+" data-claim="(cl_[0-9a-f]+)"', page.text)
    assert claims == [c["id"] for c in report["claims"]]  # every claim highlighted, in order
    assert f'<li id="ref-1" value="1"><a href="{report["references"][0]["url"]}">' in page.text
    assert report["confidence"]["level"] in page.text and "<h2>Limitations</h2>" in page.text
    # another user's report, an unknown id and a request with no token get nothing
    assert (await bob.get(path)).status_code == 404
    assert (await alice.get("/reports/999999.html")).status_code == 404
    assert (await alice.get("/reports/0.html")).status_code == 422
    async with httpx.AsyncClient(base_url=str(alice.base_url), trust_env=False) as anonymous:
        assert (await anonymous.get(path)).status_code == 401


async def test_feedback_on_a_message(
    alice: httpx.AsyncClient,
    bob: httpx.AsyncClient,
    researched: Researched,
    auth_server: AuthServer,
) -> None:
    chat = await _json(alice, f"/chats/{researched.thread_id}")
    answer = chat["messages"][-1]["id"]
    assert (await alice.get(f"/messages/{answer}/feedback")).status_code == 404
    put = await alice.put(f"/messages/{answer}/feedback", json={"rating": -1, "text": "thin"})
    assert put.status_code == 200, put.text
    again = await alice.put(f"/messages/{answer}/feedback", json={"rating": 1, "text": "good"})
    assert again.json()["rating"] == 1
    assert (await _json(alice, f"/messages/{answer}/feedback"))["text"] == "good"
    rows = _rows(auth_server, "SELECT * FROM message_feedback WHERE message_id = ?", answer)
    assert [(r["user_id"], r["rating"], r["text"]) for r in rows] == [("alice", 1, "good")]
    assert (await alice.put(f"/messages/{answer}/feedback", json={"rating": 5})).status_code == 422
    assert (await bob.put(f"/messages/{answer}/feedback", json={"rating": 1})).status_code == 404


async def test_preferences_get_and_put(bob: httpx.AsyncClient) -> None:
    assert await _json(bob, "/preferences") == {
        "mode": None,
        "depth": None,
        "system_instructions": "",
    }
    saved = await bob.put("/preferences", json={"depth": "extended"})
    assert saved.status_code == 200
    assert (await _json(bob, "/preferences"))["depth"] == "extended"
    assert (await bob.put("/preferences", json={"depth": "huge"})).status_code == 422
    assert (await bob.put("/preferences", json={"colour": "blue"})).status_code == 422


async def test_another_users_ids_are_not_found(
    bob: httpx.AsyncClient, researched: Researched
) -> None:
    assert researched.thread_id not in [c["thread_id"] for c in await _json(bob, "/chats")]
    base = f"/sessions/{researched.session_id}"
    for path in (
        f"/chats/{researched.thread_id}",
        base,
        f"{base}/sources",
        f"{base}/evidence",
        f"{base}/claims",
        f"{base}/events",
        f"{base}/iterations",
        f"{base}/report",
        f"{base}/report.md",
        f"{base}/report.article.md",
        f"/reports/{researched.session_id}.html",
        "/sessions/999999",
    ):
        assert (await bob.get(path)).status_code == 404, path


async def test_the_routes_are_described_in_the_servers_openapi(
    auth_server: AuthServer,
) -> None:
    async with httpx.AsyncClient(base_url=auth_server.url, trust_env=False) as http:
        spec = (await http.get("/openapi.json")).json()
    for path in (
        "/chats",
        "/chats/{thread_id}",
        "/sessions/{session_id}/claims",
        "/sessions/{session_id}/iterations",
        "/sessions/{session_id}/report.md",
        "/sessions/{session_id}/report.article.md",
        "/reports/{session_id}.html",
        "/messages/{message_id}/feedback",
        "/preferences",
    ):
        assert path in spec["paths"], path
    assert "/threads" in spec["paths"]  # merged with the LangGraph API
    assert spec["components"]["securitySchemes"]["BearerAuth"]["scheme"] == "bearer"
