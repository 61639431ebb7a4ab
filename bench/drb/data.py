"""The DRB tasks and rubrics, read from the shared data folder (absent in a fresh clone)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT

DATA_ENV = "DRB_DATA_DIR"
"""The environment variable that names DRB's folder (else :func:`default_data_dir`)."""


def default_data_dir() -> Path:
    """``$DRB_DATA_DIR``, else the nearest ``shared/data/drb`` above the repository.

    That is ``../shared/data/drb`` beside a checkout, and also found from a git worktree
    kept one folder deeper.
    """
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    for parent in REPO_ROOT.parents:
        candidate = parent / "shared" / "data" / "drb"
        if candidate.is_dir():
            return candidate
    return REPO_ROOT.parent / "shared" / "data" / "drb"


DATA_DIR = default_data_dir()
"""DRB's material: query.jsonl, criteria.jsonl, prompt/, method/ and peer/."""


class DrbDataError(FileNotFoundError):
    """DRB's material is missing or is not what this harness reads."""


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


MAX_TASK_ID = 1_000_000
"""Largest task id accepted (DRB's run 1 to 100)."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def task_id(value: Any, path: Path) -> int:
    """A task's id as a file gives it, which must be a whole number from 1 to MAX_TASK_ID.

    An id names the task's files under ``--out`` (``tasks/<id>.json``): a string such as
    ``../../x`` or an absolute path would write outside it, and the estimate and the order of
    comparisons do arithmetic on it.

    Raises:
        DrbDataError: it is not.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TASK_ID:
        raise DrbDataError(
            f"task ids must be whole numbers from 1 to {MAX_TASK_ID}; {path} has {value!r}"
        )
    return value


def load_tasks(folder: Path = DATA_DIR, ids: set[int] | None = None) -> list[Task]:
    """The tasks (all, or those of ``ids``), in id order, each with its rubric.

    Raises:
        DrbDataError: the DRB files are absent (see :func:`available`).
    """
    if not available(folder):
        raise DrbDataError(f"DRB data not found in {folder} (query.jsonl, criteria.jsonl)")
    criteria_path, query_path = folder / "criteria.jsonl", folder / "query.jsonl"
    rubrics = {task_id(row.get("id"), criteria_path): row for row in _lines(criteria_path)}
    tasks = []
    for row in _lines(query_path):
        number = task_id(row.get("id"), query_path)
        if ids is not None and number not in ids:
            continue
        rubric = rubrics.get(number, {})
        criteria = tuple(
            Criterion(dimension, c["criterion"], c["explanation"], float(c["weight"]))
            for dimension, items in rubric.get("criterions", {}).items()
            for c in items
        )
        tasks.append(
            Task(
                id=number,
                prompt=row["prompt"],
                language=row.get("language", "en"),
                topic=row.get("topic", ""),
                dimension_weight=dict(rubric.get("dimension_weight", {})),
                criteria=criteria,
            )
        )
    return sorted(tasks, key=lambda t: t.id)


PEER = "claude-3-7-sonnet-latest"
"""The published system whose cleaned reports, RACE and FACT the shared data holds."""

DIMENSIONS = ("comprehensiveness", "insight", "instruction_following", "readability")
"""RACE's four dimensions, in DRB's order."""


@dataclass(frozen=True)
class Peer:
    """A published system's cleaned reports and its own DRB scores against DRB's reference."""

    name: str
    articles: dict[int, str]
    """Cleaned report by task id."""
    race: dict[int, dict[str, float]]
    """RACE per task: the four dimensions and ``overall``."""
    fact: dict[str, float]
    """FACT over all tasks, as DRB's summary names it: ``total_citations``,
    ``total_valid_citations`` (per task) and ``valid_rate``."""


def load_peer(folder: Path = DATA_DIR, name: str = PEER) -> Peer:
    """The peer's files in ``folder/peer``.

    Raises:
        DrbDataError: one of the peer's three files is missing.
    """
    base = folder / "peer" / name
    paths = [Path(f"{base}.{suffix}") for suffix in ("cleaned.jsonl", "race.jsonl", "fact.txt")]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise DrbDataError(f"DRB peer files not found: {', '.join(missing)}")
    articles = {task_id(row.get("id"), paths[0]): str(row["article"]) for row in _lines(paths[0])}
    race = {
        task_id(row.get("id"), paths[1]): {
            **{d: float(row[d]) for d in DIMENSIONS},
            "overall": float(row["overall_score"]),
        }
        for row in _lines(paths[1])
    }
    fact = {}
    for line in paths[2].read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if value.strip():
            fact[key.strip()] = float(value)
    return Peer(name=name, articles=articles, race=race, fact=fact)
