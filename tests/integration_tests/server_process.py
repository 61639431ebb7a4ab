"""A real ``langgraph dev`` on 127.0.0.1 for the server tests.

The server (see :mod:`deep_research.server.devserver`) runs the repository's ``langgraph.json``
in the test's own folder, with no reloader, analytics off and none of the model, key or auth
variables of the test process, so it uses the offline engine and the bundled sample corpus
unless a test says otherwise. Its log stays in the test's folder and is shown when the server
does not come up.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from deep_research.server.devserver import DevServerError, dev_server, langgraph_executable

REPO_ROOT = Path(__file__).resolve().parents[2]
REMOVED_VARIABLES = (
    "DEEP_RESEARCH_DATA_DIR",
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
"""Variables that would give the server a model, a key, auth, somewhere else to send traffic,
or a data folder other than a newcomer's (the relative default ``.data``)."""


@contextmanager
def langgraph_dev(
    workdir: Path, env: Mapping[str, str] | None = None, *, config: Path | None = None
) -> Iterator[str]:
    """Run ``langgraph dev`` on a free port in ``workdir``; yield its URL.

    Its data folder is the default a newcomer gets, ``.data`` relative to its working
    directory (``workdir/.data``), unless ``env`` names another.

    ``config`` is the ``langgraph.json`` to serve (default: the repository's; relative paths
    in another one are resolved against its own folder). Skips when the ``langgraph``
    executable is missing (a failure under CI, see conftest).
    """
    if langgraph_executable() is None:
        pytest.skip("the `langgraph` executable is missing: install the dev extra (make install)")
    environment = dict(env or {})
    try:
        with dev_server(
            config or REPO_ROOT / "langgraph.json",
            workdir,
            env=environment,
            remove_env=REMOVED_VARIABLES,
        ) as server:
            print(
                f"langgraph dev answered /ok after {server.startup_seconds:.2f} s"
                f" (pid {server.pid}, log: {server.log})",
                file=sys.stderr,
            )
            yield server.url
    except DevServerError as exc:
        pytest.fail(str(exc))
