"""The run cap across server replicas: one count in the table they share, leases for crashes.

Each replica sees only its own server's runs (as ``langgraph dev`` replicas do); the table
(here a SQLite file; PostgreSQL in ``tests/integration_tests/test_run_cap.py``) is what
makes the cap one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from deep_research.persistence.db import Database, open_database
from deep_research.server.run_cap import RunLimiter

CAP = 2


@dataclass
class ReplicaRuns:
    """One replica's own runs, as its server lists them: all stored, running until ended."""

    ended: set[str] = field(default_factory=set)
    admitted: set[str] = field(default_factory=set)

    async def active(self, user_id: str) -> set[str]:
        return self.admitted - self.ended

    async def status(self, thread_id: str, run_id: str) -> str | None:
        if run_id not in self.admitted:
            return None
        return "success" if run_id in self.ended else "running"


@dataclass
class Replica:
    runs: ReplicaRuns
    limiter: RunLimiter

    async def start(self, run_id: str) -> int | None:
        """Ask for a run as the auth handler does; the server stores an admitted one."""
        refused = await self.limiter.admit("alice", run_id, f"thread-{run_id}", CAP)
        if refused is None:
            self.runs.admitted.add(run_id)
        return refused


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    async with open_database(f"sqlite:///{tmp_path / 'shared.db'}") as opened:
        yield opened


def _replica(database: Database, name: str, now: list[float]) -> Replica:
    async def table() -> Database:
        return database

    runs = ReplicaRuns()
    limiter = RunLimiter(runs, database=table, clock=lambda: now[0], replica=name)
    return Replica(runs, limiter)


async def test_replicas_sharing_a_database_hold_one_cap(database: Database) -> None:
    now = [1000.0]
    a, b = _replica(database, "a", now), _replica(database, "b", now)
    assert await a.start("r1") is None
    assert await b.start("r2") is None
    assert await a.start("r3") == CAP  # b's run counts on a
    assert await b.start("r3") == CAP
    assert await a.limiter.admit("bob", "b1", "tb", CAP) is None  # caps are per user
    a.runs.ended.add("r1")
    assert await b.start("r3") == CAP  # b cannot see a's runs: a has to tell it
    assert await a.limiter.renew() == 1  # as a does every few seconds
    assert await b.start("r3") is None


async def test_a_replica_that_sees_another_ones_run_ended_stops_counting_it_at_once(
    database: Database,
) -> None:
    """Replicas on one server storage (langgraph-api's) see each other's runs."""
    now = [1000.0]
    a, b = _replica(database, "a", now), _replica(database, "b", now)
    b.runs = a.runs
    b.limiter = RunLimiter(a.runs, database=a.limiter._database, clock=lambda: now[0])
    assert await a.start("r1") is None and await a.start("r2") is None
    assert await b.start("r3") == CAP
    a.runs.ended.add("r1")
    assert await b.start("r3") is None


async def test_a_replica_renews_its_running_runs_and_forgets_ended_ones(
    database: Database,
) -> None:
    now = [1000.0]
    a, b = _replica(database, "a", now), _replica(database, "b", now)
    assert await a.start("r1") is None and await a.start("r2") is None
    now[0] += 40
    assert await a.limiter.renew() == 2  # both still running
    now[0] += 40  # past the first lease, within the renewed one
    assert await b.start("r3") == CAP
    a.runs.ended.add("r2")
    assert await a.limiter.renew() == 1
    assert await b.start("r3") is None


async def test_a_crashed_replicas_runs_stop_counting_when_their_lease_runs_out(
    database: Database,
) -> None:
    now = [1000.0]
    crashed, b = _replica(database, "crashed", now), _replica(database, "b", now)
    assert await crashed.start("r1") is None and await crashed.start("r2") is None
    assert await b.start("r3") == CAP
    now[0] += 59  # nobody renews the crashed replica's leases
    assert await b.start("r3") == CAP
    now[0] += 2
    assert await b.start("r3") is None
