"""The nodes of the main graph and of the researcher subgraph, one module per node."""

from deep_research.nodes._progress import with_progress
from deep_research.nodes.ask_clarification import ask_clarification
from deep_research.nodes.clarify import clarify
from deep_research.nodes.dispatch import dispatch
from deep_research.nodes.finalize import finalize
from deep_research.nodes.generate_queries import generate_queries
from deep_research.nodes.plan import plan
from deep_research.nodes.read_sources import read_sources
from deep_research.nodes.reflect import reflect
from deep_research.nodes.review_plan import review_plan
from deep_research.nodes.revise import revise
from deep_research.nodes.search_sources import search_sources
from deep_research.nodes.synthesize import synthesize
from deep_research.nodes.take_notes import take_notes
from deep_research.nodes.title_chat import title_chat
from deep_research.nodes.verify import verify

__all__ = [
    "ask_clarification",
    "clarify",
    "dispatch",
    "finalize",
    "generate_queries",
    "plan",
    "read_sources",
    "reflect",
    "review_plan",
    "revise",
    "search_sources",
    "synthesize",
    "take_notes",
    "title_chat",
    "verify",
    "with_progress",
]
