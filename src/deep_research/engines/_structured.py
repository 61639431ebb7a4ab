"""Helpers of the LLM engine: structured output with retries, token usage, provider errors."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from deep_research.errors import ConfigurationError, EngineError, StructuredOutputError
from deep_research.state.models import TokenUsage

S = TypeVar("S", bound=BaseModel)

MAX_ATTEMPTS = 3
"""Attempts at a structured output, the first included."""


@contextmanager
def provider_errors() -> Iterator[None]:
    """Translate errors of the OpenAI client into this package's errors, in one line.

    Raises:
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint could not be reached, timed out or answered with an error.
    """
    try:
        yield
    except openai.AuthenticationError as exc:
        raise ConfigurationError(
            "the model endpoint refused the API key (HTTP 401); check OPENAI_API_KEY "
            "and OPENAI_BASE_URL"
        ) from exc
    except openai.APITimeoutError as exc:
        raise EngineError("the model endpoint did not answer in time") from exc
    except openai.APIConnectionError as exc:
        raise EngineError(f"could not reach the model endpoint: {exc}") from exc
    except openai.APIStatusError as exc:
        raise EngineError(
            f"the model endpoint answered HTTP {exc.status_code}: {_first_line(exc.message)}"
        ) from exc
    except openai.APIError as exc:
        raise EngineError(f"the model endpoint failed: {_first_line(exc.message)}") from exc


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no detail"
    return line[:limit]


def usage_of(message: BaseMessage, *, calls: int = 1) -> TokenUsage:
    """Return the tokens a model reply (or reply chunk) reports, counted as ``calls`` calls."""
    metadata = message.usage_metadata if isinstance(message, AIMessage) else None
    if metadata is None:
        return TokenUsage(calls=calls)
    return TokenUsage(
        prompt_tokens=metadata.get("input_tokens", 0),
        completion_tokens=metadata.get("output_tokens", 0),
        calls=calls,
    )


def _problem(schema: type[BaseModel], raw: BaseMessage, error: BaseException | None) -> str:
    """Describe in one line what was wrong with a structured reply."""
    name = schema.__name__
    if isinstance(error, ValidationError):
        details = "; ".join(
            f"{'.'.join(str(part) for part in err['loc']) or name}: {err['msg']}"
            for err in error.errors()[:5]
        )
        return f"the arguments of {name} failed validation ({details})"
    if error is not None:
        return f"the call to {name} could not be parsed ({_first_line(str(error), 200)})"
    if isinstance(raw, AIMessage) and raw.invalid_tool_calls:
        return f"the arguments of {name} were not valid JSON"
    return f"the reply did not call {name}"


def _retry_messages(raw: BaseMessage, problem: str, name: str) -> list[BaseMessage]:
    """Return the failed reply and the messages that tell the model what to fix.

    Each tool call of the reply gets a tool message carrying the problem, as OpenAI-compatible
    endpoints require an answer to every tool call before the next human message.
    """
    ids: list[str | None] = []
    if isinstance(raw, AIMessage):
        ids = [call.get("id") for call in [*raw.tool_calls, *raw.invalid_tool_calls]]
    tool_messages: list[BaseMessage] = [
        ToolMessage(content=f"Error: {problem}.", tool_call_id=call_id, status="error")
        for call_id in ids
        if call_id
    ]
    retry = HumanMessage(
        content=f"Your last reply was not usable: {problem}. "
        f"Call {name} again with arguments that match its schema."
    )
    return [raw, *tool_messages, retry]


Runnables = MutableMapping[type[BaseModel], Runnable[Any, Any]]
"""Structured-output runnables of one model, by schema (built once: building one converts the
schema to a tool and binds it, which costs more than it looks on every call)."""


async def invoke_structured(
    model: BaseChatModel,
    schema: type[S],
    messages: Sequence[BaseMessage],
    runnables: Runnables | None = None,
) -> tuple[S, TokenUsage]:
    """Ask ``model`` for a ``schema`` by function calling, retrying malformed replies.

    A reply without the tool call, or with arguments that do not validate, is sent back with a
    message naming the problem, up to :data:`MAX_ATTEMPTS` attempts in all.

    Args:
        model: The chat model.
        schema: The pydantic class the reply must fill.
        messages: The conversation so far.
        runnables: The model's runnables already built, reused and added to.

    Returns:
        The parsed value and the tokens of every attempt.

    Raises:
        StructuredOutputError: no attempt produced a valid ``schema``.
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint failed.
    """
    runnable = runnables.get(schema) if runnables is not None else None
    if runnable is None:
        runnable = model.with_structured_output(schema, method="function_calling", include_raw=True)
        if runnables is not None:
            runnables[schema] = runnable
    conversation = list(messages)
    usage = TokenUsage()
    problem = ""
    for _ in range(MAX_ATTEMPTS):
        with provider_errors():
            result = cast(dict[str, Any], await runnable.ainvoke(conversation))
        raw = cast(BaseMessage, result["raw"])
        usage += usage_of(raw)
        parsed = result.get("parsed")
        error = cast(BaseException | None, result.get("parsing_error"))
        if error is None and isinstance(parsed, schema):
            return parsed, usage
        problem = _problem(schema, raw, error)
        conversation += _retry_messages(raw, problem, schema.__name__)
    raise StructuredOutputError(
        f"the model returned no valid {schema.__name__} in {MAX_ATTEMPTS} attempts: {problem}"
    )
