"""clarify: start a new question, and decide whether it needs a clarifying question.

The question itself is asked by the next node, ask_clarification, so that resuming the
interrupt re-runs only the asking: the engine's decision is taken once and kept in state. The
question goes into the chat here, as an AI message, so that a client that shows only messages
shows it while the run waits.

A chat client may answer by sending the reply as a new message instead of resuming the pause
(agent-chat-ui does when the pause is not its own kind): LangGraph then starts a new run from
the start and drops the pause. A pending question (``clarifying_question`` still set) means the
new message is its answer, taken as a resume would take it, not a new question.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from deep_research.context import Context
from deep_research.engines import Turn
from deep_research.events import emit
from deep_research.nodes._chat import split_chat
from deep_research.services import Services, context_of
from deep_research.sources.pool import extend_pool
from deep_research.state import Requirements, State, TokenUsage, VerificationSummary
from deep_research.text.inert import inert_text


def _fresh_question(question: str, history: list[Turn]) -> dict[str, Any]:
    """Reset the working memory of the previous question in this thread."""
    return {
        "question": question,
        "history": history,
        "clarifying_question": "",
        "clarification": "",
        "config": None,
        "brief": "",
        "requirements": Requirements(),
        "unmet": [],
        "plan": [],
        "dispatched": [],
        "active": [],
        "round": 0,
        "findings": Overwrite([]),
        "sources": Overwrite([]),
        "evidence": Overwrite([]),
        "usage": Overwrite(TokenUsage()),
        "draft": Overwrite(""),
        "claims": Overwrite([]),
        "verification": VerificationSummary(),
        "revisions": 0,
        "unchanged_rewrites": [],
        "budget_reached": None,
        "report": Overwrite(None),
        "started_at": time.time(),
    }


def _answered(state: State) -> dict[str, Any]:
    """The last human message answers the pending clarifying question (see the module)."""
    answer, _ = split_chat(state.messages)
    return {"clarification": answer, "clarifying_question": ""}


async def clarify(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Take the last human message as the question; decide whether to ask about it.

    While a clarifying question is pending, the message is its answer instead.
    """
    if state.clarifying_question:
        return _answered(state)
    question, history = split_chat(state.messages)
    context = context_of(runtime)
    nr = state.question_nr + 1
    update = _fresh_question(question, history) | {
        "run_context": asdict(context),
        "question_nr": nr,
        "pool": extend_pool(state.pool, state.sources),
    }
    # first, so that the event carries the new session's ids
    await services.start_question(runtime, nr, question, context.mode)
    emit(runtime, "research_started", question=question, mode=context.mode, depth=context.depth)
    if context.mode == "simple" or not context.allow_clarification:
        return update
    reply = await services.engine_for(context).clarify(question, history)
    update["usage"] = Overwrite(reply.usage)
    if not reply.value.needs_clarification:
        return update
    asking = inert_text(reply.value.question)  # model-written: shown, stored, in the thread
    emit(runtime, "clarification_requested", question=asking)
    update["clarifying_question"] = asking
    update["messages"] = [AIMessage(asking)]
    return update
