"""A researcher's finished stages, kept in the content store until its round is over.

The researcher subgraph keeps no checkpoints of its own (its copies of the records it returns
were most of what a run stored; see docs/decisions.md). So that a researcher that fails or is
killed inside its step does not search, read and ask the model again when the run resumes,
each of its stages leaves what it returned in the content store, under
``("researchers", thread id, researcher task id)`` and a key naming the stage and its round
(``"1:read_sources"``). LangGraph gives a resumed task the id it had, so the re-run finds
those entries and skips the stages they name. Reflect, which runs once every researcher of a
round has returned, drops the thread's entries (:func:`drop_round_stages`).

Without a content store, or outside a thread, nothing is kept and a resumed researcher does its
step again from the start.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, PutOp
from pydantic import BaseModel, ConfigDict

from deep_research.context import Context
from deep_research.events import namespace_path, task_key
from deep_research.persistence.namespaces import RESEARCHERS_NAMESPACE
from deep_research.state.graph_state import ResearcherState
from deep_research.state.models import (
    EvidenceSpan,
    Finding,
    SearchResult,
    Source,
    TokenUsage,
)


class StageUpdate(BaseModel):
    """What one researcher stage returned (every field a stage may write)."""

    model_config = ConfigDict(extra="forbid")

    new_queries: list[str] | None = None
    queries: list[str] | None = None
    iteration: int | None = None
    results: list[SearchResult] | None = None
    sources: list[Source] | None = None
    evidence: list[EvidenceSpan] | None = None
    findings: list[Finding] | None = None
    usage: TokenUsage | None = None

    def update(self) -> dict[str, Any]:
        """The stage's update as the graph takes it (the fields it wrote)."""
        return {name: getattr(self, name) for name in self.model_fields_set}


def researcher_namespace(runtime: Runtime[Any]) -> tuple[str, ...] | None:
    """Where the researcher running ``runtime``'s task keeps its stages, if anywhere."""
    info = runtime.execution_info
    if runtime.store is None or info is None or not info.thread_id:
        return None
    tasks = [task for node, task in namespace_path(info.checkpoint_ns) if node == "researcher"]
    if not tasks:
        return None
    return (*thread_namespace(info.thread_id), tasks[-1])


Stage = Callable[..., Awaitable[dict[str, Any]]]
"""A researcher node: ``(state, runtime)`` to its update."""


def kept(stage: Stage, name: str) -> Stage:
    """``stage`` run at most once per round of a researcher, across resumes.

    A round is the researcher's ``iteration`` as the stage sees it; the stage's events are
    numbered under the same name, so that a stage run again after a crash overwrites the events
    its first run recorded instead of adding to them.
    """

    async def run(state: ResearcherState, runtime: Runtime[Context]) -> dict[str, Any]:
        store, namespace = runtime.store, researcher_namespace(runtime)
        if store is None or namespace is None:
            return await stage(state, runtime)
        key = f"{state.iteration}:{name}"
        item = await store.aget(namespace, key)
        if item is not None:
            return StageUpdate.model_validate(item.value).update()
        with task_key(f"{namespace[-1]}/{key}"):
            update = await stage(state, runtime)
        value = StageUpdate.model_validate(update).model_dump(mode="json", exclude_unset=True)
        await store.aput(namespace, key, value)
        return update

    run.__name__ = name
    return run


async def drop_round_stages(runtime: Runtime[Any]) -> int:
    """Forget the stages every researcher of this thread kept; reflect calls it.

    Reflect runs after each round of researchers, once they have all returned, so their records
    are the main graph's pending writes by then (saved before reflect starts under
    ``durability="sync"``, as the command line runs; under ``"async"`` LangGraph saves them in
    the background, and a crash before they land repeats the round's steps).

    Returns:
        How many stages were kept.
    """
    info = runtime.execution_info
    if info is None or not info.thread_id:
        return 0
    return await drop_stages(runtime.store, thread_namespace(info.thread_id))


def thread_namespace(thread_id: str) -> tuple[str, ...]:
    """Where every researcher of a thread keeps its stages."""
    return (*RESEARCHERS_NAMESPACE, thread_id)


async def drop_stages(store: BaseStore | None, namespace: tuple[str, ...] | None) -> int:
    """Forget the stages kept under ``namespace`` (a researcher's, or a whole thread's).

    Returns:
        How many were kept.
    """
    if store is None or namespace is None:
        return 0
    dropped = 0
    while found := await store.asearch(namespace, limit=100):
        await store.abatch([PutOp(item.namespace, item.key, None) for item in found])
        dropped += len(found)
    return dropped
