"""The command line's storage commands, and the recording of how a command-line run ended.

The commands are ``db upgrade``, ``chats``, ``show``, ``delete``, ``restore`` and ``purge``.
Every read is scoped to the command line's user (``DEEP_RESEARCH_USER_ID``, default
``local``). Output goes to stdout; errors are raised as ``DeepResearchError`` for the command
line to print.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime, timedelta
from typing import Any, TextIO

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from deep_research.errors import ConfigurationError
from deep_research.persistence import queries
from deep_research.persistence import repository as repo
from deep_research.persistence.db import open_database, upgrade
from deep_research.persistence.models import Chat, Message, ResearchSession, utcnow
from deep_research.persistence.recorder import Batch, Recorder, RunScope
from deep_research.settings import get_settings

STORE_COMMANDS = frozenset({"db", "chats", "show", "delete", "restore", "purge"})
"""The subcommands this module runs."""

_ROLE_NAMES = {"user": "You", "assistant": "Deep Research", "system": "System"}


def add_store_commands(commands: Any) -> None:
    """Add the storage subcommands to the command line's subparsers."""
    db = commands.add_parser("db", help="manage the database schema")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_commands.add_parser("upgrade", help="apply the migrations (default: to head)")
    db_upgrade.add_argument("--revision", default="head", help="target revision (default: head)")
    chats = commands.add_parser("chats", help="list your chats, most recent first")
    chats.add_argument("--deleted", action="store_true", help="include deleted chats")
    chats.add_argument("--limit", type=int, default=50, help="at most this many (default: 50)")
    show = commands.add_parser("show", help="print a chat: questions, reports and sessions")
    show.add_argument("id", help="the chat's thread id (see `deep-research chats`)")
    delete = commands.add_parser("delete", help="delete a chat (restorable until purged)")
    delete.add_argument("id", help="the chat's thread id")
    restore = commands.add_parser("restore", help="restore a deleted chat")
    restore.add_argument("id", help="the chat's thread id")
    purge = commands.add_parser("purge", help="remove for good the chats deleted long enough ago")
    purge.add_argument(
        "--older-than-days",
        type=float,
        help="deleted more than this many days ago (default: DEEP_RESEARCH_CHAT_RECOVERY_DAYS)",
    )


def _database_url() -> str:
    url = get_settings().resolved_database_url
    if url == "memory":
        raise ConfigurationError("the domain store needs a database URL, not 'memory'")
    return url


async def run_store_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run one storage subcommand; returns the exit status.

    Raises:
        DeepResearchError: the chat does not exist for this user, or a setting is invalid.
    """
    out = out or sys.stdout
    settings = get_settings()
    url, user = _database_url(), settings.user_id
    if args.command == "db":
        await asyncio.to_thread(upgrade, url, args.revision)
        out.write(f"database upgraded to {args.revision}\n")
        return 0
    async with open_database(url) as database, database.session_scope() as session:
        if args.command == "chats":
            chats = await queries.list_chats(
                session, user_id=user, include_deleted=args.deleted, limit=args.limit
            )
            _print_chats(chats, out)
        elif args.command == "show":
            chat = await queries.get_chat(session, user_id=user, thread_id=args.id)
            messages = await queries.list_messages(session, user_id=user, thread_id=args.id)
            sessions = await queries.list_sessions(session, user_id=user, thread_id=args.id)
            _print_chat(chat, messages, sessions, out)
        elif args.command == "delete":
            await repo.soft_delete_chat(session, user_id=user, thread_id=args.id)
            days = settings.chat_recovery_days
            out.write(
                f"deleted {args.id}; `deep-research restore {args.id}` within {days:g} days\n"
            )
        elif args.command == "restore":
            window = timedelta(days=settings.chat_recovery_days)
            await repo.restore_chat(session, user_id=user, thread_id=args.id, window=window)
            out.write(f"restored {args.id}\n")
        else:
            days = settings.chat_recovery_days
            if args.older_than_days is not None:
                days = args.older_than_days
            purged = await repo.purge_chats(
                session, deleted_before=utcnow() - timedelta(days=days), user_id=user
            )
            out.write(f"purged {len(purged)} chat(s){': ' if purged else ''}{', '.join(purged)}\n")
    return 0


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _print_chats(chats: list[Chat], out: TextIO) -> None:
    if not chats:
        out.write("no chats yet; start one with: deep-research ask QUESTION\n")
        return
    for chat in chats:
        deleted = f"  (deleted {_when(chat.deleted_at)})" if chat.deleted_at else ""
        out.write(f"{chat.thread_id}  {_when(chat.updated_at)}  {chat.title}{deleted}\n")


def _print_chat(
    chat: Chat, messages: list[Message], sessions: list[ResearchSession], out: TextIO
) -> None:
    out.write(f"# {chat.title or chat.thread_id}\n\nthread: {chat.thread_id}\n")
    for research in sessions:
        depth = f", {research.depth}" if research.depth else ""
        error = f": {research.error}" if research.error else ""
        out.write(
            f"question {research.question_nr}: {research.status}"
            f" ({research.query_mode or 'deep_research'}{depth}){error}\n"
        )
    for message in messages:
        label = _ROLE_NAMES.get(message.role, message.role)
        if message.is_clarification:
            label += " (clarification)"
        out.write(f"\n--- {label} ---\n\n{message.content.strip()}\n")


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
    status = "failed" if errors else "interrupted"
    error = errors[0] if errors else None
    await recorder.write(scope, Batch(session={"status": status, "error": error}))


def _cancelled(error: object) -> bool:
    """Whether a task's error is its cancellation (Ctrl-C, SIGTERM): an interruption.

    Checkpoints keep a task's error as its ``repr``, ``CancelledError()`` for a cancellation.
    """
    return isinstance(error, asyncio.CancelledError) or str(error).startswith("CancelledError")


def run_config(thread_id: str) -> RunnableConfig:
    """The run configuration of a command-line run: its thread and its user."""
    return {"configurable": {"thread_id": thread_id, "user_id": get_settings().user_id}}
