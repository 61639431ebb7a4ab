"""Checkpoint namespaces are read one way everywhere (events, tests, bench)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime

from deep_research import events
from deep_research.events import RunIds, emit, namespace_path, remember_run_ids, run_ids


def test_a_namespace_is_its_nodes_and_tasks_outermost_first() -> None:
    assert namespace_path("") == []
    assert namespace_path("verify:1f") == [("verify", "1f")]
    assert namespace_path("researcher:1f0c|take_notes:9a2b") == [
        ("researcher", "1f0c"),
        ("take_notes", "9a2b"),
    ]


def _runtime(thread_id: str, written: list[dict[str, Any]]) -> Runtime[None]:
    info = ExecutionInfo(
        checkpoint_id="c1", checkpoint_ns="plan:t1", task_id="t1", thread_id=thread_id
    )
    return Runtime(context=None, stream_writer=written.append, execution_info=info)


def test_events_carry_the_ids_the_recorder_remembered_for_their_thread() -> None:
    written: list[dict[str, Any]] = []
    emit(_runtime("unknown-thread", written), "plan_created", steps=[])
    assert (written[-1]["session_id"], written[-1]["message_id"]) == (None, None)

    remember_run_ids("thread-a", RunIds(question_nr=2, session_id=7, message_id=12))
    emit(_runtime("thread-a", written), "plan_created", steps=[])
    assert (written[-1]["session_id"], written[-1]["message_id"]) == (7, 12)
    assert written[-1]["data"] == {"steps": []}


def test_only_the_most_recent_threads_are_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "MAX_REMEMBERED_THREADS", 2)
    for n in range(3):
        remember_run_ids(f"lru-{n}", RunIds(question_nr=1, session_id=n, message_id=None))
    assert run_ids("lru-0") is None
    assert run_ids("lru-2") == RunIds(question_nr=1, session_id=2, message_id=None)
