"""A real two-instance Aegra cluster for the cluster tests, started as ``make cluster`` starts one.

``deploy/cluster.sh`` runs with the test's own ports, folder, databases and Redis keys, so it
neither meets a developer's ``make cluster`` nor another test session. The instances need the
Python 3.12 environment ``make cluster-venv`` makes (``.cluster/venv``) and Redis on
127.0.0.1:6379; without either the tests are skipped locally and fail under CI.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import in_ci

REPO_ROOT = Path(__file__).resolve().parents[2]
CLUSTER_PYTHON = REPO_ROOT / ".cluster" / "venv" / "bin" / "python"
REDIS = ("127.0.0.1", 6379)
KEPT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYENV_ROOT")
"""The test process's variables an instance keeps; nothing else (no keys, no models)."""


@dataclass(frozen=True)
class Cluster:
    """Running instances: their URLs and PIDs, and the folder with their logs."""

    urls: tuple[str, ...]
    pids: tuple[int, ...]
    directory: Path

    def kill(self, index: int) -> None:
        """Kill instance ``index`` with SIGKILL, as a crashed machine stops."""
        os.kill(self.pids[index], signal.SIGKILL)

    def log(self, index: int) -> str:
        """The log of instance ``index``."""
        port = self.urls[index].rsplit(":", 1)[1]
        return (self.directory / f"{port}.log").read_text(errors="replace")


def _missing(message: str) -> None:
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_cluster_python() -> None:
    """Make the Python 3.12 environment if it is missing (skip when there is no 3.12)."""
    if CLUSTER_PYTHON.exists():
        return
    made = subprocess.run(
        ["make", "-s", "cluster-venv"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    if made.returncode != 0:
        _missing(f"no Python 3.12 environment for Aegra (make cluster-venv): {made.stdout}")


def ensure_redis() -> None:
    """Skip (fail under CI) when Redis does not answer on 127.0.0.1:6379."""
    try:
        with socket.create_connection(REDIS, timeout=2) as conn:
            conn.sendall(b"PING\r\n")
            if not conn.recv(16).startswith(b"+PONG"):
                _missing("something on 127.0.0.1:6379 that is not Redis")
    except OSError as exc:
        _missing(f"Redis is not reachable on 127.0.0.1:6379: {exc}")


@contextmanager
def aegra_cluster(
    directory: Path, domain_url: str, aegra_url: str, env: Mapping[str, str], instances: int = 2
) -> Iterator[Cluster]:
    """Start ``instances`` Aegra instances with ``deploy/cluster.sh``; stop them afterwards."""
    ensure_redis()
    ensure_cluster_python()
    ports = [_free_port() for _ in range(instances)]
    environment = cluster_environment(directory, domain_url, aegra_url, env, ports)
    script = str(REPO_ROOT / "deploy" / "cluster.sh")
    started = subprocess.run(
        [script, "start"], env=environment, capture_output=True, text=True, timeout=240
    )
    try:
        if started.returncode != 0:
            pytest.fail(f"deploy/cluster.sh start failed:\n{started.stderr[-4000:]}")
        pids = tuple(int((directory / f"{port}.pid").read_text()) for port in ports)
        yield Cluster(tuple(f"http://127.0.0.1:{p}" for p in ports), pids, directory)
    finally:
        subprocess.run([script, "stop"], env=environment, capture_output=True, timeout=120)


def cluster_environment(
    directory: Path, domain_url: str, aegra_url: str, env: Mapping[str, str], ports: list[int]
) -> dict[str, str]:
    """The environment ``deploy/cluster.sh`` is run with for instances on ``ports``."""
    keys = f"deep-research-test:{uuid.uuid4().hex[:12]}"
    return {
        **{name: os.environ[name] for name in KEPT if name in os.environ},
        "CLUSTER_PORTS": " ".join(map(str, ports)),
        "CLUSTER_DIR": str(directory),
        "CLUSTER_PYTHON": str(CLUSTER_PYTHON),
        "DEEP_RESEARCH_DATABASE_URL": domain_url,
        "AEGRA_DATABASE_URL": aegra_url,
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "WORKER_QUEUE_KEY": f"{keys}:jobs",
        "REDIS_CHANNEL_PREFIX": f"{keys}:run:",
        "LOG_LEVEL": "WARNING",
        **env,
    }
