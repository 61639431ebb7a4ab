"""DRB's tasks on the simulation: languages, punctuation and the harness's plumbing.

Not a quality result, and no RACE or FACT figure: the simulated model restates pages made
of each task's own rubric text (:mod:`bench.drb.web`), so evidence is always found and the
stand-in judge's scores mean nothing. What it does measure, per language (50 Chinese and
50 English prompts): that our pipeline runs on DRB's prompts, cites in each script without
malformed punctuation (goal 0), and keeps analysis sentences uncited; and that the scoring
harness (``python -m bench.drb``) goes end to end on two tasks with the keyless stand-in
judge: articles written, cleaned, compared with the peer's, citations extracted, read and
judged. Without DRB's folder it says so and measures nothing.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.common import log
from bench.drb.__main__ import main as harness
from bench.drb.data import available, load_tasks
from bench.drb.measure import TaskResult, run_task
from bench.drb.model import DrbChatModel
from bench.sections import Options

NAME = "drb"
PLUMBING_TASKS = "1,51"
"""Tasks the harness runs end to end (one Chinese, one English)."""


def _by_language(results: list[TaskResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for language in sorted({r.language for r in results}):
        rows = [r for r in results if r.language == language]
        out[language] = {
            "tasks": len(rows),
            "references_median": statistics.median(r.references for r in rows),
            "uncited_kept": sum(r.uncited_kept for r in rows),
            "malformed_punctuation": sum(r.malformed for r in rows),
        }
    return out


def plumbing() -> dict[str, Any]:
    """The harness on the simulation, end to end on :data:`PLUMBING_TASKS`: what it wrote."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        argv = ["--model", "sim", "--judge", "sim", "--tasks", PLUMBING_TASKS, "--depth", "light"]
        status = harness([*argv, "--out", str(out)])
        records = [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("tasks/*.json")]
        lines = (out / "submission.jsonl").read_text(encoding="utf-8").splitlines()
        cleaned = (out / "cleaned.jsonl").read_text(encoding="utf-8").splitlines()
    urls = [u for r in records for u in r.get("fact", {}).get("urls", {}).values()]
    return {
        "exit_status": status,
        "tasks": len(records),
        "articles": len(lines),
        "cleaned": len(cleaned),
        "comparisons": sum(len(r.get("race", {}).get("comparisons", [])) for r in records),
        "fact_pairs": sum(r.get("fact", {}).get("pairs", 0) for r in records),
        "fact_urls_read": sum(1 for u in urls if "verdicts" in u),
        "fact_urls_not_read": sum(1 for u in urls if "error" in u),
    }


async def _run(options: Options) -> dict[str, Any]:
    tasks = load_tasks()
    if options.quick:
        tasks = [t for t in tasks if t.id in (1, 51)]
    results = [await run_task(task, DrbChatModel(), depth="light") for task in tasks]
    log(f"drb: {len(results)} tasks")
    return {
        "tasks": len(results),
        "by_language": _by_language(results),
        "per_task": [r.row() for r in results],
    }


def run(options: Options) -> dict[str, Any]:
    """Run the section (see the module docstring)."""
    if not available():
        return {"skipped": "DRB data not found in ../shared/data/drb"}
    data = asyncio.run(_run(options))
    data["plumbing"] = plumbing()
    return data
