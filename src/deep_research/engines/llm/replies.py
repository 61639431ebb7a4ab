"""Replies as real servers send them: cut short, without usage, or not at all.

A stand-in answers at once and always finishes; a real OpenAI-compatible server (llama.cpp,
vLLM, Ollama) may end a stream without a ``finish_reason`` (llama.cpp does when another
request interrupts it), close the connection mid-reply, or send no token usage while
streaming. This module makes each of those explicit:

* :func:`stopped_early`: a reply of an OpenAI-compatible endpoint that carries no
  ``finish_reason`` did not finish, whatever text it holds;
* :func:`complete`: one request, sent again (at most :data:`STREAM_RETRIES` times) when its
  reply stopped early or its connection broke, then an :class:`EngineError`; a stopped reply
  is never read as an empty or partial answer;
* :func:`counted`: the tokens of a reply, estimated from the text when the endpoint sent none,
  and counted as an estimate (:attr:`~deep_research.state.models.TokenUsage.estimated_calls`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, cast

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.runnables import Runnable

from deep_research.engines.llm.catalog import estimate_tokens
from deep_research.errors import EngineError
from deep_research.state.models import TokenUsage

STREAM_RETRIES = 2
"""Times a request whose reply stopped early (or whose connection broke) is sent again."""

_FINISHING_PROVIDERS = frozenset({"openai"})
"""``model_provider`` values of replies that always name why they ended when they end."""


class StoppedEarlyError(EngineError):
    """The endpoint's reply ended before the model finished, every time it was asked."""


def stopped_early(message: BaseMessage) -> bool:
    """True when a reply of an OpenAI-compatible endpoint ended without a ``finish_reason``.

    Such a reply was cut (by the server, another request or the connection): its text, if
    any, is a fragment. Replies of other integrations, which do not mark how they ended the
    same way, are taken as finished.
    """
    meta = message.response_metadata or {}
    return meta.get("model_provider") in _FINISHING_PROVIDERS and not meta.get("finish_reason")


async def complete(runnable: Runnable[Any, Any], messages: Sequence[BaseMessage]) -> BaseMessage:
    """Send ``messages`` and return the reply, again while it stops early or the link breaks.

    Raises:
        StoppedEarlyError: every reply stopped early.
        httpx.TransportError, openai.APIConnectionError: the connection broke every time
            (the caller's :func:`~deep_research.engines.llm.structured.provider_errors`
            translates it).
    """
    for attempt in range(STREAM_RETRIES + 1):
        try:
            reply = cast(BaseMessage, await runnable.ainvoke(list(messages)))
        except (httpx.TransportError, openai.APIConnectionError):
            if attempt == STREAM_RETRIES:
                raise
            continue
        if not stopped_early(reply):
            return reply
    raise StoppedEarlyError(
        f"the model endpoint ended its reply before the model finished, "
        f"{STREAM_RETRIES + 1} times (no finish_reason): is another client sharing a server "
        "that interrupts running requests?"
    )


def reply_text(message: BaseMessage) -> str:
    """What a reply says: its text and the arguments of its tool calls, as sent."""
    parts: list[str] = [str(message.text)]
    if isinstance(message, AIMessage):
        parts += [json.dumps(call["args"], ensure_ascii=False) for call in message.tool_calls]
        parts += [str(call.get("args") or "") for call in message.invalid_tool_calls]
    return "\n".join(part for part in parts if part)


def prompt_tokens(messages: Sequence[BaseMessage]) -> int:
    """The tokens of a prompt, estimated from its messages' text (and tool calls)."""
    return sum(estimate_tokens(reply_text(message)) + 4 for message in messages)


def counted(reply: BaseMessage, messages: Sequence[BaseMessage], *, calls: int = 1) -> TokenUsage:
    """The tokens of ``reply`` to ``messages``: as the endpoint reported them, else estimated.

    An estimate counts the prompt and the reply with
    :func:`~deep_research.engines.llm.catalog.estimate_tokens` (which errs high) and is marked in
    :attr:`~deep_research.state.models.TokenUsage.estimated_calls`, so that budgets still trip
    and reports say the counts are estimates.
    """
    metadata = reply.usage_metadata if isinstance(reply, AIMessage) else None
    if metadata is not None and (metadata.get("input_tokens") or metadata.get("output_tokens")):
        return TokenUsage(
            prompt_tokens=metadata.get("input_tokens", 0),
            completion_tokens=metadata.get("output_tokens", 0),
            calls=calls,
        )
    return TokenUsage(
        prompt_tokens=prompt_tokens(messages),
        completion_tokens=estimate_tokens(reply_text(reply)),
        calls=calls,
        estimated_calls=calls,
    )


async def stream_text(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    on_piece: Callable[[str], None] | None = None,
) -> tuple[str, TokenUsage]:
    """Stream a text reply, handing each piece to ``on_piece``; again while it stops early.

    A stream that ends without a ``finish_reason`` or whose connection breaks is asked again
    (at most :data:`STREAM_RETRIES` times; ``on_piece`` then sees the new reply from its
    start). Returns the text and its tokens (estimated when the endpoint sent none).

    Raises:
        StoppedEarlyError: every stream stopped early.
        httpx.TransportError, openai.APIConnectionError: the connection broke every time.
    """
    for attempt in range(STREAM_RETRIES + 1):
        pieces: list[str] = []
        merged: AIMessageChunk | None = None
        try:
            async for chunk in model.astream(list(messages)):
                piece = chunk.text
                if piece:
                    pieces.append(piece)
                    if on_piece is not None:
                        on_piece(piece)
                if isinstance(chunk, AIMessageChunk):
                    merged = chunk if merged is None else merged + chunk
        except (httpx.TransportError, openai.APIConnectionError):
            if attempt == STREAM_RETRIES:
                raise
            continue
        reply = merged if merged is not None else AIMessageChunk(content="")
        if not stopped_early(reply):
            text = "".join(pieces)
            return text, counted(
                AIMessage(content=text, usage_metadata=reply.usage_metadata), messages
            )
    raise StoppedEarlyError(
        f"the model endpoint ended its streamed reply before the model finished, "
        f"{STREAM_RETRIES + 1} times (no finish_reason)"
    )
