"""Short channel versions: ordered as LangGraph needs, and continuing threads written before.

LangGraph compares channel versions as strings to decide which nodes run next, so a version
format must sort in counter order, and a thread whose checkpoints hold LangGraph's own
versions must go on correctly once our savers write the next ones.
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.sqlite_saver import BlobSqliteSaver
from deep_research.persistence.versions import next_version
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Report


def langgraph_version(counter: int) -> str:
    """A version as LangGraph's own savers write it."""
    return f"{counter:032}.{random.random():016}"


def test_versions_sort_in_counter_order_and_differ_between_forks() -> None:
    versions = [next_version(None)]
    for _ in range(120):
        versions.append(next_version(versions[-1]))
    assert [int(v.split(".")[0]) for v in versions] == list(range(1, 122))
    assert sorted(versions) == versions
    assert len(versions[0]) == 19
    forks = {next_version(versions[5]) for _ in range(50)}
    assert len(forks) == 50, "two forks of one version write different next versions"


@pytest.mark.parametrize("counter", [1, 9, 10, 99, 12_345, 10**9])
def test_a_short_version_sorts_after_every_langgraph_version_before_it(counter: int) -> None:
    old = langgraph_version(counter)
    new = next_version(old)
    assert int(new.split(".")[0]) == counter + 1
    assert new > old
    assert new > langgraph_version(10**12), "short versions sort after any long one"
    assert max(old, new, langgraph_version(counter - 1)) == new


async def test_a_thread_written_with_langgraph_versions_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run paused at its plan review under LangGraph's versions finishes under ours."""
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    url = f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(allow_clarification=False, review_plan=True, depth="light")
    question = {"messages": [HumanMessage("How did grid battery prices fall?")]}
    with monkeypatch.context() as patched:
        patched.setattr(BlobSqliteSaver, "get_next_version", AsyncSqliteSaver.get_next_version)
        async with open_checkpointer(url) as saver:
            graph = build_graph(engine=OfflineEngine(), sources=[corpus], checkpointer=saver)
            first = await graph.ainvoke(question, config, context=context)
            assert first["__interrupt__"][0].value["type"] == "plan_review"
            paused = await saver.aget_tuple(config)
    assert paused is not None
    assert all(len(v) > 40 for v in paused.checkpoint["channel_versions"].values())

    async with open_checkpointer(url) as saver:
        graph = build_graph(engine=OfflineEngine(), sources=[corpus], checkpointer=saver)
        done = await graph.ainvoke(Command(resume="approve"), config, context=context)
        last = await saver.aget_tuple(config)
    assert isinstance(done["report"], Report) and done["report"].references
    assert last is not None
    versions = last.checkpoint["channel_versions"]
    assert max(versions.values()) in {v for v in versions.values() if len(v) == 19}
