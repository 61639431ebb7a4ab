"""``scores.json``: RACE against the peer and its estimate on DRB's scale, FACT beside the peer's.

Means are over the tasks that finished (``tasks_scored``); the peer's own figures are given
for the same tasks, so that a partial run reads against the right baseline.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from bench.drb import fact, race
from bench.drb.cost import RECORD_KEYS
from bench.drb.data import Peer, Task


def task_row(task: Task, record: dict[str, Any], peer: Peer) -> dict[str, Any]:
    """One task's figures (without its texts)."""
    row: dict[str, Any] = {"id": task.id, "language": task.language}
    if "error" in record:
        row["error"] = record["error"]
    if "race" in record:
        ratios = record["race"]["race"]
        row["race"] = {k: round(v, 4) for k, v in ratios.items()}
        row["race_estimate"] = {
            k: round(v, 4) for k, v in race.estimate(ratios, peer.race[task.id]).items()
        }
        row["peer_race"] = {k: round(v, 4) for k, v in peer.race[task.id].items()}
    if "fact" in record:
        row["fact"] = {k: v for k, v in record["fact"].items() if k != "urls"}
    for key in (*RECORD_KEYS.values(), "measured"):
        if key in record:
            row[key] = record[key]
    return row


def _group(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if "race" in r]
    facts = [r["fact"] for r in rows if "fact" in r]
    return {
        "tasks_scored": len(scored),
        "race": race.means([r["race"] for r in scored]),
        "race_estimate": race.means([r["race_estimate"] for r in scored]),
        "peer_race": race.means([r["peer_race"] for r in scored]),
        "fact": fact.summary(facts),
    }


def tokens_per_task(rows: Sequence[dict[str, Any]]) -> dict[str, int] | None:
    """Median tokens of the finished tasks, by role: prompt and completion."""
    done = [r for r in rows if "model_tokens" in r and "fact" in r]
    if not done:
        return None
    out = {}
    for role, key in RECORD_KEYS.items():
        for part in ("prompt", "completion"):
            counts = ((r.get(key) or {}).get(f"{part}_tokens", 0) for r in done)
            out[f"{role}_{part}"] = int(statistics.median(counts))
    return out


def scores(
    tasks: Sequence[Task], records: Sequence[dict[str, Any]], peer: Peer, about: dict[str, Any]
) -> dict[str, Any]:
    """The whole ``scores.json``."""
    rows = [task_row(t, r, peer) for t, r in zip(tasks, records, strict=True)]
    languages = sorted({t.language for t in tasks})
    return {
        **about,
        "peer": peer.name,
        "note": (
            "race = ours / (ours + peer) per dimension, judged side by side as DRB judges; "
            "race_estimate puts it on DRB's scale through the peer's published per-task RACE "
            "(an estimate: see docs/drb.md); fact is DRB's FACT on our article, peer_fact the "
            "peer's published FACT over all 100 tasks"
        ),
        "overall": _group(rows),
        "by_language": {
            lang: _group([r for r in rows if r["language"] == lang]) for lang in languages
        },
        "peer_fact": {
            "citation_accuracy": round(peer.fact.get("valid_rate", 0.0), 4),
            "effective_citations": peer.fact.get("total_valid_citations"),
            "citations_per_task": peer.fact.get("total_citations"),
        },
        "tokens_per_task": tokens_per_task(rows),
        "failed": [r["id"] for r in rows if "error" in r],
        "per_task": rows,
    }
