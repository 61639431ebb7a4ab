"""A progress line in the chat, for clients that show only messages.

The run's typed progress events go out on ``stream_mode="custom"``, which the CLI, Studio and
the web app render; a chat client such as agent-chat-ui renders only messages (and LangGraph's
generative-UI messages, whose components a server must build and serve as JavaScript) and shows
a typing indicator for the minutes a run takes. So the main graph's nodes also keep one short
AI message up to date: the **progress message** of the question, ``id`` ``progress-<nr>`` and
``name`` ``"progress"``, written after the question (or its clarification), replaced in place
as the run goes on ("Planned 5 research steps: ...", "Researching 3 steps: ...", "Checked 25
claims: ...") and removed by finalize, which adds the report in its place.

So it is in the state's ``messages`` (the ``values`` stream, and the ``messages`` stream as it
is written) while the run works, never in the report, and not in the chat a follow-up question
reads: finalize removes it, and :func:`deep_research.nodes._chat.split_chat` skips one left by a
run that failed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, RemoveMessage
from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.state import State, VerificationSummary

PROGRESS_NAME = "progress"
"""The ``name`` of progress messages."""

MAX_TITLES = 4
"""Step titles named in one line; more are counted."""

Node = Callable[..., Awaitable[dict[str, Any]]]
"""A node as :func:`deep_research.services.recording` returns it."""


def progress_id(question_nr: int) -> str:
    """The id of the progress message of question ``question_nr`` of the chat."""
    return f"progress-{question_nr}"


def is_progress(message: BaseMessage) -> bool:
    """Whether ``message`` is a progress message (not part of the conversation)."""
    return message.type == "ai" and message.name == PROGRESS_NAME


def _titles(titles: Sequence[str]) -> str:
    shown = "; ".join(titles[:MAX_TITLES])
    more = len(titles) - MAX_TITLES
    return f"{shown}; and {more} more" if more > 0 else shown


def _steps(count: int) -> str:
    return f"{count} research step{'' if count == 1 else 's'}"


def _verified(summary: VerificationSummary) -> str:
    if not summary.total:
        return "No claim could be checked against the evidence; finishing the report."
    return (
        f"Checked {summary.total} claims against the quoted evidence: {summary.supported}"
        f" supported, {summary.partial} partly, {summary.unsupported + summary.contradicted}"
        " not supported."
    )


def progress_note(node: str, state: State, update: dict[str, Any]) -> str | None:
    """The progress line after ``node`` returned ``update`` (``None``: nothing to say)."""
    if node == "plan" and update.get("plan"):
        plan = update["plan"]
        return f"Planned {_steps(len(plan))}: {_titles([s.title for s in plan])}."
    if node == "dispatch" and update.get("active"):
        steps = {s.id: s.title for s in state.plan}
        titles = [steps[i] for i in update["active"] if i in steps]
        return f"Researching {_steps(len(titles))}: {_titles(titles)}."
    if node == "reflect":
        added = len(update.get("plan", state.plan)) - len(state.plan)
        found = f"{len(state.sources)} sources read, {len(state.findings)} steps answered"
        return f"{found}; {_steps(added)} added." if added > 0 else f"{found}."
    if node == "synthesize":
        return "Wrote the draft; checking its claims against the quoted evidence."
    if node == "verify" and isinstance(update.get("verification"), VerificationSummary):
        return _verified(update["verification"])
    if node == "revise":
        return "Revised what the evidence did not support; checking again."
    return None


def _has(messages: Sequence[AnyMessage], message_id: str) -> bool:
    return any(m.id == message_id for m in messages)


def with_progress(node: Node) -> Node:
    """``node`` (a main-graph node) updating the progress message as it returns.

    finalize removes the message instead (before the report it adds).
    """
    name = node.__name__

    async def run(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        update = await node(state, runtime)
        message_id = progress_id(update.get("question_nr", state.question_nr))
        written: list[BaseMessage] = list(update.get("messages", []))
        if name == "finalize":
            if not _has(state.messages, message_id):
                return update
            return update | {"messages": [RemoveMessage(id=message_id), *written]}
        note = progress_note(name, state, update)
        if note is None:
            return update
        line = AIMessage(note, id=message_id, name=PROGRESS_NAME)
        return update | {"messages": [*written, line]}

    run.__name__ = name
    return run
