"""The graph that ``langgraph dev --config bench/langgraph.json`` serves for the server section.

Our graph on the simulation: a simulated model and search with the same latencies as the
orchestration section, a 4-step plan. Compiled without a checkpointer, as the server brings
its own. The tokenizer is loaded here, at import, so that no node reads a file.
"""

from __future__ import annotations

from bench import agent
from bench.sim import tokens
from bench.sim.model import SimulatedChatModel
from bench.sim.responder import Scenario
from bench.sim.search import SimulatedSearch

PLAN_STEPS = 4
LATENCY = {"model": 0.3, "search": 0.15, "read": 0.1}

tokens.encoding()
graph = agent.graph_for(
    SimulatedChatModel(scenario=Scenario(plan_steps=PLAN_STEPS), latency=LATENCY["model"]),
    [SimulatedSearch(LATENCY["search"], LATENCY["read"])],
    checkpointer=None,
)
