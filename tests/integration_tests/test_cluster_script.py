"""``make cluster`` (deploy/cluster.sh) says "cluster up" only when its own instances serve.

Issue 43, 10: with the ports held by another server, both instances failed to bind and exited,
the health check reached the other server, and the script reported success.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deep_research.server.devserver import portable_config
from tests.integration_tests.cluster_process import (
    REPO_ROOT,
    cluster_environment,
    ensure_cluster_python,
    ensure_redis,
)
from tests.integration_tests.test_cluster import _database, _drop

pytestmark = [pytest.mark.server, pytest.mark.postgres]


class _Healthy(BaseHTTPRequestHandler):
    """Another server: it answers every path, ``/health`` included, with 200."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        return


@contextmanager
def _other_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Healthy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_port_held_by_another_server_is_no_cluster_up(postgres_url: str, tmp_path: Path) -> None:
    ensure_redis()
    ensure_cluster_python()
    admin = _database(postgres_url, "postgres", "postgresql")
    base = urlsplit(postgres_url).path.lstrip("/")
    domain, aegra = f"{base}_script_domain", f"{base}_script_aegra"
    script = str(REPO_ROOT / "deploy" / "cluster.sh")
    try:
        with _other_server() as port:
            environment = cluster_environment(
                tmp_path,
                _database(admin, domain, "postgresql+psycopg"),
                _database(admin, aegra, "postgresql"),
                {},
                [port],
            )
            started = subprocess.run(
                [script, "start"], env=environment, capture_output=True, text=True, timeout=240
            )
            subprocess.run([script, "stop"], env=environment, capture_output=True, timeout=120)
        assert started.returncode != 0, started.stderr
        assert "cluster up" not in started.stderr
        assert f"port {port} is taken" in started.stderr
    finally:
        for name in (domain, aegra):
            _drop(admin, name)


def test_an_instance_whose_auth_did_not_load_serves_no_one(
    postgres_url: str, tmp_path: Path
) -> None:
    # Aegra serves every request as one anonymous user when auth.path fails to load; ours
    # refuses to start instead.
    ensure_redis()
    ensure_cluster_python()
    config = json.loads(portable_config(REPO_ROOT / "langgraph.json", tmp_path).read_text())
    config["auth"]["path"] = str(tmp_path / "missing_auth.py") + ":auth"
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    admin = _database(postgres_url, "postgres", "postgresql")
    base = urlsplit(postgres_url).path.lstrip("/")
    domain, aegra = f"{base}_noauth_domain", f"{base}_noauth_aegra"
    script = str(REPO_ROOT / "deploy" / "cluster.sh")
    port = _free_port()
    try:
        environment = cluster_environment(
            tmp_path / "cluster",
            _database(admin, domain, "postgresql+psycopg"),
            _database(admin, aegra, "postgresql"),
            {
                "CLUSTER_CONFIG": str(tmp_path / "langgraph.json"),
                "DEEP_RESEARCH_AUTH_TOKENS": "t=alice",
            },
            [port],
        )
        try:
            started = subprocess.run(
                [script, "start"], env=environment, capture_output=True, text=True, timeout=240
            )
            answered = _status(f"http://127.0.0.1:{port}/threads/search")
        finally:
            subprocess.run([script, "stop"], env=environment, capture_output=True, timeout=120)
        assert started.returncode != 0, started.stderr
        assert "cluster up" not in started.stderr
        assert answered is None or answered >= 500  # never served as the anonymous user
        log = (tmp_path / "cluster" / f"{port}.log").read_text(errors="replace")
        assert "refusing to serve every request as one anonymous user" in log
    finally:
        for name in (domain, aegra):
            _drop(admin, name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _status(url: str) -> int | None:
    """The status of an unauthenticated POST to ``url``, or ``None`` when nothing answers."""
    request = urllib.request.Request(url, data=b"{}", method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return None
