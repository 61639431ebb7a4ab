"""Retention: checkpoints and page text expire after their configured time to live."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from sqlalchemy import bindparam, text, update

from deep_research.cli.main import main
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import get_document_text, open_store, put_document
from deep_research.persistence.db import open_database
from deep_research.persistence.repository import upsert_chat
from deep_research.persistence.tables import Chat, utcnow
from deep_research.server.devserver import (
    DevServerError,
    dev_server,
    langgraph_executable,
    portable_config,
)
from deep_research.settings import get_settings
from deep_research.state.models import Document
from tests.integration_tests.server_process import REMOVED_VARIABLES, REPO_ROOT, langgraph_dev

IDLE, ACTIVE = "idle-thread", "active-thread"
LIGHT: dict[str, Any] = {"allow_clarification": False, "depth": "light"}


def _config(thread: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


def _unique_threads() -> tuple[str, str]:
    """An idle and an active thread id of the test's own (PostgreSQL is shared by the session)."""
    suffix = uuid.uuid4().hex[:8]
    return f"{IDLE}-{suffix}", f"{ACTIVE}-{suffix}"


async def _idle(url: str, thread: str) -> None:
    async with open_database(url) as database, database.session_scope() as session:
        await session.execute(
            update(Chat)
            .where(Chat.thread_id == thread)
            .values(updated_at=utcnow() - timedelta(hours=2))
        )


async def _two_chats(url: str, user: str, idle: str = IDLE, active: str = ACTIVE) -> None:
    """An idle chat (last active two hours ago) and an active one, each checkpointed."""
    async with open_checkpointer(url) as checkpointer:
        for thread in (idle, active):
            await checkpointer.aput(_config(thread), empty_checkpoint(), {}, {})
    async with open_database(url) as database, database.session_scope() as session:
        for thread in (idle, active):
            await upsert_chat(session, user_id=user, thread_id=thread, title=thread, max_chats=10)
    await _idle(url, idle)


async def _checkpointed(url: str, threads: tuple[str, ...] = (IDLE, ACTIVE)) -> set[str]:
    async with open_checkpointer(url) as checkpointer:
        return {
            thread
            for thread in threads
            if await checkpointer.aget_tuple(_config(thread)) is not None
        }


def test_purge_expires_the_checkpoints_of_idle_chats(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_two_chats(database_url, get_settings().user_id))
    assert main(["purge"]) == 0  # no retention set: nothing expires
    assert asyncio.run(_checkpointed(database_url)) == {IDLE, ACTIVE}

    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES", "60")
    get_settings.cache_clear()
    capsys.readouterr()
    assert main(["purge"]) == 0
    assert "expired the checkpoints of 1 idle chat(s)" in capsys.readouterr().out
    assert asyncio.run(_checkpointed(database_url)) == {ACTIVE}


async def _put_and_read_back(url: str, pause: float) -> str | None:
    document = Document(id="doc_retention01", url="https://example.com/a", title="a", text="x")
    async with open_store(url) as store:
        await put_document(store, document)
    await asyncio.sleep(pause)
    async with open_store(url) as store:  # opening sweeps what expired
        return await get_document_text(store, document.id)


def test_page_text_expires_after_the_store_ttl(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert asyncio.run(_put_and_read_back(database_url, 0.5)) == "x"  # no retention set

    monkeypatch.setenv("DEEP_RESEARCH_STORE_TTL_MINUTES", "0.005")  # 0.3 s
    get_settings.cache_clear()
    assert asyncio.run(_put_and_read_back(database_url, 2.5)) is None  # SQLite keeps whole seconds


async def _server_sweeps(url: str, user: str, idle: str, active: str) -> tuple[set[str], set[str]]:
    """What the server's checkpointer keeps at start, and after a chat fell idle while it ran."""
    from deep_research.persistence import server

    await _two_chats(url, user, idle, active)
    async with server.checkpointer():
        at_start = await _checkpointed(url, (idle, active))
        await _idle(url, active)  # the other chat falls idle while the server runs
        for _ in range(50):
            await asyncio.sleep(0.1)
            if not await _checkpointed(url, (idle, active)):
                break
        return at_start, await _checkpointed(url, (idle, active))


def test_the_server_sweeps_idle_chats_checkpoints_at_start_and_while_it_runs(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES", "60")
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES", "0.005")  # 0.3 s
    get_settings.cache_clear()
    idle, active = _unique_threads()
    at_start, later = asyncio.run(
        _server_sweeps(database_url, get_settings().user_id, idle, active)
    )
    assert at_start == {active}
    assert later == set()


CHECKPOINTER_TTL: dict[str, Any] = {
    "strategy": "delete",
    "default_ttl": 60,
    "sweep_interval_minutes": 1,
}
STORE_TTL = {"default_ttl": 1440, "sweep_interval_minutes": 1}
"""TTLs (minutes) for ``langgraph.json``; LangGraph takes sweep intervals in whole minutes."""


def _langgraph_json_with_ttls(
    folder: Path, checkpointer_ttl: dict[str, Any] = CHECKPOINTER_TTL
) -> Path:
    """The repository's ``langgraph.json`` with ``checkpointer.ttl`` and ``store.ttl``."""
    path = portable_config(REPO_ROOT / "langgraph.json", folder)  # absolute paths
    config = json.loads(path.read_text())
    config["checkpointer"]["ttl"] = checkpointer_ttl
    config["store"]["ttl"] = STORE_TTL
    path.write_text(json.dumps(config, indent=2))
    return path


def _research(url: str) -> list[str]:
    """Run one light research on the server; the ids of the pages its evidence quotes."""
    with httpx.Client(base_url=url, trust_env=False, timeout=120) as http:
        thread = http.post("/threads", json={}).json()["thread_id"]
        question = {"messages": [{"role": "user", "content": "What did Hornsdale cost?"}]}
        run = {"assistant_id": "deep_research", "input": question, "context": LIGHT}
        http.post(f"/threads/{thread}/runs/wait", json=run).raise_for_status()
        values = http.get(f"/threads/{thread}/state").json()["values"]
    return sorted({span["document_id"] for span in values["evidence"]})


async def _page_ttls(url: str, keys: list[str]) -> set[tuple[float | None, bool]]:
    """``(ttl_minutes, has an expiry)`` of the content store's rows for these pages."""
    query = text(
        "SELECT ttl_minutes, expires_at FROM store WHERE prefix = 'documents' AND key IN :keys"
    ).bindparams(bindparam("keys", expanding=True))
    async with open_database(url) as database, database.session_scope() as session:
        rows = (await session.execute(query, {"keys": keys})).all()
    assert len(rows) == len(keys)
    return {(ttl, expires is not None) for ttl, expires in rows}


@pytest.mark.server
def test_langgraph_json_ttls_reach_the_servers_checkpointer_and_store(
    database_url: str, tmp_path: Path
) -> None:
    """Under ``langgraph dev`` LangGraph applies neither TTL to our custom factories: they do."""
    idle, active = _unique_threads()
    asyncio.run(_two_chats(database_url, "local", idle, active))
    config = _langgraph_json_with_ttls(tmp_path)
    env = {"DEEP_RESEARCH_DATABASE_URL": database_url}
    with langgraph_dev(tmp_path / "server", env, config=config) as url:
        # checkpointer.ttl: the factory swept the idle chat's checkpoints before serving
        assert asyncio.run(_checkpointed(database_url, (idle, active))) == {active}
        # store.ttl: the pages a run stores expire default_ttl minutes after their last use
        pages = _research(url)
    assert pages
    assert asyncio.run(_page_ttls(database_url, pages)) == {(STORE_TTL["default_ttl"], True)}


@pytest.mark.server
def test_an_unusable_checkpointer_ttl_stops_the_server(tmp_path: Path) -> None:
    if langgraph_executable() is None:
        pytest.skip("the `langgraph` executable is missing: install the dev extra")
    config = _langgraph_json_with_ttls(tmp_path, {"strategy": "delete", "default_ttl": 0})
    env = {"DEEP_RESEARCH_DATA_DIR": str(tmp_path / "data")}
    with pytest.raises(DevServerError, match="(?s)exited with .*positive number of minutes"):
        with dev_server(config, tmp_path / "server", env=env, remove_env=REMOVED_VARIABLES):
            pass
