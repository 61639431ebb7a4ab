"""The command line against hostile names and paths (issue 30, item 7; ids, item 5).

Each test is an attack that worked before: ``--out`` followed a planted symbolic link and
overwrote its target; ``--thread ../../x`` ended in a traceback; a newline in a corpus file
name forged progress lines and an escape sequence in one went raw into report.md; a
configuration error was found only after the run had stored its thread, and the message
suggested ``resume``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from deep_research.cli import main
from deep_research.settings import get_settings

QUESTION = "How do LFP and NMC batteries compare for grid storage?"


def test_a_symlink_planted_in_the_out_folder_is_replaced_not_followed(tmp_path: Path) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("precious\n")
    names = ("report.md", "report.json", "report.html", "report.article.md")
    for name in names:
        (out / name).symlink_to(victim)
    assert main(["ask", QUESTION, "--depth", "light", "--out", str(out), "--quiet"]) == 0
    assert victim.read_text() == "precious\n"
    for name in names:
        assert not (out / name).is_symlink() and (out / name).stat().st_size > 100
    assert json.loads((out / "report.json").read_text())["question"] == QUESTION
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # no temporary file left


@pytest.mark.parametrize("thread", ["../../x", "a.b", "x/y", "new\nline", ""])
def test_a_malformed_thread_id_is_one_line_and_nothing_runs(
    thread: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["ask", QUESTION, "--thread", thread]) == 2
    err = capsys.readouterr().err
    assert err.startswith("deep-research: error: invalid thread id") and err.count("\n") == 1
    assert main(["resume", thread]) == 2 and main(["show", thread]) == 2
    assert not (tmp_path / "reports").exists()


def _threads() -> list[str]:
    path = get_settings().resolved_database_url.removeprefix("sqlite:///")
    if not Path(path).exists():
        return []
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        if "chats" not in tables:
            return []
        return [row[0] for row in connection.execute("SELECT thread_id FROM chats")]


def test_a_configuration_error_stops_ask_before_a_thread_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SearXNG asked for without its URL: a configuration error of the run's sources
    status = main(["ask", QUESTION, "--sources", "searxng", "--out", str(tmp_path), "--quiet"])
    assert status == 2
    err = capsys.readouterr().err
    assert "DEEP_RESEARCH_SEARXNG_URL" in err and "resume" not in err
    assert _threads() == []


def test_file_names_are_printed_and_written_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = "Tidal power: the Sihwa Lake station in South Korea has a capacity of 254 MW.\n"
    (corpus / "sihwa\n[s01] FORGED line\x1b[31m.md").write_text(text)
    (corpus / "rance.md").write_text("The La Rance tidal station in France opened in 1966.\n")
    out = tmp_path / "out"
    question = "What capacity does the Sihwa Lake tidal station have?"
    args = ["ask", question, "--corpus", str(corpus), "--no-clarify", "--plain", "--out", str(out)]
    assert main([*args, "--depth", "light"]) == 0
    captured = capsys.readouterr()
    for printed in (captured.err, captured.out):
        assert "\x1b" not in printed
        assert not any(line.startswith("[s01] FORGED") for line in printed.splitlines())
    markdown = (out / "report.md").read_text()
    assert "\x1b" not in markdown and "\n[s01] FORGED" not in markdown
    assert "sihwa\\n[s01] FORGED line\\x1b[31m" in markdown  # named, escaped
