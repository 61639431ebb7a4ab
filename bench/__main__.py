"""``python -m bench [--sections a,b] [--repeats N] [--quick]``: run the benchmarks.

Runs the selected sections (all by default, in :data:`bench.sections.ORDER`), writes
``bench/results/<section>.json`` and ``bench/results/summary.json``, and regenerates the
figures in ``BENCHMARKS.md``. A section that fails is recorded as failed and the others
still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from bench import report
from bench.common import RESULTS_DIR, log, machine, read_result, write_result
from bench.sections import ORDER, Options
from bench.sim.profiles import DEFAULT, PROFILES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sections",
        default="",
        help=f"comma-separated sections to run (default: all): {','.join(ORDER)}",
    )
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of timed runs")
    parser.add_argument("--quick", action="store_true", help="a tiny version of every section")
    parser.add_argument(
        "--profile",
        default=DEFAULT.name,
        choices=sorted(PROFILES),
        help=f"latency profile of the simulated model (default: {DEFAULT.name})",
    )
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="results folder")
    parser.add_argument(
        "--markdown", type=Path, default=report.MARKDOWN, help="the Markdown file to update"
    )
    return parser


SHOWN_PER_CPU = ("orchestration",)
"""Sections whose report shows the figures of each CPU measured (its targets are per CPU)."""


def other_cpus(previous: dict[str, Any] | None) -> dict[str, Any]:
    """The section's last figures from each other CPU, kept beside the new ones.

    A run on another machine does not erase what was measured on this one: the report
    shows both, each named by its CPU.
    """
    if not previous or "error" in previous:
        return {}
    kept = dict(previous.get("other_cpus", {}))
    cpu = previous.get("machine", {}).get("cpu")
    if cpu and cpu != machine()["cpu"]:
        kept[cpu] = {k: v for k, v in previous.items() if k != "other_cpus"}
    kept.pop(machine()["cpu"], None)
    return kept


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; returns the exit status."""
    args = _parser().parse_args(argv)
    chosen = [s.strip() for s in args.sections.split(",") if s.strip()] or list(ORDER)
    unknown = [s for s in chosen if s not in ORDER]
    if unknown:
        print(f"unknown sections {unknown}; choose from {', '.join(ORDER)}", file=sys.stderr)
        return 2
    options = Options(repeats=max(1, args.repeats), quick=args.quick, profile=args.profile)
    summary = (read_result("summary", args.results) or {}) if not args.quick else {}
    durations: dict[str, float] = dict(summary.get("sections", {}))
    failed = []
    started = time.perf_counter()
    for name in chosen:
        module = importlib.import_module(f"bench.sections.{name}")
        log(f"== {name}")
        begin = time.perf_counter()
        try:
            data = module.run(options)
        except Exception as exc:
            traceback.print_exc()
            data = {"error": f"{type(exc).__name__}: {exc}"}
            failed.append(name)
        seconds = time.perf_counter() - begin
        durations[name] = round(seconds, 1)
        data["duration_seconds"] = round(seconds, 1)
        data["options"] = {"repeats": options.repeats, "quick": options.quick}
        if name in SHOWN_PER_CPU and not options.quick:
            data["other_cpus"] = other_cpus(read_result(name, args.results))
        path = write_result(name, data, args.results)
        log(f"{name}: {seconds:.0f} s, wrote {path}")
    total = time.perf_counter() - started
    ordered = {name: durations[name] for name in ORDER if name in durations}
    write_result(
        "summary",
        {"sections": ordered, "total_seconds": round(sum(ordered.values()), 1)},
        args.results,
    )
    markdown = report.update(args.markdown, args.results)
    log(f"done in {total / 60:.1f} min; updated {markdown}")
    if failed:
        log(f"failed sections: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
