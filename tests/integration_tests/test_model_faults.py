"""The command line on the LLM engine, as a real process, against endpoints that misbehave.

* A closed port: the run ends with its one error line and nothing else (no asyncio
  "Task was destroyed" warnings, no driver task dumps).
* The scripted endpoint in fault mode (:mod:`tests.integration_tests.fake_openai`): with a
  share of its structured replies malformed in each way a real endpoint misbehaves, a whole
  run still writes a non-empty report whose every claim is judged.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.fake_openai import FAULTS, fault_openai

RUN_TIMEOUT = 180


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ask(tmp_path: Path, base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DEEP_RESEARCH_", "OPENAI_", "TAVILY_", "LANGSMITH_"))
    }
    env |= {
        "DEEP_RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "DEEP_RESEARCH_MODEL": "scripted-model",
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": base_url,
        "PYTHONWARNINGS": "default",  # asyncio's warnings would show, if there were any
    }
    command = [sys.executable, "-m", "deep_research.cli", "ask", "Describe Hornsdale Power Reserve"]
    return subprocess.run(
        [*command, "--depth", "light", "--no-clarify", *extra],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def test_an_unreachable_endpoint_ends_the_run_with_one_line(tmp_path: Path) -> None:
    done = _ask(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1", "--quiet")

    assert done.returncode == 2, done.stderr
    thread, *lines = done.stderr.strip().splitlines()
    assert thread.startswith("thread: ")
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("deep-research: error: could not reach the model endpoint")
    assert "deep-research resume" in lines[0]


def test_with_progress_shown_the_failure_is_still_its_one_line_last(tmp_path: Path) -> None:
    done = _ask(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")

    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("deep-research: error: could not reach the model endpoint")
    assert [line for line in lines if "error" in line] == [lines[-1]]
    for noise in ("Traceback", "Task was destroyed", "Exception ignored", "Warning"):
        assert noise not in done.stderr, done.stderr


@pytest.mark.parametrize(("share", "offset"), [(0.3, 0), (0.5, 3), (1.0, 0)])
def test_a_run_through_malformed_replies_writes_a_verified_report(
    tmp_path: Path, share: float, offset: int
) -> None:
    with fault_openai(share, offset) as (base_url, requests, faults):
        done = _ask(tmp_path, base_url, "--out", str(tmp_path / "out"), "--quiet")

    assert done.returncode == 0, done.stderr
    assert len(faults.sent) >= 2, faults.sent
    if share == 1.0:  # every structured reply malformed: each kind was sent
        assert set(faults.sent) == set(FAULTS)
    report: dict[str, Any] = json.loads((tmp_path / "out" / "report.json").read_text())
    assert "Hornsdale" in report["markdown"]
    assert report["claims"], "the report lost its claims"
    assert all(claim["verdict"] for claim in report["claims"])
    assert report["verification"]["removed"] == 0
    assert "Task was destroyed" not in done.stderr
    assert len(requests) > len(faults.sent)
