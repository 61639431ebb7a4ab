"""ask_clarification: ask the clarifying question clarify decided on, with ``interrupt()``."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from deep_research.context import Context
from deep_research.persistence.recorder import Batch
from deep_research.persistence.records import (
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
)
from deep_research.services import DEFAULT_SERVICES, Services
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
            return parse_clarification_answer(interrupt(request.model_dump(mode="json")))
        except ValueError as exc:
            request = request.model_copy(update={"error": describe_error(exc)})


async def ask_clarification(
    state: State, runtime: Runtime[Context], *, services: Services = DEFAULT_SERVICES
) -> dict[str, Any]:
    """Pause with the question; resume with the answer (an empty answer proceeds as asked)."""
    question = state.clarifying_question
    answer = _answer(question)
    nr = state.question_nr
    answered = MessageRecord(MessageKind.CLARIFICATION_ANSWER, answer)
    resumed = SessionUpdate(status=SessionStatus.IN_PROGRESS)
    await services.record(
        runtime, nr, Batch(session=resumed, messages=[answered] if answer else [])
    )
    messages: list[BaseMessage] = [AIMessage(question)]
    if answer:
        messages.append(HumanMessage(answer))
    return {"clarification": answer, "clarifying_question": "", "messages": messages}
