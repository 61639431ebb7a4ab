"""The research graph: ``graph`` (what langgraph.json serves) and ``build_graph``."""

from deep_research.graph.builder import build_graph

graph = build_graph()
"""Compiled without a checkpointer: the LangGraph server brings its own persistence."""

__all__ = ["build_graph", "graph"]
