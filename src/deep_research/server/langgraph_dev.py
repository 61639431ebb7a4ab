"""``make dev``: ``langgraph dev`` whose hot reloader watches this package and nothing else.

``langgraph dev`` restarts its server when a ``*.py`` file changes anywhere under its working
directory (uvicorn's default reload directory), and a restart cancels the runs in flight. From
the repository root that includes files nobody edits by hand: a virtual environment being
built (``.llama/venv``, ``bench/.venv-peer``, ``.cluster/venv``), ``web/node_modules``,
``bench/results``. The watcher also logs ``N changes detected`` every ten seconds, as the
in-memory runtime saves ``.langgraph_api/`` there.

This module runs the same ``langgraph dev`` command, with every option it takes, and changes
one thing: the server reloads on changes to ``*.py`` files of :data:`PACKAGE_DIR` only. The
command has no option for that, but ``langgraph_api.cli.run_server`` hands the keyword
arguments ``uvicorn.run`` accepts on to it, so the launcher adds ``reload_dirs`` to that call.
With ``--no-reload`` nothing is added.

A change to ``langgraph.json`` needs a restart, as it always did: the reloader never watched
it, and the command reads it once and hands it to every restarted server unchanged.

Usage: ``python -m deep_research.server.langgraph_dev --no-browser --port 2025``.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent.parent
"""The folder of the ``deep_research`` package: the one folder the reloader watches."""

RunServer = Callable[..., None]


def reload_options() -> dict[str, list[str]]:
    """What the launcher adds to ``run_server`` when the server reloads."""
    return {"reload_dirs": [str(PACKAGE_DIR)]}


def scoped_to_package(run_server: RunServer) -> RunServer:
    """``run_server`` with its reloader watching :data:`PACKAGE_DIR` only.

    Raises:
        RuntimeError: ``run_server`` takes neither ``reload_dirs`` nor extra keyword arguments
            (a ``langgraph-api`` that would not pass the folder on to uvicorn).
    """
    signature = inspect.signature(run_server)
    parameters = signature.parameters.values()
    if "reload_dirs" not in signature.parameters and not any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
    ):
        raise RuntimeError(
            "langgraph_api.cli.run_server takes no reload_dirs: this langgraph-api cannot"
            " limit what its reloader watches (run `langgraph dev` itself instead)"
        )

    @functools.wraps(run_server)
    def run(*args: Any, **kwargs: Any) -> None:
        if signature.bind_partial(*args, **kwargs).arguments.get("reload"):
            kwargs |= reload_options()
            print(f"langgraph dev reloads on changes to *.py under {PACKAGE_DIR}", file=sys.stderr)
        run_server(*args, **kwargs)

    return run


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``langgraph dev`` with ``argv`` (default: this process's arguments)."""
    try:
        import langgraph_api.cli as api_cli
        from langgraph_cli.cli import cli
    except ImportError as exc:
        raise SystemExit(
            f"`langgraph dev` is not installed ({exc}): install the dev extra (make install)"
        ) from exc
    api_cli.run_server = scoped_to_package(api_cli.run_server)
    arguments = list(sys.argv[1:] if argv is None else argv)
    cli.main(args=["dev", *arguments], prog_name="langgraph")


if __name__ == "__main__":
    main()
