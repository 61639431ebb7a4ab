"""The DRB tasks and rubrics, read from the shared data folder (absent in a fresh clone)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "drb"
"""``../shared/data/drb`` beside the repository: DRB's query.jsonl and criteria.jsonl."""


@dataclass(frozen=True)
class Criterion:
    """One weighted criterion of a task's rubric."""

    dimension: str
    criterion: str
    explanation: str
    weight: float


@dataclass(frozen=True)
class Task:
    """One DRB task: the prompt, its language and its rubric."""

    id: int
    prompt: str
    language: str
    topic: str
    dimension_weight: dict[str, float] = field(default_factory=dict)
    criteria: tuple[Criterion, ...] = ()


def available(folder: Path = DATA_DIR) -> bool:
    """Whether the DRB files are present."""
    return (folder / "query.jsonl").is_file() and (folder / "criteria.jsonl").is_file()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def load_tasks(folder: Path = DATA_DIR, ids: set[int] | None = None) -> list[Task]:
    """The tasks (all, or those of ``ids``), in id order, each with its rubric.

    Raises:
        FileNotFoundError: the DRB files are absent (see :func:`available`).
    """
    if not available(folder):
        raise FileNotFoundError(f"DRB data not found in {folder} (query.jsonl, criteria.jsonl)")
    rubrics = {row["id"]: row for row in _lines(folder / "criteria.jsonl")}
    tasks = []
    for row in _lines(folder / "query.jsonl"):
        if ids is not None and row["id"] not in ids:
            continue
        rubric = rubrics.get(row["id"], {})
        criteria = tuple(
            Criterion(dimension, c["criterion"], c["explanation"], float(c["weight"]))
            for dimension, items in rubric.get("criterions", {}).items()
            for c in items
        )
        tasks.append(
            Task(
                id=row["id"],
                prompt=row["prompt"],
                language=row.get("language", "en"),
                topic=row.get("topic", ""),
                dimension_weight=dict(rubric.get("dimension_weight", {})),
                criteria=criteria,
            )
        )
    return sorted(tasks, key=lambda t: t.id)
