"""Erasure from the command line is final, with a run in flight (issue 30, item 1).

A run in another process would write its checkpoints and rows back after a purge. The run
holds its chat's run lock; ``delete`` and ``purge`` refuse the chat while it is held, and a
killed run holds nothing. Afterwards the purge leaves nothing of the chat. And the recorder
writes nothing more into a deleted chat.

The run lock is a file of the machine's data directory: a run on another machine sharing the
database (here: another data directory on the same SQLite file) does not hold it, and the
purge goes ahead while that run is in flight. The closed thread then refuses the run's next
write, in the checkpointer, the store and the recorder: the run stops with one line, and
nothing of the chat is left (rows, checkpoints, store items, page text, report files).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from deep_research.cli import main
from deep_research.errors import ChatClosedError
from deep_research.persistence.db import open_database
from deep_research.persistence.recorder import Batch, RunScope, SqlRecorder
from deep_research.settings import get_settings

QUESTION = "Compare LFP and NMC cells for grid storage: costs, safety and lifetime."


def _database() -> Path:
    return Path(get_settings().resolved_database_url.removeprefix("sqlite:///"))


def _left(thread: str) -> dict[str, int]:
    """What the database holds of ``thread``: chat rows, checkpoints, writes, store items."""
    queries = {
        "chats": "SELECT count(*) FROM chats WHERE thread_id = ?",
        "checkpoints": "SELECT count(*) FROM checkpoints WHERE thread_id = ?",
        "writes": "SELECT count(*) FROM writes WHERE thread_id = ?",
        "store": "SELECT count(*) FROM store WHERE prefix LIKE '%' || ? || '%'",
    }
    return _count(queries, (thread,))


def _count(queries: dict[str, str], parameters: tuple[str, ...] = ()) -> dict[str, int]:
    with sqlite3.connect(_database()) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        return {
            name: int(db.execute(sql, parameters).fetchone()[0]) if name in tables else 0
            for name, sql in queries.items()
        }


def _start_ask(
    thread: str, tmp_path: Path, env: dict[str, str] | None = None, corpus: Path | None = None
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "deep_research.cli", "ask", QUESTION, "--thread", thread]
    command += ["--corpus", str(corpus)] if corpus is not None else []
    command += ["--depth", "extended", "--no-clarify", "--quiet", "--out", str(tmp_path / "out")]
    errors = tmp_path / f"{thread}.err"
    with errors.open("wb") as stderr:
        process = subprocess.Popen(command, env={**os.environ, **(env or {})}, stderr=stderr)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the run has recorded its chat
        if _database().exists() and _left(thread)["checkpoints"] > 2:
            return process
        assert process.poll() is None, errors.read_text()
        time.sleep(0.1)
    process.kill()
    raise AssertionError("the run did not start within 60 s")


def test_purge_and_delete_refuse_a_chat_whose_run_is_in_flight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _start_ask("busy-chat", tmp_path)
    try:
        assert main(["purge", "--user"]) == 2
        assert "has a run in progress" in capsys.readouterr().err
        assert main(["delete", "busy-chat"]) == 2
        assert "has a run in progress" in capsys.readouterr().err
    finally:
        assert run.wait(timeout=300) == 0
    assert main(["purge", "--user"]) == 0
    assert _left("busy-chat") == {"chats": 0, "checkpoints": 0, "writes": 0, "store": 0}


def test_a_killed_run_holds_nothing_and_its_purge_leaves_nothing(tmp_path: Path) -> None:
    run = _start_ask("killed-chat", tmp_path)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    assert main(["purge", "--user"]) == 0
    time.sleep(1)
    assert _left("killed-chat") == {"chats": 0, "checkpoints": 0, "writes": 0, "store": 0}


def test_a_purge_from_another_machine_stops_the_run_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other_machine = {
        "DEEP_RESEARCH_DATA_DIR": str(tmp_path / "machine-b"),  # its own run locks
        "DEEP_RESEARCH_DATABASE_URL": f"sqlite:///{_database()}",  # the same database
        "PYTHONFAULTHANDLER": "1",  # a run that hangs shows where, on SIGABRT
    }
    corpus = tmp_path / "slow-corpus"  # its first indexing takes seconds: still in flight
    corpus.mkdir()
    words = " ".join(f"storage{n}" for n in range(400))
    for n in range(2000):
        (corpus / f"cells-{n:04d}.md").write_text(f"# Cells, note {n}\n\nGrid storage. {words}\n")
    run = _start_ask("remote-chat", tmp_path, other_machine, corpus)
    try:
        assert main(["purge", "--user"]) == 0  # this machine's lock is free
        assert "remote-chat" in capsys.readouterr().out
        try:
            status = run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            run.send_signal(signal.SIGABRT)  # its threads' stacks, on its stderr
            run.wait(timeout=30)
            raise AssertionError((tmp_path / "remote-chat.err").read_text()) from None
    finally:
        run.kill()  # if it has not ended
        run.wait(timeout=30)
    errors = (tmp_path / "remote-chat.err").read_text()
    assert status == 2 and "remote-chat was purged" in errors, errors
    assert "Traceback" not in errors and "resume" not in errors
    assert _left("remote-chat") == {"chats": 0, "checkpoints": 0, "writes": 0, "store": 0}
    page_text = {"documents": "SELECT count(*) FROM store WHERE prefix = 'documents'"}
    assert _count(page_text) == {"documents": 0}
    assert not list((tmp_path / "out").glob("**/*.*")), "no report file was written"


async def test_the_recorder_writes_nothing_into_a_deleted_chat(tmp_path: Path) -> None:
    from deep_research.persistence import repository as repo
    from deep_research.persistence.db import upgrade

    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    upgrade(url, "head")
    async with open_database(url) as database:
        recorder = SqlRecorder(database)
        scope = RunScope(user_id="local", thread_id="t-deleted", question_nr=1)
        await recorder.write(scope, Batch(title="first"))
        async with database.session_scope() as session:
            await repo.soft_delete_chat(session, user_id="local", thread_id="t-deleted")
        with pytest.raises(ChatClosedError, match="deleted"):
            await recorder.write(scope, Batch(title="written after the deletion"))


async def test_a_transaction_ends_however_often_its_caller_is_cancelled() -> None:
    """LangGraph cancels a stopped run's node twice; the recorder's transaction still ends.

    Passed on to the transaction, the second cancellation made SQLAlchemy close its SQLite
    connection by force mid-statement, and that connection kept the file's write lock.
    """
    import asyncio

    from deep_research.persistence.db import finished

    started, release = asyncio.Event(), asyncio.Event()
    ended: list[str] = []

    async def transaction() -> str:
        started.set()
        try:
            await release.wait()
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        ended.append("committed")
        return "done"

    caller = asyncio.ensure_future(finished(transaction()))
    await started.wait()
    for _ in range(3):  # one cancellation, then more while it waits for the transaction
        caller.cancel()
        await asyncio.sleep(0)
    assert not caller.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert ended == ["committed"]
    assert await finished(asyncio.sleep(0, result="ok")) == "ok"


@pytest.mark.parametrize("when", ["after the first lookup", "just before the insert"])
async def test_the_recorder_does_not_create_again_a_chat_purged_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """A purge between the recorder's lookups of the thread and its insert: nothing is created.

    On SQLite the lookups run before the transaction takes the write lock, so the purge can
    close the thread and delete its chat in between; the insert would create the chat again,
    under the same id once the purge has deleted it (SQLite reuses the highest rowid).
    """
    from deep_research.persistence import closed
    from deep_research.persistence import repository as repo
    from deep_research.persistence.db import upgrade
    from deep_research.persistence.tables import Chat

    path = tmp_path / "store.sqlite"
    upgrade(f"sqlite:///{path}", "head")
    purges: list[str] = []

    def purge(thread_id: str) -> None:
        """Close the thread and delete its chat from another connection, once."""
        if purges:
            return
        purges.append(thread_id)
        with sqlite3.connect(path) as other:
            other.execute(
                "INSERT INTO closed_threads (thread_id, user_id, purged, closed_at)"
                " VALUES (?, 'local', 1, CURRENT_TIMESTAMP)",
                (thread_id,),
            )
            other.execute("DELETE FROM chats WHERE thread_id = ?", (thread_id,))

    async def check_then_purge(session: Any, *, thread_id: str) -> None:
        await closed.check_open(session, thread_id=thread_id)
        purge(thread_id)

    insert = repo._insert

    def purge_then_insert(session: Any, model: Any) -> Any:
        if model is Chat:
            purge("t-purged")
        return insert(session, model)

    async with open_database(f"sqlite:///{path}") as database:
        recorder = SqlRecorder(database)
        scope = RunScope(user_id="local", thread_id="t-purged", question_nr=1)
        await recorder.write(scope, Batch(title="first"))
        if when == "after the first lookup":
            monkeypatch.setattr(repo, "check_open", check_then_purge)
        else:
            monkeypatch.setattr(repo, "_insert", purge_then_insert)
        with pytest.raises(ChatClosedError, match="was purged"):
            await recorder.write(scope, Batch(title="written after the purge"))
    assert purges == ["t-purged"]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM chats").fetchone() == (0,)
