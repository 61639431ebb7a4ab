"""The agent on a real two-instance Aegra cluster: the same guarantees as on ``langgraph dev``.

Two instances (each an API and its workers) share one PostgreSQL and one Redis, started by
``deploy/cluster.sh`` as ``make cluster`` starts them. Runs use the offline engine, or a scripted
OpenAI-compatible model that answers slowly (so runs are in flight when an instance is killed);
no keys are needed. The last test kills an instance: keep it last.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import NotFoundError
from psycopg import sql

from deep_research.persistence.db import open_database
from deep_research.server.runtimes.aegra_purge import purge_from_aegra
from tests.integration_tests.cluster_process import (
    CLUSTER_PYTHON,
    Cluster,
    aegra_cluster,
    ensure_cluster_python,
)
from tests.integration_tests.fake_openai import Holds, scripted_openai

pytestmark = [pytest.mark.server, pytest.mark.postgres]

TOKENS = {
    user: f"{user}-cluster-token-0123456789"
    for user in ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
}
OFFLINE = {"model": "offline", "depth": "light", "allow_clarification": False}
"""A quick run on the offline engine."""
SLOW = {"depth": "light", "allow_clarification": False}
"""A run on the scripted model (the instances' default), each of its replies delayed."""
QUESTION = "How do LFP and NMC batteries compare for grid storage?"
HELD = "[held]"
"""In a question, the run's model requests wait while a test holds this word (see ``holds``)."""


def _database(admin: str, name: str, scheme: str) -> str:
    parts = urlsplit(admin)
    return urlunsplit((scheme, parts.netloc, f"/{name}", parts.query, ""))


def _drop(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def holds() -> Holds:
    """The words whose model requests wait, for the tests that need a run to stay in flight."""
    return Holds()


@pytest.fixture(scope="module")
def cluster(
    postgres_url: str, tmp_path_factory: pytest.TempPathFactory, holds: Holds
) -> Iterator[Cluster]:
    """Two Aegra instances with auth (alice, bob, carol), their own two databases."""
    admin = _database(postgres_url, "postgres", "postgresql")
    base = urlsplit(postgres_url).path.lstrip("/")
    domain, aegra = f"{base}_domain", f"{base}_aegra"  # never one database for both
    env = {
        "DEEP_RESEARCH_AUTH_TOKENS": ",".join(f"{t}={u}" for u, t in TOKENS.items()),
        "DEEP_RESEARCH_MAX_RUNS_PER_USER": "3",
        # Recovery within seconds rather than Aegra's default half-minute lease.
        "LEASE_DURATION_SECONDS": "7",
        "HEARTBEAT_INTERVAL_SECONDS": "2",
        "REAPER_INTERVAL_SECONDS": "2",
        "STUCK_PENDING_THRESHOLD_SECONDS": "10",
    }
    with scripted_openai(delay=0.5, holds=holds) as (base_url, _requests):
        env |= {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-scripted"}
        try:
            with aegra_cluster(
                tmp_path_factory.mktemp("cluster"),
                _database(admin, domain, "postgresql+psycopg"),
                _database(admin, aegra, "postgresql"),
                env,
            ) as running:
                yield running
        finally:
            for name in (domain, aegra):
                _drop(admin, name)


def _client(cluster: Cluster, index: int, user: str) -> LangGraphClient:
    headers = {"Authorization": f"Bearer {TOKENS[user]}"}
    return get_client(url=cluster.urls[index], headers=headers)


def _http(cluster: Cluster, index: int, user: str) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {TOKENS[user]}"}
    return httpx.AsyncClient(base_url=cluster.urls[index], headers=headers, trust_env=False)


def _ask(question: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": question}]}


async def _chat(cluster: Cluster, index: int, user: str, thread: str) -> httpx.Response:
    async with _http(cluster, index, user) as http:
        return await http.get(f"/chats/{thread}")


async def test_a_run_finished_on_one_instance_reads_back_on_the_other(cluster: Cluster) -> None:
    async with _client(cluster, 0, "alice") as first, _client(cluster, 1, "alice") as second:
        thread = (await first.threads.create())["thread_id"]
        await first.runs.wait(thread, "deep_research", input=_ask(QUESTION), context=OFFLINE)
        state = await second.threads.get_state(thread)
    report = state["values"]["report"]
    assert report["references"] and "[1]" in report["markdown"]
    chat = await _chat(cluster, 1, "alice", thread)  # the domain store, through the routes
    assert chat.status_code == 200
    questions = [m["content"] for m in chat.json()["messages"] if m["role"] == "user"]
    assert questions == [QUESTION]


async def test_another_users_thread_is_not_reachable_on_any_instance(cluster: Cluster) -> None:
    async with _client(cluster, 0, "alice") as alice:
        thread = (await alice.threads.create())["thread_id"]
        await alice.runs.wait(thread, "deep_research", input=_ask(QUESTION), context=OFFLINE)
    for index in (0, 1):
        async with _client(cluster, index, "bob") as bob:
            with pytest.raises(NotFoundError):
                await bob.threads.get(thread)
            with pytest.raises(NotFoundError):
                await bob.threads.get_state(thread)
            with pytest.raises(NotFoundError):
                await bob.runs.create(thread, "deep_research", input=_ask(QUESTION))
            assert thread not in [t["thread_id"] for t in await bob.threads.search(limit=100)]
        assert (await _chat(cluster, index, "bob", thread)).status_code == 404


async def test_a_user_id_sent_in_config_or_context_is_not_trusted(cluster: Cluster) -> None:
    async with _client(cluster, 0, "alice") as alice:
        thread = (await alice.threads.create())["thread_id"]
        await alice.runs.wait(
            thread,
            "deep_research",
            input=_ask(QUESTION),
            context={**OFFLINE, "user_id": "bob"},
            config={"configurable": {"user_id": "bob", "langgraph_auth_user_id": "bob"}},
        )
    assert (await _chat(cluster, 1, "alice", thread)).status_code == 200
    assert (await _chat(cluster, 1, "bob", thread)).status_code == 404
    async with _http(cluster, 1, "bob") as http:
        bobs = (await http.get("/chats")).json()
    assert thread not in [chat["thread_id"] for chat in bobs]


async def test_run_checks_refuse_before_anything_is_stored(
    cluster: Cluster, tmp_path: Path
) -> None:
    async with _client(cluster, 1, "carol") as carol:
        thread = (await carol.threads.create())["thread_id"]
    refused = [
        (422, {"input": _ask("batteries\x00 and more"), "context": OFFLINE}),
        (403, {"input": _ask(QUESTION), "context": {**OFFLINE, "model": "gpt-not-offered"}}),
        (403, {"input": _ask(QUESTION), "config": {"configurable": {"model": "gpt-other"}}}),
        (403, {"input": _ask(QUESTION), "context": {**OFFLINE, "corpus_dir": "/etc"}}),
    ]
    async with _http(cluster, 1, "carol") as http:
        for status, body in refused:
            response = await http.post(
                f"/threads/{thread}/runs", json={"assistant_id": "deep_research", **body}
            )
            assert response.status_code == status, (body, response.text)
        for extra in ({}, {"action": "cancel"}, {"metadata": {}}, {"run_id": "r1"}):
            write = {"values": {"messages": [{"role": "user", "content": "x"}]}, **extra}
            response = await http.post(f"/threads/{thread}/state", json=write)
            assert response.status_code == 403, (write, response.text)
        assert (await http.get(f"/threads/{thread}/runs")).json() == []


async def test_a_clarification_is_answered_on_the_other_instance(cluster: Cluster) -> None:
    context = {"model": "offline", "depth": "light", "allow_clarification": True}
    async with _client(cluster, 0, "carol") as first, _client(cluster, 1, "carol") as second:
        thread = (await first.threads.create())["thread_id"]
        await first.runs.wait(thread, "deep_research", input=_ask("batteries"), context=context)
        paused = await second.threads.get_state(thread)
        (interrupt,) = paused["interrupts"]
        assert interrupt["value"]["type"] == "clarification"

        await second.runs.wait(
            thread, "deep_research", command={"resume": "costs of grid batteries"}, context=context
        )
        done = await first.threads.get_state(thread)
    assert not done["interrupts"] and done["values"]["report"]["references"]


async def test_the_run_cap_counts_each_run_once_across_instances(cluster: Cluster) -> None:
    """Three runs (the cap) are admitted on either instance, and a fourth is refused."""
    created: list[tuple[LangGraphClient, str, str]] = []
    async with _client(cluster, 0, "erin") as first, _client(cluster, 1, "erin") as second:
        for client in (first, second, first):
            thread = (await client.threads.create())["thread_id"]
            run = await client.runs.create(
                thread, "deep_research", input=_ask(QUESTION), context=SLOW
            )
            created.append((client, thread, run["run_id"]))
        thread = (await second.threads.create())["thread_id"]
        async with _http(cluster, 1, "erin") as http:
            body = {"assistant_id": "deep_research", "input": _ask(QUESTION), "context": SLOW}
            response = await http.post(f"/threads/{thread}/runs", json=body)
        assert response.status_code == 429, response.text
        assert "at most 3" in response.text
        for client, thread, run_id in created:
            await client.runs.cancel(thread, run_id)


async def _aegra_rows(aegra_url: str, query: str, thread: str) -> int:
    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        rows = await conn.execute(query, (thread,))
        (count,) = await rows.fetchone() or (0,)
        return int(count)


def _aegra_url(postgres_url: str) -> str:
    return _database(postgres_url, f"{urlsplit(postgres_url).path.lstrip('/')}_aegra", "postgresql")


def _domain_url(postgres_url: str) -> str:
    name = f"{urlsplit(postgres_url).path.lstrip('/')}_domain"
    return _database(postgres_url, name, "postgresql+psycopg")


AEGRA_KEEPS = {
    "thread": "SELECT count(*) FROM thread WHERE thread_id = %s",
    "runs": "SELECT count(*) FROM runs WHERE thread_id = %s",
    "thread_ttl": "SELECT count(*) FROM thread_ttl WHERE thread_id = %s",
    "crons": "SELECT count(*) FROM crons WHERE thread_id = %s",
    "checkpoints": "SELECT count(*) FROM checkpoints WHERE thread_id = %s",
    "checkpoint_blobs": "SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %s",
    "checkpoint_writes": "SELECT count(*) FROM checkpoint_writes WHERE thread_id = %s",
    "stages": "SELECT count(*) FROM store WHERE prefix LIKE 'researchers.' || %s || '%%'",
}
"""Where Aegra keeps a thread's data in its database, each with a count of one thread's rows."""


async def _left_in_aegra(aegra_url: str, thread: str) -> dict[str, int]:
    """The thread's rows in each of Aegra's tables, where there are any."""
    counts = {
        name: await _aegra_rows(aegra_url, query, thread) for name, query in AEGRA_KEEPS.items()
    }
    return {name: count for name, count in counts.items() if count}


async def _documents(domain_url: str, *, of: str | None = None, but: str | None = None) -> set[str]:
    """The documents cited by the sources of the chats ``of`` a user (or ``but`` of one)."""
    query = (
        "SELECT DISTINCT s.document_id FROM sources s"
        " JOIN research_sessions r ON s.session_id = r.id JOIN chats c ON r.chat_id = c.id"
        " WHERE s.document_id IS NOT NULL AND "
    )
    query += "c.user_id = %s" if of is not None else "c.user_id <> %s"
    url = domain_url.replace("+psycopg", "")
    async with await psycopg.AsyncConnection.connect(url) as conn:
        rows = await conn.execute(query, (of if of is not None else but,))
        return {str(document) for (document,) in await rows.fetchall()}


async def _stored_documents(aegra_url: str, documents: set[str]) -> set[str]:
    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        rows = await conn.execute(
            "SELECT key FROM store WHERE prefix = 'documents' AND key = ANY(%s)", (list(documents),)
        )
        return {str(key) for (key,) in await rows.fetchall()}


async def _run_to_the_end(client: LangGraphClient, question: str) -> str:
    thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread, "deep_research", input=_ask(question), context=OFFLINE)
    return thread


async def test_purge_reaches_the_data_aegra_keeps(cluster: Cluster, postgres_url: str) -> None:
    """Aegra keeps checkpoints, threads and runs in its own database; purge erases them there."""
    aegra_url = _aegra_url(postgres_url)
    async with _client(cluster, 0, "dave") as dave:
        threads = [await _run_to_the_end(dave, QUESTION) for _ in range(2)]
    for thread in threads:
        kept = await _left_in_aegra(aegra_url, thread)
        assert {"thread", "runs", "checkpoints", "checkpoint_writes"} <= set(kept), kept
    one, other = threads
    async with _http(cluster, 1, "dave") as http:
        assert (await http.delete(f"/chats/{one}")).status_code in (200, 204)
        assert (await http.post(f"/chats/{one}/purge")).status_code == 200
        assert await _left_in_aegra(aegra_url, one) == {}
        assert "checkpoints" in await _left_in_aegra(aegra_url, other)  # only the purged chat
        assert (await http.post("/me/purge")).status_code == 200
    for thread in threads:
        assert await _left_in_aegra(aegra_url, thread) == {}
        assert (await _chat(cluster, 0, "dave", thread)).status_code == 404


async def test_the_command_lines_purge_reaches_the_data_aegra_keeps(
    cluster: Cluster, postgres_url: str, holds: Holds
) -> None:
    """``deep-research purge --user`` with Aegra's database erases the chats there, and ours."""
    aegra_url, domain_url = _aegra_url(postgres_url), _domain_url(postgres_url)
    async with _client(cluster, 0, "frank") as frank:
        threads = [
            await _run_to_the_end(frank, question)
            for question in (QUESTION, "What did Hornsdale Power Reserve cost?")
        ]
    for thread in threads:
        assert "checkpoints" in await _left_in_aegra(aegra_url, thread)
    franks = await _documents(domain_url, of="frank")
    assert franks and await _stored_documents(aegra_url, franks)

    environment = {
        **{name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ},
        "DEEP_RESEARCH_DATABASE_URL": domain_url,
        "DEEP_RESEARCH_USER_ID": "frank",
        "AEGRA_DATABASE_URL": aegra_url,
    }

    def purge() -> subprocess.CompletedProcess[str]:
        command = [str(Path(sys.executable).parent / "deep-research"), "purge", "--user"]
        return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)

    async with _client(cluster, 1, "frank") as frank:  # a run in flight: refused, nothing erased
        thread = (await frank.threads.create())["thread_id"]
        # Its model's replies wait until the hold ends: the run is pending or running all the
        # while the purge (seconds to start, more on a loaded machine) looks at Aegra's runs.
        with holds.hold(HELD):
            question = _ask(f"{QUESTION} {HELD}")
            run = await frank.runs.create(thread, "deep_research", input=question, context=SLOW)
            refused = purge()
            assert refused.returncode != 0 and "still pending or running" in refused.stderr
            for kept in threads:
                assert "checkpoints" in await _left_in_aegra(aegra_url, kept)
        await frank.runs.join(thread, run["run_id"])
        assert (await frank.runs.get(thread, run["run_id"]))["status"] == "success"
        threads.append(thread)

    purged = purge()
    assert purged.returncode == 0, purged.stderr
    assert "erased 3 thread(s) from Aegra's database" in purged.stdout, purged.stdout

    for thread in threads:
        assert await _left_in_aegra(aegra_url, thread) == {}
        assert (await _chat(cluster, 1, "frank", thread)).status_code == 404
    assert not await _documents(domain_url, of="frank")
    # page text only frank's chats read is gone; what other chats still cite stays
    still_cited = await _documents(domain_url, but="frank")
    assert await _stored_documents(aegra_url, franks) <= still_cited


async def _waiting_deletes(aegra_url: str) -> int:
    """Statements deleting in Aegra's database that wait for a lock."""
    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        rows = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query ILIKE 'delete from checkpoints %%'"
        )
        (count,) = await rows.fetchone() or (0,)
        return int(count)


async def _record_run(aegra_url: str, thread: str, user: str) -> None:
    """Record a pending run of ``thread``, as Aegra does when a run is asked for."""
    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        await conn.execute(
            "INSERT INTO runs (thread_id, user_id, status) VALUES (%s, %s, 'pending')",
            (thread, user),
        )
        await conn.commit()


async def test_no_run_is_recorded_on_a_chat_while_the_command_line_purge_erases_it(
    cluster: Cluster, postgres_url: str
) -> None:
    """A run recorded between the purge's look at the runs and its deletes would be claimed by
    a worker and write the chat back; it waits for the purge instead, and finds no chat."""
    aegra_url, domain_url = _aegra_url(postgres_url), _domain_url(postgres_url)
    thread = str(uuid.uuid4())
    async with await psycopg.AsyncConnection.connect(aegra_url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO thread (thread_id, user_id) VALUES (%s, 'henry')", (thread,)
        )
        await conn.execute(
            "INSERT INTO checkpoints"
            " (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata)"
            " VALUES (%s, '', 'held', '{}', '{}')",
            (thread,),
        )
    async with (
        await psycopg.AsyncConnection.connect(aegra_url) as holder,
        open_database(domain_url) as database,
    ):
        # the purge waits at its first delete, past its look at the runs (there are none)
        await holder.execute("SELECT 1 FROM checkpoints WHERE thread_id = %s FOR UPDATE", (thread,))
        purge = asyncio.create_task(
            purge_from_aegra(aegra_url, database, user_id="henry", threads=[thread])
        )
        deadline = time.monotonic() + 30
        while not await _waiting_deletes(aegra_url):
            assert time.monotonic() < deadline, "the purge did not reach its deletes"
            assert not purge.done(), purge
            await asyncio.sleep(0.05)
        run = asyncio.create_task(_record_run(aegra_url, thread, "henry"))
        done, _ = await asyncio.wait({run}, timeout=2)
        assert not done, "a run was recorded on the chat the purge is erasing"
        await holder.rollback()
        erased = await purge
    assert erased.records == 1
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        await run  # recorded after the purge: its chat is gone
    assert await _left_in_aegra(aegra_url, thread) == {}


async def test_the_command_lines_purge_leaves_another_users_thread_in_aegra_whole(
    cluster: Cluster, postgres_url: str
) -> None:
    """A chat of the domain store may name any thread id (the command line records its own):
    Aegra's thread of another user keeps its row and checkpoints (issue 43, note 2)."""
    aegra_url, domain_url = _aegra_url(postgres_url), _domain_url(postgres_url)
    thread = str(uuid.uuid4())
    async with await psycopg.AsyncConnection.connect(aegra_url, autocommit=True) as conn:
        await conn.execute("INSERT INTO thread (thread_id, user_id) VALUES (%s, 'ivan')", (thread,))
        await conn.execute(
            "INSERT INTO checkpoints"
            " (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata)"
            " VALUES (%s, '', 'ivans', '{}', '{}')",
            (thread,),
        )
    async with open_database(domain_url) as database:
        purged = await purge_from_aegra(aegra_url, database, user_id="henry", threads=[thread])
    assert purged.records == 0 and thread not in purged.threads
    assert await _left_in_aegra(aegra_url, thread) == {"thread": 1, "checkpoints": 1}


async def test_a_purge_stops_a_run_in_flight_and_nothing_is_written_back(
    cluster: Cluster, postgres_url: str, holds: Holds
) -> None:
    """The purge cancels the run through Aegra, waits for it, erases; the run writes nothing.

    The run's model replies are held for the whole purge, so the run cannot end by itself:
    had the purge not cancelled it, it would have waited its 60 s and answered 409.
    """
    aegra_url = _aegra_url(postgres_url)
    with holds.hold(HELD):
        async with _client(cluster, 0, "grace") as grace:
            thread = (await grace.threads.create())["thread_id"]
            question = _ask(f"{QUESTION} {HELD}")
            run = await grace.runs.create(thread, "deep_research", input=question, context=SLOW)
            deadline = time.monotonic() + 30
            while (await grace.runs.get(thread, run["run_id"]))["status"] != "running":
                assert time.monotonic() < deadline, "the run did not start"
                await asyncio.sleep(0.2)
        async with _http(cluster, 1, "grace") as http:  # the other instance than the run's entry
            purged = await http.post("/me/purge", timeout=90)
        assert purged.status_code == 200, purged.text
        assert await _left_in_aegra(aegra_url, thread) == {}
    await asyncio.sleep(3)  # let go, a run still going would checkpoint again within this
    assert await _left_in_aegra(aegra_url, thread) == {}
    assert (await _chat(cluster, 0, "grace", thread)).status_code == 404


def test_the_names_the_aegra_adapter_uses_exist_in_the_installed_aegra() -> None:
    """Fails on an Aegra upgrade that renames or reshapes what the adapter calls."""
    ensure_cluster_python()
    check = """
import importlib, inspect, json, sys
from deep_research.server.runtimes.aegra import AEGRA_NAMES, STATE_ROUTES
missing = [f"{m}.{n}" for m, names in AEGRA_NAMES.items() for n in names
           if not hasattr(importlib.import_module(m), n)]
from aegra_api.api import runs, threads
from aegra_api.models.runs import RunsCancel
params = {
    "cancel_runs": list(inspect.signature(runs.cancel_runs).parameters),
    "delete_thread": list(inspect.signature(threads.delete_thread).parameters),
}
paths = {r.path for r in threads.router.routes if hasattr(r, "response_model_by_alias")}
RunsCancel(thread_id="t", run_ids=["r"])
print(json.dumps({"missing": missing, "params": params,
                  "routes": sorted(set(STATE_ROUTES) - paths)}))
"""
    done = subprocess.run(
        [str(CLUSTER_PYTHON), "-c", check], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["missing"] == [], found
    assert found["params"] == {
        "cancel_runs": ["request", "action", "user", "session"],
        "delete_thread": ["thread_id", "user", "session"],
    }, found
    assert found["routes"] == [], found


async def _claimed_by(aegra_url: str, runs: list[str]) -> dict[str, str]:
    """The worker that holds each of ``runs`` (by its lease), for those claimed."""
    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        rows = await conn.execute(
            "SELECT run_id, claimed_by FROM runs WHERE claimed_by IS NOT NULL AND run_id = ANY(%s)",
            (runs,),
        )
        return {str(run): str(worker) for run, worker in await rows.fetchall()}


async def test_runs_in_flight_on_a_killed_instance_finish_through_the_other(
    cluster: Cluster, postgres_url: str
) -> None:
    async with AsyncExitStack() as stack:
        users = ("alice", "bob", "carol")
        survivor = {
            user: await stack.enter_async_context(_client(cluster, 1, user)) for user in users
        }
        entry = [await stack.enter_async_context(_client(cluster, 0, user)) for user in users]
        await _kill_with_runs_in_flight(
            cluster, postgres_url, [*entry, *survivor.values()], survivor
        )


async def _kill_with_runs_in_flight(
    cluster: Cluster,
    postgres_url: str,
    entry: list[LangGraphClient],
    survivor: dict[str, LangGraphClient],
) -> None:
    """Two runs per user (under the cap of 3), created on both instances, slow enough to be in
    flight when instance 0 is killed; every run must then finish through instance 1."""
    runs: list[tuple[str, str, str, str]] = []
    users = [*survivor, *survivor]
    for number, (user, client) in enumerate(zip(users, entry, strict=True)):
        thread = (await client.threads.create())["thread_id"]
        question = f"{QUESTION} (case {number})"
        run = await client.runs.create(thread, "deep_research", input=_ask(question), context=SLOW)
        runs.append((user, thread, run["run_id"], question))

    aegra_url = _aegra_url(postgres_url)
    victim = f"-{cluster.pids[0]}-"
    deadline = time.monotonic() + 60
    while True:  # until every run is claimed by a worker, some by the instance about to die
        claimed = await _claimed_by(aegra_url, [run_id for _, _, run_id, _ in runs])
        if len(claimed) == len(runs) and any(victim in worker for worker in claimed.values()):
            break
        assert time.monotonic() < deadline, f"runs not all claimed: {claimed}"
        await asyncio.sleep(0.2)
    on_victim = [run for run, worker in claimed.items() if victim in worker]

    cluster.kill(0)
    killed_at = time.monotonic()
    pending = {run_id for _, _, run_id, _ in runs}
    while pending:
        for user, thread, run_id, _ in runs:
            if run_id in pending:
                status = (await survivor[user].runs.get(thread, run_id))["status"]
                assert status not in ("error", "timeout", "interrupted"), (run_id, status)
                if status == "success":
                    pending.discard(run_id)
        assert time.monotonic() - killed_at < 120, f"runs not finished: {pending}"
        await asyncio.sleep(0.5)
    print(
        f"{len(on_victim)} of {len(runs)} runs were on the killed instance; all finished"
        f" {time.monotonic() - killed_at:.1f} s after the kill"
    )
    for user, thread, _, question in runs:
        values = (await survivor[user].threads.get_state(thread))["values"]
        asked = [m["content"] for m in values["messages"] if m["type"] == "human"]
        assert asked == [question], "each question once"
        report = values["report"]
        assert report["references"] and "[1]" in report["markdown"]
