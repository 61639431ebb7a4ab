"""The DRB harness end to end on three tasks with the simulated model, and its section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.drb.__main__ import main
from bench.drb.data import available, load_tasks
from bench.drb.measure import MALFORMED
from bench.sections import Options, drb

pytestmark = [
    pytest.mark.bench,
    pytest.mark.skipif(not available(), reason="DRB data not found in ../shared/data/drb"),
]


def test_harness_writes_a_submission_and_scores_three_tasks(tmp_path: Path) -> None:
    out = tmp_path / "run"
    status = main(["--model", "sim", "--judge", "sim", "--tasks", "1,2,51", "--out", str(out)])

    assert status == 0
    lines = [json.loads(line) for line in (out / "submission.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == [1, 2, 51]
    tasks = {t.id: t for t in load_tasks(ids={1, 2, 51})}
    for line in lines:
        assert line["prompt"] == tasks[line["id"]].prompt
        assert line["article"].startswith("# ") and "[1]" in line["article"]
        assert (out / "reports" / f"{line['id']}.json").is_file()
    scores = json.loads((out / "scores.json").read_text())
    assert set(scores["by_language"]) == {"zh", "en"}
    for row in scores["per_task"]:
        assert row["evidence_spans"] > 0  # evidence found in both languages
        assert 0 < row["race"]["overall"] <= 10
        assert set(row["race"]) >= {"comprehensiveness", "insight", "readability", "overall"}
        assert row["citations"]["cited_claims"] > 0 and row["malformed"] == 0
    chinese = next(line["article"] for line in lines if line["id"] == 1)
    assert "]。" in chinese and "参考文献" in chinese


def test_section_measures_both_languages_quickly() -> None:
    data = drb.run(Options(repeats=1, quick=True))
    for language in ("zh", "en"):
        assert data["by_language"][language]["evidence_found_share"] == 1.0
        assert data["by_language"][language]["malformed_punctuation"] == 0
    assert data["length_by_depth"]


@pytest.mark.parametrize(
    "text", ["drivers are:.", "**Key takeaway**.", "比亚迪 [1]。", "比亚迪。.", "end.."]
)
def test_the_malformed_punctuation_pattern_catches_each_known_defect(text: str) -> None:
    assert MALFORMED.search(text)
