"""title_chat: the engine names a new chat after its first question.

It runs beside the node that follows clarify (plan, or ask_clarification), so the title costs
no wait on the way to the report. Follow-up questions keep the chat's title.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.services import Services, context_of
from deep_research.state import State
from deep_research.text.inert import inert_title


async def title_chat(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Have the engine title the chat from its first question, and record the title."""
    reply = await services.engine_for(context_of(runtime)).title(state.question)
    title = inert_title(reply.value)  # model-written: shown in terminals and viewers
    return {"title": title, "usage": reply.usage}
