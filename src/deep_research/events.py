"""Typed progress events on ``stream_mode="custom"``; see :class:`TraceEvent` for the types.

:func:`emit` is plain sync code: it writes the event to the run's stream and keeps a copy for
the domain store, numbered within the task that emitted it. The node's recording call
(:meth:`deep_research.services.Services.record`) takes the copies with :func:`take_events`
and writes them as ResearchEvent rows keyed by (task id, number): LangGraph gives a re-run of
a task (a retry, or a resume after a crash) the same task id, so re-emitted events overwrite
their first copies instead of adding rows. The copies live in a context variable, which every
LangGraph task gets a private copy of.

Every event of a question, from ``research_started`` on, also names the research session and
the question's message in the domain store (``session_id``, ``message_id``: the ids of
``/sessions/{id}`` and ``/messages/{id}``), so a client can join the live stream with what the
routes return. The recorder finds them when it writes or reads a question's rows and stamps
them on the task (:func:`stamp_run_ids`, a context variable: each LangGraph task has its own);
a run without a domain store streams them as ``null``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from deep_research.state.models import Claim, EventType, TraceEvent


def namespace_path(checkpoint_ns: str) -> list[tuple[str, str]]:
    """The (node, task id) pairs of a LangGraph ``checkpoint_ns``, outermost first.

    ``"researcher:1f0c|take_notes:9a2b"`` is ``[("researcher", "1f0c"), ("take_notes",
    "9a2b")]``; the root graph's ``""`` is ``[]``.
    """
    if not checkpoint_ns:
        return []
    pairs = []
    for part in checkpoint_ns.split("|"):
        node, _, task = part.partition(":")
        pairs.append((node, task))
    return pairs


@dataclass(frozen=True)
class RunIds:
    """The domain store's ids of a thread's current question."""

    question_nr: int
    session_id: int
    """The research session (``/sessions/{session_id}``)."""
    message_id: int | None
    """The question's message (``/messages/{message_id}``)."""


_stamped: ContextVar[tuple[str, RunIds] | None] = ContextVar("deep_research_run_ids", default=None)


def stamp_run_ids(thread_id: str, ids: RunIds) -> None:
    """Make the events this task emits on ``thread_id`` from now on carry ``ids``."""
    _stamped.set((thread_id, ids))


def stamped_run_ids(thread_id: str) -> RunIds | None:
    """The ids this task's events on ``thread_id`` carry, if the recorder stamped them."""
    stamped = _stamped.get()
    return stamped[1] if stamped is not None and stamped[0] == thread_id else None


@dataclass(frozen=True)
class RecordedEvent:
    """An emitted event, numbered within its task."""

    task_id: str
    seq: int
    node: str
    payload: dict[str, Any]
    """The event as streamed: ``{"type", "at", "data"}``."""


@dataclass
class _TaskEvents:
    task: tuple[str, int]
    node: str
    next_seq: int = 0
    pending: list[RecordedEvent] = field(default_factory=list)


_task_events: ContextVar[_TaskEvents | None] = ContextVar("deep_research_events", default=None)
_task_key: ContextVar[str | None] = ContextVar("deep_research_task_key", default=None)


@contextmanager
def task_key(key: str) -> Iterator[None]:
    """Number the events emitted within under ``key`` instead of LangGraph's task id.

    A researcher's stages use it (:mod:`deep_research.persistence.scratch`): the researcher
    keeps no checkpoints, so LangGraph gives its stages new task ids when it runs again after a
    crash, while ``key`` names the same stage of the same researcher every time.
    """
    token = _task_key.set(key)
    try:
        yield
    finally:
        _task_key.reset(token)


def _task_of(runtime: Runtime[Any]) -> tuple[tuple[str, int], str] | None:
    info = runtime.execution_info
    if info is None or not info.thread_id:
        return None
    path = namespace_path(info.checkpoint_ns)
    return (_task_key.get() or info.task_id, info.node_attempt), path[-1][0] if path else ""


def _events_of(runtime: Runtime[Any]) -> _TaskEvents | None:
    task = _task_of(runtime)
    if task is None:
        return None
    current = _task_events.get()
    if current is None or current.task != task[0]:
        current = _TaskEvents(task=task[0], node=task[1])
        _task_events.set(current)
    return current


def emit(
    runtime: Runtime[Any],
    type: EventType,
    *,
    live_only: Mapping[str, Any] | None = None,
    **data: Any,
) -> None:
    """Write one event to the run's custom stream (a no-op when nobody listens).

    Args:
        runtime: The node's runtime (its stream writer and task).
        type: The event's type.
        live_only: Fields streamed with ``data`` but left out of the copy kept for the domain
            store (bulky text a listener wants live and a later reader finds elsewhere, such as
            the report's text as it is written).
        **data: The event's fields.
    """
    info = runtime.execution_info
    ids = stamped_run_ids(info.thread_id) if info is not None and info.thread_id else None
    event = TraceEvent(
        type=type,
        data={**data, **(live_only or {})},
        session_id=ids.session_id if ids else None,
        message_id=ids.message_id if ids else None,
    )
    payload = event.model_dump(mode="json")
    runtime.stream_writer(payload)
    events = _events_of(runtime)
    if events is not None:
        if live_only:
            kept = {k: v for k, v in payload["data"].items() if k not in live_only}
            payload = {**payload, "data": kept}
        events.pending.append(RecordedEvent(events.task[0], events.next_seq, events.node, payload))
        events.next_seq += 1


def emit_verdict(runtime: Runtime[Any], claim: Claim, *, passes: int, total: int) -> None:
    """One ``claim_verified`` event: a judged claim, its verdict and how it was judged.

    Args:
        runtime: The node's runtime.
        claim: The judged claim.
        passes: The verification pass the verdict belongs to.
        total: How many claims this pass has judged so far, this one included.
    """
    emit(
        runtime,
        "claim_verified",
        claim_id=claim.id,
        text=claim.text,
        verdict=claim.verdict,
        confidence=claim.confidence,
        reasoning=claim.reasoning,
        evidence_id=claim.evidence_id,
        claim_type=claim.claim_type,
        numeric=claim.numeric,
        checked_by=claim.checked_by,
        passes=passes,
        total=total,
    )


def take_events(runtime: Runtime[Any]) -> list[RecordedEvent]:
    """The events this task emitted since the last call, for the domain store."""
    events = _events_of(runtime)
    if events is None:
        return []
    taken, events.pending = events.pending, []
    return taken
