"""The research graph's wiring: ``build_graph`` (builder.py), the researcher subgraph and routers.

Nothing is compiled on import. The graph ``langgraph.json`` serves is
``deep_research.server.graph:graph``.
"""

from deep_research.graph.builder import build_graph

__all__ = ["build_graph"]
