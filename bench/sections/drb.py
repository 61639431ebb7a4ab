"""Deep Research Bench: the 100 DRB tasks (50 Chinese, 50 English) through the whole graph.

Keyless: the LLM engine runs on the simulated model of :mod:`bench.drb.model` and searches the
simulated web of :mod:`bench.drb.web` (each task's rubric text as pages, in its language). Per
language, the section reports the share of tasks whose report found evidence (goal 100 %),
claims removed by revision, uncited sentences kept (analysis), and malformed punctuation
(goal 0); and the report length per depth on a subset. Without ``../shared/data/drb`` it says
so and measures nothing.
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

from bench.common import log
from bench.drb.data import available, load_tasks
from bench.drb.measure import TaskResult, run_task
from bench.drb.model import DrbChatModel
from bench.sections import Options

NAME = "drb"
DEPTHS = ("light", "medium", "extended")
LENGTH_TASKS = (1, 2, 3, 51, 52, 53)
"""Tasks run at every depth for the report length (three Chinese, three English)."""


def _by_language(results: list[TaskResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for language in sorted({r.language for r in results}):
        rows = [r for r in results if r.language == language]
        out[language] = {
            "tasks": len(rows),
            "evidence_found_share": round(sum(r.evidence_spans > 0 for r in rows) / len(rows), 3),
            "references_median": statistics.median(r.references for r in rows),
            "claims": sum(r.claims for r in rows),
            "removed_by_revision": sum(r.removed for r in rows),
            "corrected_by_revision": sum(r.corrected for r in rows),
            "uncited_kept": sum(r.uncited_kept for r in rows),
            "synthesis_kept": sum(r.synthesis_kept for r in rows),
            "malformed_punctuation": sum(r.malformed for r in rows),
        }
    return out


async def _run(options: Options) -> dict[str, Any]:
    tasks = load_tasks()
    if options.quick:
        tasks = [t for t in tasks if t.id in (1, 51)]
    results = []
    for task in tasks:
        results.append(await run_task(task, DrbChatModel(), depth="light"))
    lengths: dict[str, list[int]] = {}
    depths = ("light", "medium") if options.quick else DEPTHS
    for task in [t for t in tasks if t.id in LENGTH_TASKS]:
        for depth in depths:
            result = await run_task(task, DrbChatModel(), depth=depth)
            lengths.setdefault(f"{depth}/{task.language}", []).append(result.length)
    log(f"drb: {len(results)} tasks")
    return {
        "tasks": len(results),
        "by_language": _by_language(results),
        "length_by_depth": {k: statistics.median(v) for k, v in sorted(lengths.items())},
        "per_task": [r.row() for r in results],
    }


def run(options: Options) -> dict[str, Any]:
    """Run the section (see the module docstring)."""
    if not available():
        return {"skipped": "DRB data not found in ../shared/data/drb"}
    return asyncio.run(_run(options))
