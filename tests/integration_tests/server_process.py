"""Start and stop a real ``langgraph dev`` on 127.0.0.1 for the server tests.

The server runs from the repository root with ``langgraph.json``, no reloader, analytics off,
its own data directory and none of the model or key variables, so it uses the offline engine
and the bundled sample corpus. Its log is kept outside the repository (the reloader, were it
on, would watch the tree) and is shown when the server does not come up. It is stopped by its
PID (SIGTERM to the process it started, SIGKILL after a grace period).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT = 60.0
SHUTDOWN_TIMEOUT = 15.0
REMOVED_VARIABLES = (
    "DEEP_RESEARCH_MODEL",
    "DEEP_RESEARCH_DATABASE_URL",
    "DEEP_RESEARCH_AUTH_TOKENS",
    "DEEP_RESEARCH_AUTH_SECRET",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "TAVILY_API_KEY",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGGRAPH_API_KEY",
)
"""Variables that would give the server a model, a key, auth or somewhere else to send traffic."""


def langgraph_executable() -> str | None:
    """The ``langgraph`` CLI of this environment, if installed."""
    beside_python = Path(sys.executable).parent / "langgraph"
    if beside_python.is_file():
        return str(beside_python)
    return shutil.which("langgraph")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tail(log: Path, lines: int = 40) -> str:
    """The end of a log file."""
    text = log.read_text(errors="replace") if log.exists() else "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> float:
    started = time.monotonic()
    with httpx.Client(trust_env=False, timeout=2.0) as http:
        while time.monotonic() - started < STARTUP_TIMEOUT:
            if process.poll() is not None:
                pytest.fail(
                    f"langgraph dev exited with {process.returncode} before answering /ok;"
                    f" log {log}:\n{tail(log)}"
                )
            try:
                if http.get(f"{url}/ok").status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    pytest.fail(
        f"langgraph dev did not answer {url}/ok in {STARTUP_TIMEOUT:.0f} s; log {log}:\n{tail(log)}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=SHUTDOWN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def langgraph_dev(workdir: Path, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run ``langgraph dev`` on a free port with its data in ``workdir``; yield its URL.

    Skips when the ``langgraph`` executable is missing (a failure under CI, see conftest).
    """
    executable = langgraph_executable()
    if executable is None:
        pytest.skip("the `langgraph` executable is missing: install the dev extra (make install)")
    log = workdir / "server.log"
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k not in REMOVED_VARIABLES}
    environment |= {
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "DEEP_RESEARCH_DATA_DIR": str(workdir / "data"),
        **(env or {}),
    }
    command = [executable, "dev", "--no-browser", "--no-reload"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        seconds = _wait_until_up(url, process, log)
        print(f"langgraph dev answered /ok after {seconds:.2f} s (log: {log})", file=sys.stderr)
        yield url
    finally:
        _stop(process)
