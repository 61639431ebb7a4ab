"""``make dev``'s server reloads on changes to the package's code, and on nothing else.

The server is started with the command the Makefile's ``dev`` target runs (read from
``make -n dev``), in a copy of the project in the test's folder: ``langgraph.json``,
``pyproject.toml``, the migrations and ``src/deep_research``, first on ``PYTHONPATH``, so the
copy's package is the one served and watched and the test can change its code. Its data folder
is the default, ``.data`` inside that copy, as under ``make dev``.

Files written where a virtual environment, ``node_modules`` or a benchmark would write them
must not restart the server, nor must a run writing the data folder and ``.langgraph_api/``;
a module written into the package must. The evidence is the server's log (uvicorn's
``Reloading...`` line, watchfiles' ``changes detected``) and the launcher's child processes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from deep_research.server.devserver import free_port, tail
from tests.integration_tests.server_process import REMOVED_VARIABLES

pytestmark = pytest.mark.server

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 90.0
QUIET_SECONDS = 12.0
"""How long the server must stay quiet: longer than the in-memory runtime's ten seconds
between saves of ``.langgraph_api/``, which plain ``langgraph dev`` logs as changes."""

IGNORED = (
    ".llama/venv/lib64/python3.11/site-packages/numpy/_probe.py",
    "bench/.venv-peer/lib/python3.11/site-packages/peer_probe.py",
    ".cluster/venv/lib/python3.12/site-packages/cluster_probe.py",
    "web/node_modules/some-package/probe.py",
    "bench/results/probe.py",
    "scratch/probe.py",
)
"""Files under the served folder that are not the project's code."""

RELOADING = "Reloading..."
CHANGES = "changes detected"
STARTED = "Application started up"


@dataclass(frozen=True)
class Served:
    """The dev server started as ``make dev`` starts it, in a copy of the project."""

    url: str
    pid: int
    project: Path
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def lines(self, marker: str) -> list[str]:
        return [line for line in self.text().splitlines() if marker in line]


def make_dev_command(port: int) -> tuple[dict[str, str], list[str]]:
    """The variables and the command of the Makefile's ``dev`` recipe, for this Python."""
    if importlib.util.find_spec("langgraph_cli") is None:
        pytest.skip("`langgraph dev` is missing: install the dev extra (make install)")
    if shutil.which("make") is None:
        pytest.skip("`make` is not installed: the test reads the `dev` recipe from the Makefile")
    printed = subprocess.run(
        ["make", "--no-print-directory", "-n", "dev", f"DEV_PORT={port}"]
        + [f"BIN={Path(sys.executable).parent}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    words = shlex.split(printed[-1])  # the dev recipe comes after its prerequisites'
    variables: dict[str, str] = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        variables[name] = value
    assert f"--port {port}" in " ".join(words), printed
    return variables, words


def copy_project(target: Path) -> Path:
    """The files ``make dev`` serves, copied to ``target``, compiled as ``make dev`` does."""
    target.mkdir()
    for name in ("langgraph.json", "pyproject.toml"):
        shutil.copy2(REPO_ROOT / name, target / name)
    shutil.copytree(REPO_ROOT / "migrations", target / "migrations")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(
        REPO_ROOT / "src" / "deep_research", target / "src/deep_research", ignore=ignore
    )
    subprocess.run([sys.executable, "-m", "compileall", "-q", "src"], cwd=target, check=True)
    return target


def children(pid: int) -> set[int] | None:
    """The PIDs of ``pid``'s child processes (Linux), or None where /proc does not say."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    if not path.is_file():
        return None
    return {int(word) for word in path.read_text().split()}


def wait_for(condition: Any, seconds: float, served: Served, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} within {seconds:.0f} s; log {served.log}:\n{tail(served.log)}")


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ok", timeout=2, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def make_dev_server(tmp_path: Path) -> Iterator[Served]:
    """The ``dev`` recipe run in a copy of the project; stopped (its process group) afterwards."""
    port = free_port()
    variables, command = make_dev_command(port)
    project = copy_project(tmp_path / "project")
    log = tmp_path / "server.log"  # outside the served folder, as a developer's terminal is
    environment = {k: v for k, v in os.environ.items() if k not in REMOVED_VARIABLES}
    pythonpath = [str(project / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    environment |= variables | {"PYTHONPATH": os.pathsep.join(pythonpath)}
    environment |= {"LANGSMITH_TRACING": "false", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=project,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    served = Served(f"http://127.0.0.1:{port}", process.pid, project, log)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not answers(served.url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"`make dev`'s command did not answer /ok:\n{tail(log)}")
            time.sleep(0.2)
        yield served
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


async def test_make_dev_reloads_on_the_package_only(tmp_path: Path) -> None:
    with make_dev_server(tmp_path) as served:
        package = served.project / "src" / "deep_research"
        assert f"reloads on changes to *.py under {package}" in served.text(), tail(served.log)
        started_at = time.monotonic()
        workers = children(served.pid)

        for relative in IGNORED:
            (served.project / relative).parent.mkdir(parents=True, exist_ok=True)
        await asyncio.sleep(1.0)  # folders first: a recursive watcher then sees the files
        for relative in IGNORED:
            (served.project / relative).write_text("VALUE = 1\n")
        await asyncio.sleep(1.0)
        for relative in IGNORED:
            (served.project / relative).write_text("VALUE = 2\n")

        async with get_client(url=served.url, api_key=None) as client:  # writes .data
            thread = (await client.threads.create())["thread_id"]
            run = await client.runs.create(
                thread,
                "deep_research",
                input={"messages": [{"role": "user", "content": "What did Hornsdale cost?"}]},
                context={"allow_clarification": False, "depth": "light"},
            )
            await client.runs.join(thread, run["run_id"])
            finished = await client.runs.get(thread, run["run_id"])
        assert finished["status"] == "success", finished
        await asyncio.sleep(max(0.0, QUIET_SECONDS - (time.monotonic() - started_at)))

        assert served.lines(RELOADING) == [], tail(served.log)
        assert served.lines(CHANGES) == [], tail(served.log)  # .langgraph_api/ and .data unwatched
        assert len(served.lines(STARTED)) == 1
        assert children(served.pid) == workers

        (package / "_reload_probe.py").write_text("VALUE = 1\n")
        wait_for(lambda: served.lines(RELOADING), 15.0, served, "no reload")
        wait_for(lambda: len(served.lines(STARTED)) == 2, 60.0, served, "no restart")
        assert answers(served.url)
        reloads = served.lines(RELOADING)
        assert len(reloads) == 1 and "_reload_probe.py" in reloads[0], reloads
        if workers is not None:
            assert children(served.pid) != workers  # a new server process
