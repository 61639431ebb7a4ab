"""Checkpoints: what a thread stores and how long its writes take, against the budget.

The budget (docs/storage.md): a 16-step run stores under 1 MB, and a step that changes one
small field stores under 4 KB, on every backend (in-memory, SQLite file, PostgreSQL), all
through the project's ``open_checkpointer``. Two measurements per backend:

* growth: a thread whose state holds N sources (10, 100, 1000) with two evidence spans each
  (with their quotes, as the state keeps them) and one finding per ten sources, written as
  LangGraph writes them: the step's writes (``aput_writes``; a research round writes
  :data:`ROUND` sources, their spans, a finding and usage) and then ``aput`` of its
  checkpoint, after a research round and after a later step that changed one small field.
  The channels the graph declares as ``DeltaChannel`` are stored as those writes, not again
  in each checkpoint (the first checkpoint holds their snapshot). Time per ``aput``, the
  bytes the step added to the store (writes and checkpoint), and the time to read the
  thread's state back (``graph.aget_state``, which replays those writes). The small step at
  the largest state is the one held to the budget: it must not copy what it did not change.
* a real run: the graph on the simulation (no latency) with a 16-step plan and a content
  store beside the checkpointer on the same backend, as the command line opens them (page
  text is stored there, not in the checkpoints, and not counted here); every checkpoint and
  pending write it stored, timed by wrapping the saver's ``aput`` and ``aput_writes``.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, empty_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.graph import StateGraph
from langgraph.store.base import BaseStore

from bench import agent
from bench.common import log, summary
from bench.sections import Options
from bench.sections.storage import (
    BACKENDS,
    checkpointer,
    postgres_problem,
    stored_bytes,
    throwaway_database,
)
from bench.sim import text
from bench.sim.model import SimulatedChatModel
from bench.sim.requests import Scenario, step_title
from bench.sim.search import SimulatedSearch
from bench.sim.trace import Trace
from deep_research.graph import build_graph
from deep_research.persistence import DeltaSnapshot, open_store
from deep_research.state import (
    EvidenceSpan,
    Finding,
    PlanStep,
    Source,
    State,
    TokenUsage,
    stable_id,
)

NAME = "checkpoints"
SIZES = (10, 100, 1000)
RUN_STEPS = 16
GROWING = ("sources", "evidence", "findings", "usage")
ROUND = 10
"""Sources one research round writes (with their evidence spans and one finding)."""
READS = 5
TARGETS = {"small_step_bytes": 4096, "real_run_bytes": 1_000_000, "real_run_steps": RUN_STEPS}
"""The budget, on every backend: bytes a step that changes one small field may store with the
largest state (1,000 sources), and bytes a real run of ``real_run_steps`` steps may store
(checkpoints and pending writes)."""


def state_values(n_sources: int) -> dict[str, Any]:
    """Channel values of a state holding ``n_sources`` sources (as the graph stores them)."""
    steps = [
        PlanStep(id=f"s{i + 1:02d}", title=step_title(i)) for i in range(max(1, n_sources // 10))
    ]
    sources: list[Source] = []
    evidence: list[EvidenceSpan] = []
    for i in range(n_sources):
        step = steps[i % len(steps)]
        url = text.result_urls(f"{step.title} {i // 5}", 5)[i % 5]
        page = text.page(url)
        document_id = stable_id("doc", page.text)
        sources.append(Source(url=url, title=page.title, provider="sim", document_id=document_id))
        for sentence in page.text.split(". ")[3:5]:
            quote = sentence.strip() + "."
            start = page.text.find(sentence.strip())
            evidence.append(
                EvidenceSpan(
                    id=stable_id("ev", step.id, url, start),
                    url=url,
                    document_id=document_id,
                    step_id=step.id,
                    quote=quote,
                    start=max(0, start),
                    end=max(0, start) + len(quote),
                    section="Key figures",
                    relevance=0.5,
                    has_numbers=True,
                )
            )
    findings = [
        Finding(
            step_id=step.id,
            notes=" ".join(
                text.prose(text.rng("notes", step.id), text.subjects_of(step.title), 110)
            ),
            evidence_ids=[e.id for e in evidence if e.step_id == step.id][:12],
            queries=text.queries(step.title, 2, []),
            searches=2,
        )
        for step in steps
    ]
    return {
        "messages": [HumanMessage(text.QUESTION, id="m1")],
        "question": text.QUESTION,
        "brief": " ".join(text.prose(text.rng("brief"), text.subjects_of(text.QUESTION), 45)),
        "plan": steps,
        "dispatched": [s.id for s in steps],
        "sources": sources,
        "evidence": evidence,
        "findings": findings,
        "usage": TokenUsage(prompt_tokens=1000, completion_tokens=200, calls=10),
        "draft": "",
    }


def delta_channels() -> frozenset[str]:
    """The state's channels that LangGraph stores as writes to replay, not as whole values."""
    channels = StateGraph(State).channels
    return frozenset(k for k, ch in channels.items() if isinstance(ch, DeltaChannel))


def round_writes(values: dict[str, Any]) -> dict[str, Any]:
    """What one research round writes: its sources, their evidence, a finding and usage."""
    sources = values["sources"][-ROUND:]
    urls = {s.url for s in sources}
    return {
        "sources": sources,
        "evidence": [e for e in values["evidence"] if e.url in urls],
        "findings": values["findings"][-1:],
        "usage": TokenUsage(prompt_tokens=100, completion_tokens=20, calls=1),
    }


async def _growth(saver: BaseCheckpointSaver[str], n: int, writes: int) -> dict[str, Any]:
    values = state_values(n)
    delta = delta_channels()
    thread = uuid.uuid4().hex
    checkpoint = empty_checkpoint()
    versions: dict[str, Any] = {}
    parent: str | None = None
    times: dict[str, list[float]] = {"research_round": [], "small_step": []}
    sizes: dict[str, list[int]] = {"research_round": [], "small_step": []}
    before, _ = await stored_bytes(saver, thread)
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    for i in range(writes * 2 + 1):
        kind = "research_round" if i % 2 == 0 else "small_step"
        changed = list(values) if i == 0 else GROWING if kind == "research_round" else ["draft"]
        if kind == "small_step":
            values["draft"] = f"draft {i}"
        if parent:  # the step's task saves its writes against the checkpoint it started from
            small = {"draft": values["draft"]}
            written = round_writes(values) if kind == "research_round" else small
            task = str(uuid.uuid4())
            await saver.aput_writes(config, list(written.items()), task)
        new_versions: ChannelVersions = {
            k: saver.get_next_version(versions.get(k), None) for k in changed
        }
        versions.update(new_versions)
        stored = {k: v for k, v in values.items() if k not in delta}
        if i == 0:  # a DeltaChannel's first value is stored whole, as a snapshot
            stored |= {k: DeltaSnapshot(v) for k, v in values.items() if k in delta}
        checkpoint = {
            **checkpoint,
            "id": str(uuid6(clock_seq=i)),
            "channel_values": stored,
            "channel_versions": dict(versions),
        }
        start = time.perf_counter()
        result = await saver.aput(
            config, checkpoint, {"source": "loop", "step": i, "parents": {}}, new_versions
        )
        elapsed = time.perf_counter() - start
        parent = result["configurable"]["checkpoint_id"]
        config = {
            "configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": parent}
        }
        after, _ = await stored_bytes(saver, thread)
        if i > 0:
            times[kind].append(elapsed * 1000)
            sizes[kind].append(after - before)
        before = after
    graph = build_graph(checkpointer=saver)
    reads: list[float] = []
    for _ in range(READS):
        start = time.perf_counter()
        state = await graph.aget_state(config)
        reads.append((time.perf_counter() - start) * 1000)
    assert len(state.values["sources"]) == n
    return {
        "sources": n,
        "evidence_spans": len(values["evidence"]),
        "write_ms": {kind: summary(v) for kind, v in times.items()},
        "bytes": {kind: int(sum(v) / len(v)) for kind, v in sizes.items()},
        "read_ms": summary(reads),
    }


def _timed(
    method: Callable[..., Awaitable[Any]], times: list[float]
) -> Callable[..., Awaitable[Any]]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            times.append((time.perf_counter() - start) * 1000)

    return wrapper


async def _real_run(
    saver: BaseCheckpointSaver[str], store: BaseStore, steps: int
) -> dict[str, Any]:
    puts: list[float] = []
    writes: list[float] = []
    saver.aput = _timed(saver.aput, puts)  # type: ignore[method-assign,assignment]
    saver.aput_writes = _timed(saver.aput_writes, writes)  # type: ignore[method-assign,assignment]
    trace = Trace()
    model = SimulatedChatModel(scenario=Scenario(plan_steps=steps), trace=trace)
    graph = agent.graph_for(model, [SimulatedSearch(trace=trace)], saver, store=store)
    config = agent.thread_config()
    state, wall = await agent.run(graph, steps, config=config)
    total, checkpoints = await stored_bytes(saver, config["configurable"]["thread_id"])
    return {
        "plan_steps": steps,
        "sources": len(state["sources"]),
        "evidence_spans": len(state["evidence"]),
        "checkpoints": len(puts),
        "pending_write_batches": len(writes),
        "put_ms": summary(puts),
        "put_writes_ms": summary(writes),
        "stored_bytes": total,
        "bytes_per_checkpoint": int(total / max(1, len(puts))),
        "wall_seconds": round(wall, 3),
    }


async def _backend(
    backend: str, workdir: Path, url: str | None, options: Options
) -> dict[str, Any]:
    writes = 2 if options.quick else options.repeats * 4
    sizes = SIZES[:1] if options.quick else SIZES
    out: dict[str, Any] = {"growth": []}
    store_url = {"memory": "memory", "sqlite": f"sqlite:///{workdir / f'store-{backend}.sqlite'}"}
    async with (
        checkpointer(backend, workdir, url) as saver,
        open_store(store_url.get(backend) or url or "") as store,
    ):
        for n in sizes:
            log(f"checkpoints: {backend}, {n} sources")
            out["growth"].append(await _growth(saver, n, writes))
        steps = 1 if options.quick else RUN_STEPS
        log(f"checkpoints: {backend}, a real {steps}-step run")
        out["real_run"] = await _real_run(saver, store, steps)
    return out


async def _main(options: Options) -> dict[str, Any]:
    results: dict[str, Any] = {
        "targets": TARGETS,
        "load_average": round(os.getloadavg()[0], 1),
        "backends": {},
    }
    problem = postgres_problem()
    with tempfile.TemporaryDirectory(prefix="bench-checkpoints-") as tmp:
        for backend in BACKENDS:
            if backend == "postgres":
                if problem:
                    log(f"checkpoints: skipping PostgreSQL: {problem}")
                    results["backends"][backend] = {"skipped": problem}
                    continue
                async with throwaway_database() as url:
                    results["backends"][backend] = await _backend(backend, Path(tmp), url, options)
            else:
                results["backends"][backend] = await _backend(backend, Path(tmp), None, options)
    return results


def run(options: Options) -> dict[str, Any]:
    """Measure checkpoint writes on every backend."""
    with agent.plan_budget(RUN_STEPS):
        return asyncio.run(_main(options))
