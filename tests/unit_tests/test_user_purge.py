"""A user's purge erases the chats that runs create while it runs (issue 30).

``/me/purge`` lists the user's chats and threads, stops their runs and erases. A run admitted
as the purge began, on a thread it had not listed, could record its chat once the purge had
listed them: that chat was left behind. The purge now looks again after erasing, and goes
round again until the user has nothing left.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from deep_research.persistence import queries
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.purge import Purged
from deep_research.persistence.recorder import Batch, RunScope, SqlRecorder
from deep_research.server import purge
from deep_research.server.database import close_domain_stores, domain_database
from deep_research.server.runtimes.base import Stores
from deep_research.settings import get_settings

USER = "purging-user"


class QuietRuntime:
    """A runtime with no runs and no threads of its own, on the test's SQLite file."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stopped: list[str] = []

    async def owned_threads(self, user_id: str) -> list[str]:
        return []

    async def cancel_runs(self, thread_id: str) -> None:
        self.stopped.append(thread_id)

    async def busy(self, thread_id: str) -> bool:
        return False

    async def forget_threads(
        self, user_id: str, threads: Sequence[str], *, all_owned: bool = False
    ) -> None:
        return None

    @asynccontextmanager
    async def stores(self) -> AsyncIterator[Stores]:
        async with open_checkpointer(self.url) as saver, open_store(self.url) as store:
            yield Stores(checkpointer=saver, store=store)


async def _record_chat(thread_id: str) -> None:
    recorder = SqlRecorder(await domain_database())
    await recorder.write(RunScope(user_id=USER, thread_id=thread_id, question_nr=1), Batch())


async def _chats() -> list[str]:
    database = await domain_database()
    async with database.session_scope() as session:
        chats = await queries.list_chats(session, user_id=USER, include_deleted=True, limit=100)
        return [chat.thread_id for chat in chats]


async def test_a_chat_a_run_records_during_the_users_purge_is_erased_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'server.sqlite'}"
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", url)
    get_settings.cache_clear()
    runtime = QuietRuntime(url)
    monkeypatch.setattr(purge, "current_runtime", lambda: runtime)
    real_erase = purge.purge_user_data
    rounds: list[Purged] = []

    async def erase_then_a_run_records(*args: Any, **kwargs: Any) -> Purged:
        erased = await real_erase(*args, **kwargs)
        if not rounds:  # a run the purge did not list records its chat after the listing
            await _record_chat("late-chat")
        rounds.append(erased)
        return erased

    monkeypatch.setattr(purge, "purge_user_data", erase_then_a_run_records)
    try:
        await _record_chat("early-chat")
        erased = await purge.purge_user(user_id=USER)
        assert await _chats() == [], "a chat outlived the user's purge"
        assert sorted(erased.threads) == ["early-chat", "late-chat"]
        assert "late-chat" in runtime.stopped, "the late chat's runs were not stopped"
    finally:
        await close_domain_stores()


class BackloggedRuntime(QuietRuntime):
    """A thread with queued runs: cancelling stops the running one, and the next one starts."""

    def __init__(self, url: str, queued: int) -> None:
        super().__init__(url)
        self.queued = queued

    async def cancel_runs(self, thread_id: str) -> None:
        await super().cancel_runs(thread_id)
        self.queued = max(self.queued - 1, 0)

    async def busy(self, thread_id: str) -> bool:
        return self.queued > 0


async def test_a_backlog_of_queued_runs_is_cancelled_as_each_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/me/purge`` with queued runs answered 409 after 60 s; a retry then succeeded."""
    runtime = BackloggedRuntime(f"sqlite:///{tmp_path / 'store.sqlite'}", queued=6)
    monkeypatch.setattr(purge, "current_runtime", lambda: runtime)
    await purge.stop_runs(["t1"], timeout=5)
    assert runtime.queued == 0 and runtime.stopped.count("t1") >= 6
