"""Helpers of the LLM engine: structured output that survives the model, usage, provider errors.

:func:`attempt_structured` asks a chat model for a pydantic ``schema`` and holds the answer to
two checks: the schema itself, then the caller's ``check`` (ids that exist, keys in range,
quotes verbatim, counts within bounds). Any failure, whatever its kind, is sent back to the
model once or twice with what was wrong:

* a tool call whose arguments are not JSON, or miss fields (extra fields are ignored);
* a reply cut off at the output limit (``finish_reason=length``);
* a refusal, an empty reply, or text instead of the tool call (text holding the JSON object
  is accepted as it is: servers without tool calling often answer that way);
* an answer that fails ``check``.

Then, in ``auto`` mode, when no reply even fit the schema, the same is asked in JSON mode: no
tools, the schema in the prompt, the object parsed from the text; ``json`` mode asks that way
from the start (for servers without tool calling), ``tools`` never does. What no attempt could
produce is an :class:`Attempt` without a value: the engine falls back (see
:mod:`deep_research.engines.llm.engine`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import httpx
import openai
from langchain_core import exceptions as lc_errors
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from deep_research.engines.llm import prompts
from deep_research.engines.llm.catalog import clip
from deep_research.engines.llm.replies import complete, counted, reply_text
from deep_research.errors import (
    ConfigurationError,
    ContextOverflowError,
    EngineError,
    StructuredOutputError,
)
from deep_research.state.models import TokenUsage

S = TypeVar("S", bound=BaseModel)

StructuredMode = Literal["tools", "json", "auto"]
"""How structured answers are asked for: by tool calling, by JSON in text, or tools first."""

MAX_ATTEMPTS = 3
"""Attempts at a structured output by tool calling, the first included."""

JSON_ATTEMPTS = 2
"""Attempts in JSON mode (after tool calling failed in ``auto`` mode), the first included."""

Check = Callable[[Any], Sequence[str]]
"""What is wrong with a parsed answer, beyond its schema: one line per problem, none if usable."""

_THINKING = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.S | re.I)
_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


class _ToolsRefused(EngineError):
    """The endpoint rejected the request because it does not support tool calling."""


@contextmanager
def provider_errors() -> Iterator[None]:
    """Translate errors of model clients into this package's errors, in one line.

    OpenAI's client errors come first (the OpenAI-compatible path); then LangChain's
    provider-neutral ``ModelError`` classes, which other integrations raise; then transport
    errors of clients that raise them as they are; then any other error of a provider's own
    client (:data:`PROVIDER_CLIENT_ERRORS`). Anything else is a bug, and propagates as it is.

    Raises:
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint could not be reached, timed out or answered with an error.
    """
    try:
        yield
    except lc_errors.ContextOverflowError as exc:
        raise ContextOverflowError(
            f"the prompt exceeded the model's context window: {exc}"
        ) from exc
    except (openai.AuthenticationError, lc_errors.ModelAuthenticationError) as exc:
        raise ConfigurationError(
            "the model endpoint refused the API key (HTTP 401); check the provider's key "
            "(OPENAI_API_KEY for OpenAI-compatible endpoints) and OPENAI_BASE_URL"
        ) from exc
    except (openai.APITimeoutError, lc_errors.ModelTimeoutError, httpx.TimeoutException) as exc:
        raise EngineError("the model endpoint did not answer in time") from exc
    except TimeoutError as exc:  # langchain-openai's StreamChunkTimeoutError: a stalled stream
        raise EngineError(
            f"the model endpoint stopped sending its reply: {_first_line(str(exc), 120)}"
        ) from exc
    except (openai.APIConnectionError, lc_errors.ModelConnectionError, httpx.TransportError) as exc:
        raise EngineError(f"could not reach the model endpoint: {_first_line(str(exc))}") from exc
    except openai.APIStatusError as exc:
        raise _status_error(exc.status_code, exc.message) from exc
    except (openai.APIError, lc_errors.ModelError) as exc:
        raise EngineError(f"the model endpoint failed: {_first_line(str(exc))}") from exc
    except provider_client_errors() as exc:
        raise EngineError(
            f"the model endpoint failed: {type(exc).__name__}: {_first_line(str(exc))}"
        ) from exc


PROVIDER_CLIENT_ERRORS = (
    ("openai", "OpenAIError"),
    ("anthropic", "APIError"),
    ("groq", "APIError"),
    ("ollama", "ResponseError"),
    ("ollama", "RequestError"),
    ("mistralai.models", "SDKError"),
    ("google.api_core.exceptions", "GoogleAPIError"),
    ("google.genai.errors", "APIError"),
    ("botocore.exceptions", "BotoCoreError"),
    ("botocore.exceptions", "ClientError"),
)
"""``(module, class)``: the base errors of provider clients, which not every LangChain
integration maps to ``ModelError``; each is translated into :class:`EngineError`."""


def provider_client_errors() -> tuple[type[Exception], ...]:
    """The base errors of the provider clients this process has loaded.

    None is imported here: a client that is not loaded raised nothing.
    """
    found: list[type[Exception]] = []
    for module, name in PROVIDER_CLIENT_ERRORS:
        error = getattr(sys.modules.get(module), name, None)
        if isinstance(error, type) and issubclass(error, Exception):
            found.append(error)
    return tuple(found)


_OVERFLOW = re.compile(
    r"context (?:length|window|size)|maximum context|too many tokens|prompt is too long"
    r"|exceeds? the (?:model's )?(?:context|maximum)",
    re.I,
)


def _status_error(status: int, message: str) -> EngineError:
    text = f"the model endpoint answered HTTP {status}: {_first_line(message)}"
    if status in (400, 413, 422) and _OVERFLOW.search(message):
        return ContextOverflowError(text)
    if status in (400, 404, 422, 501) and "tool" in message.lower():
        return _ToolsRefused(text)
    return EngineError(text)


def _first_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no detail"
    return line[:limit]


def truncated(message: BaseMessage) -> bool:
    """True when the reply stopped at the output token limit (OpenAI, Anthropic, Ollama)."""
    meta = message.response_metadata or {}
    reasons = (meta.get("finish_reason"), meta.get("stop_reason"), meta.get("done_reason"))
    return any(reason in ("length", "max_tokens", "MAX_TOKENS") for reason in reasons)


def refusal(message: BaseMessage) -> str | None:
    """The refusal a reply carries (OpenAI's ``refusal`` field or a content filter), if any."""
    if not isinstance(message, AIMessage):
        return None
    text = message.additional_kwargs.get("refusal")
    if text:
        return str(text)
    if (message.response_metadata or {}).get("finish_reason") == "content_filter":
        return "the provider's content filter stopped the reply"
    return None


@dataclass
class Attempt(Generic[S]):
    """What asking for a structured answer gave: the value, or the last problem."""

    value: S | None = None
    """The answer, valid against the schema and the check; ``None`` when no attempt gave one."""
    draft: S | None = None
    """The last answer that fit the schema but failed the check (callers may salvage it)."""
    problem: str = ""
    """What was wrong with the last attempt."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    attempts: int = 0
    mode: Literal["tools", "json"] = "tools"
    """The mode of the last attempt."""

    def unwrap(self, name: str) -> S:
        """The value, or a :class:`StructuredOutputError` naming the schema and the problem."""
        if self.value is None:
            raise StructuredOutputError(
                f"the model returned no valid {name} in {self.attempts} attempts: {self.problem}"
            )
        return self.value


@dataclass(frozen=True)
class _Read(Generic[S]):
    """One reply read against the schema and the check."""

    value: S | None
    draft: S | None
    problem: str


def _validation_problem(schema: type[BaseModel], error: ValidationError) -> str:
    details = "; ".join(
        f"{'.'.join(str(part) for part in err['loc']) or schema.__name__}: {err['msg']}"
        for err in error.errors()[:5]
    )
    return f"the arguments of {schema.__name__} failed validation ({details})"


def _validate(schema: type[S], data: Any, check: Check | None) -> _Read[S]:
    fields = set(schema.model_fields)
    if isinstance(data, dict) and fields and not fields.intersection(data):
        # every field may have a default, but an answer that names none is no answer
        listed = ", ".join(sorted(fields))
        return _Read(
            None, None, f"the arguments of {schema.__name__} name none of its fields ({listed})"
        )
    try:
        value = schema.model_validate(data)
    except ValidationError as exc:
        return _Read(None, None, _validation_problem(schema, exc))
    except RecursionError:  # arguments nested deeper than Python walks
        return _Read(None, None, f"the arguments of {schema.__name__} are nested too deep")
    problems = list(check(value)) if check is not None else []
    if problems:
        listed = "; ".join(problems[:8]) + ("; …" if len(problems) > 8 else "")
        return _Read(None, value, f"the answer does not fit what was asked ({listed})")
    return _Read(value, None, "")


def json_object(text: str) -> Any:
    """The JSON object in a text reply: the whole text, a fenced block, or the outermost braces.

    Reasoning blocks (``<think>...</think>``) are skipped. Raises ``ValueError`` when none parses
    (JSON nested deeper than Python's recursion limit included: it is no answer either).
    """
    text = _THINKING.sub("", text).strip()
    candidates = [text, *(block.strip() for block in _FENCED.findall(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
    raise ValueError("no JSON object found in the reply")


def _unwrap_call(schema: type[BaseModel], data: Any) -> Any:
    """Arguments a model wrote as a call: ``{"name": X, "arguments": {...}}`` or ``{X: {...}}``."""
    if not isinstance(data, dict):
        return data
    if data.get("name") == schema.__name__:
        for key in ("arguments", "args", "parameters"):
            if isinstance(data.get(key), dict):
                return data[key]
    if set(data) == {schema.__name__} and isinstance(data[schema.__name__], dict):
        return data[schema.__name__]
    return data


def _read_text(schema: type[S], raw: BaseMessage, check: Check | None, want: str) -> _Read[S]:
    """Read an answer from a reply's text (JSON mode, or a model that wrote instead of calling)."""
    name = schema.__name__
    declined = refusal(raw)
    if declined:
        return _Read(None, None, f"the reply declined to answer ({_first_line(declined, 200)})")
    body = _THINKING.sub("", raw.text).strip()
    if not body:
        if truncated(raw):
            return _Read(None, None, "the reply was cut off at the output limit before any answer")
        return _Read(None, None, "the reply was empty")
    try:
        data = _unwrap_call(schema, json_object(body))
    except ValueError:
        if truncated(raw):
            return _Read(None, None, f"the JSON of {name} was cut off at the output limit")
        return _Read(None, None, f"the reply was text instead of {want}")
    return _validate(schema, data, check)


def _read_tools(
    schema: type[S], raw: BaseMessage, check: Check | None, want: str | None = None
) -> _Read[S]:
    """Read an answer from a reply's tool call or, failing that, from its text."""
    name = schema.__name__
    calls = raw.tool_calls if isinstance(raw, AIMessage) else []
    if calls:
        call = next((c for c in calls if c["name"] == name), calls[0])
        return _validate(schema, _unwrap_call(schema, call["args"]), check)
    invalid = raw.invalid_tool_calls if isinstance(raw, AIMessage) else []
    if invalid:
        if truncated(raw):
            return _Read(None, None, f"the arguments of {name} were cut off at the output limit")
        return _Read(None, None, f"the arguments of {name} were not valid JSON")
    return _read_text(schema, raw, check, want or f"a call to {name}")


RETRY_ECHO_TOKENS = 2_000
"""Most tokens of the failed reply shown back to the model when it is re-asked."""


def _retry(raw: BaseMessage, problem: str, request: str) -> list[BaseMessage]:
    """The failed reply, as plain text, and the message that tells the model what to fix.

    The reply is shown as what it said (its text and its tool calls' arguments), never as a
    tool call with empty content: servers such as llama.cpp's answer an assistant message with
    ``content: null`` (what a replayed tool call becomes) with HTTP 500.
    """
    said = clip(reply_text(raw), RETRY_ECHO_TOKENS) or "(an empty reply)"
    return [AIMessage(content=said), HumanMessage(content=request)]


def _json_request(schema: type[BaseModel]) -> HumanMessage:
    parameters = convert_to_openai_tool(schema)["function"]["parameters"]
    return HumanMessage(
        content=prompts.JSON_MODE_PROMPT.format(
            name=schema.__name__, schema=json.dumps(parameters, ensure_ascii=False)
        )
    )


Runnables = MutableMapping[type[BaseModel], Runnable[Any, Any]]
"""Tool-bound runnables of one model, by schema (built once: binding converts the schema to a
tool, which costs more than it looks on every call)."""


def _bound(model: BaseChatModel, schema: type[BaseModel], runnables: Runnables | None) -> Any:
    runnable = runnables.get(schema) if runnables is not None else None
    if runnable is None:
        runnable = model.bind_tools([schema], tool_choice=schema.__name__)
        if runnables is not None:
            runnables[schema] = runnable
    return runnable


async def attempt_structured(
    model: BaseChatModel,
    schema: type[S],
    messages: Sequence[BaseMessage],
    runnables: Runnables | None = None,
    *,
    check: Check | None = None,
    mode: StructuredMode = "auto",
) -> Attempt[S]:
    """Ask ``model`` for a ``schema``, re-asking with the problem, then in JSON mode.

    Args:
        model: The chat model.
        schema: The pydantic class the reply must fill.
        messages: The conversation so far.
        runnables: The model's tool-bound runnables already built, reused and added to.
        check: Problems of a parsed answer beyond its schema (see :data:`Check`).
        mode: ``tools``, ``json`` or ``auto`` (see the module docstring).

    Returns:
        The value (or the last problem), the tokens of every attempt and how many were made.

    Raises:
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint failed (a reply that cannot be used is not a failure).
    """
    result: Attempt[S] = Attempt()
    if mode in ("tools", "auto"):
        try:
            await _tool_attempts(model, schema, messages, runnables, check, result)
        except _ToolsRefused:
            if mode == "tools":
                raise
        if result.value is not None or result.draft is not None or mode == "tools":
            return result  # a tool call that fit the schema: tool calling works
    await _json_attempts(model, schema, messages, check, result)
    return result


async def _tool_attempts(
    model: BaseChatModel,
    schema: type[S],
    messages: Sequence[BaseMessage],
    runnables: Runnables | None,
    check: Check | None,
    result: Attempt[S],
) -> None:
    runnable = _bound(model, schema, runnables)
    conversation = list(messages)
    for _ in range(MAX_ATTEMPTS):
        raw = await _send(runnable, conversation, result, schema)
        if raw is None:
            return
        _record(result, _read_tools(schema, raw, check), raw, "tools", conversation)
        if result.value is not None:
            return
        request = prompts.RETRY_TOOL_PROMPT.format(problem=result.problem, name=schema.__name__)
        conversation += _retry(raw, result.problem, request)


async def _json_attempts(
    model: BaseChatModel,
    schema: type[S],
    messages: Sequence[BaseMessage],
    check: Check | None,
    result: Attempt[S],
) -> None:
    conversation = [*messages, _json_request(schema)]
    want = f"one JSON object for {schema.__name__}"
    for _ in range(JSON_ATTEMPTS):
        raw = await _send(model, conversation, result, schema)
        if raw is None:
            return
        _record(result, _read_tools(schema, raw, check, want), raw, "json", conversation)
        if result.value is not None:
            return
        request = prompts.RETRY_JSON_PROMPT.format(problem=result.problem, name=schema.__name__)
        conversation += _retry(raw, result.problem, request)


async def _reply(runnable: Any, conversation: list[BaseMessage], schema: type[Any]) -> BaseMessage:
    """The model's reply; one nested too deep for the client to parse is an unusable call.

    The provider's client parses a tool call's arguments with ``json``, whose
    ``RecursionError`` on a reply nested thousands deep is no ``ValueError``.
    """
    try:
        with provider_errors():
            return await complete(runnable, conversation)
    except RecursionError:
        error = "nested too deep to parse"
        unusable = invalid_tool_call(name=schema.__name__, args=None, id=None, error=error)
        return AIMessage(content="", invalid_tool_calls=[unusable])


async def _send(
    runnable: Runnable[Any, Any],
    conversation: list[BaseMessage],
    result: Attempt[S],
    schema: type[S],
) -> BaseMessage | None:
    """One attempt's reply; ``None`` when the endpoint failed a re-ask (the task falls back).

    The first request of a task raises the endpoint's failure (the run stops, resumable); a
    re-ask that fails (HTTP 500, a cut stream, a timeout) ends the attempts instead, as an
    answer that could not be used: the task has a fallback, and the endpoint answered before.

    Raises:
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint failed the task's first request.
    """
    try:
        return await _reply(runnable, conversation, schema)
    except ConfigurationError:
        raise
    except EngineError as exc:
        if result.attempts == 0 or isinstance(exc, _ToolsRefused):
            raise
        result.problem = f"the endpoint failed a re-ask: {exc}"
        return None


def _record(
    result: Attempt[S],
    read: _Read[S],
    raw: BaseMessage,
    mode: Literal["tools", "json"],
    conversation: Sequence[BaseMessage] = (),
) -> None:
    result.usage += counted(raw, conversation)
    result.attempts += 1
    result.mode = mode
    result.value = read.value
    result.draft = read.draft or result.draft
    result.problem = read.problem


async def invoke_structured(
    model: BaseChatModel,
    schema: type[S],
    messages: Sequence[BaseMessage],
    runnables: Runnables | None = None,
    *,
    check: Check | None = None,
    mode: StructuredMode = "tools",
) -> tuple[S, TokenUsage]:
    """:func:`attempt_structured`, raising when no attempt gave a value.

    Raises:
        StructuredOutputError: no attempt produced a valid ``schema``.
        ConfigurationError: the endpoint refused the API key.
        EngineError: the endpoint failed.
    """
    result = await attempt_structured(model, schema, messages, runnables, check=check, mode=mode)
    return result.unwrap(schema.__name__), result.usage
