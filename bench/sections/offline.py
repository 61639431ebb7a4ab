"""Offline end to end: the README's main command on the sample corpus, wall time and memory.

``make run`` is ``deep-research ask "$(QUESTION)"`` with the Makefile's default question: the
offline engine, the bundled sample corpus, the SQLite checkpointer, no keys. It runs here as
a child process with its own data directory: the first run builds the corpus index (cold),
the following ones reuse it (warm). Wall time is measured around the process; peak memory is
the child's maximum resident set size from ``wait4``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, log, summary
from bench.sections import Options

NAME = "offline"
TIMEOUT = 300
REMOVED_VARIABLES = (
    "DEEP_RESEARCH_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "TAVILY_API_KEY",
    "DEEP_RESEARCH_DATABASE_URL",
    "DEEP_RESEARCH_DATA_DIR",
)


def makefile_question() -> str:
    """The Makefile's default ``QUESTION`` (what ``make run`` asks)."""
    text = (REPO_ROOT / "Makefile").read_text()
    match = re.search(r"^QUESTION \?= (.+)$", text, re.M)
    if match is None:
        raise RuntimeError("the Makefile defines no QUESTION")
    return match.group(1).strip()


def one_run(data_dir: Path, out: Path, question: str) -> dict[str, Any]:
    """Run ``deep-research ask`` once; wall seconds, peak RSS (MiB), exit status."""
    executable = Path(sys.executable).parent / "deep-research"
    env = {k: v for k, v in os.environ.items() if k not in REMOVED_VARIABLES}
    env["DEEP_RESEARCH_DATA_DIR"] = str(data_dir)
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull, (out.parent / "stderr.log").open("wb") as err:
        process = subprocess.Popen(
            [str(executable), "ask", question, "--out", str(out)],
            cwd=out.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=devnull,
            stderr=err,
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.01)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    report = out / "report.md"
    return {
        "wall": wall,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "exit": process.returncode,
        "report_chars": len(report.read_text()) if report.exists() else 0,
        "stderr_tail": (out.parent / "stderr.log").read_text(errors="replace")[-500:]
        if process.returncode
        else "",
    }


def _startup() -> float:
    """Wall time of ``deep-research --help``: interpreter start and imports."""
    executable = Path(sys.executable).parent / "deep-research"
    start = time.perf_counter()
    subprocess.run([str(executable), "--help"], capture_output=True, timeout=TIMEOUT, check=True)
    return time.perf_counter() - start


def run(options: Options) -> dict[str, Any]:
    """One cold run, then warm runs."""
    question = makefile_question()
    warm_runs = 1 if options.quick else options.repeats
    with tempfile.TemporaryDirectory(prefix="bench-offline-") as tmp:
        data_dir = Path(tmp) / "data"
        runs = []
        for i in range(warm_runs + 1):
            log(f"offline: run {i + 1}/{warm_runs + 1} ({'cold' if i == 0 else 'warm'})")
            workdir = Path(tmp) / f"run-{i}"
            workdir.mkdir()
            runs.append(one_run(data_dir, workdir / "report", question))
    cold, warm = runs[0], runs[1:]
    startup = [_startup() for _ in range(warm_runs)]
    failures = [r for r in runs if r["exit"] != 0]
    return {
        "command": 'deep-research ask "$(QUESTION)"  (make run)',
        "question": question,
        "cold": {k: round(v, 3) if isinstance(v, float) else v for k, v in cold.items()},
        "warm_wall_seconds": summary([r["wall"] for r in warm], 3),
        "warm_peak_rss_mib": summary([r["peak_rss_mib"] for r in warm], 1),
        "startup_seconds": summary(startup, 3),
        "report_chars": warm[-1]["report_chars"] if warm else cold["report_chars"],
        "failures": [r["stderr_tail"] for r in failures],
    }
