"""The runtime adapters: the same auth, run checks and identity under langgraph-api and Aegra.

The handlers are called directly with each runtime's calling convention and value shapes (as
read in langgraph-api's ``auth/custom.py`` and Aegra's ``core/auth_middleware.py`` and
``api/runs.py``); no server, no network.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest.mock import ANY

import pytest
from langgraph.graph import START, StateGraph
from langgraph_sdk import Auth

from deep_research.errors import ConfigurationError, NotFoundError
from deep_research.persistence import queries
from deep_research.persistence.preferences import Preferences, put_user_preferences
from deep_research.persistence.recorder import Batch, RunScope, authenticated_user_id
from deep_research.server import auth as server_auth
from deep_research.server.database import domain_database
from deep_research.server.graph import ServerRecorder
from deep_research.server.run_cap import RunLimiter
from deep_research.server.runtimes.aegra import ADMISSION_KEY, AegraRuntime
from deep_research.server.runtimes.base import Runtime, authorization_header
from deep_research.server.runtimes.langgraph_api import LangGraphApiRuntime
from deep_research.server.runtimes.select import current_runtime
from deep_research.settings import get_settings

ALICE = "alice-token-0123456789"


@dataclass(frozen=True)
class User:
    identity: str
    is_authenticated: bool = True


def _ctx(user: str) -> Auth.types.AuthContext:
    return Auth.types.AuthContext(
        user=User(user), permissions=[], resource="threads", action="create_run"
    )


class NoRuns:
    async def active(self, user_id: str) -> set[str]:
        return set()

    async def status(self, thread_id: str, run_id: str) -> str | None:
        return None


async def _in_process() -> None:
    return None


@pytest.fixture(autouse=True)
def _auth_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_AUTH_TOKENS", f"{ALICE}=alice")
    get_settings.cache_clear()
    monkeypatch.setattr(server_auth, "run_limiter", RunLimiter(NoRuns(), database=_in_process))


def _serve_on(monkeypatch: pytest.MonkeyPatch, runtime: Runtime) -> None:
    monkeypatch.setattr(server_auth, "current_runtime", lambda: runtime)


def _langgraph_api_value(**kwargs: Any) -> dict[str, Any]:
    """``threads.create_run``'s value under langgraph-api: the request under ``kwargs``."""
    return {"thread_id": "t1", "run_id": "r1", "metadata": {}, "kwargs": kwargs}


def _aegra_value(**request: Any) -> dict[str, Any]:
    """``threads.create_run``'s value under Aegra: ``RunCreate.model_dump()`` plus the thread."""
    base = {"assistant_id": "deep_research", "input": None, "config": {}, "context": {}}
    return {**base, **request, "thread_id": "t1", "metadata": None}


def test_the_authorization_header_is_read_from_either_runtimes_headers() -> None:
    assert authorization_header({b"authorization": b"Bearer x"}) == "Bearer x"  # langgraph-api
    assert authorization_header({"authorization": "Bearer y"}) == "Bearer y"  # Aegra
    assert authorization_header({"Authorization": "Bearer z"}) == "Bearer z"
    assert authorization_header({"x-other": "1"}) is None
    assert authorization_header(None) is None


async def test_authenticate_accepts_aegras_positional_headers_and_refuses_bad_tokens() -> None:
    assert (await server_auth.authenticate({"authorization": f"Bearer {ALICE}"}))[
        "identity"
    ] == "alice"
    for headers in ({}, {"authorization": "Bearer not-a-token-0123456789"}):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await server_auth.authenticate(headers)
        assert refused.value.status_code == 401


@pytest.mark.parametrize(
    ("runtime", "value"),
    [(LangGraphApiRuntime(), _langgraph_api_value), (AegraRuntime(), _aegra_value)],
    ids=["langgraph-api", "aegra"],
)
async def test_run_checks_refuse_the_same_requests_on_both_runtimes(
    runtime: Runtime, value: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _serve_on(monkeypatch, runtime)
    monkeypatch.setenv("DEEP_RESEARCH_CORPUS_ROOTS", str(tmp_path))
    get_settings.cache_clear()
    nul = {"messages": [{"role": "user", "content": "batteries\x00"}]}
    refused = {
        422: [value(input=nul), value(command={"update": nul})],
        403: [
            value(context={"model": "openai:gpt-not-offered"}),
            value(config={"configurable": {"model": "openai:gpt-not-offered"}}),
            value(context={"corpus_dir": "/etc"}),
        ],
    }
    for status, values in refused.items():
        for request in values:
            with pytest.raises(Auth.exceptions.HTTPException) as raised:
                await server_auth.create_run(ctx=_ctx("alice"), value=request)
            assert raised.value.status_code == status, request
    fine = value(input={"messages": [{"role": "user", "content": "grid batteries"}]})
    assert (await server_auth.create_run(ctx=_ctx("alice"), value=fine))["owner"] == "alice"


async def test_preferences_reach_the_run_the_way_each_runtime_takes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with (await domain_database()).session_scope() as session:
        await put_user_preferences(
            session, user_id="alice", preferences=Preferences(depth="light", mode="web_search")
        )
    _serve_on(monkeypatch, AegraRuntime())
    aegra = _aegra_value(context={"depth": "medium"}, config={"configurable": {"x": 1}})
    result = await server_auth.create_run(ctx=_ctx("alice"), value=aegra)
    # Aegra merges the returned context into the run's and ignores changes to its value.
    assert result["context"] == {"depth": "medium", "mode": "web_search"}
    # The run carries the id the run cap admitted it by, beside what the client configured.
    assert result["config"]["configurable"] == {"x": 1, ADMISSION_KEY: ANY}
    _serve_on(monkeypatch, LangGraphApiRuntime())
    api = _langgraph_api_value(context={"depth": "medium"})
    assert await server_auth.create_run(ctx=_ctx("alice"), value=api) == {"owner": "alice"}
    assert api["kwargs"]["context"] == {"depth": "medium", "mode": "web_search"}


def test_the_run_user_is_the_authenticated_one_never_the_one_a_client_sent() -> None:
    @dataclass
    class AegraUser:  # Aegra's User model, or langgraph-api's user object
        identity: str

    sent = {"user_id": "bob", "langgraph_auth_user_id": "bob"}
    assert authenticated_user_id({**sent, "langgraph_auth_user": AegraUser("alice")}) == "alice"
    stored = {**sent, "langgraph_auth_user": {"identity": "alice", "display_name": "A"}}
    assert authenticated_user_id(stored) == "alice"
    assert authenticated_user_id(sent) is None  # not a server: nobody was authenticated


async def test_a_state_write_is_refused_whatever_keys_its_body_adds_on_aegra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Aegra's update value is the request body plus the path's ids: a body may add any key."""
    _serve_on(monkeypatch, AegraRuntime())

    async def nothing_stored(self: AegraRuntime, resource: str, resource_id: str) -> None:
        return None  # a rename reads the stored metadata, in Aegra's database (not here)

    monkeypatch.setattr(AegraRuntime, "stored_metadata", nothing_stored)
    ctx = Auth.types.AuthContext(
        user=User("alice"), permissions=[], resource="threads", action="update"
    )
    writes = [
        {"thread_id": "t1", "values": {"messages": []}},
        {"thread_id": "t1", "values": {}, "action": "cancel"},  # langgraph-api's run marker
        {"thread_id": "t1", "values": {}, "run_id": "r1"},
        {"thread_id": "t1", "values": {}, "metadata": {}},
        {"thread_id": "t1"},
    ]
    for value in writes:
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await server_auth.own_threads(ctx=ctx, value=value)
        assert refused.value.status_code == 403, value
    cancel = {"thread_id": "t1", "run_id": "r1"}
    assert await server_auth.own_threads(ctx=ctx, value=cancel) == {"owner": "alice"}
    rename: dict[str, Any] = {"thread_id": "t1", "metadata": {"title": "x", "owner": "bob"}}
    assert await server_auth.own_threads(ctx=ctx, value=rename) == {"owner": "alice"}
    assert rename["metadata"]["owner"] == "alice"


def test_the_adapter_is_the_runtime_that_imported_us(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(current_runtime(), LangGraphApiRuntime)  # also outside any server
    monkeypatch.setitem(sys.modules, "aegra_api", ModuleType("aegra_api"))
    assert isinstance(current_runtime(), AegraRuntime)


async def test_the_served_graph_records_only_as_the_authenticated_user() -> None:
    """With auth on, a run without the server's user records nothing; a sent user id is ignored."""

    @dataclass
    class Authenticated:
        identity: str

    async def record(state: dict[str, Any]) -> dict[str, Any]:
        await ServerRecorder().write(RunScope("bob", "t-record", 1), Batch(title="A chat"))
        return {}

    builder = StateGraph(dict)
    builder.add_node("record", record)
    builder.add_edge(START, "record")
    graph = builder.compile()
    sent = {"user_id": "bob", "langgraph_auth_user_id": "bob"}
    with pytest.raises(ConfigurationError, match="no authenticated user"):
        await graph.ainvoke({}, {"configurable": sent})
    alice = {**sent, "langgraph_auth_user": Authenticated("alice")}
    await graph.ainvoke({}, {"configurable": alice})
    async with (await domain_database()).session_scope() as session:
        assert (await queries.get_chat(session, user_id="alice", thread_id="t-record")).title
        with pytest.raises(NotFoundError):
            await queries.get_chat(session, user_id="bob", thread_id="t-record")


class _TheirCORS:
    """Stands for the middleware Aegra adds outside a custom app's own."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def test_on_aegra_our_middleware_goes_outermost_and_refuses_webhooks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from deep_research.server.bodies import RequestBodies
    from deep_research.server.cors import CORSPolicy
    from deep_research.server.runtimes import aegra

    monkeypatch.setattr(aegra, "_state_by_field_name", lambda: None)  # Aegra's routes: none here
    monkeypatch.setattr(aegra, "_refuse_to_serve_without_auth", lambda: None)  # nor its auth
    app = FastAPI()
    app.add_middleware(RequestBodies)
    app.add_middleware(CORSPolicy)
    app.add_middleware(_TheirCORS)  # what Aegra adds after loading our app, outside ours
    seen: list[str] = []

    @app.post("/threads/{thread_id}/runs")
    async def create(thread_id: str) -> dict[str, str]:
        seen.append(thread_id)
        return {"run_id": "r1"}

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "healthy"}

    AegraRuntime().adapt_app(app)
    AegraRuntime().adapt_app(app)  # once only
    assert [m.cls for m in app.user_middleware] == [
        CORSPolicy,
        RequestBodies,
        aegra.AegraRequests,
        _TheirCORS,
    ]
    client = TestClient(app)
    run = {"assistant_id": "deep_research", "input": {"messages": []}}
    refused = client.post("/threads/t1/runs", json=run | {"webhook": "https://example.com/h"})
    assert refused.status_code == 422 and "webhooks are not supported" in refused.json()["detail"]
    assert client.post("/threads/t1/runs", json=run).status_code == 200
    assert seen == ["t1"]  # the refused run never reached the route
    assert client.get("/ok").json() == {"status": "healthy"}  # langgraph-api's health path


def test_a_batch_of_runs_with_any_webhook_is_refused_on_aegra() -> None:
    from deep_research.server.runtimes.aegra import asks_for_webhook

    assert asks_for_webhook([{"input": {}}, {"input": {}, "webhook": "https://x.example/h"}])
    assert not asks_for_webhook([{"input": {}}, {"webhook": None}])
    assert not asks_for_webhook("not a run")
