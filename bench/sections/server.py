"""Server: concurrent runs against ``langgraph dev`` on 127.0.0.1 with the simulated model.

``langgraph dev`` serves :mod:`bench.server_graph` (our graph on the simulation, 4-step plan)
from ``bench/langgraph.json``: no reloader, analytics off, a free port (2024 is often taken),
its working directory and log in a temporary folder outside the tree, the in-memory runtime's
default of jobs per worker. After one warm-up run, batches of 10 and 50 runs are started at
once through the SDK (a new thread each, ``runs.wait``); every run is bounded by a timeout and
the server is stopped by its PID at the end.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk.errors import LangGraphError

from bench.common import BENCH_DIR, REPO_ROOT, log, percentile, summary
from bench.sections import Options
from deep_research.server import DevServerError, dev_server, langgraph_executable

NAME = "server"
GRAPH_ID = "deep_research_bench"
BATCHES = (10, 50)
RUN_TIMEOUT = 300.0
STARTUP_TIMEOUT = 90.0
CONTEXT: dict[str, Any] = {
    "depth": "extended",
    "allow_clarification": False,
    "max_rounds": 1,
    "results_per_query": 5,
    "max_parallel_researchers": 4,
}
INPUT = {"messages": [{"role": "user", "content": "How do LFP and NMC batteries compare?"}]}
_REMOVED = ("DEEP_RESEARCH_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY")


async def _one(client: Any) -> tuple[float, str | None]:
    start = time.perf_counter()
    try:
        thread = (await client.threads.create())["thread_id"]
        output = await asyncio.wait_for(
            client.runs.wait(thread, GRAPH_ID, input=INPUT, context=CONTEXT), RUN_TIMEOUT
        )
    except (httpx.HTTPError, LangGraphError, TimeoutError) as exc:  # a failed run, counted
        return time.perf_counter() - start, f"{type(exc).__name__}: {exc}"[:300]
    elapsed = time.perf_counter() - start
    if not isinstance(output, dict) or "__error__" in output:
        return elapsed, f"run error: {str(output)[:300]}"
    if not (output.get("report") or {}).get("references"):
        return elapsed, "run finished without a report with references"
    return elapsed, None


async def _batches(
    urls: Sequence[str], sizes: tuple[int, ...], what: str = "server"
) -> list[dict[str, Any]]:
    """Batches of concurrent runs, sent to the servers at ``urls`` in turn, after a warm-up."""
    from langgraph_sdk import get_client

    rows = []
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(get_client(url=url, api_key=None)) for url in urls
        ]
        warm, error = await _one(clients[0])
        if error:
            raise RuntimeError(f"the warm-up run failed: {error}")
        log(f"{what}: warm-up run took {warm:.2f} s")
        for n in sizes:
            log(f"{what}: {n} concurrent runs over {len(urls)} server(s)")
            start = time.perf_counter()
            outcomes = await asyncio.gather(*(_one(clients[i % len(clients)]) for i in range(n)))
            wall = time.perf_counter() - start
            latencies = [seconds for seconds, error in outcomes if error is None]
            errors = [error for _, error in outcomes if error is not None]
            rows.append(
                {
                    "concurrent_runs": n,
                    "completed": len(latencies),
                    "errors": len(errors),
                    "error_samples": sorted(set(errors))[:3],
                    "wall_seconds": round(wall, 2),
                    "throughput_runs_per_minute": round(len(latencies) / wall * 60, 1),
                    "latency_seconds": summary(latencies, 2),
                    "p95_seconds": round(percentile(latencies, 95), 2) if latencies else None,
                    "warm_run_seconds": round(warm, 2),
                }
            )
    return rows


def _serve_and_measure(workdir: Path, jobs: int | None, sizes: tuple[int, ...]) -> dict[str, Any]:
    env = {"PYTHONPATH": str(REPO_ROOT), "DEEP_RESEARCH_DATA_DIR": str(workdir / "data")}
    args = ["--n-jobs-per-worker", str(jobs)] if jobs is not None else []
    try:
        with dev_server(
            BENCH_DIR / "langgraph.json",
            workdir,
            env=env,
            remove_env=_REMOVED,
            args=args,
            startup_timeout=STARTUP_TIMEOUT,
            shutdown_grace=20.0,
        ) as server:
            started = server.startup_seconds
            log(f"server: langgraph dev up after {started:.1f} s at {server.url} (jobs: {jobs})")
            rows = asyncio.run(_batches([server.url], sizes))
    except DevServerError as exc:
        raise RuntimeError(str(exc)) from exc
    return {
        "jobs_per_worker": jobs if jobs is not None else "CLI default",
        "startup_seconds": round(started, 2),
        "batches": rows,
    }


def run(options: Options) -> dict[str, Any]:
    """Serve the simulated graph and measure batches of concurrent runs.

    Once with as many jobs per worker as the largest batch, so that the server runs every
    run at once; once with the CLI's default jobs per worker (``langgraph dev`` without
    ``--n-jobs-per-worker``), which runs one at a time.
    """
    if langgraph_executable() is None:
        return {"skipped": "the `langgraph` CLI is missing: install the dev extra"}
    setups: list[tuple[int | None, tuple[int, ...]]] = [
        (max(BATCHES), BATCHES),
        (None, BATCHES[:1]),
    ]
    if options.quick:
        setups = [(2, (2,))]
    servers = []
    for jobs, sizes in setups:
        with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
            servers.append(_serve_and_measure(Path(tmp), jobs, sizes))
    return {"plan_steps": 4, "context": CONTEXT, "servers": servers}
