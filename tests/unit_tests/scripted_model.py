"""A scripted chat model for tests (ECOSYSTEM.md §5, option B).

``ScriptedChatModel(responses=[...])`` answers each call with the next response: an
``AIMessage``, or a callable ``(messages, tools) -> AIMessage`` that can look at what it was
asked. Every call's messages are recorded in ``calls`` (and its keyword arguments, such as the
bound ``tools`` and ``tool_choice``, in ``call_kwargs``). ``bind_tools`` binds the converted tool
schemas and replies stream like an endpoint's (both from
:class:`~deep_research.testing.FakeToolChatModel`), so ``with_structured_output`` works and
parses :func:`structured` replies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from pydantic import BaseModel, Field

from deep_research.testing import FakeToolChatModel

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


class ScriptedChatModel(FakeToolChatModel):
    """Replies with ``responses`` in order; raises AssertionError when they run out."""

    responses: list[Any]
    """``AIMessage`` replies or ``Responder`` callables (typed ``Any``: pydantic cannot validate
    a union with a callable, because ``AIMessage``'s validator chokes on functions)."""
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    call_kwargs: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        """The next scripted response (a callable one is called with the messages and tools)."""
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
