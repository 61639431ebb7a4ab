"""Shared helpers: paths, summary statistics, results files and the machine's description."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
PEER_PYTHON = BENCH_DIR / ".venv-peer" / "bin" / "python"


def summary(values: Sequence[float], digits: int = 4) -> dict[str, Any]:
    """Median, quartiles, min and max of ``values`` (``n`` = how many)."""
    data = sorted(values)
    if not data:
        return {"n": 0}
    if len(data) >= 2:
        q1, _, q3 = statistics.quantiles(data, n=4, method="inclusive")
    else:
        q1 = q3 = data[0]
    return {
        "n": len(data),
        "median": round(statistics.median(data), digits),
        "q1": round(q1, digits),
        "q3": round(q3, digits),
        "min": round(data[0], digits),
        "max": round(data[-1], digits),
    }


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct`` percentile (0-100) by linear interpolation."""
    data = sorted(values)
    if not data:
        return float("nan")
    position = (len(data) - 1) * pct / 100
    low = int(position)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (position - low)


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kb = int(meminfo.read_text().split()[1])
        memory = f"{kb / 1024 / 1024:.0f} GiB"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "packages": _versions(
            ["langgraph", "langchain-core", "langgraph-checkpoint-postgres", "langgraph-api"]
        ),
        "postgres": _postgres_version(),
    }


def _versions(names: Sequence[str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def _postgres_version() -> str:
    try:
        done = subprocess.run(
            ["psql", "--version"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() or "unknown"


def write_result(section: str, data: Mapping[str, Any], results_dir: Path = RESULTS_DIR) -> Path:
    """Write ``<results_dir>/<section>.json`` (atomically) and return its path."""
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{section}.json"
    payload = {
        "section": section,
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        **data,
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    tmp.replace(path)
    return path


def read_result(section: str, results_dir: Path = RESULTS_DIR) -> dict[str, Any] | None:
    """The last results of a section, if any."""
    path = results_dir / f"{section}.json"
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def log(message: str) -> None:
    """Progress on stderr."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)
