"""A cap on each user's concurrent runs (``DEEP_RESEARCH_MAX_RUNS_PER_USER``), across replicas.

When a run is created, the auth handler of ``threads.create_run`` asks :data:`run_limiter`
whether the user may start one more. The run being created is not stored by the server yet
(it is, milliseconds after the handler returns), so each admitted run is written down when it
is admitted, and counts from then on.

With a domain store (the default), the admitted runs are rows of the ``active_runs`` table
(:class:`~deep_research.persistence.tables.ActiveRun`), which every server process sharing the
database reads: replicas behind one load balancer hold one cap between them. A user's count is
the user's rows whose lease has not run out, plus the pending and running runs the runtime
lists for the user (through its adapter, :mod:`deep_research.server.runtimes.base`: langgraph-api's
own API in process, or Aegra's runs table; this also counts runs admitted before the table
existed).
Counting and writing happen in one transaction under a per-user lock (PostgreSQL's
``pg_advisory_xact_lock``; on SQLite, the write lock its first statement takes), so two
requests, on one replica or two, cannot both take the last slot.

Each replica looks after its own rows, every :data:`RENEW_SECONDS`: while a run is pending or
running it renews the run's lease, and it deletes the row once the run has ended, or, for a
run the server never stored (refused after the handler, or thread-less), after
:data:`RESERVATION_SECONDS`. Another replica may so count an ended run for a few seconds more,
unless its own server sees the run ended (replicas sharing the server's storage do). A replica
that crashes renews nothing: its runs stop counting when their leases run out, at most
:data:`LEASE_SECONDS` later, so no user is locked out for good.

Without a domain store (``DEEP_RESEARCH_DATABASE_URL=memory``), admitted runs are held in the
process until the server has stored them, and the cap holds for that one process.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import httpx
from langgraph_sdk.errors import LangGraphError
from langgraph_sdk.schema import RunStatus
from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import DatabaseUnavailableError
from deep_research.persistence.db import Database
from deep_research.persistence.tables import ActiveRun
from deep_research.server.runtimes.select import RuntimeRunBook

RESERVATION_SECONDS = 5.0
"""How long an admitted run counts at most before the server has stored it (it does so within
milliseconds of the admission)."""

LEASE_SECONDS = 60.0
"""How long an admitted run counts without its replica renewing it: how long the runs of a
replica that stopped keep counting."""

RENEW_SECONDS = 5.0
"""How often a replica renews its runs' leases and forgets its ended runs: how long another
replica may still count a run that has ended."""

THREAD_SCAN = 100
"""Busy threads of one user inspected per count (the cap is at most this)."""

ACTIVE: tuple[RunStatus, ...] = ("pending", "running")
"""Run statuses that count against the cap."""

logger = logging.getLogger(__name__)

_AWAY = (DatabaseUnavailableError, SQLAlchemyError, LangGraphError, httpx.HTTPError, OSError)
"""What a lease renewal raises when the database or the server's own API is away for a while."""


class RunBook(Protocol):
    """What the limiter reads of this server's runs."""

    async def active(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs."""
        ...

    async def status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when the server has not stored it."""
        ...


@dataclass(frozen=True)
class _Reservation:
    thread_id: str | None
    until: float


def _replica_name() -> str:
    """A name for this server process, unique among the replicas sharing a database."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _user_lock_key(user_id: str) -> int:
    """The PostgreSQL advisory lock that serialises the admissions of ``user_id``."""
    digest = hashlib.sha256(f"deep-research run cap {user_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


DatabaseSource = Callable[[], Awaitable[Database | None]]
"""Where the limiter finds the shared table: the server's domain store, or ``None``."""


async def _server_database() -> Database | None:
    from deep_research.server.database import domain_database, server_database_url

    return await domain_database() if server_database_url() is not None else None


class RunLimiter:
    """Admits a user's new run only while the user has fewer active runs than the cap."""

    def __init__(
        self,
        book: RunBook | None = None,
        *,
        database: DatabaseSource | None = None,
        hold_seconds: float = RESERVATION_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
        replica: str | None = None,
    ) -> None:
        """Read this server's runs from ``book`` and admitted ones from ``database``'s table.

        Args:
            book: this server's runs (by default, the serving runtime's:
                :class:`~deep_research.server.runtimes.select.RuntimeRunBook`).
            database: the shared table's database; by default the server's domain store.
                Without one, admitted runs are held in this process.
            hold_seconds: how long a run the server has not stored counts.
            lease_seconds: how long a run counts without its replica renewing it.
            clock: Unix time (replicas compare leases with their own clocks).
            replica: this process's name among the replicas.
        """
        self._book: RunBook = book or RuntimeRunBook()
        self._database: DatabaseSource = database or _server_database
        self._hold = hold_seconds
        self._lease = lease_seconds
        self._clock = clock
        self.replica = replica or _replica_name()
        self._reserved: dict[str, dict[str, _Reservation]] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._renewing: asyncio.Task[None] | None = None

    async def admit(self, user_id: str, run_id: str, thread_id: str | None, cap: int) -> int | None:
        """Count ``run_id`` for ``user_id`` unless the user already has ``cap`` active runs.

        Returns:
            ``None`` when the run is admitted, else the number of the user's active runs.

        Raises:
            DatabaseUnavailableError: the shared table could not be read or written.
        """
        async with self._locks[user_id]:
            database = await self._database()
            if database is None:
                return await self._admit_here(user_id, run_id, thread_id, cap)
            active = await database.run_transaction(
                lambda session: self._admit_shared(session, user_id, run_id, thread_id, cap)
            )
            if active is None:
                self._keep_renewing()
            return active

    async def _admit_shared(
        self, session: AsyncSession, user_id: str, run_id: str, thread_id: str | None, cap: int
    ) -> int | None:
        """Count and write down under the user's lock, in one transaction."""
        now = self._clock()
        if session.get_bind().dialect.name == "postgresql":
            await session.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _user_lock_key(user_id)}
            )
        # Expired leases first: on SQLite this write takes the lock that serialises admissions.
        await session.execute(delete(ActiveRun).where(ActiveRun.lease_until <= now))
        rows = (await session.scalars(select(ActiveRun).where(ActiveRun.user_id == user_id))).all()
        counted: set[str] = set()
        for row in rows:
            if await self._over(row, now, mine=row.replica == self.replica):
                await session.delete(row)
            else:
                counted.add(row.run_id)
        active = counted | await self._book.active(user_id)
        if len(active) >= cap:
            return len(active)
        session.add(
            ActiveRun(
                run_id=run_id,
                user_id=user_id,
                thread_id=thread_id,
                replica=self.replica,
                admitted_at=now,
                lease_until=now + self._lease,
            )
        )
        return None

    async def _over(self, row: ActiveRun, now: float, *, mine: bool = True) -> bool:
        """Whether an admitted run no longer counts: it ended, or its server never stored it.

        Another replica's run is over only if this server sees it ended (replicas that
        share the server's storage do); otherwise its lease decides.
        """
        status = await self._book.status(row.thread_id, row.run_id) if row.thread_id else None
        if status is None:
            return mine and row.admitted_at + self._hold <= now
        return status not in ACTIVE

    def _keep_renewing(self) -> None:
        """Renew this replica's leases in the background while it has admitted runs."""
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew_leases())

    async def _renew_leases(self) -> None:
        """Renew every :data:`RENEW_SECONDS`, until this replica has no run left that counts."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            try:
                if not await self.renew():
                    return
            except _AWAY as exc:  # the database or the server's API is away: try again
                logger.warning("could not renew the run cap's leases: %s", exc)

    async def renew(self) -> int:
        """Renew the leases of this replica's active runs and delete the others.

        Returns:
            The number of this replica's runs that still count.
        """
        database = await self._database()
        if database is None:
            return 0
        now = self._clock()

        async def renew(session: AsyncSession) -> int:
            rows = (
                await session.scalars(select(ActiveRun).where(ActiveRun.replica == self.replica))
            ).all()
            over = [row.run_id for row in rows if await self._over(row, now)]
            if over:
                await session.execute(delete(ActiveRun).where(ActiveRun.run_id.in_(over)))
            kept = [row.run_id for row in rows if row.run_id not in over]
            if kept:
                await session.execute(
                    update(ActiveRun)
                    .where(ActiveRun.run_id.in_(kept))
                    .values(lease_until=now + self._lease)
                )
            return len(kept)

        return await database.run_transaction(renew)

    async def _admit_here(
        self, user_id: str, run_id: str, thread_id: str | None, cap: int
    ) -> int | None:
        """Without a domain store: hold admitted runs here until the server has stored them."""
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
            if reservation.thread_id and await self._book.status(reservation.thread_id, run_id):
                continue
            held[run_id] = reservation
        return held


run_limiter = RunLimiter()
"""The server's limiter (one per process)."""
