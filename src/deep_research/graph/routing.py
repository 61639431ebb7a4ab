"""Routers: pure functions of state that pick the next node(s)."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from deep_research.state import ResearcherState, ResearcherTask, State
from deep_research.state.revision import revision_due

MAX_RESEARCH_ITERATIONS = 2
"""Query rounds one researcher may run before it reports what it has."""


def route_after_clarify(
    state: State,
) -> list[Literal["ask_clarification", "plan", "title_chat"]]:
    """Ask the clarifying question when clarify decided on one, else plan; title a new chat.

    The title is written beside the next node, on a chat's first question only. A message
    that answered a pending question (``clarification`` set by clarify) goes on to plan: the
    chat was titled when the question was asked.
    """
    if state.clarification:
        return ["plan"]
    after: Literal["ask_clarification", "plan"] = (
        "ask_clarification" if state.clarifying_question else "plan"
    )
    return [after, "title_chat"] if state.question_nr == 1 else [after]


def route_after_plan(state: State) -> Literal["review_plan", "synthesize"]:
    """Research when there is a plan; ``simple`` mode has none and answers directly."""
    return "review_plan" if state.plan else "synthesize"


def route_after_dispatch(state: State) -> list[Send] | Literal["reflect"]:
    """One ``Send`` to the researcher subgraph per step of the current batch."""
    steps = {s.id: s for s in state.plan}
    sends = [
        Send(
            "researcher",
            ResearcherTask(
                step=steps[i],
                question=state.research_question,
                config=state.run_config,
                question_nr=state.question_nr,
                pool=state.pool,
            ),
        )
        for i in state.active
        if i in steps
    ]
    return sends or "reflect"


def route_after_reflect(state: State) -> Literal["dispatch", "synthesize"]:
    """Dispatch while steps are open and the run's spending limits allow; else write."""
    return "dispatch" if state.round_open and not state.budget_reached else "synthesize"


def route_after_synthesize(state: State) -> Literal["verify", "finalize"]:
    """Verify the draft, unless the run's ``verify`` setting is off or it is a direct answer.

    A direct answer (``simple`` mode) cites nothing.
    """
    skip = state.run_config.mode == "simple" or not state.run_config.verify
    return "finalize" if skip else "verify"


def route_after_verify(state: State) -> Literal["revise", "finalize"]:
    """Revise while some claim needs it and the budget allows (see :func:`revision_due`)."""
    if revision_due(state.claims, state.revisions, state.run_config.budget.max_revisions):
        return "revise"
    return "finalize"


def route_after_notes(state: ResearcherState) -> Literal["generate_queries", "__end__"]:
    """Search again when the evidence was not enough and the budget allows."""
    if not state.findings or state.findings[-1].sufficient:
        return "__end__"
    if state.iteration >= MAX_RESEARCH_ITERATIONS:
        return "__end__"
    return "generate_queries"
