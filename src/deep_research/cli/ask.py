"""``ask`` and ``resume``: a research run from the terminal, from its start to its report.

The run streams its progress to stderr, answers the graph's interrupts at the terminal (or
takes their defaults with no terminal), checkpoints every step before the next one starts,
and writes report.md, report.json, report.html and report.article.md. Ctrl-C and SIGTERM stop it as
``interrupted`` and an error as ``failed`` (:func:`record_stop`); ``resume THREAD`` goes on
from the last checkpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import sys
import tempfile
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from deep_research.cli.exits import EXIT_INTERRUPTED
from deep_research.cli.live import LiveProgress, make_progress
from deep_research.cli.progress import ProgressPrinter
from deep_research.context import Context, make_context, validate_question
from deep_research.errors import (
    ChatClosedError,
    CorpusNotFoundError,
    CorpusUnreadableError,
    DatabaseUnavailableError,
    DeepResearchError,
)
from deep_research.persistence import queries
from deep_research.persistence.db import open_database
from deep_research.persistence.preferences import (
    Preferences,
    apply_preferences,
    get_user_preferences,
)
from deep_research.settings import get_settings
from deep_research.text.inert import escaped_name

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import StateSnapshot

    from deep_research.persistence.recorder import Recorder
    from deep_research.state import Report

# LangGraph, LangChain and the graph's modules take most of a second to import: they are
# imported where the run needs them, after `ask` has printed its first progress line.

DURABILITY: Literal["sync"] = "sync"
"""Write each checkpoint before the next step starts: a killed process then loses only the
step in flight (with "async", parallel branches' writes can land late; see BENCHMARKS.md)."""


def _ask_context(args: argparse.Namespace, preferences: Preferences) -> Context:
    """The run's context: the flags, then the user's stored preferences, then the defaults."""
    if args.corpus is not None:
        corpus = Path(args.corpus).expanduser()
        if not corpus.is_dir():
            raise CorpusNotFoundError(f"corpus folder not found: {corpus}")
        args.corpus = str(corpus.resolve())
    knobs = {
        "model": args.model,
        "judge_model": args.judge_model,
        "notes_model": args.notes_model,
        "max_tokens": args.max_tokens,
        "max_cost_usd": args.max_cost,
        "temperature": args.temperature,
        "seed": args.seed,
        "mode": args.mode,
        "depth": args.depth,
        "sources": args.sources,
        "corpus_dir": args.corpus,
        "max_rounds": args.max_rounds,
        "results_per_query": args.results_per_query,
        "allow_clarification": False if args.no_clarify else None,
        "review_plan": True if args.review_plan else None,
    }
    chosen = {k: v for k, v in knobs.items() if v is not None}
    apply_preferences(preferences, chosen)
    return make_context(**chosen)


Printer = ProgressPrinter | LiveProgress
"""What shows a run's progress: plain lines, or the live view in a terminal."""


def _answer(payload: dict[str, Any], printer: Printer) -> Any:
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
    printer: Printer,
) -> None:
    """Stream the run, answering interrupts until the graph finishes."""
    from langgraph.types import Command

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


async def preflight(context: Context, printer: Printer | None = None) -> None:
    """Set up the run's engine and sources once, before the run stores anything.

    A configuration error (a model whose package is not installed, a source without its key)
    then stops ``ask`` with one line and nothing to resume. A local corpus is indexed here,
    and what it read and skipped is shown (one line, by kind and reason): a folder none of
    whose files could be read stops the run when it is the only source, rather than a run
    over an empty index.

    Raises:
        ConfigurationError: the engine or a source cannot be set up.
        CorpusNotFoundError: the corpus folder does not exist.
        CorpusUnreadableError: not one file of the corpus folder could be read.
    """
    from deep_research.services import Services
    from deep_research.sources.base import Inventoried
    from deep_research.sources.inventory import nothing_read, summary_line

    services = Services()  # what the run's graph resolves per run, resolved once ahead
    services.engine_for(context)
    providers = await services.sources_for(context)
    for provider in providers:
        if not isinstance(provider, Inventoried):
            continue
        inventory = await asyncio.to_thread(provider.inventory)
        if printer is not None:
            printer.note(summary_line(inventory))
        only_source = all(isinstance(p, Inventoried) for p in providers)
        if not inventory.total_read and only_source:  # else the web or an API may answer
            folder = escaped_name(context.corpus_dir or "the bundled sample corpus")
            raise CorpusUnreadableError(nothing_read(folder, inventory))


def write_report(report: Report, out: Path) -> tuple[Path, Path, Path]:
    """Write report.md, report.json, report.html and report.article.md into ``out``.

    Returns the paths of the first three (the article sits beside report.md). Each file is
    written to a new temporary file in ``out``, then renamed over its name: a symbolic link
    planted at ``out/report.md`` is replaced, never followed.

    Raises:
        DeepResearchError: a file cannot be written (with its name).
    """
    from deep_research.report.build import article_markdown
    from deep_research.report.html import render_html

    data = json.dumps(report.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = (
            replace_file(out, "report.md", report.markdown),
            replace_file(out, "report.json", data + "\n"),
            replace_file(out, "report.html", render_html(report)),
        )
        replace_file(out, "report.article.md", article_markdown(report))
    except OSError as exc:
        where = escaped_name(str(exc.filename or out))
        raise DeepResearchError(f"cannot write the report to {where}: {exc.strerror}") from None
    return written


def replace_file(folder: Path, name: str, text: str) -> Path:
    """Write ``folder/name`` as a new file (see :func:`write_report`); return its path."""
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the report from other tools
        os.replace(temporary, folder / name)
    finally:
        Path(temporary).unlink(missing_ok=True)  # left only when the write or the rename failed
    return folder / name


async def run_ask(args: argparse.Namespace) -> int:
    """Run ``ask`` or ``resume``; returns the exit status.

    The run holds its chat's run lock from the moment its chat is known to its end, so that
    ``delete`` and ``purge`` in another process refuse the chat meanwhile
    (:func:`~deep_research.persistence.locks.chat_run_lock`).

    Raises:
        DeepResearchError: bad input, a configuration error, or a failed run (with the
            command that continues it).
        ChatClosedError: another process runs on the chat.
    """
    with ExitStack() as held:
        return await _run_ask(args, held)


async def _run_ask(args: argparse.Namespace, held: ExitStack) -> int:
    """:func:`run_ask`, its chat's lock entered into ``held``."""
    from deep_research.persistence.locks import chat_run_lock

    settings = get_settings()
    printer = make_progress(quiet=args.quiet, plain=args.plain)
    url = settings.resolved_database_url
    if args.command == "ask":
        question = validate_question(args.question)
        if args.continue_chat and args.thread:
            raise DeepResearchError("give --thread ID or --continue, not both")
        preferences, thread = await _chat_of(args, url, settings.user_id)
        held.enter_context(chat_run_lock(settings.data_dir, thread))
        context = _ask_context(args, preferences)
        printer.start(thread, context)  # all it shows is known: show it before the imports
    else:
        _, thread = await _chat_of(args, url, settings.user_id)
        held.enter_context(chat_run_lock(settings.data_dir, thread))
        context = Context()
    from langchain_core.messages import HumanMessage
    from langgraph.types import Command

    from deep_research.graph import build_graph
    from deep_research.persistence import open_checkpointer, open_recorder, open_store

    first: Any = None
    if args.command == "ask":
        first = {"messages": [HumanMessage(question)]}
        await preflight(context, printer)  # before the run stores anything: nothing to resume
    config = run_config(thread)
    async with (
        open_checkpointer(url) as checkpointer,
        open_store(url) as store,
        open_recorder(url) as recorder,
    ):
        graph = build_graph(checkpointer=checkpointer, store=store, recorder=recorder)
        freeze_start_up()
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
        database_lost = False
        try:
            if first is not None or unfinished(await graph.aget_state(config)):
                await _drive(graph, first, config, context, printer)
        except (KeyboardInterrupt, asyncio.CancelledError):
            print(f"interrupted; continue with: deep-research resume {thread}", file=sys.stderr)
            return EXIT_INTERRUPTED
        except DatabaseUnavailableError as exc:
            database_lost = True  # nothing more can be recorded; the last checkpoint stays
            raise DatabaseUnavailableError(
                f"{exc} (once it is back, continue with: deep-research resume {thread})"
            ) from exc
        except ChatClosedError:
            raise  # deleted or purged meanwhile (on another machine): nothing to resume
        except DeepResearchError as exc:
            raise type(exc)(f"{exc} (continue with: deep-research resume {thread})") from exc
        finally:
            printer.stop()
            if not database_lost:
                await record_stop(graph, config, recorder)
        report = (await graph.aget_state(config)).values.get("report")
    if report is None:
        raise DeepResearchError(f"run {thread} ended without a report")
    markdown, data, page = write_report(report, args.out or Path("reports") / thread)
    printer.done(report)
    article = markdown.with_name("report.article.md")
    paths = [escaped_name(str(path)) for path in (markdown, data, page, article)]
    print(f"thread: {thread}\nreport: {paths[0]}\njson:   {paths[1]}\nhtml:   {paths[2]}")
    print(f"article: {paths[3]}")
    return 0


async def _chat_of(args: argparse.Namespace, url: str, user_id: str) -> tuple[Preferences, str]:
    """The user's stored preferences and the chat the command goes on, in one read.

    The chat is ``--thread``, the most recent one for ``--continue``, else a new one. A chat
    the user deleted takes no new question and no resume until it is restored.

    Raises:
        DeepResearchError: there is no chat to continue, or the chat is deleted.
    """
    thread: str | None = args.thread
    if url == "memory":
        return Preferences(), thread or uuid.uuid4().hex[:12]
    async with open_database(url) as database, database.session_scope() as session:
        preferences = await get_user_preferences(session, user_id=user_id)
        if getattr(args, "continue_chat", False):
            latest = await queries.list_chats(session, user_id=user_id, limit=1)
            if not latest:
                raise DeepResearchError("there is no chat to continue; ask without --continue")
            thread = latest[0].thread_id
        if thread and await queries.is_deleted_chat(session, user_id=user_id, thread_id=thread):
            raise DeepResearchError(
                f"chat {thread} is deleted; restore it first with: deep-research restore {thread}"
            )
    return preferences, thread or uuid.uuid4().hex[:12]


def freeze_start_up() -> None:
    """Keep the objects of start-up (modules, the compiled graph) out of full collections.

    Python's full garbage collection scans every object it tracks with the interpreter
    stopped: after start-up some 170,000, 80 to 150 ms on these machines, and a long run sets
    one off about once, while the parallel researchers wait. Frozen (:func:`gc.freeze`), they
    are never scanned again, and they live as long as the process anyway; the run's own
    objects are collected as before.
    """
    gc.freeze()


def _stop_on_sigterm() -> None:
    """Let ``kill`` (SIGTERM) stop a run as Ctrl-C does: recorded as interrupted, resumable.

    The running task is cancelled; the run's last checkpoint stays, and ``resume`` goes on
    from it. ``kill -9`` cannot be caught: its run stays ``in_progress`` until resumed.
    """
    task = asyncio.current_task()
    if task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


def unfinished(snapshot: StateSnapshot) -> bool:
    """True while the thread has work left: a next node, or a step whose writes are pending.

    A process killed between a step's last write and the next checkpoint leaves a snapshot
    whose ``next`` is empty but whose tasks carry the pending writes; resuming applies them.
    """
    return bool(snapshot.next or snapshot.tasks)


async def record_stop(
    graph: CompiledStateGraph[Any, Any, Any, Any], config: RunnableConfig, recorder: Recorder
) -> None:
    """Record how a command-line run stopped: failed (with its error) or interrupted.

    A finished run has nothing to add (finalize recorded it as completed).
    """
    from deep_research.persistence.recorder import Batch, RunScope
    from deep_research.persistence.records import SessionStatus, SessionUpdate

    snapshot = await graph.aget_state(config)
    if not unfinished(snapshot) or not snapshot.values:
        return
    errors = [
        str(task.error)
        for task in snapshot.tasks
        if task.error is not None and not _cancelled(task.error)
    ]
    scope = RunScope(
        user_id=config["configurable"]["user_id"],
        thread_id=config["configurable"]["thread_id"],
        question_nr=max(int(snapshot.values.get("question_nr", 1)), 1),
    )
    status = SessionStatus.FAILED if errors else SessionStatus.INTERRUPTED
    stopped = SessionUpdate(status=status, error=errors[0] if errors else None)
    try:
        await recorder.write(scope, Batch(session=stopped))
    except ChatClosedError:
        pass  # deleted or purged meanwhile: nothing more is recorded into it


def _cancelled(error: object) -> bool:
    """Whether a task's error is its cancellation (Ctrl-C, SIGTERM): an interruption.

    Checkpoints keep a task's error as its ``repr``, ``CancelledError()`` for a cancellation.
    """
    return isinstance(error, asyncio.CancelledError) or str(error).startswith("CancelledError")


def run_config(thread_id: str) -> RunnableConfig:
    """The run configuration of a command-line run: its thread and its user."""
    return {"configurable": {"thread_id": thread_id, "user_id": get_settings().user_id}}
