"""What a served run may write, checked before the server stores anything.

Plain functions of the request's values, with no runtime's internals, so that every runtime
adapter (``langgraph dev``, Aegra) can call them from its auth handlers. Each returns ``None``
for acceptable input, or a one-line reason to refuse it with.

* A run's ``input`` must fit its graph: ``deep_research`` takes ``{"messages": [...]}`` of
  human messages only (a model's reply, a tool's result or a system prompt is the graph's to
  write, never the caller's), each a valid question in text blocks; ``research`` (the MCP
  tool) takes :class:`ToolInput`, its question a valid question too.
* A human message carries text and nothing else a client could plant: no
  ``additional_kwargs`` or ``response_metadata`` (a client has no use for them; they were
  stored as sent, 900 KB with NUL bytes and escapes), and a ``name`` and an ``id`` of at most
  :data:`MAX_NAME_CHARS` characters without control characters.
* A command holds ``resume``, ``update`` (an object) and ``goto`` only: ``graph`` (``PARENT``,
  which a run's top graph has not) and update pairs fail inside LangGraph, after the run was
  created.
* With auth on, a command may answer the graph's question (``resume``) and add human
  messages (``update: {"messages": [...]}``), nothing else: no other state field, no
  ``goto``.
* Metadata (of threads, runs and assistants) is at most :data:`MAX_METADATA_BYTES` as JSON.
* With auth on, a caller does not pick a new thread's id: one that is another user's would
  be answered "already exists" (409), telling the caller that it does.
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, convert_to_messages
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from deep_research.context import MAX_QUESTION_CHARS, no_control_characters, validate_question
from deep_research.errors import InvalidQuestionError
from deep_research.sources.bounded_json import JsonLimitError, check_depth

MAX_NAME_CHARS = 128
"""Longest ``name`` or ``id`` of a message a client sends."""

COMMAND_KEYS = frozenset({"resume", "update", "goto"})
"""What a run's ``command`` may hold."""

MAX_METADATA_BYTES = 64 * 1024
"""Largest metadata object accepted, as JSON."""

RESEARCH_GRAPH = "deep_research"
"""The chat graph: its input is messages."""

TOOL_GRAPH = "research"
"""The tool graph (``/mcp``): its input is :class:`ToolInput`."""

CALLER_THREAD_ID = (
    "thread ids are given by this server: create the thread without one (POST /threads {})"
)
"""The refusal of a thread id the caller picked (auth on): the same whether it is taken."""

_GRAPH_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
"""The namespace of the ids LangGraph servers give each graph's default assistant
(``uuid5(namespace, graph_id)``)."""


class ToolInput(BaseModel):
    """What an MCP client sends to the ``research`` tool."""

    model_config = ConfigDict(extra="forbid")

    question: Annotated[str, AfterValidator(validate_question)] = Field(
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        description="The research question, in any language.",
    )
    mode: Literal["simple", "web_search", "deep_research"] = Field(
        default="deep_research",
        description=(
            "simple answers directly; web_search runs one quick search round; deep_research "
            "plans and researches in parallel."
        ),
    )
    depth: Literal["auto", "light", "medium", "extended"] = Field(
        default="auto", description="How much research deep_research may do."
    )


TOOL_DESCRIPTION = (
    "Research a question in depth: plan it, search the configured sources, read them, and "
    "write a report with numbered citations in which every claim was checked against the "
    "quoted evidence. Returns the report (Markdown), its references and a verification note."
)
"""The ``research`` tool's description, written for the model that will call it."""


class Reference(BaseModel):
    """One numbered reference of the tool's report."""

    number: int = Field(description="The number the report cites it by, [n].")
    title: str = Field(description="The source's title.")
    url: str = Field(description="The source's URL (or its mcp:// or file location).")


class ToolOutput(BaseModel):
    """What the ``research`` tool returns (the MCP tool's ``outputSchema``)."""

    report: str = Field(default="", description="The report in Markdown, with citations [n].")
    references: list[Reference] = Field(
        default_factory=list, description="The numbered references."
    )
    verification: str = Field(
        default="", description="What checking the claims against the quoted evidence found."
    )


def graph_of(assistant_id: Any) -> str | None:
    """The graph an assistant id names: a graph's name, or its default assistant's id.

    ``None`` for another assistant (one a user created), whose graph the request does not
    tell.
    """
    name = str(assistant_id or "")
    for graph in (RESEARCH_GRAPH, TOOL_GRAPH):
        if name in (graph, str(uuid.uuid5(_GRAPH_NAMESPACE, graph))):
            return graph
    return None


def _messages(value: Any) -> list[BaseMessage] | str:
    """``value`` read as ``add_messages`` reads it, or the reason it cannot be."""
    try:
        return convert_to_messages(value if isinstance(value, list) else [value])
    except (ValueError, NotImplementedError, TypeError) as exc:
        return f"invalid input messages: {str(exc).splitlines()[0] if str(exc) else exc}"


def messages_problem(value: Any) -> str | None:
    """Why ``value`` is not a list of valid human messages (or one), or ``None``."""
    messages = _messages(value)
    if isinstance(messages, str):
        return messages
    if not messages:
        return "invalid input messages: there are none"
    for message in messages:
        if not isinstance(message, HumanMessage):
            return f"a run may add only human messages, not {message.type!r} messages"
        if message.additional_kwargs or message.response_metadata:
            return "a message may hold its text only (no additional_kwargs or response_metadata)"
        for field, value in (("name", message.name), ("id", message.id)):
            if value is not None and (problem := _label_problem(str(value))) is not None:
                return f"a message's {field} {problem}"
        blocks = message.content if isinstance(message.content, list) else []
        if any(not (isinstance(b, str) or b.get("type") == "text") for b in blocks):
            return "a message may hold text only (no images, files or other blocks)"
        try:
            validate_question(message.text)
        except InvalidQuestionError as exc:
            return f"invalid question: {exc}"
    return None


def _label_problem(label: str) -> str | None:
    """Why a message's ``name`` or ``id`` is not acceptable, or ``None``."""
    if len(label) > MAX_NAME_CHARS:
        return f"is {len(label)} characters long; the limit is {MAX_NAME_CHARS}"
    try:
        no_control_characters(label)
    except ValueError as exc:
        return str(exc)
    return None


def _tool_input_problem(run_input: Any) -> str | None:
    try:
        ToolInput.model_validate(run_input)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "input"
        return f"invalid input for the research tool: {where}: {error['msg']}"
    return None


def _chat_input_problem(run_input: Any) -> str | None:
    if not isinstance(run_input, dict) or set(run_input) != {"messages"}:
        return 'the input must be {"messages": [...]}, with nothing else'
    return messages_problem(run_input["messages"])


def input_problem(graph: str | None, run_input: Any) -> str | None:
    """Why a run's ``input`` does not fit ``graph`` (``None``: whichever graph fits it).

    No input at all (``None``) goes on from the thread's state, and is acceptable.
    """
    if run_input is None:
        return None
    if graph == TOOL_GRAPH:
        return _tool_input_problem(run_input)
    if graph == RESEARCH_GRAPH:
        return _chat_input_problem(run_input)
    problems = [_chat_input_problem(run_input), _tool_input_problem(run_input)]
    return None if None in problems else problems[0]


def _update_pairs(command: Any) -> list[tuple[str, Any]] | str:
    """A command's ``update`` as (field, value) pairs, or why it cannot be read so."""
    update = command.get("update") if isinstance(command, dict) else None
    if update is None:
        return []
    if not isinstance(update, dict):
        return "a command's update must be an object"
    return [(str(field), value) for field, value in update.items()]


def command_forbidden(command: Any, *, auth: bool) -> str | None:
    """Why a run's ``command`` would write the thread's state directly, or ``None``.

    With ``auth`` on, a command may answer the graph's question (``resume``) and add
    messages, nothing else: no other state field (a title, the question's number), no
    ``goto``. On an open, local server Studio's commands keep working.
    """
    if not auth or not isinstance(command, dict):
        return None
    if command.get("goto"):
        return "a command may not jump to a node (goto) on this server"
    pairs = _update_pairs(command)
    fields = {field for field, _ in pairs} if isinstance(pairs, list) else set()
    if fields - {"messages"}:
        others = ", ".join(sorted(fields - {"messages"}))
        return f"a command may add messages only; it may not write {others} on this server"
    return None


def command_problem(command: Any) -> str | None:
    """Why the messages a run's ``command`` adds are not acceptable, or ``None``.

    They are checked as a run's input messages are (:func:`messages_problem`); a command that
    holds more than :data:`COMMAND_KEYS` (``graph``) is refused.
    """
    if command is None:
        return None
    if not isinstance(command, dict):
        return "a command must be an object"
    if others := set(command) - COMMAND_KEYS:
        return f"a command may hold resume, update and goto only, not {', '.join(sorted(others))}"
    pairs = _update_pairs(command)
    if isinstance(pairs, str):
        return pairs
    for field, value in pairs:
        if field == "messages" and (problem := messages_problem(value)) is not None:
            return problem
    return None


def picked_thread_id(method: str, path: str, body: Any) -> bool:
    """Whether a request creates a thread of an id the caller picked.

    ``POST /threads`` with a ``thread_id``, or a run with ``if_not_exists: "create"`` (whose
    thread id is in its path).
    """
    if method != "POST" or not isinstance(body, dict):
        return False
    parts = path.strip("/").split("/")
    if parts == ["threads"]:
        return bool(body.get("thread_id"))
    return (
        len(parts) >= 3
        and parts[0] == "threads"
        and parts[2] == "runs"
        and (body.get("if_not_exists") == "create")
    )


def metadata_problem(metadata: Any) -> str | None:
    """Why ``metadata`` is too large to keep, or ``None``."""
    if metadata is None:
        return None
    try:
        check_depth(metadata)
    except JsonLimitError as exc:
        return str(exc)
    size = len(json.dumps(metadata, ensure_ascii=False, default=str).encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        return f"the metadata is {size} bytes as JSON; the limit is {MAX_METADATA_BYTES}"
    return None
