"""The DRB harness trusts neither its task files nor what lies in ``--out`` (issue 43, 9).

A task id names the task's files under ``--out``: an id ``../../x`` or an absolute path wrote
outside it, and a string id crashed the cost estimate. A symbolic link planted at a file the
harness writes (``reports/.N.json.partial``, ``scores.json``) had its target overwritten.
These need no DRB data: the task files are written here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.drb.data import DrbDataError, load_tasks
from bench.drb.run import task_path, write_file

pytestmark = pytest.mark.bench


def _data(folder: Path, task_id: Any) -> Path:
    folder.mkdir()
    row = {"id": task_id, "prompt": "How do flow batteries work?", "language": "en"}
    (folder / "query.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    rubric = {"id": task_id, "dimension_weight": {}, "criterions": {}}
    (folder / "criteria.jsonl").write_text(json.dumps(rubric) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "task_id", ["../../x", "/tmp/drb-escape", "a/b", "12", "", True, 0, -3, 1.5, None, 10**12]
)
def test_a_task_id_that_is_not_a_whole_number_is_refused(tmp_path: Path, task_id: Any) -> None:
    with pytest.raises(DrbDataError, match="task ids must be whole numbers"):
        load_tasks(_data(tmp_path / "data", task_id))


def test_a_whole_number_task_id_loads(tmp_path: Path) -> None:
    [task] = load_tasks(_data(tmp_path / "data", 7))
    assert task.id == 7 and task_path(tmp_path, task.id) == tmp_path / "tasks" / "7.json"
    with pytest.raises(TypeError):
        task_path(tmp_path, "../../x")  # type: ignore[arg-type]


def test_files_are_written_over_planted_links_never_through_them(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    out = tmp_path / "run"
    (out / "reports").mkdir(parents=True)
    report, scores = out / "reports" / "5.json", out / "scores.json"
    for planted in (out / "reports" / ".5.json.partial", out / ".scores.json.partial", scores):
        planted.symlink_to(victim)
    write_file(report, '{"report": 5}')
    write_file(scores, '{"overall": {}}')
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert not report.is_symlink() and report.read_text(encoding="utf-8") == '{"report": 5}'
    assert not scores.is_symlink() and scores.read_text(encoding="utf-8") == '{"overall": {}}'
    left = sorted(p.name for p in out.rglob("*.partial") if not p.is_symlink())
    assert left == []  # no temporary file left behind
