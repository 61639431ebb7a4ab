"""A deep-research agent on LangGraph: a question in, a verified, cited report out.

``graph`` is the compiled graph that langgraph.json serves; ``build_graph`` compiles one with
your own checkpointer, engine and sources.
"""

from deep_research.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
