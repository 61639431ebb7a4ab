"""Orchestration efficiency: wall time over the critical-path lower bound, by plan size.

Each run researches the question with a plan of 1, 4, 8 or 16 steps on the simulation (model
calls as long as the latency profile makes them for their tokens, a fixed latency per search
and page read), an in-memory checkpointer, every step researched at once, one round. The bound
is the longest chain of dependent calls, each counted for the time the simulation gave it
(:func:`bench.sim.trace.critical_path`). Sizes are interleaved within each repetition,
so that the ratios are measured side by side. A run without latency measures the time the
agent spends computing (framework, evidence selection, checks) rather than waiting.

After the warm-up the section freezes the process's objects, as the command line does after
its start-up (:func:`~deep_research.cli.ask.freeze_start_up`): a full garbage collection
would otherwise scan the harness's and the libraries' objects with the interpreter stopped
(about 150 ms here, in most 16-step runs). The full collections that still happen during the
measured runs are counted and timed in the results.
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import os
import pstats
import time
from collections import defaultdict
from collections.abc import Callable
from statistics import median
from typing import Any
from unittest.mock import patch

from langgraph.checkpoint.memory import InMemorySaver

from bench import agent
from bench.common import log, summary
from bench.sections import Options
from bench.sim.model import SimulatedChatModel
from bench.sim.profiles import (
    DEFAULT,
    INSTANT,
    READ_SECONDS,
    SEARCH_SECONDS,
    Profile,
    profile,
)
from bench.sim.responder import Scenario
from bench.sim.search import SimulatedSearch
from bench.sim.trace import CallRecord, Trace, critical_path
from deep_research import worker
from deep_research.cli import freeze_start_up
from deep_research.events import namespace_path
from deep_research.persistence import make_serde

NAME = "orchestration"
SIZES = (1, 4, 8, 16)
LATENCY = {"search": SEARCH_SECONDS, "read": READ_SECONDS}
"""Seconds per search and page read: real calls scaled down tenfold (a search of 1.5 s, a page
read of 1 s); model calls take their profile's time (:mod:`bench.sim.profiles`)."""
TARGET = 1.10
"""Wall time over the bound that a plan of any size may take (issue #45; issue #16 allowed 1.15
beyond four steps)."""


def target_for(steps: int) -> float:
    """The wall/bound target of a plan of ``steps`` steps: :data:`TARGET` at every size."""
    return TARGET


def _node(ns: str) -> str:
    path = namespace_path(ns)
    return path[0][0] if path else "(outside)"


def _node_name(ns: str) -> str:
    """The node of an execution: ``verify``, or ``researcher/search_sources`` in a researcher."""
    nodes = [node for node, _ in namespace_path(ns)]
    return "/".join(nodes) if nodes else "(outside)"


def serial_calls(records: list[CallRecord]) -> dict[str, dict[str, Any]]:
    """Calls of the same kind made one at a time within one node execution.

    For each node and kind of call: the most calls one execution made, and the most that were
    ever in flight together in an execution. Only kinds made more than once per execution and
    never concurrently are returned.
    """
    by_execution: dict[tuple[str, str], list[CallRecord]] = defaultdict(list)
    for record in records:
        by_execution[(record.ns, record.call)].append(record)
    found: dict[str, dict[str, Any]] = {}
    for (ns, call), calls in by_execution.items():
        events = sorted([(r.start, 1) for r in calls] + [(r.end, -1) for r in calls])
        running = peak = 0
        for _, step in events:
            running += step
            peak = max(peak, running)
        key = f"{_node_name(ns)}: {call}"
        entry = found.setdefault(key, {"calls_per_execution": 0, "max_in_flight": 0})
        entry["calls_per_execution"] = max(entry["calls_per_execution"], len(calls))
        entry["max_in_flight"] = max(entry["max_in_flight"], peak)
    return {
        key: entry
        for key, entry in found.items()
        if entry["calls_per_execution"] > 1 and entry["max_in_flight"] == 1
    }


async def hot_spots(steps: int, limit: int = 8) -> list[dict[str, Any]]:
    """The agent's own functions that took the most time in a run without latency (cProfile).

    Node functions and the graph's wiring are left out (they contain everything); what is
    left names where the computing happens. cProfile sees one thread only, so for this run
    ``asyncio.to_thread`` and :func:`deep_research.worker.in_turn` run their function in
    place: the computing the agent sends to worker threads (evidence selection) is counted too.
    """
    profile = cProfile.Profile()

    async def in_place(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    with patch.object(asyncio, "to_thread", in_place), patch.object(worker, "in_turn", in_place):
        profile.enable()
        await one_run(steps, INSTANT, dict.fromkeys(LATENCY, 0.0))
        profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    rows = []
    for (filename, line, function), (_, calls, _, cumulative, _) in stats.items():
        if "/deep_research/" not in filename or function.startswith("<"):
            continue
        module = filename.split("/deep_research/", 1)[1]
        if module.startswith(("nodes/", "graph/")) or (module, function) == ("services.py", "run"):
            continue  # a node, or the wrapper that runs one
        rows.append(
            {
                "function": f"{module.removesuffix('.py').replace('/', '.')}.{function}",
                "line": line,
                "calls": calls,
                "seconds": round(cumulative, 3),
            }
        )
    rows.sort(key=lambda r: -r["seconds"])
    return rows[:limit]


OUTSIDE_CALLS = "(outside calls)"
"""The wall time beyond the bound that no node's calls span (see :func:`excess_by_node`)."""


def excess_by_node(
    records: list[CallRecord], latency: dict[str, float], wall: float | None = None
) -> dict[str, float]:
    """Seconds each node's executions took beyond their share of the bound.

    An execution counts from its first call's start to its last call's end; executions of the
    main graph that overlapped count together, charged to the longest. The researchers
    count as the longest of them against the longest chain of dependent calls among them (the
    bound's share). With the run's ``wall`` time, :data:`OUTSIDE_CALLS` is the rest of the time
    beyond the bound: the nodes' own computing before their first call and after their last
    (prompts, reading the draft, the report), executions that make no call, and LangGraph's
    steps between nodes.
    """
    spans: dict[str, list[CallRecord]] = defaultdict(list)
    for record in records:
        spans[record.ns if "|" not in record.ns else record.ns.split("|", 1)[0]].append(record)
    excess: dict[str, float] = defaultdict(float)
    researchers: list[tuple[float, float]] = []
    main: list[tuple[float, float, float, str]] = []
    for key, calls in spans.items():
        start, end = min(r.start for r in calls), max(r.end for r in calls)
        bound = critical_path(calls, latency)["bound"]
        node = _node(key)
        if node == "researcher":
            researchers.append((end - start, bound))
        else:
            main.append((start, end, bound, node))
    if researchers:  # the longest researcher against the longest chain, which the bound counts
        excess["researcher"] = max(a for a, _ in researchers) - max(b for _, b in researchers)
    # main-graph executions that ran side by side (title_chat beside plan) count once, as in
    # the bound: their span against the longest of them, charged to the node that took longest
    cluster: list[tuple[float, float, float, str]] = []
    for execution in [*sorted(main), None]:
        if cluster and (execution is None or execution[0] >= max(c[1] for c in cluster)):
            span = max(c[1] for c in cluster) - min(c[0] for c in cluster)
            slowest = max(cluster, key=lambda c: c[1] - c[0])[3]
            excess[slowest] += span - max(c[2] for c in cluster)
            cluster = []
        if execution is not None:
            cluster.append(execution)
    if wall is not None:
        excess[OUTSIDE_CALLS] = (
            wall - critical_path(records, latency)["bound"] - sum(excess.values())
        )
    return {node: round(seconds, 3) for node, seconds in excess.items()}


async def one_run(
    steps: int, model_profile: Profile = DEFAULT, latency: dict[str, float] = LATENCY
) -> dict[str, Any]:
    """One run of a ``steps``-step plan; its wall time, bound and call counts.

    Model calls take the time ``model_profile`` gives them, searches and reads ``latency``.
    """
    trace = Trace()
    model = SimulatedChatModel(
        scenario=Scenario(plan_steps=steps), latency_profile=model_profile, trace=trace
    )
    search = SimulatedSearch(latency["search"], latency["read"], trace)
    graph = agent.graph_for(model, [search], InMemorySaver(serde=make_serde()))
    state, wall = await agent.run(graph, steps)
    bound = critical_path(trace.records, latency)
    calls: dict[str, int] = defaultdict(int)
    for record in trace.records:
        calls[record.call] += 1
    return {
        "wall": wall,
        "bound": bound,
        "ratio": wall / bound["bound"] if bound["bound"] else float("nan"),
        "calls": dict(calls),
        "excess": excess_by_node(trace.records, latency, wall),
        "serial": serial_calls(trace.records),
        "sources": len(state.get("sources", [])),
        "plan": len(state.get("plan", [])),
    }


class _FullCollections:
    """A :data:`gc.callbacks` entry that counts full (generation 2) collections and times them."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.count += 1
            self.seconds += time.perf_counter() - self._started


async def _main(options: Options) -> dict[str, Any]:
    sizes = (1, 2) if options.quick else SIZES
    latency = {k: v / 10 for k, v in LATENCY.items()} if options.quick else LATENCY
    model_profile = profile(options.profile)
    repeats = 1 if options.quick else options.repeats
    runs: dict[int, list[dict[str, Any]]] = defaultdict(list)
    idle: dict[int, list[float]] = defaultdict(list)
    zero = dict.fromkeys(LATENCY, 0.0)
    load_before = os.getloadavg()[0]
    for steps in sizes:  # warm-up: imports, caches, fixture pages
        await one_run(steps, INSTANT, zero)
    freeze_start_up()
    collections = _FullCollections()
    gc.callbacks.append(collections)
    try:
        for repeat in range(repeats):
            for steps in sizes:
                log(f"orchestration: repetition {repeat + 1}/{repeats}, {steps} steps")
                runs[steps].append(await one_run(steps, model_profile, latency))
                idle[steps].append((await one_run(steps, INSTANT, zero))["wall"])
    finally:
        gc.callbacks.remove(collections)
        gc.unfreeze()
    table = []
    for steps in sizes:
        done = runs[steps]
        nodes = sorted({n for r in done for n in r["excess"]})
        table.append(
            {
                "plan_steps": steps,
                "planned": done[0]["plan"],
                "ratio": summary([r["ratio"] for r in done], 3),
                "wall_seconds": summary([r["wall"] for r in done], 3),
                "bound_seconds": round(done[0]["bound"]["bound"], 3),
                "bound_parts": {k: round(v, 3) for k, v in done[0]["bound"].items()},
                "compute_seconds": summary(idle[steps], 3),
                "excess_seconds": {
                    n: round(median(r["excess"].get(n, 0.0) for r in done), 3) for n in nodes
                },
                "calls": done[0]["calls"],
                "serial_calls": done[0]["serial"],
                "sources": done[0]["sources"],
                "target": target_for(steps),
                "meets_target": median(r["ratio"] for r in done) <= target_for(steps),
            }
        )
    return {
        "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "full_collections": {
            "count": collections.count,
            "seconds": round(collections.seconds, 3),
            "runs": 2 * repeats * len(sizes),
        },
        "latency_seconds": latency,
        "profile": model_profile.described(),
        "target": TARGET,
        "repeats": repeats,
        "sizes": table,
        "hot_spots": {"plan_steps": max(sizes), "functions": await hot_spots(max(sizes))},
    }


def run(options: Options) -> dict[str, Any]:
    """Measure wall time against the critical path for every plan size."""
    with agent.plan_budget(max(SIZES)):
        return asyncio.run(_main(options))
