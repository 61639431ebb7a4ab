"""A cap on each user's concurrent runs (``DEEP_RESEARCH_MAX_RUNS_PER_USER``).

When a run is created, the auth handler of ``threads.create_run`` asks :data:`run_limiter`
whether the user may start one more. The limiter counts the user's pending and running runs
through the server's own API, in process (``langgraph_sdk.get_client()`` with no URL uses the
server's loopback transport): the user's busy threads, then the pending and running runs of
each. The run being created is not in that list yet, since the server stores it after the
handler returns, so each admitted run is also held as a reservation until the server has stored
it (then the server's list counts it while it is active) or :data:`RESERVATION_SECONDS` pass.
Counting and reserving happen under a per-user lock, so two requests arriving together cannot
both take the last slot.

Limits, by design: the reservations live in one process (a deployment with several API
replicas could admit up to the cap on each replica in a burst); a run the server refuses after
the handler (on another user's thread, say), and a thread-less run (``POST /runs``, whose
thread the handler is not told), keep their reservation, and so one slot, for
:data:`RESERVATION_SECONDS`.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from langgraph_sdk import get_client
from langgraph_sdk.errors import NotFoundError
from langgraph_sdk.schema import RunStatus

RESERVATION_SECONDS = 5.0
"""How long an admitted run counts at most before the server has stored it (it does so within
milliseconds of the admission)."""

THREAD_SCAN = 100
"""Busy threads of one user inspected per count (the cap is at most this)."""

ACTIVE: tuple[RunStatus, ...] = ("pending", "running")
"""Run statuses that count against the cap."""


class RunBook(Protocol):
    """What the limiter reads of the server's runs."""

    async def active(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs."""
        ...

    async def stored(self, thread_id: str, run_id: str) -> bool:
        """Whether the server has stored the run (in any status)."""
        ...


class ServerRunBook:
    """The server's runs, read through its own API in process (only usable inside the server)."""

    async def active(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs."""
        run_ids: set[str] = set()
        async with get_client() as client:
            threads = await client.threads.search(
                metadata={"owner": user_id}, status="busy", limit=THREAD_SCAN
            )
            for thread in threads:
                for status in ACTIVE:
                    runs = await client.runs.list(
                        thread["thread_id"], status=status, limit=THREAD_SCAN
                    )
                    run_ids.update(str(run["run_id"]) for run in runs)
        return run_ids

    async def stored(self, thread_id: str, run_id: str) -> bool:
        """Whether the server has stored the run (in any status)."""
        async with get_client() as client:
            try:
                await client.runs.get(thread_id, run_id)
            except NotFoundError:
                return False
        return True


@dataclass(frozen=True)
class _Reservation:
    thread_id: str | None
    until: float


class RunLimiter:
    """Admits a user's new run only while the user has fewer active runs than the cap."""

    def __init__(
        self,
        book: RunBook | None = None,
        *,
        hold_seconds: float = RESERVATION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Read runs from ``book`` (the server's); hold unstored ones up to ``hold_seconds``."""
        self._book: RunBook = book or ServerRunBook()
        self._hold = hold_seconds
        self._clock = clock
        self._reserved: dict[str, dict[str, _Reservation]] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def admit(self, user_id: str, run_id: str, thread_id: str | None, cap: int) -> int | None:
        """Reserve a slot for ``run_id`` unless ``user_id`` already has ``cap`` active runs.

        Returns:
            ``None`` when the run is admitted, else the number of the user's active runs.
        """
        async with self._locks[user_id]:
            held = await self._unstored(user_id)  # before listing: a run stored in between
            active = await self._book.active(user_id) | held.keys()  # is listed, not lost
            if len(active) >= cap:
                self._reserved[user_id] = held
                return len(active)
            held[run_id] = _Reservation(thread_id, self._clock() + self._hold)
            self._reserved[user_id] = held
            return None

    async def _unstored(self, user_id: str) -> dict[str, _Reservation]:
        """The user's reservations of runs the server has not stored yet, unexpired."""
        now, held = self._clock(), {}
        for run_id, reservation in self._reserved.get(user_id, {}).items():
            if reservation.until <= now:
                continue
            if reservation.thread_id and await self._book.stored(reservation.thread_id, run_id):
                continue
            held[run_id] = reservation
        return held


run_limiter = RunLimiter()
"""The server's limiter (one per process)."""
