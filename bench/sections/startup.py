"""Start-up: how long the command line makes people wait before it does anything.

Each figure is the wall time of a fresh child process (the median of the repeats), beside
the same machine's ``python -c pass`` so that the ratio travels between machines, and the CPU
seconds the process used (user and system), which other load on a shared machine inflates
far less than the wall time; the load average at the start is recorded with them:

* ``deep-research --help`` (goal: under 0.3 s here);
* ``deep-research chats`` on an empty SQLite data directory (goal: under 1 s);
* ``deep-research ask``: time to its first progress line on stderr (goal: within 1.5 s);
* the import cost of each top-level module of the package, from ``python -X importtime``
  (the cumulative microseconds of the module's own line), in a fresh process each.
"""

from __future__ import annotations

import os
import pkgutil
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import deep_research
from bench.common import REPO_ROOT, log, summary
from bench.sections import Options
from bench.sections.offline import REMOVED_VARIABLES, makefile_question

NAME = "startup"
TIMEOUT = 120
GOALS = {"help": 0.3, "chats": 1.0, "ask_first_line": 1.5}
"""Wall-time goals in seconds on the project's machines (2 cores)."""


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in REMOVED_VARIABLES}
    env["DEEP_RESEARCH_DATA_DIR"] = str(data_dir)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(argv: list[str], env: dict[str, str], cwd: Path, cpu: list[float] | None = None) -> float:
    """Wall seconds of the command; its CPU seconds are appended to ``cpu``."""
    start, used = time.perf_counter(), _children_cpu()
    subprocess.run(
        argv, env=env, cwd=cwd, check=True, timeout=TIMEOUT, capture_output=True, text=True
    )
    if cpu is not None:
        cpu.append(_children_cpu() - used)
    return time.perf_counter() - start


def _first_line(
    argv: list[str], env: dict[str, str], cwd: Path, cpu: list[float] | None = None
) -> float:
    """Seconds until the process writes its first line to stderr; the process is then ended.

    The CPU seconds it used until it was ended are appended to ``cpu``.
    """
    start, used = time.perf_counter(), _children_cpu()
    process = subprocess.Popen(
        argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        elapsed = time.perf_counter() - start
        if not line:
            raise RuntimeError(f"{argv[1:3]} wrote nothing to stderr")
        return elapsed
    finally:
        process.kill()
        process.wait(timeout=TIMEOUT)
        if cpu is not None:
            cpu.append(_children_cpu() - used)


def _modules() -> list[str]:
    """The package's top-level modules and subpackages."""
    path = Path(deep_research.__file__).parent
    return sorted(
        f"deep_research.{m.name}"
        for m in pkgutil.iter_modules([str(path)])
        if not m.name.startswith("_") and m.name != "sample_corpus"
    )


_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)\s*$")


def _import_lines(code: str, env: dict[str, str], cwd: Path) -> list[tuple[int, bool, str]]:
    """``python -X importtime -c code``: (cumulative us, outermost?, name) per import."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=env, cwd=cwd, check=True, timeout=TIMEOUT, capture_output=True, text=True,
    )  # fmt: skip
    lines = []
    for line in result.stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if match is not None:
            lines.append((int(match.group(2)), not match.group(3), match.group(4)))
    return lines


def _import_cost(module: str, env: dict[str, str], cwd: Path, startup: set[str]) -> dict[str, Any]:
    """Import time (ms) of ``import module`` in a fresh process, and what it loads.

    ``-X importtime`` writes a module's line when its import ends, after the lines of what it
    imported; the statement's imports are the lines after the interpreter's own start-up
    (``startup``: the outermost imports of ``python -c pass``), and its time the sum of their
    outermost lines.
    """
    lines = _import_lines(f"import {module}", env, cwd)
    last_startup = max(
        (i for i, (_, outer, name) in enumerate(lines) if outer and name in startup), default=-1
    )
    mine = lines[last_startup + 1 :]
    loaded = {name.split(".")[0] for _, _, name in mine}
    return {
        "ms": round(sum(us for us, outer, _ in mine if outer) / 1000, 1),
        "langgraph": "langgraph" in loaded,
        "langchain_core": "langchain_core" in loaded,
        "sqlalchemy": "sqlalchemy" in loaded,
    }


def run(options: Options) -> dict[str, Any]:
    """Measure start-up; see the module docstring."""
    repeats = 1 if options.quick else options.repeats
    executable = str(Path(sys.executable).parent / "deep-research")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        folder = Path(tmp)
        env = _env(folder / "data")
        load = os.getloadavg()[0]
        cpu: dict[str, list[float]] = {"help": [], "chats": []}
        baseline = [_wall([sys.executable, "-c", "pass"], env, folder) for _ in range(repeats)]
        log(f"python -c pass: {statistics.median(baseline):.3f} s (load average {load:.1f})")
        helps = [_wall([executable, "--help"], env, folder, cpu["help"]) for _ in range(repeats)]
        log(f"--help: {statistics.median(helps):.3f} s")
        chats = [_wall([executable, "chats"], env, folder, cpu["chats"]) for _ in range(repeats)]
        log(f"chats: {statistics.median(chats):.3f} s, CPU {statistics.median(cpu['chats']):.3f} s")
        question = makefile_question()
        ask = [executable, "ask", question, "--out", str(folder / "out")]
        _first_line(ask, env, folder)  # builds the corpus index once, as a warm `make run` has
        cpu["ask_first_line"] = []
        firsts = [_first_line(ask, env, folder, cpu["ask_first_line"]) for _ in range(repeats)]
        log(f"ask, first progress line: {statistics.median(firsts):.3f} s")
        modules = _modules() if not options.quick else ["deep_research.text.words"]
        startup = {name for _, outer, name in _import_lines("pass", env, REPO_ROOT) if outer}
        imports = {m: _import_cost(m, env, REPO_ROOT, startup) for m in modules}
    python = statistics.median(baseline)
    figures = {"help": helps, "chats": chats, "ask_first_line": firsts}
    return {
        "load_average": round(load, 1),
        "python_seconds": summary(baseline),
        "commands": {
            name: {
                "seconds": summary(values),
                "ratio_to_python": round(statistics.median(values) / python, 1),
                "goal_seconds": GOALS[name],
                "met": statistics.median(values) <= GOALS[name],
                **({"cpu_seconds": summary(cpu[name])} if cpu.get(name) else {}),
            }
            for name, values in figures.items()
        },
        "imports": imports,
    }
