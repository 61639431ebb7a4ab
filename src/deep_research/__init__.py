"""A deep-research agent on LangGraph: a question in, a verified, cited report out.

``build_graph`` compiles the research graph with your own checkpointer, store, engine and
sources; the graph ``langgraph.json`` serves is ``deep_research.server.graph:graph``.

Importing the package, or any module of it, compiles nothing: ``build_graph`` (and LangGraph's
graph machinery with it) is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deep_research.graph.builder import build_graph

__all__ = ["build_graph"]


def __getattr__(name: str) -> Any:
    if name == "build_graph":
        from deep_research.graph.builder import build_graph

        return build_graph
    raise AttributeError(f"module 'deep_research' has no attribute {name!r}")
