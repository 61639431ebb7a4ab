"""The server with auth, through ``langgraph_sdk``: interrupts, ownership and refusals.

One ``langgraph dev`` (see ``conftest.py``) with two listed users, alice and bob, and signed
tokens for anyone else; offline engine, sample corpus, SQLite in a temporary data directory.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import NotFoundError, PermissionDeniedError

from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server

GRAPH_ID = "deep_research"
RUN_TIMEOUT = 120.0
QUESTION = "How do LFP and NMC batteries compare for grid storage?"
INPUT: dict[str, Any] = {"messages": [{"role": "user", "content": QUESTION}]}
QUICK: dict[str, Any] = {"allow_clarification": False, "depth": "light"}


@pytest.fixture
async def alice(auth_server: AuthServer) -> AsyncIterator[LangGraphClient]:
    async with get_client(
        url=auth_server.url, api_key=None, headers=auth_server.headers("alice")
    ) as client:
        yield client


@pytest.fixture
async def bob(auth_server: AuthServer) -> AsyncIterator[LangGraphClient]:
    async with get_client(
        url=auth_server.url, api_key=None, headers=auth_server.headers("bob")
    ) as client:
        yield client


async def _stream(client: LangGraphClient, thread: str, **kwargs: Any) -> list[tuple[str, Any]]:
    """One run, streamed on ``custom`` and ``updates``; returns ``(event, data)`` pairs."""
    parts: list[tuple[str, Any]] = []

    async def collect() -> None:
        async for part in client.runs.stream(
            thread, GRAPH_ID, stream_mode=["custom", "updates"], **kwargs
        ):
            assert part.event != "error", part.data
            parts.append((part.event, part.data))

    await asyncio.wait_for(collect(), RUN_TIMEOUT)
    return parts


def _interrupt(parts: list[tuple[str, Any]]) -> dict[str, Any]:
    found = [d["__interrupt__"] for e, d in parts if e == "updates" and "__interrupt__" in d]
    assert len(found) == 1, parts
    value: dict[str, Any] = found[0][0]["value"]
    return value


def _types(parts: list[tuple[str, Any]]) -> list[str]:
    return [d["type"] for e, d in parts if e == "custom"]


async def test_clarify_answer_edit_the_plan_and_complete(alice: LangGraphClient) -> None:
    thread = (await alice.threads.create())["thread_id"]
    context = {"depth": "light", "review_plan": True}
    question = {"messages": [{"role": "user", "content": "batteries"}]}

    asked = await _stream(alice, thread, input=question, context=context)
    clarification = _interrupt(asked)
    assert clarification["type"] == "clarification" and clarification["question"]
    assert _types(asked) == ["research_started", "clarification_requested"]
    state = await alice.threads.get_state(thread)
    assert state["next"] == ["ask_clarification"]
    assert state["tasks"][0]["interrupts"][0]["value"] == clarification
    assert (await alice.threads.get(thread))["status"] == "interrupted"

    planned = await _stream(
        alice, thread, command={"resume": "costs of grid batteries"}, context=context
    )
    review = _interrupt(planned)
    assert review["type"] == "plan_review" and review["error"] is None
    assert _types(planned) == ["plan_created"]  # clarify did not run again
    proposed = review["steps"]
    assert len(proposed) >= 2 and review["max_steps"] >= len(proposed)

    refused = await _stream(alice, thread, command={"resume": {"steps": []}}, context=context)
    assert "at least one step" in _interrupt(refused)["error"]

    edit = {
        "steps": [
            {"id": proposed[1]["id"], "title": "Lithium-ion battery pack prices per kWh"},
            "Hornsdale Power Reserve cost",
        ]
    }
    done = await _stream(alice, thread, command={"resume": edit}, context=context)
    types = _types(done)
    assert types[0] == "plan_reviewed" and types[-1] == "research_completed"
    order = ["plan_reviewed", "step_started", "claim_verified", "verification_summary"]
    firsts = [types.index(name) for name in order]
    assert firsts == sorted(firsts), types

    values = (await alice.threads.get_state(thread))["values"]
    assert [s["title"] for s in values["plan"]] == [
        "Lithium-ion battery pack prices per kWh",
        "Hornsdale Power Reserve cost",
    ]
    assert values["plan"][0]["intent"] == proposed[1]["intent"]
    assert {f["step_id"] for f in values["findings"]} == {"s01", "s02"}
    assert values["clarification"] == "costs of grid batteries"
    assert values["report"]["references"]
    assert (await alice.threads.get(thread))["status"] == "idle"


async def test_users_cannot_see_each_others_threads(
    alice: LangGraphClient, bob: LangGraphClient, auth_server: AuthServer
) -> None:
    thread = (await alice.threads.create(metadata={"owner": "bob"}))["thread_id"]
    assert (await alice.threads.get(thread))["metadata"]["owner"] == "alice"
    await asyncio.wait_for(
        alice.runs.wait(thread, GRAPH_ID, input=INPUT, context=QUICK), RUN_TIMEOUT
    )

    with pytest.raises(NotFoundError):
        await bob.threads.get(thread)
    with pytest.raises(NotFoundError):
        await bob.threads.get_state(thread)
    with pytest.raises(NotFoundError):
        await bob.threads.get_history(thread)
    with pytest.raises(httpx.HTTPStatusError) as run_refused:
        await bob.runs.wait(thread, GRAPH_ID, input=INPUT, context=QUICK)
    assert run_refused.value.response.status_code == 404
    with pytest.raises(NotFoundError):
        await bob.threads.update(thread, metadata={"owner": "bob"})
    with pytest.raises(NotFoundError):
        await bob.threads.delete(thread)
    bobs = {t["thread_id"] for t in await bob.threads.search(limit=100)}
    alices = {t["thread_id"] for t in await alice.threads.search(limit=100)}
    assert thread in alices and thread not in bobs
    assert bobs.isdisjoint(alices)

    # Both see the server's assistant, and only their own others.
    assert [a["graph_id"] for a in await bob.assistants.search(graph_id=GRAPH_ID)] == [GRAPH_ID]
    mine = await alice.assistants.create(GRAPH_ID, name="alice's light runs", context=QUICK)
    assert mine["metadata"]["owner"] == "alice"
    with pytest.raises(NotFoundError):
        await bob.assistants.get(mine["assistant_id"])
    assert mine["assistant_id"] not in {a["assistant_id"] for a in await bob.assistants.search()}

    # The store API is limited to one's own namespaces; crons are not offered.
    await alice.store.put_item(("alice", "notes"), "k", {"v": 1})
    with pytest.raises(PermissionDeniedError):
        await bob.store.get_item(("alice", "notes"), "k")
    with pytest.raises(PermissionDeniedError):
        await bob.crons.create(GRAPH_ID, schedule="0 0 * * *", input=INPUT)

    # The run was recorded as alice's, and Studio's no-token header is refused (the bypass
    # is off in langgraph.json).
    with sqlite3.connect(auth_server.data_dir / "deep_research.sqlite") as db:
        owners = db.execute("SELECT user_id FROM chats WHERE thread_id = ?", (thread,)).fetchall()
    assert owners == [("alice",)]
    async with httpx.AsyncClient(base_url=auth_server.url, trust_env=False) as http:
        studio = await http.get(f"/threads/{thread}", headers={"x-auth-scheme": "langsmith"})
    assert studio.status_code == 401


async def test_a_signed_token_works_for_a_user_nobody_listed(auth_server: AuthServer) -> None:
    async with get_client(
        url=auth_server.url, api_key=None, headers=auth_server.headers("carol@example.org")
    ) as carol:
        thread = await carol.threads.create()
        assert thread["metadata"]["owner"] == "carol@example.org"


async def test_a_token_sent_as_the_sdks_api_key_works(auth_server: AuthServer) -> None:
    # agent-chat-ui passes its token as the SDK's api_key, which is sent as X-Api-Key.
    token = auth_server.headers("alice")["Authorization"].removeprefix("Bearer ")
    async with get_client(url=auth_server.url, api_key=token) as client:
        thread = await client.threads.create()
        assert thread["metadata"]["owner"] == "alice"
    async with httpx.AsyncClient(base_url=auth_server.url, trust_env=False) as http:
        wrong = {"X-Api-Key": "not-a-valid-token-at-all"}
        assert (await http.post("/threads/search", json={}, headers=wrong)).status_code == 401


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer not-a-valid-token-at-all"},
        {"Authorization": "Basic YWxpY2U6c2VjcmV0"},
        {"Authorization": "Bearer alice.0000000000000000000000000000000000000000000000000000"},
    ],
)
async def test_a_missing_or_bad_token_is_refused(
    auth_server: AuthServer, headers: dict[str, str]
) -> None:
    async with httpx.AsyncClient(base_url=auth_server.url, trust_env=False) as http:
        assert (await http.post("/threads", json={}, headers=headers)).status_code == 401
        assert (await http.post("/threads/search", json={}, headers=headers)).status_code == 401
        assert (await http.get("/chats", headers=headers)).status_code == 401
        assert (await http.get("/preferences", headers=headers)).status_code == 401
        assert (await http.get("/ok")).status_code == 200  # health stays open


async def test_preferences_become_the_defaults_of_the_users_runs(
    auth_server: AuthServer,
) -> None:
    headers = auth_server.headers("dave")
    async with httpx.AsyncClient(base_url=auth_server.url, trust_env=False) as http:
        saved = await http.put(
            "/preferences",
            json={"mode": "web_search", "depth": "light", "system_instructions": "Be brief."},
            headers=headers,
        )
        assert saved.status_code == 200, saved.text
    async with get_client(url=auth_server.url, api_key=None, headers=headers) as dave:
        thread = (await dave.threads.create())["thread_id"]
        await asyncio.wait_for(
            dave.runs.wait(thread, GRAPH_ID, input=INPUT, context={"allow_clarification": False}),
            RUN_TIMEOUT,
        )
        values = (await dave.threads.get_state(thread))["values"]
    assert values["config"]["mode"] == "web_search" and values["config"]["depth"] == "light"
    assert values["run_context"]["system_instructions"] == "Be brief."
    assert len(values["plan"]) == 1  # web_search: one researcher, one round
