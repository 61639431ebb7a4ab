"""``make dev``'s launcher: the real ``langgraph dev`` command, its reloader scoped to the package.

The command runs in this process, through langgraph-cli and langgraph-api, up to the call of
``uvicorn.run``, which records what it is given instead of serving (the served behaviour is
``tests/integration_tests/test_dev_reload.py``).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any

import langgraph_api.cli as api_cli
import pytest
import uvicorn

import deep_research
from deep_research.server.devserver import free_port
from deep_research.server.langgraph_dev import PACKAGE_DIR, main, scoped_to_package

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_launcher(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *options: str
) -> tuple[dict[str, Any], str]:
    """Run the launcher from the repository root; what ``uvicorn.run`` got, and stderr."""
    calls: list[dict[str, Any]] = []

    @functools.wraps(uvicorn.run)  # run_server passes on what uvicorn.run's signature accepts
    def record(app: str, **kwargs: Any) -> None:
        calls.append({"app": app, **kwargs, "N_JOBS_PER_WORKER": os.environ["N_JOBS_PER_WORKER"]})

    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("LANGGRAPH_CLI_NO_ANALYTICS", "1")
    monkeypatch.setenv("LANGGRAPH_NO_VERSION_CHECK", "true")
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds its folder
    monkeypatch.setattr(api_cli, "run_server", api_cli.run_server)  # put back afterwards
    monkeypatch.setattr(uvicorn, "run", record)
    with pytest.raises(SystemExit) as exited:
        main(list(options))
    assert exited.value.code in (0, None)
    assert len(calls) == 1
    return calls[0], capsys.readouterr().err


def test_the_package_folder_is_the_one_folder_make_dev_reloads_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    options = ("--no-browser", "--port", str(port), "--n-jobs-per-worker", "10")
    given, stderr = run_launcher(monkeypatch, capsys, *options)

    package = Path(deep_research.__file__).resolve().parent
    assert PACKAGE_DIR == package
    assert given["reload"] is True
    assert given["reload_dirs"] == [str(package)]
    assert given["reload_includes"] is None and given["reload_excludes"] is None  # *.py only
    assert (given["app"], given["host"], given["port"]) == (
        "langgraph_api.server:app",
        "127.0.0.1",
        port,
    )
    assert given["N_JOBS_PER_WORKER"] == "10"  # the other options reach the server as before
    assert f"reloads on changes to *.py under {package}" in stderr


def test_no_reload_stays_without_a_reload_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    given, stderr = run_launcher(
        monkeypatch, capsys, "--no-browser", "--no-reload", "--port", str(free_port())
    )

    assert given["reload"] is False
    assert "reload_dirs" not in given  # uvicorn would warn that it cannot reload
    assert "reloads on changes" not in stderr


def test_a_run_server_that_cannot_take_the_folder_is_refused() -> None:
    def run_server(host: str, port: int, reload: bool) -> None: ...

    with pytest.raises(RuntimeError, match="reload_dirs"):
        scoped_to_package(run_server)
