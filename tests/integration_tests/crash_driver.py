"""A research run in a process of its own, for the crash tests (not a test module).

    python -m tests.integration_tests.crash_driver URL THREAD LOG OUT INDEX
        [--stop-at STAGE --marker FILE] [--resume]

It runs the graph on the offline engine over the sample corpus, with the checkpointer, the
content store and the recorder the command line would open on URL. Every engine call and
every search is appended to LOG (one line each, flushed to disk before the call proceeds), so
the calls of a killed process and of the one that resumed it can be added up.

With ``--stop-at``, the process announces that it reached the stage by creating MARKER and
then waits forever, so the test can SIGKILL it at exactly that point:

* ``fanout``: in the notes of the last researcher, once its siblings' results are saved;
* ``synthesis``: in the middle of writing the report;
* ``verification``: in the first batch of verdicts.

When the run finishes, OUT receives the report as JSON (without its timestamps).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig

from deep_research.context import Context
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.persistence.recorder import open_recorder
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.state import Report
from tests.fakes import CountingEngine, CountingSource

QUESTION = (
    "How do LFP and NMC batteries compare for grid storage, "
    "and what did Hornsdale Power Reserve cost?"
)
CONTEXT = Context(allow_clarification=False, depth="light")
STAGES = ("fanout", "synthesis", "verification")
SIBLINGS_TIMEOUT = 60.0
FANOUT_STEP = "s03"
"""The researcher killed during the fan-out (the plan of QUESTION has three steps)."""


class CallLog:
    """Appends one line per call to a file, durably, before the call goes on."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, *parts: str) -> None:
        with self.path.open("a", encoding="utf-8") as log:
            log.write(" ".join(parts) + "\n")
            log.flush()
            os.fsync(log.fileno())


class Stopper:
    """Hangs the process at the chosen stage, after creating the marker file."""

    def __init__(self, stage: str | None, marker: Path | None, config: RunnableConfig) -> None:
        self.stage, self.marker, self.config = stage, marker, config
        self.graph: Any = None

    async def reached(self, stage: str, step_id: str = "") -> None:
        if stage != self.stage or self.marker is None:
            return
        if stage == "fanout":
            if step_id != FANOUT_STEP:
                return
            await self._wait_for_siblings()
        self.marker.write_text(str(os.getpid()))
        await asyncio.Event().wait()

    async def _wait_for_siblings(self) -> None:
        deadline = asyncio.get_running_loop().time() + SIBLINGS_TIMEOUT
        while asyncio.get_running_loop().time() < deadline:
            tasks = [t for t in (await self.graph.aget_state(self.config)).tasks]
            done = [t for t in tasks if t.name == "researcher" and t.result is not None]
            if len(done) == len(tasks) - 1:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the sibling researchers did not finish")


def counting_engine(log: CallLog, stopper: Stopper) -> CountingEngine:
    """The offline engine, logging every call and stopping where the test said."""

    async def before(method: str, args: tuple[Any, ...]) -> None:
        if method in ("title", "answer"):
            return  # not research calls: the crash tests count the others
        step = args[1].id if method in ("queries", "notes") else ""
        log.add(method, *([step] if step else []))
        if method == "notes":
            await stopper.reached("fanout", step)
        elif method == "judge":
            await stopper.reached("verification")

    async def after(method: str, args: tuple[Any, ...]) -> None:
        if method == "write_report":
            await stopper.reached("synthesis")

    return CountingEngine(before=before, after=after)


def comparable(report: Report) -> dict[str, Any]:
    """The report without what differs between two identical runs (times, durations)."""
    data = report.model_dump(mode="json", exclude={"created_at"})
    data["metrics"].pop("duration_seconds")
    return data


async def main(args: argparse.Namespace) -> None:
    log = CallLog(Path(args.log))
    config: RunnableConfig = {"configurable": {"thread_id": args.thread, "user_id": "crash"}}
    stopper = Stopper(args.stop_at, Path(args.marker) if args.marker else None, config)
    corpus = LocalCorpus(SAMPLE_CORPUS, Path(args.index))
    async with (
        open_checkpointer(args.url) as checkpointer,
        open_store(args.url) as store,
        open_recorder(args.url) as recorder,
    ):
        graph = build_graph(
            engine=counting_engine(log, stopper),
            sources=[CountingSource(corpus, lambda q: log.add("search", q.replace(" ", "_")))],
            checkpointer=checkpointer,
            store=store,
            recorder=recorder,
        )
        stopper.graph = graph
        first = None if args.resume else {"messages": [HumanMessage(QUESTION)]}
        await graph.ainvoke(first, config, context=CONTEXT, durability="sync")
        report = (await graph.aget_state(config)).values["report"]
    Path(args.out).write_text(json.dumps(comparable(report), indent=1, sort_keys=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for name in ("url", "thread", "log", "out", "index"):
        parser.add_argument(name)
    parser.add_argument("--stop-at", choices=STAGES)
    parser.add_argument("--marker")
    parser.add_argument("--resume", action="store_true")
    asyncio.run(main(parser.parse_args()))
