"""The command line's parser and dispatch: ``deep-research COMMAND ...``.

Each command lives in a module of its own, imported only once the arguments are parsed, so
that ``--help`` and a mistyped flag answer at once, without loading LangGraph, LangChain or
SQLAlchemy:

* ``ask`` and ``resume``: :mod:`deep_research.cli.ask` (the run's lifecycle);
* ``db upgrade``, ``chats``, ``show``, ``delete``, ``restore``, ``purge``:
  :mod:`deep_research.cli.store`;
* ``verify``: :mod:`deep_research.cli.verify`; ``token``: :mod:`deep_research.cli.token`.

Progress goes to stderr as the run goes; paths and the thread id go to stdout. Any
``DeepResearchError`` becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Coroutine, Generator
from pathlib import Path
from typing import Any, TypeVar

from deep_research.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED
from deep_research.errors import DeepResearchError

_T = TypeVar("_T")

STORE_COMMANDS = frozenset({"db", "chats", "show", "delete", "restore", "rename", "purge", "prefs"})
SOURCES_HELP = (
    "auto (default), or names joined with '+' from local, tavily, searxng, mcp, pubmed,"
    " europepmc, openalex, clinicaltrials, academic (the four scholarly sources);"
    " e.g. local+academic"
)
VERIFY_INPUT = '{"claim": str, "evidence": [str, ...]}'


def _add_ask(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = commands.add_parser("ask", help="research a question")
    ask.add_argument("question", help="the research question")
    ask.add_argument(
        "--corpus",
        help="folder of documents: PDF, DOCX, PPTX, EPUB, rst, md, txt, html (default: sample)",
    )
    ask.add_argument("--mode", choices=["simple", "web_search", "deep_research"])
    ask.add_argument("--depth", choices=["auto", "light", "medium", "extended"])
    ask.add_argument("--sources", help=SOURCES_HELP)
    ask.add_argument("--model", help="model name, or 'offline' (default: DEEP_RESEARCH_MODEL)")
    ask.add_argument("--judge-model", help="model that judges claims (default: --model)")
    ask.add_argument("--notes-model", help="model that takes notes (default: --model)")
    ask.add_argument("--max-tokens", type=int, help="stop research after this many model tokens")
    ask.add_argument("--max-cost", type=float, help="stop research after this many USD (estimated)")
    ask.add_argument("--temperature", type=float, help="sampling temperature of every model call")
    ask.add_argument("--seed", type=int, help="sampling seed of every model call (where taken)")
    ask.add_argument("--max-rounds", type=int, help="research rounds, 1..10")
    ask.add_argument("--results-per-query", type=int, help="search results per query, 3..10")
    ask.add_argument("--no-clarify", action="store_true", help="never ask a clarifying question")
    ask.add_argument("--review-plan", action="store_true", help="approve or edit the plan first")
    ask.add_argument("--out", type=Path, help="output folder (default: reports/THREAD_ID)")
    ask.add_argument("--thread", help="thread id (default: a new one)")
    ask.add_argument(
        "--continue",
        dest="continue_chat",
        action="store_true",
        help="add the question to your most recent chat",
    )
    ask.add_argument("--quiet", action="store_true", help="no progress output")
    ask.add_argument(
        "--plain", action="store_true", help="progress as plain lines, even in a terminal"
    )
    resume = commands.add_parser("resume", help="continue an interrupted run from its checkpoint")
    resume.add_argument("thread", help="the thread id printed when the run started")
    resume.add_argument("--out", type=Path, help="output folder (default: reports/THREAD_ID)")
    resume.add_argument("--quiet", action="store_true", help="no progress output")
    resume.add_argument(
        "--plain", action="store_true", help="progress as plain lines, even in a terminal"
    )


def _add_store(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = commands.add_parser("db", help="manage the database schema")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_commands.add_parser("upgrade", help="apply the migrations (default: to head)")
    db_upgrade.add_argument("--revision", default="head", help="target revision (default: head)")
    chats = commands.add_parser("chats", help="list your chats, most recent first")
    chats.add_argument("--deleted", action="store_true", help="include deleted chats")
    chats.add_argument("--limit", type=int, default=50, help="at most this many (default: 50)")
    show = commands.add_parser("show", help="print a chat: questions, reports and sessions")
    show.add_argument("id", help="the chat's thread id (see `deep-research chats`)")
    show.add_argument(
        "--steps", action="store_true", help="also each research round and step: notes, sources"
    )
    delete = commands.add_parser("delete", help="delete a chat (restorable until purged)")
    delete.add_argument("id", help="the chat's thread id")
    rename = commands.add_parser("rename", help="give a chat another title")
    rename.add_argument("id", help="the chat's thread id")
    rename.add_argument("title", help="the new title")
    restore = commands.add_parser("restore", help="restore a deleted chat")
    restore.add_argument("id", help="the chat's thread id")
    prefs = commands.add_parser(
        "prefs", help="show or set your defaults for ask (flags given to ask win)"
    )
    prefs.add_argument("--mode", choices=["simple", "web_search", "deep_research"])
    prefs.add_argument("--depth", choices=["auto", "light", "medium", "extended"])
    prefs.add_argument("--instructions", help="standing instructions for the model")
    prefs.add_argument("--clear", action="store_true", help="forget every preference first")
    purge = commands.add_parser(
        "purge",
        help="erase for good the chats deleted long enough ago: rows, checkpoints, page text",
    )
    purge.add_argument(
        "--user",
        action="store_true",
        help="erase all your chats, deleted or not (DEEP_RESEARCH_USER_ID's data)",
    )
    purge.add_argument(
        "--older-than-days",
        type=float,
        help="deleted more than this many days ago (default: DEEP_RESEARCH_CHAT_RECOVERY_DAYS)",
    )
    purge.add_argument(
        "--aegra-database-url",
        metavar="URL",
        help="Aegra's database, when the agent is served on Aegra: erase the chats' checkpoints,"
        " page text, threads and runs there too (default: AEGRA_DATABASE_URL)",
    )


def _add_verify(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = commands.add_parser(
        "verify",
        help="judge claims against evidence passages (JSON lines in, JSON lines out)",
        description=(
            f"Judge each claim against its evidence passages. Reads JSON lines {VERIFY_INPUT} "
            "from FILE or stdin; writes one JSON line per claim: verdict, confidence, "
            "evidence_index, start, end, reasoning."
        ),
    )
    verify.add_argument("file", nargs="?", type=Path, help="JSON lines file; - or none for stdin")
    verify.add_argument("--model", help="model name, or 'offline' (default: DEEP_RESEARCH_MODEL)")


def _add_token(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    token = commands.add_parser(
        "token", help="print a signed bearer token for the server (DEEP_RESEARCH_AUTH_SECRET)"
    )
    token.add_argument("user_id", help="the user the token stands for")
    token.add_argument(
        "--ttl", default="30d", help="how long it stays valid: 3600s, 90m, 12h, 30d (default 30d)"
    )


def parser() -> argparse.ArgumentParser:
    """The command line's argument parser (every command, no command's code)."""
    root = argparse.ArgumentParser(
        prog="deep-research",
        description="Research a question and write a verified, cited report.",
    )
    commands = root.add_subparsers(dest="command", required=True)
    _add_ask(commands)
    _add_store(commands)
    _add_verify(commands)
    _add_token(commands)
    return root


def _check_ids(args: argparse.Namespace) -> None:
    """Refuse a malformed thread id before anything runs (see :mod:`deep_research.ids`).

    Raises:
        InvalidIdError: ``--thread``, ``resume THREAD`` or a chat command's id is malformed.
    """
    from deep_research.ids import check_thread_id

    for name in ("thread", "id"):
        value = getattr(args, name, None)
        if value is not None:
            check_thread_id(value)


async def _run(args: argparse.Namespace) -> int:
    """Import the command's module and run it."""
    if args.command == "verify":
        from deep_research.cli.verify import run_verify

        return await run_verify(args)
    if args.command == "token":
        from deep_research.cli.token import run_token_command

        return run_token_command(args)
    if args.command in STORE_COMMANDS:
        from deep_research.cli.store import run_store_command

        return await run_store_command(args)
    from deep_research.cli.ask import run_ask

    return await run_ask(args)


def _quiet_driver_logs() -> None:
    """Keep the drivers' own logs (a pool reconnecting, a cancelled query) off stderr.

    A lost database is reported once, as the command's error line. SQLAlchemy's pool logs
    "Exception closing connection" when a failing run's cancelled node was closing one; the
    connection is dropped either way and nothing written is lost.
    """
    logging.getLogger("psycopg").setLevel(logging.CRITICAL)
    logging.getLogger("sqlalchemy.pool").setLevel(logging.CRITICAL)
    # a stalled stream is reported once, as the command's error line (its warning repeats it)
    logging.getLogger("langchain_openai").setLevel(logging.ERROR)
    # a broken PDF is reported once, in the corpus line ("1 PDF unreadable (broken.pdf)"); a
    # damaged one that still reads has nothing to tell ("EOF marker not found")
    logging.getLogger("pypdf").setLevel(logging.ERROR)


class _TaskKeeper:
    """A task factory that holds every task of the loop until it is done.

    The event loop itself holds tasks only weakly. When a run fails, LangGraph cancels the
    nodes still running; a node cancelled while SQLAlchemy opens an aiosqlite connection makes
    the pool close that connection in a shielded task, and once the driver's thread is stopped
    nothing else refers to that task: the garbage collector destroys it pending and asyncio
    prints "Task was destroyed but it is pending!" under the command's one error line. Held
    here, the task stays alive until ``asyncio.Runner`` cancels what is left at the end.
    """

    def __init__(self) -> None:
        self.alive: set[asyncio.Task[Any]] = set()

    def __call__(
        self,
        loop: asyncio.AbstractEventLoop,
        coro: Generator[Any, None, _T] | Coroutine[Any, Any, _T],
        /,
        **kwargs: Any,
    ) -> asyncio.Future[_T]:
        task: asyncio.Task[_T] = asyncio.Task(coro, loop=loop, **kwargs)
        self.alive.add(task)
        task.add_done_callback(self.alive.discard)
        return task


def run_async(main: Coroutine[Any, Any, int]) -> int:
    """``asyncio.run(main)``, keeping each task alive until it ends (see :class:`_TaskKeeper`)."""
    with asyncio.Runner() as runner:
        runner.get_loop().set_task_factory(_TaskKeeper())
        return runner.run(main)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    _quiet_driver_logs()
    try:
        _check_ids(args)
        return run_async(_run(args))
    except DeepResearchError as exc:
        print(f"deep-research: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
