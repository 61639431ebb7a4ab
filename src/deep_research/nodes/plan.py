"""plan: a research brief and steps, and the budget the run will keep to."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context, resolve_config
from deep_research.engines.schemas import StepDraft
from deep_research.events import emit
from deep_research.nodes._steps import make_steps
from deep_research.services import Services, context_of
from deep_research.state import State
from deep_research.state.models import DEPTH_BUDGETS, concrete_depth


async def plan(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Plan the research (one step in ``web_search`` mode, none in ``simple`` mode)."""
    context = context_of(runtime)
    engine = services.engine_for(context)
    source_names = [s.name for s in await services.sources_for(context)]
    question = state.research_question
    depth: str = context.depth if context.mode == "deep_research" else "light"
    update: dict[str, Any] = {"brief": question}
    drafts = [StepDraft(title=question, intent=question)] if context.mode == "web_search" else []
    complexity: str | None = None
    if context.mode == "deep_research":
        # auto plans within the largest budget it can resolve to; the plan is then cut to
        # the budget the question's complexity resolves it to
        max_steps = DEPTH_BUDGETS[concrete_depth(depth, "complex")].max_steps
        reply = await engine.plan(question, state.turns, max_steps)
        complexity = reply.value.complexity
        depth = concrete_depth(depth, complexity)
        drafts = reply.value.steps
        update = {
            "brief": reply.value.brief,
            "requirements": reply.value.requirements,
            "usage": reply.usage,
        }
    config = resolve_config(
        context,
        depth=depth,
        engine=engine.name,
        sources=source_names,
        extractive=engine.extractive,
    )
    drafts = drafts[: config.budget.max_steps]
    steps = make_steps(drafts, first_index=1, round=1)
    emit(
        runtime,
        "plan_created",
        brief=update["brief"],
        depth=config.depth,
        complexity=complexity,
        steps=[{"id": s.id, "title": s.title} for s in steps],
    )
    return update | {"plan": steps, "config": config}
