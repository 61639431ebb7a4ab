"""Resume cost: SIGKILL at each stage, resume, and count the calls done twice.

For each stage, a child process runs the question (4-step plan, SQLite checkpointer as the CLI
uses) and kills itself with SIGKILL the moment a chosen call of that stage starts: the middle
one when several run in parallel. A second process resumes the thread. Every call of both
processes is journaled; a call is *repeated* when the first process had finished the same call
(same request) and the second makes it again. Children are forked from this process (the
imports are done once); each runs its own event loop.

Target: only the step in flight is redone. A node execution counts as in flight when nothing
after it in its task (the main graph, or its researcher) had started when the process died;
repeats inside those are expected, repeats elsewhere are lost work. Every stage is measured
with LangGraph's default durability (``async``) and with ``sync`` (what the CLI runs).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from langgraph.errors import EmptyInputError

from bench import agent
from bench.common import log, summary
from bench.sections import Options
from bench.sim.model import SimulatedChatModel
from bench.sim.responder import Scenario
from bench.sim.search import SimulatedSearch
from bench.sim.trace import Trace, read_journal
from deep_research.events import namespace_path
from deep_research.persistence import open_checkpointer, open_store

Durability = Literal["sync", "async"]
NAME = "resume"
STEPS = 4
KILL_POINTS = (
    ("clarify", "ClarifyDecision", 1),
    ("plan", "ResearchPlan", 1),
    ("queries", "SearchQueries", 3),
    ("search", "search", 5),
    ("read", "read", 20),
    ("notes", "StepNotes", 3),
    ("write", "report", 1),
    ("verify", "VerdictBatch", 1),
    ("revise", "Rewrite", 2),
)
"""(stage, call, n): die when the n-th call of that kind starts."""
CHILD_TIMEOUT = 120
LATENCY = {"model": 0.05, "search": 0.03, "read": 0.03}
DURABILITIES: tuple[Durability, ...] = ("async", "sync")


async def _agent_run(
    db: Path,
    thread: str,
    journal: Path,
    kill: tuple[str, int] | None,
    resume: bool,
    durability: Durability,
) -> None:
    trace = Trace(journal=journal, kill_at=kill)
    model = SimulatedChatModel(
        scenario=Scenario(plan_steps=STEPS), latency=LATENCY["model"], trace=trace
    )
    search = SimulatedSearch(LATENCY["search"], LATENCY["read"], trace)
    # the content store beside the checkpointer, as the command line opens them (researchers
    # keep their finished stages there for a resume)
    async with (
        open_checkpointer(f"sqlite:///{db}") as saver,
        open_store(f"sqlite:///{db}") as store,
    ):
        graph = agent.graph_for(model, [search], saver, store=store)
        config = agent.thread_config(thread)
        await agent.run(graph, STEPS, config=config, resume=resume, durability=durability)


NOT_RESUMABLE = 3
"""Exit code of a resume that found no checkpoint of the thread at all."""


def _child_main(*args: Any) -> None:
    with agent.plan_budget(STEPS):
        try:
            asyncio.run(_agent_run(*args))
        except EmptyInputError:
            sys.exit(NOT_RESUMABLE)


def _child(
    workdir: Path,
    thread: str,
    journal: Path,
    durability: Durability,
    kill: tuple[str, int] | None = None,
    resume: bool = False,
) -> int:
    """Run (or resume) the thread in a forked process; its exit code (-9: killed)."""
    db = workdir / "checkpoints.sqlite"
    context = multiprocessing.get_context("fork")
    process = context.Process(
        target=_child_main, args=(db, thread, journal, kill, resume, durability)
    )
    process.start()
    process.join(CHILD_TIMEOUT)
    if process.exitcode is None:
        process.kill()
        process.join()
        raise RuntimeError(f"the resume child did not finish in {CHILD_TIMEOUT} s")
    if process.exitcode not in (0, -9, NOT_RESUMABLE):
        raise RuntimeError(f"the resume child failed with exit code {process.exitcode}")
    return process.exitcode


def _task(ns: str) -> str:
    return ns.split("|", 1)[0] if "|" in ns else "main"


def in_flight(started: list[dict[str, Any]]) -> set[str]:
    """Node executions (namespaces) with nothing started after them in their task."""
    last: dict[str, str] = {}
    for call in started:
        last[_task(call["ns"])] = call["ns"]
    return set(last.values())


def compare(first: Path, second: Path) -> dict[str, Any]:
    """Calls finished before the kill, made on resume, and made twice."""
    started, ended = read_journal(first)
    resumed, _ = read_journal(second)
    finished = Counter((c["key"], c["call"]) for c in ended)
    flying = in_flight(started)
    flying_keys = Counter((c["key"], c["call"]) for c in ended if c["ns"] in flying)
    again = Counter((c["key"], c["call"]) for c in resumed)
    repeated = finished & again
    expected = repeated & flying_keys
    lost = repeated - expected
    return {
        "finished_before_kill": sum(finished.values()),
        "calls_on_resume": len(resumed),
        "repeated": sum(repeated.values()),
        "repeated_in_flight": sum(expected.values()),
        "repeated_finished": sum(lost.values()),
        "repeated_finished_calls": sorted({call for _, call in lost}),
        "in_flight_nodes": sorted({namespace_path(ns)[-1][0] for ns in flying if ns}),
    }


def _completed(journal: Path) -> bool:
    started, ended = read_journal(journal)
    return len(started) == len(ended) and any(c["call"] == "VerdictBatch" for c in ended)


def _stage(workdir: Path, stage: str, call: str, n: int, durability: Durability) -> dict[str, Any]:
    workdir.mkdir()
    thread = uuid.uuid4().hex[:12]
    start = time.perf_counter()
    killed = _child(workdir, thread, workdir / "first", durability, kill=(call, n))
    resumed = _child(workdir, thread, workdir / "second", durability, resume=True)
    row: dict[str, Any] = {
        "stage": stage,
        "durability": durability,
        "killed_at": f"{call} #{n}",
        "killed": killed == -9,
        "resumable": resumed != NOT_RESUMABLE,
    }
    row |= compare(workdir / "first", workdir / "second")
    row["completed_after_resume"] = _completed(workdir / "second")
    row["meets_target"] = row["killed"] and row["resumable"] and row["repeated_finished"] == 0
    row["seconds"] = round(time.perf_counter() - start, 2)
    return row


def run(options: Options) -> dict[str, Any]:
    """Kill and resume at every stage, with each durability."""
    points = KILL_POINTS[:2] if options.quick else KILL_POINTS
    durabilities = DURABILITIES[:1] if options.quick else DURABILITIES
    rows = []
    uninterrupted: dict[str, list[float]] = {d: [] for d in durabilities}
    total = 0
    with tempfile.TemporaryDirectory(prefix="bench-resume-") as tmp:
        for repeat in range(1 if options.quick else options.repeats):
            for durability in durabilities:
                baseline = Path(tmp) / f"baseline-{durability}-{repeat}"
                baseline.mkdir()
                _child(baseline, "baseline", baseline / "journal", durability)
                started, ended = read_journal(baseline / "journal")
                total = len(started)
                seconds = max(c["end"] for c in ended) - min(c["start"] for c in started)
                uninterrupted[durability].append(seconds)
        for durability in durabilities:
            for stage, call, n in points:
                log(f"resume: {durability} durability, kill at {stage} ({call} #{n})")
                workdir = Path(tmp) / f"{durability}-{stage}"
                rows.append(_stage(workdir, stage, call, n, durability))
    return {
        "plan_steps": STEPS,
        "calls_uninterrupted": total,
        "uninterrupted_seconds": {d: summary(v, 3) for d, v in uninterrupted.items()},
        "stages": rows,
    }
