"""A run killed with SIGKILL resumes in a new process and ends as if nothing had happened.

Each run is a real process (``crash_driver.py``) that logs every engine call and every search.
A process stopped at a chosen stage (during the research fan-out, during synthesis, during
verification) is killed with SIGKILL, and a new process resumes the same thread. The calls
of both processes together must be those of an uninterrupted run plus the one call that was
in flight when the process died; the report must equal the uninterrupted run's; and the
domain store must hold as many rows as for the uninterrupted run (none duplicated). The last
test does the same to a real ``deep-research ask`` and finishes it with ``deep-research
resume``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import Engine

from deep_research.persistence import tables as tables
from deep_research.persistence.db import prepare_engine
from deep_research.persistence.urls import sync_url
from tests.integration_tests.crash_driver import QUESTION

DRIVER = "tests.integration_tests.crash_driver"
REPO_ROOT = Path(__file__).resolve().parents[2]
STAGE_TIMEOUT = 120.0
RUN_TIMEOUT = 300.0
IN_FLIGHT = {"fanout": "notes s03", "synthesis": "write_report", "verification": "judge"}
"""The call each stage's process was making when it was killed: the only one made again."""

SESSION_TABLES = (
    tables.ResearchIteration,
    tables.ResearchSubStep,
    tables.Source,
    tables.EvidenceSpan,
    tables.Claim,
    tables.Citation,
    tables.ResearchEvent,
)


@dataclass
class Run:
    thread: str
    log: Path
    out: Path

    def calls(self) -> Counter[str]:
        return Counter(self.log.read_text().splitlines())

    def report(self) -> dict[str, object]:
        data: dict[str, object] = json.loads(self.out.read_text())
        return data


class Lab:
    """Runs the driver against one database."""

    def __init__(self, url: str, root: Path) -> None:
        self.url, self.root = url, root
        self.index = root / "index.sqlite"
        self.env = os.environ | {"DEEP_RESEARCH_DATABASE_URL": url}

    def run(self, thread: str) -> Run:
        return Run(thread, self.root / f"{thread}.log", self.root / f"{thread}.json")

    def args(self, run: Run, *extra: str) -> list[str]:
        paths = (run.log, run.out, self.index)
        return [sys.executable, "-m", DRIVER, self.url, run.thread, *map(str, paths), *extra]

    def finish(self, run: Run, *extra: str) -> None:
        done = subprocess.run(
            self.args(run, *extra),
            env=self.env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]

    def kill_at(self, run: Run, stage: str) -> None:
        marker = self.root / f"{run.thread}.{stage}"
        errors = self.root / f"{run.thread}.{stage}.stderr"
        args = self.args(run, "--stop-at", stage, "--marker", str(marker))
        with (
            errors.open("w") as stderr,
            subprocess.Popen(args, env=self.env, cwd=REPO_ROOT, stderr=stderr) as process,
        ):
            try:
                wait_for(marker, process, errors)
                process.send_signal(signal.SIGKILL)
                assert process.wait(timeout=30) == -signal.SIGKILL
            finally:
                if process.poll() is None:
                    process.kill()
        assert not run.out.exists(), "the killed run must not have finished"


def wait_for(marker: Path, process: subprocess.Popen[bytes], errors: Path) -> None:
    deadline = time.monotonic() + STAGE_TIMEOUT
    while not marker.exists():
        if process.poll() is not None:
            stderr = errors.read_text()[-4000:]
            pytest.fail(f"the driver exited with {process.returncode} early:\n{stderr}")
        if time.monotonic() > deadline:
            pytest.fail(f"the driver did not reach {marker.suffix} in {STAGE_TIMEOUT}s")
        time.sleep(0.05)


def row_counts(engine: Engine, thread: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    with engine.connect() as connection:
        session_ids = select(tables.ResearchSession.id).join(tables.Chat)
        session_ids = session_ids.where(tables.Chat.thread_id == thread)
        for table in SESSION_TABLES:
            query = select(func.count()).select_from(table)
            counts[table.__tablename__] = connection.scalar(
                query.where(table.session_id.in_(session_ids))
            )
        for table in (tables.ResearchSession, tables.Message):
            query = select(func.count()).select_from(table).join(tables.Chat)
            counts[table.__tablename__] = connection.scalar(
                query.where(tables.Chat.thread_id == thread)
            )
        status = select(tables.ResearchSession.status).join(tables.Chat)
        counts["completed"] = int(
            connection.scalar(status.where(tables.Chat.thread_id == thread)) == "completed"
        )
    return counts


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def lab(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Lab]:
    if request.param == "sqlite":
        yield Lab(f"sqlite:///{tmp_path / 'research.sqlite'}", tmp_path)
    else:
        yield Lab(request.getfixturevalue("postgres_url"), tmp_path)


def test_killed_runs_resume_without_repeating_work(lab: Lab) -> None:
    baseline = lab.run("baseline")
    lab.finish(baseline)
    expected_calls = baseline.calls()
    assert expected_calls["notes s03"] == 1 and expected_calls["write_report"] == 1
    engine = create_engine(sync_url(lab.url))
    prepare_engine(engine)
    expected_rows = row_counts(engine, baseline.thread)
    assert expected_rows["completed"] == 1 and expected_rows["claims"] > 0

    for stage, repeated in IN_FLIGHT.items():
        run = lab.run(f"killed-{stage}")
        lab.kill_at(run, stage)
        before = run.calls()
        assert before[repeated] >= 1, f"the {stage} process never made the call it died in"
        lab.finish(run, "--resume")
        assert run.calls() == expected_calls + Counter([repeated]), stage
        assert run.report() == baseline.report(), f"{stage}: the report differs"
        assert row_counts(engine, run.thread) == expected_rows, stage
    engine.dispose()


def _deep_research(*args: str) -> list[str]:
    return [sys.executable, "-m", "deep_research.cli", *args]


def _ask_and_signal(tmp_path: Path, thread: str, signum: int) -> tuple[int, str]:
    """Start a real `deep-research ask`, send it ``signum`` at its first search; its exit
    status and what it printed on stderr. It must not have written a report."""
    ask = _deep_research("ask", QUESTION, "--depth", "light", "--no-clarify", "--thread", thread)
    with subprocess.Popen(
        [*ask, "--out", str(tmp_path / "never")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    ) as process:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            seen.append(line)
            if line.lstrip().startswith("search ["):
                os.kill(process.pid, signum)
                break
        seen += process.stderr.readlines()
        status = process.wait(timeout=60)
    assert not (tmp_path / "never").exists()
    return status, "".join(seen)


def test_resume_finishes_a_killed_ask_process(tmp_path: Path) -> None:
    """`kill -9` of a real `deep-research ask`, then `deep-research resume` (embedded SQLite)."""
    thread = "killed-cli"
    status, printed = _ask_and_signal(tmp_path, thread, signal.SIGKILL)
    assert status == -signal.SIGKILL, printed

    out = tmp_path / "resumed"
    resumed = subprocess.run(
        _deep_research("resume", thread, "--out", str(out)),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "already finished" not in resumed.stderr, "the kill must land mid-run"
    report = json.loads((out / "report.json").read_text())
    assert report["question"] == QUESTION and report["references"]

    shown = subprocess.run(
        _deep_research("show", thread),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=True,
        cwd=tmp_path,
    )
    assert "question 1: completed" in shown.stdout
    assert shown.stdout.count("--- Deep Research ---") == 1


def test_sigterm_stops_an_ask_as_interrupted_and_resume_finishes_it(tmp_path: Path) -> None:
    """`kill` (SIGTERM) of a real `deep-research ask`: a clean stop, recorded, resumable."""
    thread = "terminated-cli"
    status, printed = _ask_and_signal(tmp_path, thread, signal.SIGTERM)
    assert status == 130, printed
    assert f"continue with: deep-research resume {thread}" in printed

    def show() -> str:
        return subprocess.run(
            _deep_research("show", thread),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=True,
            cwd=tmp_path,
        ).stdout

    assert "question 1: interrupted" in show()
    resumed = subprocess.run(
        _deep_research("resume", thread, "--out", str(tmp_path / "resumed")),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "already finished" not in resumed.stderr, "the stop must land mid-run"
    assert "question 1: completed" in show()
