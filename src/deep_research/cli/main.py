"""The command line: ``ask``, ``resume``, ``verify``, ``token``, and the storage commands.

The storage commands (``db upgrade``, ``chats``, ``show``, ``delete``, ``restore``, ``purge``)
live in :mod:`deep_research.cli.store`; ``verify`` (claims against evidence, as JSON
lines) in :mod:`deep_research.cli.verify`.

Progress goes to stderr as the run goes; paths and the thread id go to stdout. Any
``DeepResearchError`` becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import uuid
from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from deep_research.cli.progress import ProgressPrinter
from deep_research.cli.store import (
    STORE_COMMANDS,
    add_store_commands,
    record_stop,
    run_config,
    run_store_command,
    unfinished,
)
from deep_research.cli.token import add_token_command, run_token_command
from deep_research.cli.verify import add_verify_command, run_verify
from deep_research.context import Context, make_context, validate_question
from deep_research.errors import CorpusNotFoundError, DeepResearchError
from deep_research.graph import build_graph
from deep_research.persistence import open_checkpointer, open_recorder, open_store
from deep_research.settings import get_settings
from deep_research.state import Report

EXIT_ERROR = 2
DURABILITY: Literal["sync"] = "sync"
"""Write each checkpoint before the next step starts: a killed process then loses only the
step in flight (with "async", parallel branches' writes can land late; see BENCHMARKS.md)."""
EXIT_INTERRUPTED = 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deep-research",
        description="Research a question and write a verified, cited report.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", help="research a question")
    ask.add_argument("question", help="the research question")
    ask.add_argument("--corpus", help="folder of .md/.txt/.html files (default: sample corpus)")
    ask.add_argument("--mode", choices=["simple", "web_search", "deep_research"])
    ask.add_argument("--depth", choices=["auto", "light", "medium", "extended"])
    ask.add_argument("--sources", choices=["auto", "local", "tavily", "local+tavily"])
    ask.add_argument("--model", help="model name, or 'offline' (default: DEEP_RESEARCH_MODEL)")
    ask.add_argument("--max-rounds", type=int, help="research rounds, 1..10")
    ask.add_argument("--results-per-query", type=int, help="search results per query, 3..10")
    ask.add_argument("--no-clarify", action="store_true", help="never ask a clarifying question")
    ask.add_argument("--review-plan", action="store_true", help="approve or edit the plan first")
    ask.add_argument("--out", type=Path, help="output folder (default: reports/THREAD_ID)")
    ask.add_argument("--thread", help="thread id (default: a new one)")
    ask.add_argument("--quiet", action="store_true", help="no progress output")
    resume = commands.add_parser("resume", help="continue an interrupted run from its checkpoint")
    resume.add_argument("thread", help="the thread id printed when the run started")
    resume.add_argument("--out", type=Path, help="output folder (default: reports/THREAD_ID)")
    resume.add_argument("--quiet", action="store_true", help="no progress output")
    add_store_commands(commands)
    add_verify_command(commands)
    add_token_command(commands)
    return parser


def _ask_context(args: argparse.Namespace) -> Context:
    if args.corpus is not None:
        corpus = Path(args.corpus).expanduser()
        if not corpus.is_dir():
            raise CorpusNotFoundError(f"corpus folder not found: {corpus}")
        args.corpus = str(corpus.resolve())
    knobs = {
        "model": args.model,
        "mode": args.mode,
        "depth": args.depth,
        "sources": args.sources,
        "corpus_dir": args.corpus,
        "max_rounds": args.max_rounds,
        "results_per_query": args.results_per_query,
        "allow_clarification": False if args.no_clarify else None,
        "review_plan": True if args.review_plan else None,
    }
    return make_context(**{k: v for k, v in knobs.items() if v is not None})


def _answer(payload: dict[str, Any], printer: ProgressPrinter) -> Any:
    """Ask the person at the terminal; with no terminal, take the default."""
    prompt = printer.interrupt(payload)
    try:
        line = input(prompt) if sys.stdin.isatty() else sys.stdin.readline()
    except EOFError:
        line = ""
    line = line.strip()
    if payload.get("type") == "plan_review":
        steps = [s.strip() for s in line.split(";") if s.strip()]
        return {"steps": steps} if steps else {"approve": True}
    return line


async def _drive(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    first_input: Any,
    config: RunnableConfig,
    context: Context,
    printer: ProgressPrinter,
) -> None:
    """Stream the run, answering interrupts until the graph finishes."""
    pending: Any = first_input
    while True:
        interrupts: list[Any] = []
        async for _namespace, mode, chunk in graph.astream(
            pending,
            config,
            context=context,
            stream_mode=["custom", "updates"],
            subgraphs=True,
            durability=DURABILITY,
        ):
            if mode == "custom" and isinstance(chunk, dict):
                printer.event(chunk)
            elif isinstance(chunk, dict) and "__interrupt__" in chunk:
                interrupts.extend(chunk["__interrupt__"])
        if not interrupts:
            return
        pending = Command(resume=_answer(interrupts[0].value, printer))


def _write(report: Report, out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    markdown, data = out / "report.md", out / "report.json"
    markdown.write_text(report.markdown, encoding="utf-8")
    data.write_text(
        json.dumps(report.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    return markdown, data


async def _run(args: argparse.Namespace) -> int:
    if args.command == "verify":
        return await run_verify(args)
    if args.command == "token":
        return run_token_command(args)
    if args.command in STORE_COMMANDS:
        return await run_store_command(args)
    settings = get_settings()
    printer = ProgressPrinter(quiet=args.quiet)
    if args.command == "ask":
        question = validate_question(args.question)
        context = _ask_context(args)
        thread = args.thread or uuid.uuid4().hex[:12]
        first: Any = {"messages": [HumanMessage(question)]}
    else:
        thread, context, first = args.thread, Context(), None
    config = run_config(thread)
    url = settings.resolved_database_url
    async with (
        open_checkpointer(url) as checkpointer,
        open_store(url) as store,
        open_recorder(url) as recorder,
    ):
        graph = build_graph(checkpointer=checkpointer, store=store, recorder=recorder)
        if args.command == "resume":
            snapshot = await graph.aget_state(config)
            if not snapshot.values:
                raise DeepResearchError(f"no run with thread id {thread!r} in this database")
            context = make_context(**snapshot.values.get("run_context", {}))
            if snapshot.interrupts:
                first = Command(resume=_answer(snapshot.interrupts[0].value, printer))
            elif not unfinished(snapshot):
                printer.note("the run had already finished; writing its report again")
        printer.start(thread, context)
        _stop_on_sigterm()
        try:
            if first is not None or unfinished(await graph.aget_state(config)):
                await _drive(graph, first, config, context, printer)
        except (KeyboardInterrupt, asyncio.CancelledError):
            print(f"interrupted; continue with: deep-research resume {thread}", file=sys.stderr)
            return EXIT_INTERRUPTED
        except DeepResearchError as exc:
            raise type(exc)(f"{exc} (continue with: deep-research resume {thread})") from exc
        finally:
            await record_stop(graph, config, recorder)
        report = (await graph.aget_state(config)).values.get("report")
    if report is None:
        raise DeepResearchError(f"run {thread} ended without a report")
    markdown, data = _write(report, args.out or Path("reports") / thread)
    printer.done(report)
    print(f"thread: {thread}\nreport: {markdown}\njson:   {data}")
    return 0


def _stop_on_sigterm() -> None:
    """Let ``kill`` (SIGTERM) stop a run as Ctrl-C does: recorded as interrupted, resumable.

    The running task is cancelled; the run's last checkpoint stays, and ``resume`` goes on
    from it. ``kill -9`` cannot be caught: its run stays ``in_progress`` until resumed.
    """
    task = asyncio.current_task()
    if task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(_run(args))
    except DeepResearchError as exc:
        print(f"deep-research: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
