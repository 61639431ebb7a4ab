"""A scripted chat model for tests (ECOSYSTEM.md §5, option B).

``ScriptedChatModel(responses=[...])`` answers each call with the next response: an
``AIMessage``, or a callable ``(messages, tools) -> AIMessage`` that can look at what it was
asked. Every call's messages are recorded in ``calls`` (and its keyword arguments, such as the
bound ``tools`` and ``tool_choice``, in ``call_kwargs``). ``bind_tools`` binds the converted tool
schemas, so ``with_structured_output`` works and parses :func:`structured` replies.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

Responder = Callable[[list[BaseMessage], list[dict[str, Any]] | None], AIMessage]
DEFAULT_USAGE = (100, 20)


def _usage(tokens: tuple[int, int]) -> UsageMetadata:
    return UsageMetadata(
        input_tokens=tokens[0], output_tokens=tokens[1], total_tokens=tokens[0] + tokens[1]
    )


def structured(
    schema_cls: type[BaseModel], *, usage: tuple[int, int] = DEFAULT_USAGE, **fields: Any
) -> AIMessage:
    """The tool-call reply that ``with_structured_output(schema_cls)`` parses into ``fields``."""
    return AIMessage(
        content="",
        tool_calls=[
            {"name": schema_cls.__name__, "args": fields, "id": f"call_{schema_cls.__name__}"}
        ],
        usage_metadata=_usage(usage),
    )


def invalid_json(
    schema_cls: type[BaseModel],
    raw_args: str = '{"broken": ',
    *,
    usage: tuple[int, int] = DEFAULT_USAGE,
) -> AIMessage:
    """A reply calling ``schema_cls`` with arguments that are not JSON."""
    return AIMessage(
        content="",
        invalid_tool_calls=[
            {
                "name": schema_cls.__name__,
                "args": raw_args,
                "id": "call_bad",
                "error": "invalid JSON",
                "type": "invalid_tool_call",
            }
        ],
        usage_metadata=_usage(usage),
    )


def text(content: str, *, usage: tuple[int, int] = DEFAULT_USAGE) -> AIMessage:
    """A plain text reply (no tool call)."""
    return AIMessage(content=content, usage_metadata=_usage(usage))


def _split(content: str, pieces: int = 3) -> list[str]:
    size = max(1, -(-len(content) // pieces))
    return [content[i : i + size] for i in range(0, len(content), size)] or [""]


class ScriptedChatModel(BaseChatModel):
    """Replies with ``responses`` in order; raises AssertionError when they run out."""

    responses: list[Any]
    """``AIMessage`` replies or ``Responder`` callables (typed ``Any``: pydantic cannot validate
    a union with a callable, because ``AIMessage``'s validator chokes on functions)."""
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_kwargs: list[dict[str, Any]] = Field(default_factory=list)
    stream_pieces: int = 3
    """How many chunks ``_stream`` splits a text reply into."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        index = len(self.calls)
        self.calls.append(list(messages))
        self.call_kwargs.append(dict(kwargs))
        if index >= len(self.responses):
            last = messages[-1].content if messages else ""
            raise AssertionError(
                f"ScriptedChatModel ran out of responses: call {index + 1} but only "
                f"{len(self.responses)} scripted; last message: {str(last)[:200]!r}"
            )
        response = self.responses[index]
        return response(list(messages), kwargs.get("tools")) if callable(response) else response

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages, kwargs))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._next(messages, kwargs)
        if message.tool_calls or message.invalid_tool_calls:
            calls = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(message.tool_calls)
            ] + [
                tool_call_chunk(name=c["name"], args=c["args"], id=c["id"], index=i)
                for i, c in enumerate(message.invalid_tool_calls, len(message.tool_calls))
            ]
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content=message.content,
                    tool_call_chunks=calls,
                    usage_metadata=message.usage_metadata,
                    chunk_position="last",
                )
            )
            return
        pieces = _split(message.text, self.stream_pieces)
        for position, piece in enumerate(pieces, 1):
            last = position == len(pieces)
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content=piece,
                    usage_metadata=message.usage_metadata if last else None,
                    chunk_position="last" if last else None,
                )
            )

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._stream(messages, stop, **kwargs):
            yield chunk

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(
            tools=[convert_to_openai_tool(tool) for tool in tools],
            tool_choice=tool_choice,
            **kwargs,
        )
