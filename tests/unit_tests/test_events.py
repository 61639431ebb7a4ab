"""Checkpoint namespaces are read one way everywhere (events, tests, bench)."""

from __future__ import annotations

from deep_research.events import namespace_path


def test_a_namespace_is_its_nodes_and_tasks_outermost_first() -> None:
    assert namespace_path("") == []
    assert namespace_path("verify:1f") == [("verify", "1f")]
    assert namespace_path("researcher:1f0c|take_notes:9a2b") == [
        ("researcher", "1f0c"),
        ("take_notes", "9a2b"),
    ]
