"""Opening an up-to-date SQLite store checks its schema without Alembic.

``ensure_schema`` compares the revision the file records with the head revision read from the
migration scripts' text; only when they differ does it run Alembic's upgrade.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deep_research.persistence import db
from deep_research.persistence.migrate import head_revisions, migrations_dir


def test_the_head_revision_is_read_from_the_scripts() -> None:
    scripts = sorted((migrations_dir() / "versions").glob("*.py"))
    assert scripts
    assert head_revisions() == {scripts[-1].name.split("_", 1)[0]}


def test_an_up_to_date_file_is_recognised_and_another_is_upgraded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    assert db.stored_revisions(url) is None  # no file yet
    db.upgrade(url)
    assert db.stored_revisions(url) == head_revisions()

    upgrades: list[str] = []
    monkeypatch.setattr(db, "upgrade", lambda u, revision="head": upgrades.append(u))
    monkeypatch.setattr(db, "_upgraded", set())
    db.ensure_schema(url)
    assert upgrades == []  # at head: no Alembic

    with sqlite3.connect(tmp_path / "store.sqlite") as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'older'")
    monkeypatch.setattr(db, "_upgraded", set())
    db.ensure_schema(url)
    assert upgrades == [url]


def test_listing_chats_of_an_up_to_date_store_does_not_import_alembic(tmp_path: Path) -> None:
    db.upgrade(f"sqlite:///{tmp_path / 'deep_research.sqlite'}")
    code = (
        "import sys\n"
        "from deep_research.cli.main import main\n"
        "status = main(['chats'])\n"
        "assert status == 0, status\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'langgraph'}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"DEEP_RESEARCH_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"
