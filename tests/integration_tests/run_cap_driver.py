"""One server replica's admissions, for the run cap test: ``python -m ... URL START COUNT``.

Waits until the Unix time START, then asks the cap (``DEEP_RESEARCH_MAX_RUNS_PER_USER``
semantics, cap 3) to admit COUNT runs for the same user, all at once, and prints how many it
admitted. The replica's own server is simulated: it lists no runs, takes 0.1 s to answer (so
that two replicas' counts overlap in time), and any admitted run is running.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid

from deep_research.persistence.db import Database, open_database
from deep_research.server.run_cap import RunLimiter

CAP = 3


class SlowServer:
    """A server whose run list takes a moment, and whose runs all run."""

    async def active(self, user_id: str) -> set[str]:
        await asyncio.sleep(0.1)
        return set()

    async def status(self, thread_id: str, run_id: str) -> str | None:
        return "running"


async def _admit(url: str, start: float, count: int) -> int:
    async with open_database(url) as database:

        async def table() -> Database:
            return database

        limiter = RunLimiter(SlowServer(), database=table)
        await asyncio.sleep(max(0.0, start - time.time()))
        results = await asyncio.gather(
            *(limiter.admit("alice", uuid.uuid4().hex, "t", CAP) for _ in range(count))
        )
    return sum(result is None for result in results)


if __name__ == "__main__":
    print(asyncio.run(_admit(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))))
