"""The server's tokens, auth handlers and preferences, called directly (no server, no network)."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import jwt
import pytest
from langgraph_sdk import Auth

from deep_research.cli import main
from deep_research.cli.token import run_token_command
from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.schemas import ResearchPlan
from deep_research.errors import ConfigurationError
from deep_research.persistence.closed import close_threads
from deep_research.persistence.db import Database, open_database
from deep_research.persistence.preferences import (
    Preferences,
    apply_preferences,
    get_user_preferences,
    put_user_preferences,
)
from deep_research.server import auth as server_auth
from deep_research.server.cors import CORSPolicy, allowed_origins
from deep_research.server.database import domain_database
from deep_research.server.run_cap import DatabaseSource, RunLimiter
from deep_research.server.runtimes.aegra import AegraRuntime
from deep_research.server.runtimes.langgraph_api import LangGraphApiRuntime
from deep_research.server.tokens import TokenVerifier, key_id, sign_token
from deep_research.services import Services
from deep_research.settings import get_settings
from tests.unit_tests.scripted_model import ScriptedChatModel, structured, text

SECRET = "s3cret-s3cret-s3cret-s3cret-s3cret"
ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789xyz"


@dataclass(frozen=True)
class User:
    identity: str
    is_authenticated: bool = True


def _configure(monkeypatch: pytest.MonkeyPatch, **variables: str) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()


def _ctx(user: str, resource: str, action: str) -> Auth.types.AuthContext:
    return Auth.types.AuthContext(user=User(user), permissions=[], resource=resource, action=action)


@dataclass
class FakeRunBook:
    """The server's runs as the run cap sees them: active ids, and the stored ones."""

    listed: set[str] = field(default_factory=set)
    stored_runs: set[str] = field(default_factory=set)

    async def active(self, user_id: str) -> set[str]:
        await asyncio.sleep(0)  # let a concurrent request interleave here
        return set(self.listed) if user_id == "alice" else set()

    async def status(self, thread_id: str, run_id: str) -> str | None:
        if run_id not in self.stored_runs:
            return None
        return "running" if run_id in self.listed else "success"


async def in_process() -> None:
    """No domain store: the cap holds admitted runs in the process."""
    return None


@pytest.fixture(autouse=True)
def _no_server_to_count_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run cap counts through the server's loopback API, which a unit test has not."""
    monkeypatch.setattr(server_auth, "run_limiter", RunLimiter(FakeRunBook(), database=in_process))


def test_signed_tokens_verify_expire_and_tampering_does_not() -> None:
    token = sign_token("alice", SECRET)
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "HS256" and header["kid"] == key_id(SECRET)
    verifier = TokenVerifier(secrets=(SECRET,))
    assert verifier.verify(token) == "alice"
    head, body, signature = token.split(".")
    assert verifier.verify(f"{head}.{body}.{signature[::-1]}") is None
    assert TokenVerifier(secrets=(SECRET + "x",)).verify(token) is None
    assert verifier.verify("alice") is None and verifier.verify("") is None
    expired = sign_token(
        "alice", SECRET, ttl=timedelta(hours=1), now=datetime(2020, 1, 1, tzinfo=UTC)
    )
    assert verifier.verify(expired) is None
    unsigned = jwt.encode({"sub": "alice", "exp": 2**40}, "", algorithm="none")
    assert verifier.verify(unsigned) is None  # the algorithm is pinned
    no_expiry = jwt.encode(
        {"sub": "alice"}, SECRET, algorithm="HS256", headers={"kid": key_id(SECRET)}
    )
    assert verifier.verify(no_expiry) is None  # exp is required
    with pytest.raises(ConfigurationError, match="user id"):
        sign_token("not valid!", SECRET)
    with pytest.raises(ConfigurationError, match="32 bytes"):
        sign_token("alice", "short")


def test_secrets_rotate_by_key_id() -> None:
    old, new = SECRET, "n" * 40
    token = sign_token("bob", old)
    assert TokenVerifier(secrets=(new,)).verify(token) is None
    assert TokenVerifier(secrets=(new, old)).verify(token) == "bob"


def test_reserved_namespace_roots_are_never_user_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="documents"):
        sign_token("documents", SECRET)
    forged = jwt.encode(
        {"sub": "documents", "exp": 2**40},
        SECRET,
        algorithm="HS256",
        headers={"kid": key_id(SECRET)},
    )
    assert TokenVerifier(secrets=(SECRET,)).verify(forged) is None
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=documents")
    with pytest.raises(ConfigurationError, match="valid user ids"):
        TokenVerifier.from_settings(get_settings())


def test_listed_tokens_map_to_their_users(monkeypatch: pytest.MonkeyPatch) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f" {ALICE}=alice , {BOB}=bob ,")
    verifier = TokenVerifier.from_settings(get_settings())
    assert not verifier.open and verifier.secrets == ()
    assert verifier.verify(ALICE) == "alice" and verifier.verify(BOB) == "bob"
    assert verifier.verify(ALICE + "x") is None and verifier.verify("alice") is None


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"DEEP_RESEARCH_AUTH_TOKENS": "no-equals-sign-here-at-all"}, "TOKEN=USER_ID"),
        ({"DEEP_RESEARCH_AUTH_TOKENS": "short=alice"}, "shorter than 16"),
        ({"DEEP_RESEARCH_AUTH_TOKENS": f"{ALICE}=al ice"}, "valid user ids"),
        ({"DEEP_RESEARCH_AUTH_TOKENS": f"{ALICE}=alice,{ALICE}=bob"}, "twice"),
        ({"DEEP_RESEARCH_AUTH_TOKENS": ","}, "holds no TOKEN=USER_ID pair"),
        ({"DEEP_RESEARCH_AUTH_SECRET": "short"}, "32 bytes"),
        ({"DEEP_RESEARCH_AUTH_PREVIOUS_SECRETS": SECRET}, "needs DEEP_RESEARCH_AUTH_SECRET"),
    ],
)
def test_malformed_auth_settings_are_refused(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    _configure(monkeypatch, **variables)
    with pytest.raises(ConfigurationError, match=message):
        TokenVerifier.from_settings(get_settings())


def test_the_token_command_prints_a_token_with_the_asked_lifetime(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["token", "alice"]) == 2
    assert "DEEP_RESEARCH_AUTH_SECRET" in capsys.readouterr().err
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_SECRET=SECRET)
    assert main(["token", "alice", "--ttl", "2h"]) == 0
    token = capsys.readouterr().out.strip()
    claims = jwt.decode(token, SECRET, algorithms=["HS256"])
    assert claims["sub"] == "alice" and claims["exp"] - claims["iat"] == 7200
    assert main(["token", "alice", "--ttl", "forever"]) == 2
    assert "--ttl" in capsys.readouterr().err
    out = io.StringIO()
    assert run_token_command(SimpleNamespace(user_id="bob", ttl="30d"), out) == 0
    assert TokenVerifier(secrets=(SECRET,)).verify(out.getvalue().strip()) == "bob"


def test_bearer_header_parsing() -> None:
    assert server_auth.bearer_token("Bearer abc") == "abc"
    assert server_auth.bearer_token("bearer   abc ") == "abc"
    assert server_auth.bearer_token("Basic abc") is None
    assert server_auth.bearer_token("Bearer") is None
    assert server_auth.bearer_token(None) is None


async def test_an_open_server_accepts_everyone_as_the_local_user() -> None:
    user = await server_auth.authenticate(None)
    assert user["identity"] == "local"
    assert server_auth.owner_id(User("langgraph-studio-user")) == "local"
    state_write: dict[str, Any] = {"thread_id": "t1"}  # Studio's state editing, locally
    ctx = _ctx("langgraph-studio-user", "threads", "update")
    assert await server_auth.own_threads(ctx=ctx, value=state_write) == {"owner": "local"}


async def test_with_tokens_a_missing_or_bad_token_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(
        monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice", DEEP_RESEARCH_AUTH_SECRET=SECRET
    )
    for header in (None, "", "Bearer wrong-token-0123456789", f"Basic {ALICE}"):
        headers = {} if header is None else {b"authorization": header.encode()}
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await server_auth.authenticate(headers)
        assert refused.value.status_code == 401
    bearer = {b"authorization": f"Bearer {ALICE}".encode()}
    assert (await server_auth.authenticate(bearer))["identity"] == "alice"
    signed = sign_token("carol", SECRET)
    bearer = {b"authorization": f"Bearer {signed}".encode()}
    assert (await server_auth.authenticate(bearer))["identity"] == "carol"
    assert server_auth.owner_id(User("langgraph-studio-user")) == "langgraph-studio-user"


async def test_a_token_sent_as_an_api_key_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    # agent-chat-ui and the LangGraph SDK's api_key send the token as X-Api-Key.
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    assert (await server_auth.authenticate({b"x-api-key": ALICE.encode()}))["identity"] == "alice"
    assert (await server_auth.authenticate({"X-Api-Key": ALICE}))["identity"] == "alice"  # Aegra
    for key in ("", "wrong-token-0123456789"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await server_auth.authenticate({b"x-api-key": key.encode()})
        assert refused.value.status_code == 401


async def test_threads_and_assistants_are_stamped_and_filtered_by_owner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    created: dict[str, Any] = {"metadata": {"owner": "bob", "topic": "x"}}
    result = await server_auth.create_thread(ctx=_ctx("alice", "threads", "create"), value=created)
    assert result == {"owner": "alice"} and created["metadata"] == {"owner": "alice", "topic": "x"}
    update: dict[str, Any] = {"metadata": {"owner": "bob"}}
    assert await server_auth.own_threads(ctx=_ctx("alice", "threads", "update"), value=update) == {
        "owner": "alice"
    }
    assert update["metadata"]["owner"] == "alice"
    state_write: dict[str, Any] = {"thread_id": "t1"}  # update_state: neither metadata nor action
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await server_auth.own_threads(ctx=_ctx("alice", "threads", "update"), value=state_write)
    assert refused.value.status_code == 403
    cancel: dict[str, Any] = {"thread_id": "t1", "action": "interrupt", "metadata": {"run_ids": []}}
    await server_auth.own_threads(ctx=_ctx("alice", "threads", "update"), value=cancel)
    assert cancel["metadata"] == {"run_ids": []}  # a cancellation is not stamped
    read = await server_auth.own_assistants(ctx=_ctx("bob", "assistants", "search"), value={})
    assert read == {"$or": [{"owner": "bob"}, {"created_by": "system"}]}
    assert await server_auth.own_assistants(ctx=_ctx("bob", "assistants", "delete"), value={}) == {
        "owner": "bob"
    }
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await server_auth.no_crons(ctx=_ctx("bob", "crons", "create"), value={})
    assert refused.value.status_code == 403
    assert await server_auth.deny_everything_else(ctx=_ctx("bob", "other", "x"), value={}) is False


async def test_no_thread_is_created_again_under_a_closed_threads_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On an open server too, and on Aegra, whose checkpointer never looks closed threads up."""
    database = await domain_database()
    async with database.session_scope() as session:
        await close_threads(session, user_id="local", thread_ids=["purged-1"], purged=True)
        await close_threads(session, user_id="local", thread_ids=["deleted-1"], purged=False)
    ask = {"input": {"messages": [{"role": "user", "content": "Hi?"}]}}
    for runtime in ("langgraph-api", "aegra"):
        if runtime == "aegra":  # Aegra's run creation is the request itself, flat
            monkeypatch.setattr(server_auth, "current_runtime", AegraRuntime)
        for thread_id in ("purged-1", "deleted-1"):
            created: dict[str, Any] = {"thread_id": thread_id, "metadata": {}}
            with pytest.raises(Auth.exceptions.HTTPException) as refused:
                await server_auth.create_thread(
                    ctx=_ctx("local", "threads", "create"), value=created
                )
            assert refused.value.status_code == 409
            run: dict[str, Any] = {
                "thread_id": thread_id,
                "if_not_exists": "create",
                "metadata": {},
            }
            run |= ask if runtime == "aegra" else {"kwargs": ask}
            with pytest.raises(Auth.exceptions.HTTPException) as refused:
                await server_auth.create_run(ctx=_ctx("local", "threads", "create_run"), value=run)
            assert refused.value.status_code == 409, runtime
        fresh: dict[str, Any] = {"thread_id": "fresh-1", "metadata": {}}
        await server_auth.create_thread(ctx=_ctx("local", "threads", "create"), value=fresh)


class StoredMetadata(LangGraphApiRuntime):
    """The runtime, with a thread and an assistant of alice's holding 40 KB of metadata."""

    async def stored_metadata(self, resource: str, resource_id: str) -> dict[str, Any] | None:
        return {"owner": "alice", "a": "x" * 40_000} if resource_id == "t1" else None


async def test_an_update_is_capped_with_the_metadata_it_merges_into(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    monkeypatch.setattr(server_auth, "current_runtime", StoredMetadata)
    more = {"b": "x" * 40_000}
    for handler, resource, key in (
        (server_auth.own_threads, "threads", "thread_id"),
        (server_auth.own_assistants, "assistants", "assistant_id"),
    ):
        ctx = _ctx("alice", resource, "update")
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await handler(ctx=ctx, value={key: "t1", "metadata": dict(more)})
        assert refused.value.status_code == 422 and "stored" in str(refused.value.detail)
        await handler(ctx=ctx, value={key: "t1", "metadata": {"a": "y" * 40_000}})  # replaced
        await handler(ctx=ctx, value={key: "t2", "metadata": dict(more)})  # nothing stored
        bobs = _ctx("bob", resource, "update")  # not bob's: his answer is the server's 404
        await handler(ctx=bobs, value={key: "t1", "metadata": dict(more)})


async def test_store_namespaces_start_with_the_user_id(monkeypatch: pytest.MonkeyPatch) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    ctx = _ctx("alice", "store", "put")
    assert await server_auth.own_namespaces(ctx=ctx, value={"namespace": ("alice", "notes")})
    for namespace in [("documents",), ("bob", "notes"), ()]:
        with pytest.raises(Auth.exceptions.HTTPException):
            await server_auth.own_namespaces(ctx=ctx, value={"namespace": namespace})
    listing: dict[str, Any] = {"namespace": None}
    await server_auth.own_namespaces(ctx=_ctx("alice", "store", "list_namespaces"), value=listing)
    assert listing["namespace"] == ("alice",)


async def test_runs_take_the_users_preferences_where_the_caller_set_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    preferences = Preferences(depth="light", mode="web_search", system_instructions="In French.")
    async with (await domain_database()).session_scope() as session:
        await put_user_preferences(session, user_id="alice", preferences=preferences)
    async with (await domain_database()).session_scope() as session:
        assert await get_user_preferences(session, user_id="alice") == preferences
        assert await get_user_preferences(session, user_id="bob") == Preferences()
    value: dict[str, Any] = {"metadata": {}, "kwargs": {"context": {"depth": "medium"}}}
    ctx = _ctx("alice", "threads", "create_run")
    assert await server_auth.create_run(ctx=ctx, value=value) == {"owner": "alice"}
    assert value["metadata"] == {"owner": "alice"}
    assert value["kwargs"]["context"] == {
        "depth": "medium",  # what the caller passed wins
        "mode": "web_search",
        "system_instructions": "In French.",
    }
    empty: dict[str, Any] = {"metadata": {}, "kwargs": {"context": None}}
    await server_auth.create_run(ctx=_ctx("bob", "threads", "create_run"), value=empty)
    assert empty["kwargs"]["context"] == {}


def test_preferences_fill_only_missing_fields_and_validate() -> None:
    context: dict[str, Any] = {"mode": "simple"}
    apply_preferences(Preferences(mode="deep_research", depth="extended"), context)
    assert context == {"mode": "simple", "depth": "extended"}
    with pytest.raises(ValueError):
        Preferences.model_validate({"depth": "huge"})
    with pytest.raises(ValueError):
        Preferences.model_validate({"colour": "blue"})


async def test_system_instructions_reach_the_writing_prompts_not_the_judge() -> None:
    model = ScriptedChatModel(
        responses=[
            structured(ResearchPlan, brief="b", complexity="simple", steps=[{"title": "t"}]),
            text("## Summary\n\nIt is so [E1]."),
        ]
    )
    engine = Services(engine=LLMEngine(model, name="scripted")).engine_for(
        Context(system_instructions="Answer in French.")
    )
    assert isinstance(engine, LLMEngine) and engine.instructions == "Answer in French."
    await engine.plan("q", [], 3)
    await engine.write_report("q", "b", [], [])
    systems = [str(call[0].content) for call in model.calls]
    assert all("Answer in French." in system for system in systems)
    plain = LLMEngine(model, name="scripted")
    assert Services(engine=plain).engine_for(Context()) is plain
    offline = OfflineEngine()
    assert Services(engine=offline).engine_for(Context(system_instructions="x")) is offline
    assert "USER INSTRUCTIONS" not in plain._system("judge prompt")


@pytest.mark.parametrize("shared", [False, True], ids=["in-process", "shared-table"])
async def test_the_run_cap_counts_listed_and_just_admitted_runs(
    shared: bool, tmp_path: Path
) -> None:
    """The same count with or without the table that replicas share (here on SQLite)."""
    async with open_database(f"sqlite:///{tmp_path / 'cap.db'}") as database:

        async def table() -> Database | None:
            return database if shared else None

        await _count_listed_and_just_admitted_runs(table)


async def _count_listed_and_just_admitted_runs(table: DatabaseSource) -> None:
    book, now = FakeRunBook(listed={"r1"}), [0.0]
    limiter = RunLimiter(book, database=table, hold_seconds=5.0, clock=lambda: now[0])
    admissions = [limiter.admit("alice", f"new{i}", "t1", 2) for i in range(3)]
    results = await asyncio.gather(*admissions)
    assert sorted(results, key=str) == [2, 2, None]  # one slot left: one of three gets it
    admitted = f"new{results.index(None)}"
    assert await limiter.admit("bob", "b1", "t2", 2) is None  # caps are per user
    assert await limiter.admit("alice", "y", "t3", 2) == 2  # held before the server has it
    book.listed.add(admitted)
    book.stored_runs.add(admitted)
    assert await limiter.admit("alice", "y", "t3", 2) == 2  # stored and active: counted once
    book.listed.discard(admitted)  # it finished: a stored run counts only while active
    assert await limiter.admit("alice", "y", "t3", 2) is None
    book.listed.clear()
    assert await limiter.admit("alice", "z", None, 1) == 1  # y is not stored yet
    now[0] = 10.0  # until its reservation expires
    assert await limiter.admit("alice", "z", None, 1) is None


async def test_a_run_over_the_cap_is_429_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_AUTH_TOKENS=f"{ALICE}=alice")
    monkeypatch.setenv("DEEP_RESEARCH_MAX_RUNS_PER_USER", "2")
    get_settings.cache_clear()

    limiter = RunLimiter(FakeRunBook({"r1", "r2"}), database=in_process)
    monkeypatch.setattr(server_auth, "run_limiter", limiter)
    value: dict[str, Any] = {"metadata": {}, "run_id": "r3", "kwargs": {"context": {}}}
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await server_auth.create_run(ctx=_ctx("alice", "threads", "create_run"), value=value)
    assert refused.value.status_code == 429
    assert "at most 2 per user" in str(refused.value.detail)
    monkeypatch.setenv("DEEP_RESEARCH_MAX_RUNS_PER_USER", "0")  # no cap
    get_settings.cache_clear()
    assert await server_auth.create_run(ctx=_ctx("alice", "threads", "create_run"), value=value)


def test_cors_origins_are_studio_and_the_configured_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_CORS_ORIGINS=" https://App.example.org/, http://x:8080")
    assert allowed_origins(get_settings()) == (
        "https://smith.langchain.com",
        "https://app.example.org",
        "http://x:8080",
    )
    for bad in ("*", "https://a.example/path", "app.example.org", "null", "ftp://a.example"):
        _configure(monkeypatch, DEEP_RESEARCH_CORS_ORIGINS=bad)
        with pytest.raises(ConfigurationError, match="DEEP_RESEARCH_CORS_ORIGINS"):
            allowed_origins(get_settings())


async def test_cors_grants_private_network_access_to_allowed_origins_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(monkeypatch, DEEP_RESEARCH_CORS_ORIGINS="https://app.example.org")

    async def server(scope: Any, receive: Any, send: Any) -> None:  # like `langgraph dev`
        headers = [(b"access-control-allow-private-network", b"true")]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization",
        "Access-Control-Request-Private-Network": "true",
    }
    transport = httpx.ASGITransport(app=CORSPolicy(server))
    async with httpx.AsyncClient(transport=transport, base_url="http://server") as http:
        for origin in ("https://smith.langchain.com", "https://app.example.org"):
            allowed = await http.options("/threads", headers=preflight | {"Origin": origin})
            assert allowed.status_code == 200
            assert allowed.headers["access-control-allow-origin"] == origin
            assert allowed.headers["access-control-allow-private-network"] == "true"
        evil = await http.options(
            "/threads", headers=preflight | {"Origin": "https://evil.example"}
        )
        assert evil.status_code == 400
        assert "access-control-allow-origin" not in evil.headers
        assert "access-control-allow-private-network" not in evil.headers
        for headers in ({"Origin": "https://evil.example"}, {}):
            plain = await http.options("/threads", headers=headers)  # not a preflight
            assert "access-control-allow-private-network" not in plain.headers


@pytest.mark.parametrize(
    "messages",
    [
        "",
        "x" * 4001,
        {"role": "user", "content": "a NUL\x00byte"},
        [["user", "an escape \x1b[2J"]],
        [{"role": "user", "content": [{"type": "text", "text": "a NUL\x00byte"}]}],
        [{"role": "user", "content": "fine"}, {"type": "human", "content": "  "}],
        [{"content": "no role"}],
        [None],
    ],
)
async def test_a_run_input_with_a_bad_question_in_any_shape_is_422(messages: Any) -> None:
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await server_auth.check_run_request({"input": {"messages": messages}})
    assert refused.value.status_code == 422
    assert str(refused.value.detail).startswith(("invalid question: ", "invalid input messages: "))


async def test_a_run_input_with_good_questions_passes() -> None:
    good = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Why?"}]}, "How?"]}
    await server_auth.check_run_request({"input": good})
    await server_auth.check_run_request({"input": None})  # goes on from the thread's state
    await server_auth.check_run_request({"input": {"messages": [["user", "What is a flow cell?"]]}})


async def test_an_empty_input_beside_a_resume_is_no_input() -> None:
    """agent-chat-ui resumes with ``submit({}, {command: {resume: ...}})``."""
    resume = {"resume": {"decisions": [{"type": "approve"}]}}
    await server_auth.check_run_request({"input": {}, "command": resume})
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await server_auth.check_run_request({"input": {}})  # not a resume: no question
    assert refused.value.status_code == 422
