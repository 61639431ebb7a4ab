"""A cap on each user's concurrent runs (``DEEP_RESEARCH_MAX_RUNS_PER_USER``).

When a run is created, the auth handler of ``threads.create_run`` asks :data:`run_limiter`
whether the user may start one more. The limiter counts the user's pending and running runs
through the server's own API, in process (``langgraph_sdk.get_client()`` with no URL uses the
server's loopback transport): the user's busy threads, then the pending and running runs of
each. The run being created is not in that list yet, since the server stores it after the
handler returns, so each admitted run is also held as a reservation, keyed by its run id, until
the server lists it or :data:`RESERVATION_SECONDS` pass; counting and reserving happen under a
per-user lock, so two requests arriving together cannot both take the last slot.

Limits, by design: the reservations live in one process (a deployment with several API
replicas could admit up to the cap on each replica in a burst), and a run the server refuses
after the handler (for example on a thread that is already busy), or one cancelled before the
user's next run is counted, keeps its reservation, and so one slot, for
:data:`RESERVATION_SECONDS`.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable

from langgraph_sdk import get_client
from langgraph_sdk.schema import RunStatus

RESERVATION_SECONDS = 5.0
"""How long an admitted run counts at most before the server lists it (it is stored within
milliseconds of being admitted)."""

THREAD_SCAN = 100
"""Busy threads of one user inspected per count (the cap is at most this)."""

ACTIVE: tuple[RunStatus, ...] = ("pending", "running")
"""Run statuses that count against the cap."""

ActiveRuns = Callable[[str], Awaitable[set[str]]]
"""Returns the ids of a user's pending and running runs."""


async def list_active_runs(user_id: str) -> set[str]:
    """The ids of ``user_id``'s pending and running runs, read through the server's own API.

    Only call this inside the server: with no URL, the SDK client talks to the server in
    process.
    """
    run_ids: set[str] = set()
    async with get_client() as client:
        threads = await client.threads.search(
            metadata={"owner": user_id}, status="busy", limit=THREAD_SCAN
        )
        for thread in threads:
            for status in ACTIVE:
                runs = await client.runs.list(thread["thread_id"], status=status, limit=THREAD_SCAN)
                run_ids.update(str(run["run_id"]) for run in runs)
    return run_ids


class RunLimiter:
    """Admits a user's new run only while the user has fewer active runs than the cap."""

    def __init__(
        self,
        active_runs: ActiveRuns = list_active_runs,
        *,
        hold_seconds: float = RESERVATION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Count active runs with ``active_runs``; hold admitted ones for ``hold_seconds``."""
        self._active_runs = active_runs
        self._hold = hold_seconds
        self._clock = clock
        self._reserved: dict[str, dict[str, float]] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def admit(self, user_id: str, run_id: str, cap: int) -> int | None:
        """Reserve a slot for ``run_id`` unless ``user_id`` already has ``cap`` active runs.

        Returns:
            ``None`` when the run is admitted, else the number of the user's active runs.
        """
        async with self._locks[user_id]:
            now = self._clock()
            listed = await self._active_runs(user_id)
            held = {
                rid: until
                for rid, until in self._reserved.get(user_id, {}).items()
                if until > now and rid not in listed  # a listed run is counted as such
            }
            active = listed | held.keys()
            if len(active) >= cap:
                self._reserved[user_id] = held
                return len(active)
            held[run_id] = now + self._hold
            self._reserved[user_id] = held
            return None


run_limiter = RunLimiter()
"""The server's limiter (one per process)."""
