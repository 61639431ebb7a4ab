"""``make cluster`` (deploy/cluster.sh) says "cluster up" only when its own instances serve.

Issue 43, 10: with the ports held by another server, both instances failed to bind and exited,
the health check reached the other server, and the script reported success.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

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
