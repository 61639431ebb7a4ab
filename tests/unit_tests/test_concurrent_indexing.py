"""Researchers that index one corpus at once wait on one build (issue 30, item 8).

A resume after a kill during the first indexing of a large corpus made researchers build the
index at the same time: those that waited longer than SQLite's busy timeout for the write lock
failed with "database is locked" and found nothing. The corpus here is large enough for a
build to outlast a short busy timeout, which each instance is given, so that waiting on
SQLite's lock alone would fail.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from deep_research.sources.local import LocalCorpus

FILES = 400
WORDS = " ".join(f"word{n}" for n in range(300))


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    for n in range(FILES):
        (folder / f"page-{n:04d}.md").write_text(
            f"# Page {n}\n\nThe tidal station number {n} has a capacity of {n} MW. {WORDS}\n"
        )
    return folder


def _researchers(root: Path, index: Path, count: int = 3) -> list[LocalCorpus]:
    corpora = [LocalCorpus(root, index) for _ in range(count)]  # one each, as separate processes
    for corpus in corpora:
        corpus.busy_timeout = 0.05  # far shorter than one build: only the build lock can hold
    return corpora


def _documents(index: Path) -> int:
    with sqlite3.connect(index) as db:
        return int(db.execute("SELECT count(*) FROM documents").fetchone()[0])


async def test_researchers_starting_at_once_wait_on_one_build(tmp_path: Path) -> None:
    root, index = _corpus(tmp_path / "corpus"), tmp_path / "index" / "corpus.sqlite"
    corpora = _researchers(root, index)
    found = await asyncio.gather(*(c.search("tidal station capacity", 5) for c in corpora))
    assert all(len(results) == 5 for results in found)
    assert _documents(index) == FILES


async def test_after_a_kill_mid_build_the_next_researchers_build_it_once(tmp_path: Path) -> None:
    root, index = _corpus(tmp_path / "corpus"), tmp_path / "index" / "corpus.sqlite"
    index.parent.mkdir()
    script = (
        "import sys; from pathlib import Path; from deep_research.sources.local import LocalCorpus;"
        " LocalCorpus(Path(sys.argv[1]), Path(sys.argv[2])).index()"
    )
    builder = subprocess.Popen(
        [sys.executable, "-c", script, str(root), str(index)], env=dict(os.environ)
    )
    lock = index.with_name(index.name + ".build-lock")
    deadline = time.monotonic() + 30
    while not lock.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)  # inside the build
    builder.send_signal(signal.SIGKILL)
    builder.wait(timeout=30)
    corpora = _researchers(root, index)
    found = await asyncio.gather(*(c.search("tidal station capacity", 5) for c in corpora))
    assert all(len(results) == 5 for results in found)
    assert _documents(index) == FILES
