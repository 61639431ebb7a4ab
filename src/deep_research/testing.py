"""Fakes for tests and benchmarks: chat models that answer without a model behind them.

:class:`FakeToolChatModel` is the part every fake chat model of this project shares: it binds
tools as OpenAI schemas (what ``with_structured_output(..., method="function_calling")`` needs)
and streams a finished ``AIMessage`` the way an OpenAI-compatible endpoint does, text in pieces
and tool calls in one chunk, with the usage on the last chunk. Subclasses decide what the reply
is (a script, a simulation) in :meth:`FakeToolChatModel.reply`; one that waits or counts
overrides the generating methods themselves.
"""

from __future__ import annotations

import asyncio
import json
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool


def split_text(text: str, pieces: int) -> list[str]:
    """``text`` in at most ``pieces`` consecutive parts of equal size (one empty part if empty)."""
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def message_chunks(message: AIMessage, pieces: int) -> Iterator[ChatGenerationChunk]:
    """Stream ``message``: its tool calls (valid and not) in one chunk, else its text in pieces."""
    if message.tool_calls or message.invalid_tool_calls:
        valid = [
            tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
            for i, c in enumerate(message.tool_calls)
        ]
        invalid = [
            tool_call_chunk(name=c["name"], args=c["args"], id=c["id"], index=i)
            for i, c in enumerate(message.invalid_tool_calls, len(message.tool_calls))
        ]
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content=message.content,
                tool_call_chunks=[*valid, *invalid],
                usage_metadata=message.usage_metadata,
                chunk_position="last",
            )
        )
        return
    parts = split_text(message.text, pieces)
    for position, part in enumerate(parts, 1):
        last = position == len(parts)
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content=part,
                usage_metadata=message.usage_metadata if last else None,
                chunk_position="last" if last else None,
            )
        )


class FakeToolChatModel(BaseChatModel):
    """A chat model base that binds tools as OpenAI schemas; subclasses produce the replies."""

    stream_pieces: int = 3
    """How many chunks a streamed text reply is split into."""
    piece_seconds: float = 0.0
    """How long an async stream waits before each chunk after the first (a model that takes
    time to write, so that work beside the writing can land while it writes)."""
    answer_seconds: float = 0.0
    """How long an async call that is not streamed waits before it answers."""

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind ``tools`` converted to OpenAI function schemas, as ``ChatOpenAI`` sends them."""
        return self.bind(
            tools=[convert_to_openai_tool(tool) for tool in tools],
            tool_choice=tool_choice,
            **kwargs,
        )

    @abstractmethod
    def reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        """The reply to ``messages``; ``kwargs`` are the call's (``tools``: the bound schemas)."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self.reply(messages, kwargs)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.answer_seconds:
            await asyncio.sleep(self.answer_seconds)
        return self._generate(messages, stop, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from message_chunks(self.reply(messages, kwargs), self.stream_pieces)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for n, chunk in enumerate(self._stream(messages, stop, **kwargs)):
            if n and self.piece_seconds:
                await asyncio.sleep(self.piece_seconds)
            yield chunk
