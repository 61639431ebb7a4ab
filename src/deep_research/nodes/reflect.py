"""reflect: after a round, continue (new steps), adjust (reworded steps) or complete."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.events import emit
from deep_research.nodes._steps import make_steps
from deep_research.services import Services, context_of
from deep_research.state import State

MAX_NEW_STEPS_PER_ROUND = 3


async def reflect(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Compare findings with the plan, within the depth's budget of rounds, steps and spending.

    Once the run's token or cost limit is reached, research stops, even mid-round.
    """
    await services.end_round(runtime)  # the researchers' records are the graph's now
    budget = state.run_config.budget
    reached = budget.reached(state.usage)
    if reached is not None:
        reason = f"{'token' if reached == 'tokens' else 'cost'} budget reached"
        emit(runtime, "reflection_decision", decision="complete", reasoning=reason)
        return {"budget_reached": reached}
    if state.round_open:
        return {}  # dispatch sends the round's remaining steps first
    room = min(MAX_NEW_STEPS_PER_ROUND, budget.max_steps * budget.max_rounds - len(state.plan))
    if state.round >= budget.max_rounds or room <= 0:
        emit(runtime, "reflection_decision", decision="complete", reasoning="budget reached")
        return {}
    reply = await services.engine_for(context_of(runtime)).reflect(
        state.research_question, state.plan, state.findings, room, brief=state.brief
    )
    decision = reply.value
    new_steps = []
    if decision.decision != "complete":
        new_steps = make_steps(
            decision.new_steps[:room], first_index=len(state.plan) + 1, round=state.round + 1
        )
    replaced = set(decision.replaces) if decision.decision == "adjust" and new_steps else set()
    emit(
        runtime,
        "reflection_decision",
        decision=decision.decision,
        reasoning=decision.reasoning,
        new_steps=[s.title for s in new_steps],
        replaces=decision.replaces,
    )
    # the n-th step replaced is reworded by the n-th new step (the last new one past them)
    successor = {
        step_id: new_steps[min(n, len(new_steps) - 1)].id
        for n, step_id in enumerate(r for r in decision.replaces if r in replaced)
    }
    plan = [
        s.model_copy(update={"replaced": True, "replaced_by": successor[s.id]})
        if s.id in replaced
        else s
        for s in state.plan
    ]
    unmet = [item.strip() for item in decision.unmet if item.strip()]
    return {"plan": [*plan, *new_steps], "unmet": unmet, "usage": reply.usage}
