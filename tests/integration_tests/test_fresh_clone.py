"""A fresh clone works as a newcomer runs it: ``make dev`` and ``make cluster``, then a run.

Each test clones the repository's committed ``HEAD`` into a temporary folder and runs the
README's command there with a clean environment: no ``DEEP_RESEARCH_*`` variable (the cluster
gets only the databases of its own that ``deploy/cluster.sh`` documents), ``HOME`` a fresh
folder, free ports. Only the tool caches are shared (uv's, pip's and npm's), so the install reads
packages from the disk rather than the registry. The server must then complete a research run
through the SDK, as a newcomer's first try would.

These install a whole environment, so they run under CI (``CI=true``) or when
``TEST_FRESH_CLONE=1``; otherwise they skip with that reason.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client

from tests.conftest import in_ci
from tests.integration_tests.conftest import own_database

pytestmark = pytest.mark.server

REPO_ROOT = Path(__file__).resolve().parents[2]
KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PYENV_ROOT", "PYENV_VERSION")
"""Variables of this process a newcomer's shell is assumed to have."""

MACHINE = re.compile(r"(?i)proxy|cert|ssl|ca_bundle|^(pip|uv|npm_config)_")
"""The machine's network and package-index setup (proxies, CA bundles, pip/uv/npm settings),
which a newcomer's shell has too: kept. Nothing of the project's (``DEEP_RESEARCH_*``)."""

STARTUP_SECONDS = 900.0
"""Longest wait for a fresh clone to install and answer ``/ok``."""

QUESTION = "What did Hornsdale Power Reserve cost?"


@pytest.fixture(autouse=True)
def _heavy() -> None:
    if not in_ci() and os.environ.get("TEST_FRESH_CLONE") != "1":
        pytest.skip(
            "installs a fresh clone's environment: runs under CI, or with TEST_FRESH_CLONE=1"
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cache_dir(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def clone(target: Path) -> Path:
    """A clone of the working repository's committed ``HEAD`` at ``target``."""
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO_ROOT), str(target)], check=True)
    subprocess.run(["git", "-C", str(target), "fetch", "-q", str(REPO_ROOT), "HEAD"], check=True)
    subprocess.run(["git", "-C", str(target), "checkout", "-q", "FETCH_HEAD"], check=True)
    return target


def newcomer_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment: a fresh ``HOME``, the shared tool caches, and ``extra``."""
    home.mkdir(parents=True, exist_ok=True)
    kept = {
        name: value
        for name, value in os.environ.items()
        if (name in KEPT or MACHINE.search(name)) and not name.startswith("DEEP_RESEARCH_")
    }
    caches = {
        "UV_CACHE_DIR": _cache_dir([str(REPO_ROOT / ".venv/bin/uv"), "cache", "dir"]),
        "PIP_CACHE_DIR": _cache_dir(
            [str(REPO_ROOT / ".venv/bin/python"), "-m", "pip", "cache", "dir"]
        ),
    }
    npm = shutil.which("npm")
    if npm is not None:  # the web app's build (npm ci)
        caches["npm_config_cache"] = _cache_dir([npm, "config", "get", "cache"])
    return {**kept, **caches, "HOME": str(home), **(extra or {})}


def _wait_for(url: str, process: subprocess.Popen[bytes] | None, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            pytest.fail(f"the command exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{url}/ok", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    pytest.fail(f"{url} did not answer /ok in {STARTUP_SECONDS:.0f} s:\n{log.read_text()[-4000:]}")


@contextmanager
def make_dev(checkout: Path, env: dict[str, str]) -> Iterator[str]:
    """``make dev`` in ``checkout`` on a free port; its URL. Stopped (its group) afterwards."""
    port = _free_port()
    log = checkout.parent / "make-dev.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["make", "dev", f"DEV_PORT={port}"],
            cwd=checkout,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for(url, process, log)
        yield url
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop ``process`` and its group (make, langgraph dev and its workers)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


async def complete_a_run(url: str) -> None:
    """Research one question through the SDK; the run must end with a cited report."""
    client = get_client(url=url)
    try:
        thread = (await client.threads.create())["thread_id"]
        values = await client.runs.wait(
            thread,
            "deep_research",
            input={"messages": [{"role": "user", "content": QUESTION}]},
            context={"depth": "light"},
        )
    finally:
        await client.aclose()
    assert isinstance(values, dict) and "__error__" not in values, values
    report = values["report"]
    assert report["markdown"].startswith("# ") and report["references"]


async def test_make_dev_in_a_fresh_clone_completes_a_run(tmp_path: Path) -> None:
    checkout = clone(tmp_path / "clone")
    with make_dev(checkout, newcomer_env(tmp_path / "home")) as url:
        await complete_a_run(url)


@pytest.mark.postgres
async def test_make_cluster_in_a_fresh_clone_completes_a_run(
    tmp_path: Path, postgres_url: str
) -> None:
    checkout = clone(tmp_path / "clone")
    ports = [_free_port(), _free_port()]
    keys = f"deep-research-clone:{uuid.uuid4().hex[:12]}"
    with (
        own_database(postgres_url, "clone_domain") as domain,
        own_database(postgres_url, "clone_aegra") as aegra,
    ):
        env = newcomer_env(
            tmp_path / "home",
            {
                "CLUSTER_PORTS": " ".join(map(str, ports)),
                "DEEP_RESEARCH_DATABASE_URL": domain,
                "AEGRA_DATABASE_URL": aegra.replace("postgresql+psycopg://", "postgresql://", 1),
                "WORKER_QUEUE_KEY": f"{keys}:jobs",
                "REDIS_CHANNEL_PREFIX": f"{keys}:run:",
            },
        )
        log = tmp_path / "make-cluster.log"
        try:
            with log.open("wb") as out:
                started = subprocess.run(
                    ["make", "cluster"],
                    cwd=checkout,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=STARTUP_SECONDS,
                    check=False,
                )
            assert started.returncode == 0, log.read_text()[-4000:]
            for port in ports:
                _wait_for(f"http://127.0.0.1:{port}", None, log)
            await complete_a_run(f"http://127.0.0.1:{ports[0]}")
        finally:
            subprocess.run(
                ["make", "cluster-stop"], cwd=checkout, env=env, capture_output=True, timeout=120
            )
