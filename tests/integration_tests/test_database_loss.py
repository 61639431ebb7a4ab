"""Losing PostgreSQL mid-run: the command line stops within 20 s with one line, and resumes.

The database is reached through a TCP proxy (:mod:`tests.integration_tests.tcp_proxy`) that
the test cuts as a network partition would: bytes stop, nobody is told. Only the timeouts of
:mod:`deep_research.persistence.timeouts` can end the waits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest

from deep_research.persistence.scratch import thread_namespace
from tests.integration_tests.crash_driver import QUESTION
from tests.integration_tests.server_process import langgraph_dev
from tests.integration_tests.tcp_proxy import TcpProxy, tcp_proxy

pytestmark = pytest.mark.postgres

EXIT_WITHIN = 20.0
"""The issue asks for 30 s. A run ends about 5.5 s after the cut (the 5 s database timeout of
the statements under way); 20 s leaves a wide margin on a loaded machine and still fails if a
timed-out statement waits out psycopg's cancellation again (10 s more)."""
ANSWER_WITHIN = 30.0
RUN_TIMEOUT = 300.0
TOKEN = "alice-token-database-loss-0123456789"


@pytest.fixture
def proxy(postgres_url: str) -> Iterator[TcpProxy]:
    """A proxy in front of the test database's server."""
    parts = urlsplit(postgres_url)
    with tcp_proxy(parts.hostname or "127.0.0.1", parts.port or 5432) as started:
        yield started


def _through(url: str, port: int) -> str:
    """``url`` with its host and port replaced by the proxy's."""
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{port}"))


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def _deep_research(*args: str) -> list[str]:
    return [sys.executable, "-m", "deep_research.cli", *args]


def _wait_for_research(url: str, thread: str, process: subprocess.Popen[str]) -> None:
    """Wait until a researcher has kept a finished stage in the content store (a run under way)."""
    deadline = time.monotonic() + RUN_TIMEOUT
    with psycopg.connect(_libpq(url), autocommit=True) as conn:
        while time.monotonic() < deadline:
            assert process.poll() is None, "the run ended before the database was cut"
            try:
                row = conn.execute(
                    "SELECT count(*) FROM store WHERE prefix LIKE %s",
                    (".".join(thread_namespace(thread)) + ".%",),
                ).fetchone()
            except psycopg.errors.UndefinedTable:
                row = None
            if row is not None and row[0] > 0:
                return
            time.sleep(0.05)
    pytest.fail("the run never reached its researchers")


def test_lost_database_ends_the_run_with_one_line_and_resume_finishes_it(
    postgres_url: str, proxy: TcpProxy, tmp_path: Path
) -> None:
    """Cut mid-run: exit status 2 within 20 s, one error line; restored: resume completes."""
    thread = "lost-database"
    env = os.environ | {
        "DEEP_RESEARCH_DATABASE_URL": _through(postgres_url, proxy.port),
        "DEEP_RESEARCH_DATA_DIR": str(tmp_path / "data"),
    }
    ask = _deep_research(
        "ask", QUESTION, "--quiet", "--depth", "light", "--no-clarify", "--thread", thread
    )
    with subprocess.Popen(
        [*ask, "--out", str(tmp_path / "never")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    ) as process:
        _wait_for_research(postgres_url, thread, process)
        proxy.cut()
        cut_at = time.monotonic()
        try:
            _, stderr = process.communicate(timeout=EXIT_WITHIN)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"the command still ran {EXIT_WITHIN:g} s after the database was cut")
        took = time.monotonic() - cut_at

    assert process.returncode == 2, stderr
    lines = [line for line in stderr.splitlines() if line != f"thread: {thread}"]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("deep-research: error: "), stderr
    assert "did not answer" in lines[0] or "could not use the database" in lines[0], stderr
    assert f"deep-research resume {thread}" in lines[0]
    assert took < EXIT_WITHIN
    assert not (tmp_path / "never").exists()

    proxy.restore()
    out = tmp_path / "resumed"
    resumed = subprocess.run(
        _deep_research("resume", thread, "--quiet", "--out", str(out)),
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "already finished" not in resumed.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["question"] == QUESTION and report["references"]


@pytest.mark.server
def test_routes_answer_503_while_the_database_is_unreachable(
    postgres_url: str, proxy: TcpProxy, tmp_path: Path
) -> None:
    """A server whose database is cut answers 503 with a JSON reason, and 200 once it is back."""
    env = {
        "DEEP_RESEARCH_DATABASE_URL": _through(postgres_url, proxy.port),
        "DEEP_RESEARCH_AUTH_TOKENS": f"{TOKEN}=alice",
    }
    with (
        langgraph_dev(tmp_path, env) as server,
        httpx.Client(
            base_url=server,
            headers={"Authorization": f"Bearer {TOKEN}"},
            trust_env=False,
            timeout=ANSWER_WITHIN,
        ) as http,
    ):
        assert http.get("/chats").status_code == 200
        proxy.cut()
        started = time.monotonic()
        answer = http.get("/chats")
        assert answer.status_code == 503, answer.text
        assert time.monotonic() - started < ANSWER_WITHIN
        assert answer.headers["content-type"] == "application/json"
        assert answer.json() == {"detail": "the database is unreachable; try again later"}
        assert str(proxy.port) not in answer.text  # no address of the server's database
        assert http.put("/preferences", json={"depth": "light"}).status_code == 503

        proxy.restore()
        deadline = time.monotonic() + ANSWER_WITHIN
        while (status := http.get("/chats").status_code) != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert status == 200
