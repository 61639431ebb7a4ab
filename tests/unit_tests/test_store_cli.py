"""The storage commands: chats, show, delete, restore and purge, scoped to the CLI's user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deep_research.cli import main
from deep_research.engines.llm.engine import LLMEngine
from deep_research.settings import get_settings
from tests.unit_tests.scripted_model import ScriptedChatModel
from tests.unit_tests.test_graph_llm import TITLE, _tool, respond

QUESTION = "What did Hornsdale Power Reserve cost?"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_chats_show_delete_restore_purge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, _ = run(capsys, "chats")
    assert status == 0
    out = tmp_path / "out"
    args = ("--depth", "light", "--no-clarify", "--quiet", "--out", str(out))
    assert run(capsys, "ask", QUESTION, "--thread", "t-store", *args)[0] == 0

    status, listed, _ = run(capsys, "chats")
    assert status == 0 and listed.startswith("t-store") and QUESTION in listed
    status, shown, _ = run(capsys, "show", "t-store")
    assert status == 0
    assert "question 1: completed (deep_research, light)" in shown
    assert f"--- You ---\n\n{QUESTION}" in shown
    assert (out / "report.md").read_text().strip() in shown

    monkeypatch.setenv("DEEP_RESEARCH_USER_ID", "someone-else")
    get_settings.cache_clear()
    status, _, err = run(capsys, "show", "t-store")
    assert status == 2 and "no chat 't-store'" in err
    assert run(capsys, "chats")[1].startswith("no chats yet")
    assert run(capsys, "delete", "t-store")[0] == 2
    monkeypatch.delenv("DEEP_RESEARCH_USER_ID")
    get_settings.cache_clear()

    assert run(capsys, "delete", "t-store")[0] == 0
    assert run(capsys, "chats")[1].startswith("no chats yet")
    assert "(deleted" in run(capsys, "chats", "--deleted")[1]
    assert run(capsys, "purge")[1] == "purged 0 chat(s)\n", "still in the recovery window"
    assert run(capsys, "restore", "t-store")[0] == 0
    assert run(capsys, "chats")[1].startswith("t-store")
    assert run(capsys, "delete", "t-store")[0] == 0
    assert run(capsys, "purge", "--older-than-days", "0")[1] == "purged 1 chat(s): t-store\n"
    assert run(capsys, "restore", "t-store")[0] == 2


def test_the_engine_titles_a_chat_once_and_chats_lists_the_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(responses=[respond] * 100)
    engine = LLMEngine(model, name="scripted-model")
    monkeypatch.setattr("deep_research.services.load_engine", lambda name, **roles: engine)
    args = ("--depth", "light", "--quiet", "--out", str(tmp_path / "out"))

    for question in (QUESTION, "And what did its expansion cost?"):
        assert run(capsys, "ask", question, "--thread", "t-title", *args)[0] == 0

    status, listed, _ = run(capsys, "chats")
    assert status == 0 and listed.startswith("t-title") and listed.rstrip().endswith(TITLE)
    status, shown, _ = run(capsys, "show", "t-title")
    assert status == 0 and shown.startswith(f"# {TITLE}\n")
    assert "question 2: completed" in shown
    tools = [_tool(kw.get("tools")) for kw in model.call_kwargs]
    assert tools.count("ChatTitle") == 1, "a follow-up keeps the chat's title"


def test_a_deleted_chat_takes_no_new_question_and_no_resume_until_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ask = ["ask", "What is a flow battery?", "--thread", "closed", "--quiet", "--no-clarify"]
    assert main([*ask, "--mode", "simple"]) == 0
    assert main(["delete", "closed"]) == 0
    capsys.readouterr()
    assert main([*ask[:1], "And its cost?", *ask[2:], "--mode", "simple"]) == 2
    assert "deleted; restore it first with: deep-research restore closed" in capsys.readouterr().err
    assert main(["resume", "closed"]) == 2
    assert "restore it first" in capsys.readouterr().err
    assert main(["restore", "closed"]) == 0
    assert main([*ask[:1], "And its cost?", *ask[2:], "--mode", "simple"]) == 0


def test_preferences_are_the_defaults_of_ask_and_flags_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["prefs"]) == 0
    assert "no preferences set" in capsys.readouterr().out
    assert main(["prefs", "--mode", "simple", "--depth", "light"]) == 0
    assert capsys.readouterr().out == "mode: simple\ndepth: light\n"
    assert main(["ask", "What is a flow battery?", "--quiet", "--out", "a"]) == 0
    assert json.loads(Path("a/report.json").read_text())["config"]["mode"] == "simple"
    flagged = ["ask", "What is a flow battery?", "--quiet", "--out", "b", "--no-clarify"]
    assert main([*flagged, "--mode", "web_search"]) == 0
    assert json.loads(Path("b/report.json").read_text())["config"]["mode"] == "web_search"
    assert main(["prefs", "--instructions", "bad\x00"]) == 2
    assert main(["prefs", "--clear"]) == 0
    assert "no preferences set" in capsys.readouterr().out


def test_continue_adds_the_question_to_the_most_recent_chat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "What is a flow battery?", "--continue", "--quiet"]) == 2
    assert "no chat to continue" in capsys.readouterr().err
    simple = ["--quiet", "--mode", "simple"]
    assert main(["ask", "What is a flow battery?", "--thread", "first", *simple]) == 0
    assert main(["ask", "And what does it cost?", "--continue", *simple]) == 0
    assert "thread: first" in capsys.readouterr().out
    assert main(["ask", "Q?", "--continue", "--thread", "x", *simple]) == 2
    assert "not both" in capsys.readouterr().err


def test_show_steps_reads_back_every_round_and_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    question = "How do LFP and NMC batteries compare for grid storage?"
    ask = ["ask", question, "--thread", "steps", "--quiet", "--no-clarify", "--depth", "light"]
    assert main(ask) == 0
    capsys.readouterr()
    assert main(["show", "steps", "--steps"]) == 0
    shown = capsys.readouterr().out
    assert "question 1, round 1: complete" in shown
    assert "  s01  " in shown and "[search:local" in shown
    assert "      notes: " in shown and "      cites: file://" in shown


def test_rename_and_purge_user_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    simple = ["--quiet", "--mode", "simple"]
    for thread in ("one", "two"):
        assert main(["ask", "What is a flow battery?", "--thread", thread, *simple]) == 0
    assert main(["rename", "one", "Flow batteries"]) == 0
    assert main(["rename", "one", "bad\x1b[2J"]) == 2
    capsys.readouterr()
    assert main(["chats"]) == 0
    assert "Flow batteries" in capsys.readouterr().out
    assert main(["purge", "--user"]) == 0  # every chat of this user, deleted or not
    assert capsys.readouterr().out.startswith("purged 2 chat(s)")
    assert main(["chats", "--deleted"]) == 0
    assert "no chats yet" in capsys.readouterr().out
    assert main(["resume", "one"]) == 2
