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
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import BENCH_DIR, LANGGRAPH, REPO_ROOT, log, percentile, summary
from bench.sections import Options
from bench.sim.server import free_port

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
    except Exception as exc:
        return time.perf_counter() - start, f"{type(exc).__name__}: {exc}"[:300]
    elapsed = time.perf_counter() - start
    if not isinstance(output, dict) or "__error__" in output:
        return elapsed, f"run error: {str(output)[:300]}"
    if not (output.get("report") or {}).get("references"):
        return elapsed, "run finished without a report with references"
    return elapsed, None


async def _batches(url: str, sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    from langgraph_sdk import get_client

    rows = []
    async with get_client(url=url, api_key=None) as client:
        warm, error = await _one(client)
        if error:
            raise RuntimeError(f"the warm-up run failed: {error}")
        log(f"server: warm-up run took {warm:.2f} s")
        for n in sizes:
            log(f"server: {n} concurrent runs")
            start = time.perf_counter()
            outcomes = await asyncio.gather(*(_one(client) for _ in range(n)))
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


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log_path: Path) -> float:
    start = time.monotonic()
    with httpx.Client(trust_env=False, timeout=2.0) as http:
        while time.monotonic() - start < STARTUP_TIMEOUT:
            if process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited early; log:\n{_tail(log_path)}")
            try:
                if http.get(f"{url}/ok").status_code == 200:
                    return time.monotonic() - start
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    raise RuntimeError(
        f"langgraph dev did not answer in {STARTUP_TIMEOUT:.0f} s:\n{_tail(log_path)}"
    )


def _tail(path: Path, lines: int = 30) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _config(workdir: Path) -> Path:
    """``bench/langgraph.json`` with its paths made absolute (the CLI resolves them against
    its working directory, which is kept outside the tree)."""
    config = json.loads((BENCH_DIR / "langgraph.json").read_text())
    config["dependencies"] = [str((BENCH_DIR / d).resolve()) for d in config["dependencies"]]
    config["graphs"] = {
        name: str((BENCH_DIR / spec.split(":")[0]).resolve()) + ":" + spec.split(":")[1]
        for name, spec in config["graphs"].items()
    }
    path = workdir / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


def _serve_and_measure(workdir: Path, jobs: int | None, sizes: tuple[int, ...]) -> dict[str, Any]:
    log_path = workdir / "server.log"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in _REMOVED}
    env |= {
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "PYTHONPATH": str(REPO_ROOT),
        "DEEP_RESEARCH_DATA_DIR": str(workdir / "data"),
    }
    command = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--config", str(_config(workdir))]
    if jobs is not None:
        command += ["--n-jobs-per-worker", str(jobs)]
    with log_path.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        started = _wait_until_up(url, process, log_path)
        log(f"server: langgraph dev up after {started:.1f} s on port {port} (jobs: {jobs})")
        rows = asyncio.run(_batches(url, sizes))
    finally:
        _stop(process)
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
    if not LANGGRAPH.exists():
        return {"skipped": f"the `langgraph` CLI is missing ({LANGGRAPH}): install the dev extra"}
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
