"""Several first runs on one new SQLite file set it up together without a race.

Each process migrates the domain store and sets up the content store and the checkpointer of
the same new file at once, as two `deep-research ask` started together would. Without the
setup lock, one of them sometimes failed with ``duplicate column name``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SETUP = """
import asyncio, sys
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.db import upgrade

async def main(url):
    await asyncio.to_thread(upgrade, url)
    async with open_store(url), open_checkpointer(url):
        pass

asyncio.run(main(sys.argv[1]))
print("ready")
"""

PROCESSES = 4


@pytest.mark.parametrize("trial", range(3))
def test_first_uses_in_parallel_all_succeed(trial: int, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / f'fresh-{trial}.sqlite'}"
    started = [
        subprocess.Popen(
            [sys.executable, "-c", SETUP, url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    results = [process.communicate(timeout=120) for process in started]
    for process, (out, err) in zip(started, results, strict=True):
        assert process.returncode == 0 and out.strip() == "ready", err[-2000:]
