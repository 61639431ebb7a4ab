"""The house's layout: what bench/ may import, no import circle in bench/, a short top level.

import-linter checks the package (pyproject's contracts) but only modules under its root
package; bench/ is not one, so these tests read bench's imports with :mod:`ast`.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import deep_research

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

PUBLIC = {
    # the package faces: each package's __init__ re-exports its public names
    "deep_research",
    "deep_research.cli",
    "deep_research.engines",
    "deep_research.engines.llm",
    "deep_research.graph",
    "deep_research.persistence",
    "deep_research.report",
    "deep_research.server",
    "deep_research.sources",
    "deep_research.sources.web",
    "deep_research.state",
    "deep_research.text",
    "deep_research.verification",
    # the cross-cutting modules of the top level
    "deep_research.context",
    "deep_research.errors",
    "deep_research.events",
    "deep_research.settings",
    "deep_research.testing",
    # documented modules: the engine's typed answers (docs/architecture.md), the local
    # corpus's file formats and index (docs/configuration.md)
    "deep_research.engines.schemas",
    "deep_research.sources.local",
}
"""The modules bench/ may import, and only their public names (``__all__`` where defined)."""

BENCH_NEEDS = {
    # the orchestration section measures the graph with and without the compute worker
    "deep_research.worker",
    # the verifier's threshold search sets the offline checker's thresholds in place
    "deep_research.verification.alignment",
    "deep_research.verification.checks",
}
"""Modules beyond the public ones that bench/ truly needs, each for the reason given."""

TOP_LEVEL = {
    "_exports",
    "cli",
    "context",
    "engines",
    "errors",
    "events",
    "graph",
    "ids",
    "langgraph_internals",
    "nodes",
    "persistence",
    "report",
    "schemas",
    "server",
    "services",
    "settings",
    "sources",
    "state",
    "testing",
    "text",
    "urls",
    "verification",
    "worker",
}
"""The top level of the package: its packages and the few truly cross-cutting modules."""


def _bench_files() -> Iterator[Path]:
    for path in sorted(BENCH.rglob("*.py")):
        if not any(part.startswith(".") for part in path.relative_to(BENCH).parts):
            yield path


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[tuple[str, str | None, int]]:
    """(module, imported name or None, line) of every import in the file, nested ones too."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.module, alias.name, node.lineno


def _is_public(module: str, name: str | None) -> bool:
    if module in BENCH_NEEDS:
        return True
    if module not in PUBLIC:
        return False
    if name is None or f"{module}.{name}" in PUBLIC | BENCH_NEEDS:
        return True
    exported = getattr(importlib.import_module(module), "__all__", None)
    return name in exported if exported is not None else not name.startswith("_")


def test_bench_imports_only_the_public_api() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {module}" + (f" import {name}" if name else "")
        for path in _bench_files()
        for module, name, line in _imports(path)
        if module.split(".")[0] == "deep_research" and not _is_public(module, name)
    ]
    assert not wrong, "bench/ imports internals; export them from a package face:\n" + "\n".join(
        wrong
    )


def test_the_public_list_names_modules_that_exist() -> None:
    for module in PUBLIC | BENCH_NEEDS:
        importlib.import_module(module)


def test_bench_has_no_import_circle() -> None:
    modules = {_module_of(path): path for path in _bench_files()}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for imported, name, _ in _imports(path):
            if name is not None and f"{imported}.{name}" in modules:
                targets.add(f"{imported}.{name}")
            elif imported in modules:
                targets.add(imported)
        graph[module] = targets - {module}
    circles: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            circles.append([*trail[trail.index(module) :], module])
            return
        if module in done:
            return
        for target in sorted(graph.get(module, ())):
            # a package's __init__ runs before its modules: importing the package is no edge back
            if not module.startswith(f"{target}."):
                visit(target, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert not circles, "import circles in bench/: " + "; ".join(" -> ".join(c) for c in circles)


def test_the_top_level_holds_the_packages_and_few_cross_cutting_modules() -> None:
    path = Path(deep_research.__file__).parent
    found = {m.name for m in pkgutil.iter_modules([str(path)])}
    new, gone = sorted(found - TOP_LEVEL), sorted(TOP_LEVEL - found)
    assert not new and not gone, (
        "a new top-level module belongs in the package named for what it does "
        f"(docs/architecture.md); new: {new}, gone: {gone}"
    )
