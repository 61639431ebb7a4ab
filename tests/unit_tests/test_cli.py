"""The command line: a report from a question, resume from a checkpoint, and bad input."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from deep_research.cli import main
from deep_research.cli.main import run_async
from deep_research.context import MAX_QUESTION_CHARS

QUESTION = "How do LFP and NMC batteries compare for grid storage?"


def test_ask_writes_markdown_and_json_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    status = main(["ask", QUESTION, "--depth", "light", "--out", str(out), "--thread", "t-cli"])
    assert status == 0
    captured = capsys.readouterr()
    assert "thread: t-cli" in captured.out
    assert "plan (light)" in captured.err and "search [s01]" in captured.err
    assert "verification pass 1" in captured.err
    data = json.loads((out / "report.json").read_text())
    assert data["schemaVersion"] == "v1"
    assert data["question"] == QUESTION
    assert data["references"] and all(
        r["location"].endswith((".md", ".txt", ".html")) for r in data["references"]
    )
    assert {"crawlStatus", "url"} <= data["sources"][0].keys()
    assert all(c["verdict"] for c in data["claims"])
    assert data["verification"]["supported"] + data["verification"]["partial"] > 0
    assert data["metrics"]["sourcesCited"] == len(data["references"])
    markdown = (out / "report.md").read_text()
    assert markdown.startswith(f"# {QUESTION}") and "## References" in markdown
    # the clean article beside it: the body and the references, nothing about checking
    article = (out / "report.article.md").read_text()
    assert f"article: {out / 'report.article.md'}" in captured.out
    assert article.startswith(f"# {QUESTION}") and "## References" in article
    assert "Verification:" not in article and "## Limitations" not in article
    assert "Verification:" in markdown and "## Limitations" in markdown


def test_ask_freezes_its_start_up_objects_before_the_run(tmp_path: Path) -> None:
    # full collections during the run then scan only the run's objects (BENCHMARKS.md)
    gc.unfreeze()
    assert main(["ask", QUESTION, "--depth", "light", "--out", str(tmp_path), "--quiet"]) == 0
    assert gc.get_freeze_count() > 10_000


def test_ask_uses_a_given_corpus_folder(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tides.md").write_text(
        "# Tidal power\n\nThe Sihwa Lake station in South Korea has a capacity of 254 MW.\n"
        "It opened in 2011 and is the largest tidal power station in the world.\n"
    )
    (corpus / "la-rance.txt").write_text(
        "La Rance\n\nThe La Rance tidal station in France has produced power since 1966.\n"
    )
    out = tmp_path / "out"
    status = main(
        [
            "ask",
            "Which tidal power stations are largest?",
            "--corpus",
            str(corpus),
            "--depth",
            "light",
            "--no-clarify",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert status == 0
    data = json.loads((out / "report.json").read_text())
    assert {Path(r["location"]).name for r in data["references"]} <= {"tides.md", "la-rance.txt"}
    assert data["references"]


def test_resume_finishes_a_run_that_stopped_midway(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    from langchain_core.messages import HumanMessage

    from deep_research.context import Context
    from deep_research.engines import OfflineEngine
    from deep_research.graph import build_graph
    from deep_research.persistence import open_checkpointer
    from deep_research.settings import get_settings

    class CrashesWhileWriting(OfflineEngine):
        async def write_report(self, *args: object, **kwargs: object) -> object:
            raise ValueError("simulated crash during synthesis")

    async def crash() -> None:
        async with open_checkpointer(get_settings().resolved_database_url) as saver:
            graph = build_graph(engine=CrashesWhileWriting(), checkpointer=saver)
            config = {"configurable": {"thread_id": "t-resume"}}
            with pytest.raises(ValueError, match="simulated crash"):
                await graph.ainvoke(
                    {"messages": [HumanMessage(QUESTION)]},
                    config,
                    context=Context(depth="light", allow_clarification=False),
                )
            assert (await graph.aget_state(config)).next == ("synthesize",)

    asyncio.run(crash())
    out = tmp_path / "resumed"
    assert main(["resume", "t-resume", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "researching" not in captured.err  # finished researchers are not run again
    assert "verification pass 1" in captured.err
    data = json.loads((out / "report.json").read_text())
    assert data["question"] == QUESTION and data["references"]
    assert data["config"]["depth"] == "light"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "   "], "the question is empty"),
        (["ask", "x" * (MAX_QUESTION_CHARS + 1)], "the limit is"),
        (["ask", QUESTION, "--corpus", "/nonexistent/corpus"], "corpus folder not found"),
        (["ask", QUESTION, "--max-rounds", "50"], "max_rounds"),
        (["ask", QUESTION, "--results-per-query", "1"], "results_per_query"),
        (["ask", QUESTION, "--sources", "local+pubmd"], "unknown source 'pubmd'"),
        (["resume", "no-such-thread"], "no run with thread id"),
    ],
)
def test_bad_input_is_one_line_and_a_nonzero_exit(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert err.startswith("deep-research: error:") and "\n" not in err
    assert "Traceback" not in err


def test_a_real_process_reports_bad_input_without_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "deep_research.cli", "ask", "", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "deep-research: error: the question is empty"


def test_a_broken_pdf_in_the_corpus_is_reported_once_without_the_readers_warnings(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "tides.md").write_text(
        "# Tidal power\n\nThe Sihwa Lake station in South Korea has a capacity of 254 MW.\n"
    )
    (corpus / "broken.pdf").write_bytes(b"not really a pdf")
    question = "Which tidal power station is largest?"
    result = subprocess.run(
        [sys.executable, "-m", "deep_research.cli", "ask", question, "--corpus", str(corpus)]
        + ["--depth", "light", "--no-clarify", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "1 PDF unreadable (broken.pdf)" in result.stderr
    # pypdf's own log lines ("invalid pdf header", "EOF marker not found") say it again, worse
    assert "pdf header" not in result.stderr and "EOF marker" not in result.stderr


def test_an_unreachable_model_endpoint_is_one_line_with_a_resume_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import socket

    from deep_research.settings import get_settings

    with socket.socket() as probe:  # a port on loopback that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    get_settings.cache_clear()
    status = main(["ask", QUESTION, "--thread", "t-down", "--out", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 2
    assert err.startswith("deep-research: error: could not reach the model endpoint")
    assert err.endswith("(continue with: deep-research resume t-down)")


def test_an_unreachable_database_is_one_line_without_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(
        "DEEP_RESEARCH_DATABASE_URL", f"postgresql+psycopg://someone:s3cret@127.0.0.1:{port}/x"
    )
    from deep_research.settings import get_settings

    get_settings.cache_clear()
    assert main(["ask", QUESTION, "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("deep-research: error: could not")
    assert "s3cret" not in err and "Connection refused" in err


def test_terminal_escapes_and_control_characters_are_never_printed() -> None:
    from deep_research.cli.progress import ProgressPrinter, printable

    hostile = "Title\x1b[2J\x1b]0;pwned\x07 with\x00 a\r bell\x07\tand\nlines \x9b"
    assert printable(hostile) == "Title with a bell\tand\nlines "
    stream = io.StringIO()
    ProgressPrinter(stream=stream).event(
        {"type": "step_started", "data": {"step_id": "s01", "title": "evil\x1b[31m red"}}
    )
    assert "\x1b" not in stream.getvalue() and "evil red" in stream.getvalue()


def test_progress_lines_count_in_the_singular_for_one() -> None:
    from deep_research.cli.progress import ProgressPrinter

    stream = io.StringIO()
    printer = ProgressPrinter(stream=stream)
    for evidence in (1, 5):
        printer.event(
            {"type": "source_found", "data": {"step_id": "s01", "title": "T", "evidence": evidence}}
        )
        printer.event({"type": "step_completed", "data": {"step_id": "s01", "evidence": evidence}})
    lines = stream.getvalue().splitlines()
    assert [line.split("] ")[-1].split(": ")[-1] for line in lines] == [
        "T (1 quote)",
        "1 evidence span (thin)",
        "T (5 quotes)",
        "5 evidence spans (thin)",
    ]


@pytest.mark.parametrize(
    ("argument", "message"),
    [(b"caf\xff costs", "not valid UTF-8"), (b"an \x1b[2J escape", "control characters")],
)
def test_a_real_process_refuses_undecodable_or_escaped_questions_in_one_line(
    argument: bytes, message: str, tmp_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable.encode(), b"-m", b"deep_research.cli", b"ask", argument, b"--quiet"],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2 and message in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr


async def _orphan_task(ended: list[str]) -> int:
    """Start a task nobody holds, waiting on a future nobody will set; collect garbage."""

    async def orphan() -> None:
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            ended.append("orphan")

    asyncio.ensure_future(orphan())
    await asyncio.sleep(0)
    gc.collect()
    await asyncio.sleep(0)
    return 0


def test_a_task_nobody_holds_is_cancelled_at_the_end_not_destroyed_pending(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The shape of a failed run's leftover: SQLAlchemy closes a cancelled node's aiosqlite
    # connection in a shielded task that nothing refers to once the driver has stopped.
    ended: list[str] = []
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(_orphan_task(ended))  # the plain runner: the collector destroys it
    assert "Task was destroyed but it is pending" in caplog.text
    caplog.clear()

    ended.clear()
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        assert run_async(_orphan_task(ended)) == 0
    assert "Task was destroyed" not in caplog.text
    assert ended == ["orphan"]  # held until the runner cancelled it


@pytest.mark.parametrize(
    ("sources", "tavily_key", "line"),
    [
        ("auto", None, "auto → local (local corpus: bundled sample corpus)"),
        ("auto", "tvly-key", "auto → tavily"),  # a web run names no local corpus
        ("local+tavily", "tvly-key", "local+tavily (local corpus: bundled sample corpus)"),
    ],
)
def test_the_progress_header_names_the_sources_the_run_searches(
    monkeypatch: pytest.MonkeyPatch, sources: str, tavily_key: str | None, line: str
) -> None:
    from deep_research.cli.progress import ProgressPrinter
    from deep_research.context import Context
    from deep_research.settings import get_settings

    monkeypatch.delenv("DEEP_RESEARCH_SEARXNG_URL", raising=False)
    if tavily_key is None:
        monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    else:
        monkeypatch.setenv("TAVILY_API_KEY", tavily_key)
    get_settings.cache_clear()
    stream = io.StringIO()
    ProgressPrinter(stream=stream).start("t1", Context(sources=sources))
    get_settings.cache_clear()
    assert f"sources: {line}\n" in stream.getvalue()
