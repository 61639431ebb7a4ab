"""Importing compiles nothing: cheap imports stay cheap, and --help loads no framework.

Each check runs in a fresh interpreter and lists what an import left in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("langgraph.graph", "langgraph.pregel", "langchain_core", "sqlalchemy", "trafilatura")
"""LangGraph's graph machinery, LangChain, SQLAlchemy and the extractor."""


def _loaded_after(code: str) -> list[str]:
    """Which of ``HEAVY`` are imported after running ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    loaded: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "module",
    [
        "deep_research",
        "deep_research.text.words",
        "deep_research.context",
        "deep_research.settings",
        "deep_research.state",
        "deep_research.engines",
        "deep_research.sources",
        "deep_research.cli",
        "deep_research.report.verify",
    ],
)
def test_importing_a_module_loads_no_framework(module: str) -> None:
    assert _loaded_after(f"import {module}") == []


def test_the_migrations_models_load_sqlalchemy_and_no_langgraph() -> None:
    assert _loaded_after("import deep_research.persistence.tables") == ["sqlalchemy"]


def test_help_and_argument_errors_load_no_framework() -> None:
    code = (
        "from deep_research.cli import main\n"
        "for argv in (['--help'], ['ask']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
    )
    assert _loaded_after(code) == []


def test_build_graph_is_still_one_import_away_and_no_graph_is_compiled_at_import() -> None:
    import deep_research.graph
    from deep_research import build_graph
    from deep_research.graph.builder import build_graph as defined

    assert build_graph is defined
    assert not hasattr(deep_research.graph, "graph")  # the served graph is the server's
