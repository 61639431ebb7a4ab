"""Refactors change no output: offline runs on the sample corpus match stored golden files.

Each case runs the command line as a user does (``deep-research ask`` with a fixed thread id,
the offline engine, the sample corpus and a SQLite file) and compares, byte for byte after
removing what varies between runs (timings, timestamps, row ids, task ids):

* report.md, report.article.md and report.json as written;
* every row the domain store holds for the thread, table by table.

A deliberate change of output regenerates the files with ``UPDATE_GOLDEN=1 make test
PYTEST_ARGS=tests/unit_tests/test_golden_reports.py``; review the diff before committing it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from deep_research.cli import main
from deep_research.sources import SAMPLE_CORPUS

GOLDEN = Path(__file__).parent / "golden"

CASES: dict[str, list[list[str]]] = {
    "deep_default": [
        [
            "How do LFP and NMC batteries compare for grid storage, and what did Hornsdale "
            "Power Reserve cost?"
        ]
    ],
    "deep_extended_followup": [
        ["What caused the South Korea ESS fires?", "--depth", "extended"],
        ["And what safety codes followed them?"],
    ],
    "web_search_light": [
        ["What is the round-trip efficiency of pumped hydro storage?", "--mode", "web_search"]
    ],
    "simple": [["What is a flow battery?", "--mode", "simple"]],
}
"""Name -> the ``ask`` calls of one thread, in order (a question and its flags)."""

_VOLATILE = frozenset(
    {
        "duration_seconds",
        "created_at",
        "updated_at",
        "started_at",
        "completed_at",
        "deleted_at",
        "at",
        "task_id",
        "id",
        "chat_id",
        "session_id",
        "message_id",
    }
)
VOLATILE_KEYS = _VOLATILE | {k[0] + k.title().replace("_", "")[1:] for k in _VOLATILE}
"""Fields whose values differ from run to run (clock readings, row and task ids), in
snake_case (database rows) and camelCase (report.json)."""


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _rows(database: Path) -> dict[str, list[Any]]:
    """Every table's rows, stable fields only, in a deterministic order."""
    engine = sa.create_engine(f"sqlite:///{database}")
    tables: dict[str, list[Any]] = {}
    try:
        metadata = sa.MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            for name in sorted(metadata.tables):
                if name.startswith(("checkpoint", "store", "alembic", "writes")):
                    continue
                table = metadata.tables[name]
                rows = [dict(row._mapping) for row in connection.execute(sa.select(table))]
                stable = [_stable(json.loads(json.dumps(r, default=str))) for r in rows]
                tables[name] = sorted(stable, key=lambda r: json.dumps(r, sort_keys=True))
    finally:
        engine.dispose()
    return tables


def _fixed_corpus() -> Path:
    """A copy of the sample corpus at a path that is the same in every checkout.

    Source ids hash the document's URL, which holds the corpus's absolute path, and ties in
    ranking fall back on ids: the same corpus at another path can give another report.
    """
    digest = hashlib.sha256()
    for path in sorted(SAMPLE_CORPUS.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    fixed = Path(tempfile.gettempdir()) / f"deep-research-golden-{digest.hexdigest()[:12]}"
    if not fixed.is_dir():
        staging = Path(tempfile.mkdtemp(dir=fixed.parent))
        shutil.copytree(SAMPLE_CORPUS, staging / "corpus")
        try:
            (staging / "corpus").rename(fixed)
        except OSError:  # another process made it first
            pass
        shutil.rmtree(staging, ignore_errors=True)
    return fixed


def _run_case(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    outputs: list[Any] = []
    for number, (question, *flags) in enumerate(CASES[name], start=1):
        argv = ["ask", question, "--thread", f"golden-{name}", "--quiet", "--no-clarify"]
        argv += ["--corpus", str(_fixed_corpus()), "--out", str(out / str(number)), *flags]
        assert main(argv) == 0
        markdown = (out / str(number) / "report.md").read_text(encoding="utf-8")
        article = (out / str(number) / "report.article.md").read_text(encoding="utf-8")
        data = json.loads((out / str(number) / "report.json").read_text(encoding="utf-8"))
        outputs.append(
            {"report.md": markdown, "report.article.md": article, "report.json": _stable(data)}
        )
    database = Path(os.environ["DEEP_RESEARCH_DATA_DIR"]) / "deep_research.sqlite"
    return {"reports": outputs, "domain_store": _rows(database)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_offline_output_matches_golden_file(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    actual = json.dumps(_run_case(name, tmp_path, monkeypatch), indent=1, ensure_ascii=False)
    path = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual + "\n", encoding="utf-8")
    expected = path.read_text(encoding="utf-8").rstrip("\n")
    assert actual == expected, f"offline output changed; see the module docstring ({path.name})"
