"""Run DRB tasks through the graph and score them, concurrently, resumably, within a budget.

Each task goes through four stages, each saved in ``tasks/<id>.json`` as soon as it is done:
``article`` (our graph answers the prompt; the whole report goes to ``reports/<id>.json``),
``cleaned`` (DRB's cleaning), ``race`` (pairwise against the peer) and ``fact``. A rerun with
the same ``--out`` skips the stages already saved, so a run that stopped (a crash, a
rate limit, Ctrl-C) goes on where it was. ``submission.jsonl`` and ``cleaned.jsonl`` (DRB's
formats) are rewritten from the saved tasks as each one finishes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from bench.drb.data import Peer, Task
from bench.drb.fact import Reader, fact_task
from bench.drb.judge import Judge
from bench.drb.measure import ask, measure
from bench.drb.prompts import DrbPrompts
from bench.drb.race import Order, clean, race_task
from deep_research.engines.llm import ModelLimits
from deep_research.sources import SourceProvider

BAR = 24
"""Width of the progress bar, in characters."""


@dataclass
class Plan:
    """Everything a run needs, decided before it starts."""

    tasks: list[Task]
    model: BaseChatModel
    judge: BaseChatModel
    """RACE's judge: it cleans and compares articles."""
    judge_name: str
    fact_judge: BaseChatModel
    """FACT's judge: it extracts, deduplicates and validates citations."""
    fact_judge_name: str
    prompts: DrbPrompts
    peer: Peer
    sources: Sequence[SourceProvider] | None
    """The providers searched; ``None``: each task's simulated web."""
    reader: Callable[[Task], Reader]
    """What FACT reads a task's cited URLs with."""
    out: Path
    depth: str = "light"
    order: Order = "alternate"
    jobs: int = 1
    max_cost: float | None = None
    model_limits: ModelLimits | None = None
    judge_limits: ModelLimits | None = None
    fact_judge_limits: ModelLimits | None = None
    spent: float = 0.0
    done: int = 0
    started: float = field(default_factory=time.monotonic)

    def cost(self, record: dict[str, Any]) -> float:
        """USD of one task's saved tokens at the known prices (0 without a price)."""
        usd = 0.0
        for limits, key in (
            (self.model_limits, "model_tokens"),
            (self.judge_limits, "judge"),
            (self.fact_judge_limits, "fact_judge"),
        ):
            tokens = record.get(key) or {}
            if limits is not None:
                prompt, completion = (
                    tokens.get("prompt_tokens", 0),
                    tokens.get("completion_tokens", 0),
                )
                usd += limits.cost(prompt, completion)
        return usd


def task_path(out: Path, task_id: int) -> Path:
    """Where a task's record is saved (an id is a whole number: ``data.task_id``)."""
    if isinstance(task_id, bool) or not isinstance(task_id, int):
        raise TypeError(f"a task id is a whole number, not {task_id!r}")
    return out / "tasks" / f"{task_id}.json"


def load_record(out: Path, task_id: int) -> dict[str, Any]:
    """A task's saved record, or an empty one."""
    path = task_path(out, task_id)
    if not path.is_file():
        return {}
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


def write_file(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all, never through a symbolic link.

    A new temporary file (a name of its own, created exclusively: a link planted at a
    predictable ``.NAME.partial`` would be followed) is renamed over ``path``, which replaces
    a link there rather than writing where it points.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def save_record(out: Path, record: dict[str, Any]) -> None:
    """Save a task's record."""
    write_file(task_path(out, record["id"]), json.dumps(record, ensure_ascii=False, indent=1))


def finished(record: dict[str, Any]) -> bool:
    """Whether every stage of a task is saved."""
    return all(key in record for key in ("article", "cleaned", "race", "fact"))


def _judge_usage(record: dict[str, Any], judge: Judge, key: str) -> None:
    """Add what ``judge`` spent since the last call to ``record[key]``."""
    spent = record.get(key) or {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
    now = judge.usage.as_dict()
    record[key] = {k: spent.get(k, 0) + now[k] for k in now}
    judge.usage.prompt_tokens = judge.usage.completion_tokens = judge.usage.calls = 0


async def run_stages(
    plan: Plan, task: Task, record: dict[str, Any], judge: Judge, fact_judge: Judge
) -> None:
    """Run the stages of ``task`` that ``record`` lacks, saving after each."""
    out = plan.out
    if "article" not in record:
        report = await ask(task, plan.model, depth=plan.depth, sources=plan.sources)
        data = report.model_dump(mode="json", by_alias=True)
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_file(out / "reports" / f"{task.id}.json", text)
        record["article"] = report.markdown
        record["measured"] = measure(task, report, report.config.depth).row()
        metrics = report.metrics
        record["model_tokens"] = {
            "prompt_tokens": metrics.prompt_tokens,
            "completion_tokens": metrics.completion_tokens,
        }
        save_record(out, record)
    if "cleaned" not in record:
        record["cleaned"] = await clean(judge, plan.prompts, task, record["article"])
        _judge_usage(record, judge, "judge")
        save_record(out, record)
    if "race" not in record:
        peer = plan.peer.articles[task.id]
        record["race"] = await race_task(
            judge, plan.prompts, task, record["cleaned"], peer, plan.order
        )
        _judge_usage(record, judge, "judge")
        save_record(out, record)
    if "fact" not in record:
        reader = plan.reader(task)
        record["fact"] = await fact_task(fact_judge, plan.prompts, task, record["article"], reader)
        _judge_usage(record, fact_judge, "fact_judge")
        save_record(out, record)


def write_outputs(plan: Plan) -> None:
    """Rewrite ``submission.jsonl`` and ``cleaned.jsonl`` from the saved tasks."""
    submission, cleaned = [], []
    for task in plan.tasks:
        record = load_record(plan.out, task.id)
        if "article" in record:
            line = {"id": task.id, "prompt": task.prompt, "article": record["article"]}
            submission.append(json.dumps(line, ensure_ascii=False))
        if "cleaned" in record:
            line = {"id": task.id, "prompt": task.prompt, "article": record["cleaned"]}
            cleaned.append(json.dumps(line, ensure_ascii=False))
    write_file(plan.out / "submission.jsonl", "".join(f"{line}\n" for line in submission))
    write_file(plan.out / "cleaned.jsonl", "".join(f"{line}\n" for line in cleaned))


def progress(plan: Plan, task: Task, record: dict[str, Any]) -> str:
    """One line of progress after a task."""
    total = len(plan.tasks)
    filled = BAR * plan.done // total if total else BAR
    minutes = (time.monotonic() - plan.started) / 60
    if "error" in record:
        outcome = f"failed: {record['error']}"
    else:
        race = record["race"]["race"]["overall"]
        fact = record["fact"]
        outcome = (
            f"race vs peer {race:.3f}, FACT {fact['effective_citations']}/{fact['citations']} "
            "supported"
        )
    return (
        f"[{'#' * filled}{'.' * (BAR - filled)}] {plan.done}/{total} task {task.id} "
        f"({task.language}) {outcome}; ${plan.spent:.2f} spent; {minutes:.1f} min"
    )


async def run_task(plan: Plan, task: Task, gate: asyncio.Semaphore) -> dict[str, Any]:
    """One task under the concurrency gate and the budget; its record is saved as it goes."""
    record = load_record(plan.out, task.id) or {"id": task.id, "language": task.language}
    if finished(record):
        plan.done += 1
        return record
    async with gate:
        if plan.max_cost is not None and plan.spent >= plan.max_cost:
            record["error"] = f"not started: ${plan.spent:.2f} spent, --max-cost reached"
        else:
            record.pop("error", None)
            before = plan.cost(record)
            judge = Judge(plan.judge, plan.judge_name)
            fact_judge = Judge(plan.fact_judge, plan.fact_judge_name)
            try:
                await run_stages(plan, task, record, judge, fact_judge)
            except Exception as exc:  # one task's failure must not end the run; saved, retried
                record["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            _judge_usage(record, judge, "judge")  # a failed stage's tokens count too
            _judge_usage(record, fact_judge, "fact_judge")
            plan.spent += plan.cost(record) - before
        save_record(plan.out, record)
    plan.done += 1
    write_outputs(plan)
    print(progress(plan, task, record), file=sys.stderr, flush=True)
    return record


async def run_all(plan: Plan) -> list[dict[str, Any]]:
    """Run every task of the plan, at most ``plan.jobs`` at once; their records in task order."""
    gate = asyncio.Semaphore(max(1, plan.jobs))
    records = await asyncio.gather(*(run_task(plan, task, gate) for task in plan.tasks))
    write_outputs(plan)
    return list(records)
