"""A record of every simulated call, and the critical-path lower bound derived from it.

Each call is recorded with the LangGraph task it ran in (its ``checkpoint_ns``), so that the
dependency structure of a run can be rebuilt afterwards:

* calls of one node execution that ask for the same thing (searches of different queries,
  reads of different pages, judgements of different claims) do not depend on each other, so
  they count once; a judgement of claims already judged in the same execution (verify's
  second look at alternate evidence) depends on the first, so it counts again;
* the node executions of one researcher run one after another;
* researchers of one dispatch overlap, so only the longest counts;
* the main graph's node executions run one after another.

The bound is the sum of those latencies: the wall time of a run that waits only for its calls.
Each call counts the time its profile gives it (:mod:`bench.sim.profiles`): calls of one group
count the longest of them.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CallRecord:
    """One simulated call."""

    kind: str
    """``model``, ``search`` or ``read``."""
    stage: str
    call: str
    key: str
    """What was asked (a digest), to match calls across runs."""
    ns: str
    """The LangGraph ``checkpoint_ns`` of the task the call ran in ("" outside a graph)."""
    start: float
    end: float = 0.0
    first: float = 0.0
    """When the completion's first token came (a model call's; 0 until it has)."""
    cost: float = 0.0
    """The simulated seconds the call was meant to take (its profile's time, or a search's
    latency); 0: unknown, the latency of its kind counts (see :func:`critical_path`)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    items: tuple[str, ...] = ()


def current_ns() -> str:
    """The ``checkpoint_ns`` of the LangGraph task running now ("" outside a graph)."""
    from langgraph.config import get_config

    try:
        config = get_config()
    except RuntimeError:
        return ""
    return str(config.get("configurable", {}).get("checkpoint_ns", ""))


@dataclass
class Trace:
    """Calls recorded in order; optionally journaled to a file and killed at a chosen call."""

    records: list[CallRecord] = field(default_factory=list)
    journal: Path | None = None
    """Append one JSON line per call start and end (survives SIGKILL)."""
    kill_at: tuple[str, int] | None = None
    """``(call, n)``: SIGKILL this process when the n-th call of that kind starts."""
    _started: dict[str, int] = field(default_factory=dict)

    def start(self, record: CallRecord) -> CallRecord:
        """Record the start of a call (and die here if this is the kill point)."""
        self.records.append(record)
        self._write("start", record)
        n = self._started[record.call] = self._started.get(record.call, 0) + 1
        if self.kill_at is not None and self.kill_at == (record.call, n):
            os.kill(os.getpid(), signal.SIGKILL)
        return record

    def end(self, record: CallRecord, **values: Any) -> None:
        """Record the end of a call, with its token counts."""
        for name, value in values.items():
            setattr(record, name, value)
        record.end = time.perf_counter()
        self._write("end", record)

    def _write(self, event: str, record: CallRecord) -> None:
        if self.journal is None:
            return
        data = (json.dumps({"event": event, **asdict(record)}) + "\n").encode()
        fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)


def read_journal(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The calls a journal saw start and those it saw end."""
    started: list[dict[str, Any]] = []
    ended: list[dict[str, Any]] = []
    if not path.exists():
        return started, ended
    for line in path.read_text().splitlines():
        if line.strip():
            entry = json.loads(line)
            (started if entry.pop("event") == "start" else ended).append(entry)
    return started, ended


def _cost(record: CallRecord, latency: Mapping[str, float]) -> float:
    """The seconds a call was meant to take: its own, else the latency of its kind."""
    return record.cost or latency.get(record.kind, 0.0)


@dataclass(frozen=True)
class _Placed:
    """A call placed on the ideal timeline of its node execution."""

    group: tuple[str, str, int]
    start: float
    end: float
    ideal: float
    """When it would have started in a run that waits only for its calls."""
    cost: float


def _execution_cost(calls: Sequence[CallRecord], latency: Mapping[str, float]) -> float:
    """Latency of one node execution, on a timeline that waits only for its calls.

    Calls of a group of independent calls start together and the group lasts as long as its
    longest call. A call that started while a call of another group was in flight did not wait
    for it: it starts on the ideal timeline as far into that call as it started into it (a
    paragraph's claims judged while the writer still streams, issue #45). Any other call waits
    for everything before it.
    """
    placed: list[_Placed] = []
    starts: dict[tuple[str, str, int], float] = {}
    judged: set[str] = set()
    finish = 0.0
    for record in sorted(calls, key=lambda r: r.start):
        wave = 2 if judged & set(record.items) else 1
        judged |= set(record.items)
        group = (record.kind, record.call, wave)
        during = [
            p.ideal + p.cost * (record.start - p.start) / (p.end - p.start)
            for p in placed
            if p.group != group and p.start <= record.start < p.end
        ]
        ideal = max(during) if during else starts.get(group, finish)
        starts.setdefault(group, ideal)
        cost = _cost(record, latency)
        placed.append(_Placed(group, record.start, record.end, ideal, cost))
        finish = max(finish, ideal + cost)
    return finish


def _overlapping_max(spans: Sequence[tuple[float, float, float]]) -> float:
    """Sum of costs where ``(start, end, cost)`` spans follow each other, the largest where
    they overlap (ran in parallel)."""
    total = 0.0
    cluster_end = float("-inf")
    cluster_max = 0.0
    for start, end, cost in sorted(spans):
        if start >= cluster_end:
            total += cluster_max
            cluster_max = 0.0
        cluster_max = max(cluster_max, cost)
        cluster_end = max(cluster_end, end)
    return total + cluster_max


def critical_path(
    records: Sequence[CallRecord], latency: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The lower bound of a run's wall time from its calls, and its parts.

    A call counts the seconds it was meant to take (:attr:`CallRecord.cost`); a call recorded
    without them counts the ``latency`` of its kind.

    Returns:
        ``bound`` (seconds) and ``main`` / ``researchers`` (their shares of it).
    """
    latency = latency or {}
    executions: dict[str, list[CallRecord]] = defaultdict(list)
    for record in records:
        executions[record.ns].append(record)
    nodes: list[tuple[float, float, float]] = []
    tasks: dict[str, list[CallRecord]] = defaultdict(list)
    for ns, calls in executions.items():
        if "|" in ns:
            tasks[ns.split("|", 1)[0]].extend(calls)
        else:
            cost = _execution_cost(calls, latency)
            nodes.append((min(r.start for r in calls), max(r.end for r in calls), cost))
    chains: list[tuple[float, float, float]] = []
    for calls in tasks.values():
        by_execution: dict[str, list[CallRecord]] = defaultdict(list)
        for record in calls:
            by_execution[record.ns].append(record)
        cost = sum(_execution_cost(group, latency) for group in by_execution.values())
        chains.append((min(r.start for r in calls), max(r.end for r in calls), cost))
    # Main-graph nodes of one step (title_chat beside plan) overlap: count the longest.
    main = _overlapping_max(nodes)
    researchers = _overlapping_max(chains)
    return {"bound": main + researchers, "main": main, "researchers": researchers}
