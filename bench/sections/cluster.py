"""Cluster: concurrent runs over two Aegra instances, and how long a killed instance's runs take.

Two instances started by ``deploy/cluster.sh`` (as ``make cluster`` starts them, each an API and
Aegra's default 3 x 10 worker jobs) serve :mod:`bench.server_graph` (our graph on the
simulation, the server section's 4-step plan and latencies) from ``bench/langgraph.json``, over
a throwaway database on the local PostgreSQL (no domain store, as in the server section) and
keys of their own in the local Redis. After a
warm-up run, batches of 10 and 50 runs are started at once through the SDK, alternately on
each instance (a new thread each, ``runs.wait``). Then recovery: 10 runs are started, and once
every run is held by a worker, the first instance is killed with SIGKILL; the time until the
last run has finished through the other instance is measured, with Aegra's default lease
(30 s), heartbeat (10 s) and reaper interval (15 s). Instances and databases are removed at
the end. Last, the same batches on ``langgraph dev`` (as the server section runs it, with as
many jobs as the largest batch), right after, so that both runtimes are measured under the
same load of the machine.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench.common import BENCH_DIR, REPO_ROOT, log
from bench.sections import Options
from bench.sections.server import (
    BATCHES,
    CONTEXT,
    GRAPH_ID,
    INPUT,
    _batches,
    _serve_and_measure,
)
from deep_research.server import free_port

NAME = "cluster"
CLUSTER_PYTHON = REPO_ROOT / ".cluster" / "venv" / "bin" / "python"
RECOVERY_RUNS = 10
RECOVERY_TIMEOUT = 300.0
ADMIN_URL = os.environ.get(
    "DEEP_RESEARCH_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
KEPT = ("PATH", "HOME", "LANG", "TMPDIR")


def _database(name: str, scheme: str) -> str:
    parts = urlsplit(ADMIN_URL)
    return urlunsplit((scheme, parts.netloc, f"/{name}", parts.query, ""))


def _drop(name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(_database("postgres", "postgresql"), autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@contextmanager
def _cluster(workdir: Path) -> Iterator[tuple[list[str], list[int], str]]:
    """Two instances; yields their URLs, their PIDs and Aegra's database URL."""
    ports = [free_port(), free_port()]
    name = f"bench_cluster_{uuid.uuid4().hex[:10]}"
    aegra_url = _database(f"{name}_aegra", "postgresql")
    env = {
        **{key: os.environ[key] for key in KEPT if key in os.environ},
        "PYTHONPATH": str(REPO_ROOT),
        "CLUSTER_PORTS": " ".join(map(str, ports)),
        "CLUSTER_DIR": str(workdir),
        "CLUSTER_PYTHON": str(CLUSTER_PYTHON),
        "CLUSTER_CONFIG": str(BENCH_DIR / "langgraph.json"),
        # As in the server section, nothing is recorded into a domain store.
        "DEEP_RESEARCH_DATABASE_URL": "memory",
        # Aegra's pools sized for a shared PostgreSQL (100 connections here, other users).
        "SQLALCHEMY_POOL_SIZE": "4",
        "SQLALCHEMY_MAX_OVERFLOW": "6",
        "LANGGRAPH_MIN_POOL_SIZE": "2",
        "LANGGRAPH_MAX_POOL_SIZE": "10",
        "AEGRA_DATABASE_URL": aegra_url,
        "WORKER_QUEUE_KEY": f"{name}:jobs",
        "REDIS_CHANNEL_PREFIX": f"{name}:run:",
        "LOG_LEVEL": "WARNING",
    }
    script = str(REPO_ROOT / "deploy" / "cluster.sh")
    started = subprocess.run([script, "start"], env=env, capture_output=True, text=True)
    try:
        if started.returncode != 0:
            raise RuntimeError(f"deploy/cluster.sh start failed: {started.stderr[-2000:]}")
        pids = [int((workdir / f"{port}.pid").read_text()) for port in ports]
        yield [f"http://127.0.0.1:{port}" for port in ports], pids, aegra_url
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True)
        _drop(f"{name}_aegra")


async def _claimed(aegra_url: str, runs: list[str]) -> dict[str, str]:
    import psycopg

    async with await psycopg.AsyncConnection.connect(aegra_url) as conn:
        rows = await conn.execute(
            "SELECT run_id, claimed_by FROM runs WHERE claimed_by IS NOT NULL AND run_id = ANY(%s)",
            (runs,),
        )
        return {str(run): str(worker) for run, worker in await rows.fetchall()}


async def _recovery(urls: list[str], pids: list[int], aegra_url: str, n: int) -> dict[str, Any]:
    from langgraph_sdk import get_client

    async with get_client(url=urls[0], api_key=None) as a, get_client(url=urls[1]) as b:
        runs = []
        for i in range(n):
            client = (a, b)[i % 2]
            thread = (await client.threads.create())["thread_id"]
            run = await client.runs.create(thread, GRAPH_ID, input=INPUT, context=CONTEXT)
            runs.append((thread, run["run_id"]))
        ids = [run_id for _, run_id in runs]
        victim = f"-{pids[0]}-"
        while len(claimed := await _claimed(aegra_url, ids)) < n:
            await asyncio.sleep(0.1)
        on_victim = sum(victim in worker for worker in claimed.values())
        os.kill(pids[0], signal.SIGKILL)
        killed = time.perf_counter()
        finished: dict[str, float] = {}
        statuses: dict[str, str] = {}
        while len(finished) < n and time.perf_counter() - killed < RECOVERY_TIMEOUT:
            for thread, run_id in runs:
                if run_id not in finished:
                    status = (await b.runs.get(thread, run_id))["status"]
                    statuses[run_id] = status
                    if status in ("success", "error", "timeout", "interrupted"):
                        finished[run_id] = time.perf_counter() - killed
            await asyncio.sleep(0.25)
    succeeded = sum(status == "success" for status in statuses.values())
    return {
        "runs": n,
        "on_killed_instance": on_victim,
        "succeeded": succeeded,
        "not_finished": n - len(finished),
        "last_run_done_after_kill_seconds": round(max(finished.values()), 1) if finished else None,
        "lease_seconds": 30,
        "reaper_seconds": 15,
    }


def run(options: Options) -> dict[str, Any]:
    """Measure batches of concurrent runs over two instances, then recovery after a kill."""
    if not CLUSTER_PYTHON.exists():
        return {"skipped": "no cluster environment (.cluster/venv): run `make cluster-venv`"}
    sizes = (2,) if options.quick else BATCHES
    recovery_runs = 2 if options.quick else RECOVERY_RUNS
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        with _cluster(Path(tmp)) as (urls, pids, aegra_url):
            log(f"cluster: two instances up at {urls}")
            batches = asyncio.run(_batches(urls, sizes, "cluster"))
            recovery = asyncio.run(_recovery(urls, pids, aegra_url, recovery_runs))
    with tempfile.TemporaryDirectory(prefix="bench-cluster-dev-") as tmp:
        # langgraph dev measured right after, on the same machine under the same load
        baseline = _serve_and_measure(Path(tmp), max(sizes), sizes)["batches"]
    return {
        "load_average": round(load, 1),
        "langgraph_dev_batches": baseline,
        "instances": 2,
        "worker_jobs_per_instance": 30,
        "plan_steps": 4,
        "context": CONTEXT,
        "batches": batches,
        "recovery": recovery,
    }
