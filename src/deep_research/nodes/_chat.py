"""Reading the chat: the question is the last human message, earlier turns are context."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AnyMessage

from deep_research.context import validate_question
from deep_research.engines import Turn
from deep_research.errors import InvalidQuestionError
from deep_research.nodes._progress import is_progress
from deep_research.report.chat import chat_plain

MAX_HISTORY_TURNS = 6


def split_chat(messages: Sequence[AnyMessage]) -> tuple[str, list[Turn]]:
    """Return the last human message's text and the earlier turns (most recent last).

    Raises:
        InvalidQuestionError: there is no human message, or its text is empty or too long.
    """
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].type == "human"), None)
    if last is None:
        raise InvalidQuestionError("the input has no human message to research")
    question = validate_question(messages[last].text)
    history: list[Turn] = []
    for message in messages[:last]:
        if is_progress(message):  # a progress line left by a run that failed
            continue
        if message.type in ("human", "ai") and message.text.strip():
            if message.type == "human":
                history.append(("user", message.text))
            else:  # a report's chat copy escapes $ and ~ for chat front ends: undone here
                history.append(("assistant", chat_plain(message.text)))
    return question, history[-MAX_HISTORY_TURNS:]
