"""ask_clarification: ask the clarifying question clarify decided on, with ``interrupt()``.

clarify has already put the question in the chat (an AI message), so that chat clients show it
while the run waits; the answer, when there is one, is added here as the human's message.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from deep_research.context import Context
from deep_research.services import Services
from deep_research.state import State
from deep_research.state.interrupts import (
    ClarificationRequest,
    describe_error,
    parse_clarification_answer,
)


def _answer(question: str) -> str:
    """Interrupt with the question until the resume value is a valid answer; return its text."""
    request = ClarificationRequest(question=question)
    while True:
        try:
            return parse_clarification_answer(interrupt(request.payload()))
        except ValueError as exc:
            request = request.model_copy(update={"error": describe_error(exc)})


async def ask_clarification(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Pause with the question; resume with the answer (an empty answer proceeds as asked)."""
    question = state.clarifying_question
    answer = _answer(question)
    messages: list[BaseMessage] = []
    if not _in_chat(state, question):  # a thread paused before clarify put it there
        messages.append(AIMessage(question))
    if answer:
        messages.append(HumanMessage(answer))
    return {"clarification": answer, "clarifying_question": "", "messages": messages}


def _in_chat(state: State, question: str) -> bool:
    """Whether the chat's last message is the question (clarify adds it when it asks)."""
    last = state.messages[-1] if state.messages else None
    return last is not None and last.type == "ai" and last.text == question
