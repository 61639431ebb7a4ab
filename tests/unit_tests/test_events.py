"""Checkpoint namespaces are read one way everywhere (events, tests, bench)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime

from deep_research.events import (
    RunIds,
    emit,
    namespace_path,
    stamp_run_ids,
    stamped_run_ids,
    take_events,
)
from deep_research.nodes.synthesize import PROGRESS_TEXT_CHARS, DraftProgress
from deep_research.persistence import recorder


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


def test_events_carry_the_ids_stamped_on_their_task_for_their_thread() -> None:
    written: list[dict[str, Any]] = []
    emit(_runtime("unknown-thread", written), "plan_created", steps=[])
    assert (written[-1]["session_id"], written[-1]["message_id"]) == (None, None)

    stamp_run_ids("thread-a", RunIds(question_nr=2, session_id=7, message_id=12))
    emit(_runtime("thread-a", written), "plan_created", steps=[])
    assert (written[-1]["session_id"], written[-1]["message_id"]) == (7, 12)
    assert written[-1]["data"] == {"steps": []}
    emit(_runtime("thread-b", written), "plan_created", steps=[])
    assert written[-1]["session_id"] is None, "another thread's ids are not stamped on it"


async def test_a_stamp_stays_in_its_task() -> None:
    async def stamp() -> None:
        stamp_run_ids("thread-c", RunIds(question_nr=1, session_id=3, message_id=None))

    await asyncio.create_task(stamp())
    assert stamped_run_ids("thread-c") is None


def test_a_recorder_remembers_only_the_most_recent_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(recorder, "MAX_REMEMBERED_THREADS", 2)
    sql = recorder.SqlRecorder(database=None)  # type: ignore[arg-type]
    for n in range(3):
        sql._remember(f"lru-{n}", RunIds(question_nr=1, session_id=n, message_id=None))
    assert list(sql.known_ids) == ["lru-1", "lru-2"]
    sql._stamp("lru-2")
    assert stamped_run_ids("lru-2") == RunIds(question_nr=1, session_id=2, message_id=None)


def test_live_only_fields_are_streamed_but_not_kept_for_the_store() -> None:
    written: list[dict[str, Any]] = []
    runtime = _runtime("thread-live", written)
    take_events(runtime)  # nothing left over from another test's task
    emit(runtime, "synthesis_progress", characters=5, live_only={"text": "Hello"})
    assert written[-1]["data"] == {"characters": 5, "text": "Hello"}
    (kept,) = take_events(runtime)
    assert kept.payload["data"] == {"characters": 5}, "the draft's text bloats no stored row"


def test_the_draft_is_streamed_as_bounded_deltas_that_add_up_to_the_text() -> None:
    written: list[dict[str, Any]] = []
    draft = DraftProgress(_runtime("thread-draft", written))  # type: ignore[arg-type]
    pieces = ["a" * 150, "b" * 300, "c" * (PROGRESS_TEXT_CHARS * 2 + 7), "tail"]
    for piece in pieces:
        draft.take(piece)
    draft.finish(len("".join(pieces)))
    data = [event["data"] for event in written]
    assert "".join(d["text"] for d in data) == "".join(pieces)
    assert all(len(d["text"]) <= PROGRESS_TEXT_CHARS for d in data)
    assert [d.get("done") for d in data] == [None] * (len(data) - 1) + [True]
    assert data[0] == {"characters": 450, "text": "a" * 150 + "b" * 300}
    assert [d["characters"] for d in data][-1] == len("".join(pieces))
    counted = [d["characters"] for d in data[:-1]]
    assert counted == sorted(counted)
