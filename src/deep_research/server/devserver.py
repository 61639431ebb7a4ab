"""Start and stop a ``langgraph dev`` server on 127.0.0.1, for tests, benchmarks and scripts.

The server runs in a working directory of its own, with a copy of the ``langgraph.json`` it is
given whose relative paths are made absolute. Both matter: ``langgraph dev`` resolves the paths
of the config (graphs, checkpointer, store, auth, http app) against its working directory, and
keeps its threads and queued runs in ``.langgraph_api/`` there, resuming on start the runs an
earlier server left pending, so two servers sharing a folder would run each other's leftovers.

The server is started in a session of its own and stopped by its PID: SIGTERM, then SIGKILL
after a grace period.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HOST = "127.0.0.1"
"""Only loopback: these servers are for local use."""


class DevServerError(RuntimeError):
    """``langgraph dev`` exited early or did not answer in time (the message ends with its log)."""


@dataclass(frozen=True)
class DevServer:
    """A running ``langgraph dev``."""

    url: str
    pid: int
    log: Path
    startup_seconds: float


def langgraph_executable() -> str | None:
    """The ``langgraph`` CLI of this Python environment, else the one on ``PATH``."""
    beside_python = Path(sys.executable).parent / "langgraph"
    if beside_python.is_file():
        return str(beside_python)
    return shutil.which("langgraph")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def tail(log: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file."""
    text = log.read_text(errors="replace") if log.exists() else "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _absolute(spec: str, base: Path) -> str:
    """``./module.py:attr`` relative to ``base`` made absolute; other specs kept."""
    path, colon, attr = spec.partition(":")
    if not path.startswith("."):
        return spec
    return str((base / path).resolve()) + colon + attr


def portable_config(config: Path, workdir: Path) -> Path:
    """Write ``config`` into ``workdir`` with every relative path made absolute; return it."""
    data: dict[str, Any] = json.loads(config.read_text())
    base = config.resolve().parent
    if "dependencies" in data:
        data["dependencies"] = [_absolute(d, base) for d in data["dependencies"]]
    if isinstance(data.get("source"), dict):  # {"kind": "uv", "root": "."}: pyproject + uv.lock
        data["source"]["root"] = str((base / data["source"].get("root", ".")).resolve())
    graphs: dict[str, Any] = data.get("graphs", {})
    for name, spec in graphs.items():  # "./x.py:graph", or {"path": ..., "description": ...}
        if isinstance(spec, dict):
            spec["path"] = _absolute(spec["path"], base)
        else:
            graphs[name] = _absolute(spec, base)
    for key in ("checkpointer", "store", "auth"):
        if isinstance(data.get(key), dict) and "path" in data[key]:
            data[key]["path"] = _absolute(data[key]["path"], base)
    if isinstance(data.get("http"), dict) and "app" in data["http"]:
        data["http"]["app"] = _absolute(data["http"]["app"], base)
    path = workdir / "langgraph.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float) -> float:
    started = time.monotonic()
    with httpx.Client(trust_env=False, timeout=2.0) as http:
        while time.monotonic() - started < timeout:
            if process.poll() is not None:
                raise DevServerError(
                    f"langgraph dev exited with {process.returncode} before answering /ok;"
                    f" log {log}:\n{tail(log)}"
                )
            try:
                if http.get(f"{url}/ok").status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    raise DevServerError(
        f"langgraph dev did not answer {url}/ok in {timeout:.0f} s; log {log}:\n{tail(log)}"
    )


def _stop(process: subprocess.Popen[bytes], grace: float) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def dev_server(
    config: Path,
    workdir: Path,
    *,
    env: Mapping[str, str] | None = None,
    remove_env: Iterable[str] = (),
    args: Iterable[str] = (),
    startup_timeout: float = 60.0,
    shutdown_grace: float = 15.0,
) -> Iterator[DevServer]:
    """Run ``langgraph dev`` for ``config`` on a free port of 127.0.0.1, in ``workdir``.

    Args:
        config: The ``langgraph.json`` to serve.
        workdir: The server's working directory; its log goes to ``workdir/server.log``.
        env: Variables added to this process's environment.
        remove_env: Variables of this process's environment the server must not see.
        args: Extra arguments to ``langgraph dev`` (``--n-jobs-per-worker 10``, ...).
        startup_timeout: Seconds to wait for ``/ok``.
        shutdown_grace: Seconds between SIGTERM and SIGKILL when stopping.

    Yields:
        The running server.

    Raises:
        DevServerError: the CLI is missing, or the server exited early or did not come up.
    """
    executable = langgraph_executable()
    if executable is None:
        raise DevServerError(
            "the `langgraph` CLI is not installed (pip install 'langgraph-cli[inmem]')"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "server.log"
    port = free_port()
    removed = set(remove_env)
    environment = {k: v for k, v in os.environ.items() if k not in removed}
    environment |= {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false"}
    environment |= dict(env or {})
    command = [executable, "dev", "--no-browser", "--no-reload", "--host", HOST]
    command += ["--port", str(port), "--config", str(portable_config(config, workdir)), *args]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=workdir,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://{HOST}:{port}"
    try:
        seconds = _wait_until_up(url, process, log, startup_timeout)
        yield DevServer(url=url, pid=process.pid, log=log, startup_seconds=seconds)
    finally:
        _stop(process, shutdown_grace)
