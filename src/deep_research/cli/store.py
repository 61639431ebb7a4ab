"""The command line's storage commands: db upgrade, chats, show, delete, restore, purge.

``purge`` purges for good (:func:`deep_research.persistence.purge.purge_chats`): the chats'
rows, their threads' checkpoints and the page text no other chat refers to. Every read is
scoped to the command line's user (``DEEP_RESEARCH_USER_ID``, default ``local``). Output goes
to stdout; errors are raised as ``DeepResearchError`` for the command line to print.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, TextIO

from deep_research.cli.progress import printable
from deep_research.errors import ConfigurationError
from deep_research.persistence import queries
from deep_research.persistence.db import Database, open_database, upgrade
from deep_research.persistence.tables import utcnow
from deep_research.settings import get_settings

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from deep_research.persistence.tables import (
        Chat,
        Message,
        ResearchIteration,
        ResearchSession,
        ResearchSubStep,
    )

_ROLE_NAMES = {"user": "You", "assistant": "Deep Research", "system": "System"}


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
    if args.command == "purge":
        return await _purge(args, url, user, out)
    if args.command == "prefs":
        return await _prefs(args, url, user, out)
    # what only the editing commands use is imported by them: `chats` must start fast
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
            if getattr(args, "steps", False):
                for research in sessions:
                    rounds = await queries.list_iterations(
                        session, user_id=user, session_id=research.id
                    )
                    _print_steps(research.question_nr, rounds, out)
        elif args.command in ("rename", "delete", "restore"):
            await _edit(args, session, user, out)
    return 0


async def _edit(args: argparse.Namespace, session: AsyncSession, user: str, out: TextIO) -> None:
    """Rename, delete or restore a chat."""
    from deep_research.context import no_control_characters
    from deep_research.persistence import repository as repo

    days = get_settings().chat_recovery_days
    if args.command == "rename":
        title = args.title.strip()[:200]
        try:
            no_control_characters(title)
        except ValueError as exc:
            raise ConfigurationError(f"the title {exc}") from None
        if not title:
            raise ConfigurationError("a chat's title cannot be empty")
        await repo.rename_chat(session, user_id=user, thread_id=args.id, title=title)
        out.write(printable(f"renamed {args.id}: {title}\n"))
    elif args.command == "delete":
        from deep_research.persistence.locks import chat_run_lock

        with chat_run_lock(get_settings().data_dir, args.id):  # not while a run writes to it
            await repo.soft_delete_chat(session, user_id=user, thread_id=args.id)
        out.write(f"deleted {args.id}; `deep-research restore {args.id}` within {days:g} days\n")
    else:
        window = timedelta(days=days)
        await repo.restore_chat(session, user_id=user, thread_id=args.id, window=window)
        out.write(f"restored {args.id}\n")


def _print_steps(
    question_nr: int,
    rounds: list[tuple[ResearchIteration, list[ResearchSubStep]]],
    out: TextIO,
) -> None:
    for iteration, steps in rounds:
        decision = f": {iteration.decision}" if iteration.decision else ""
        reasoning = f" ({iteration.reasoning})" if iteration.reasoning else ""
        out.write(
            printable(
                f"\nquestion {question_nr}, round {iteration.iteration_nr}{decision}{reasoning}\n"
            )
        )
        for step in steps:
            tool = f"  [{step.tool}]" if step.tool else ""
            out.write(printable(f"  {step.step_id}  {step.instructions or ''}{tool}\n"))
            if step.sub_answer:
                out.write(printable(f"      notes: {' '.join(step.sub_answer.split())[:300]}\n"))
            for url in step.cited_docs or []:
                out.write(printable(f"      cites: {url}\n"))


async def _prefs(args: argparse.Namespace, url: str, user: str, out: TextIO) -> int:
    """Show the user's preferences, after setting those the flags give."""
    changes = {
        "mode": args.mode,
        "depth": args.depth,
        "system_instructions": args.instructions,
    }
    changes = {k: v for k, v in changes.items() if v is not None}
    from pydantic import ValidationError

    from deep_research.persistence.preferences import (
        Preferences,
        get_user_preferences,
        put_user_preferences,
    )

    async with open_database(url) as database, database.session_scope() as session:
        current = Preferences() if args.clear else await get_user_preferences(session, user_id=user)
        if changes or args.clear:
            try:
                current = Preferences.model_validate(current.model_dump() | changes)
            except ValidationError as exc:
                raise ConfigurationError(f"invalid preference: {exc.errors()[0]['msg']}") from None
            await put_user_preferences(session, user_id=user, preferences=current)
    shown = current.context_defaults()
    if not shown:
        out.write("no preferences set; ask uses its own defaults\n")
    for name, value in shown.items():
        out.write(printable(f"{name}: {value}\n"))
    return 0


async def _purge(args: argparse.Namespace, url: str, user: str, out: TextIO) -> int:
    """Purge from every store the user's chats deleted longer ago than the recovery window.

    With Aegra's database named (``--aegra-database-url`` or ``AEGRA_DATABASE_URL``), the
    chats are purged there first
    (:func:`~deep_research.server.runtimes.aegra_purge.purge_from_aegra`): a graph served by
    Aegra checkpoints and stores its page text there, not in our stores.
    """
    from deep_research.persistence.checkpointer import open_checkpointer
    from deep_research.persistence.content import open_store
    from deep_research.persistence.purge import expire_checkpoints, purge_chats
    from deep_research.server.runtimes.aegra_purge import aegra_database_url, purge_from_aegra

    days = get_settings().chat_recovery_days
    if args.older_than_days is not None:
        days = args.older_than_days
    deleted_before = None if args.user else utcnow() - timedelta(days=days)
    aegra_url = aegra_database_url(getattr(args, "aegra_database_url", None))
    async with open_database(url) as database:
        doomed = await _doomed(database, user, deleted_before)
        async with (
            open_checkpointer(url) as checkpointer,
            open_store(url) as store,
            _hold_run_locks(doomed),
        ):
            if aegra_url is not None:
                in_aegra = await purge_from_aegra(
                    aegra_url, database, user_id=user, threads=doomed, all_owned=args.user
                )
                out.write(f"erased {len(in_aegra.threads)} thread(s) from Aegra's database\n")
            purged = await purge_chats(
                database,
                checkpointer,
                store,
                user_id=user,
                deleted_before=deleted_before,
            )
            ttl = get_settings().checkpoint_ttl_minutes
            expired = (
                ()
                if ttl is None
                else await expire_checkpoints(database, checkpointer, ttl_minutes=ttl)
            )
    threads = purged.threads
    out.write(f"purged {len(threads)} chat(s){': ' if threads else ''}{', '.join(threads)}\n")
    if expired:
        out.write(f"expired the checkpoints of {len(expired)} idle chat(s)\n")
    return 0


async def _doomed(database: Database, user: str, deleted_before: datetime | None) -> list[str]:
    """The thread ids of the user's chats a purge removes (all of them without a date)."""
    async with database.session_scope() as session:
        chats = await queries.list_chats(
            session, user_id=user, include_deleted=True, limit=1_000_000
        )
    return [
        chat.thread_id
        for chat in chats
        if deleted_before is None
        or (chat.deleted_at is not None and _aware(chat.deleted_at) < deleted_before)
    ]


@asynccontextmanager
async def _hold_run_locks(doomed: list[str]) -> AsyncIterator[None]:
    """Hold the run locks of the chats a purge removes (see :func:`chat_run_lock`).

    Raises:
        ChatClosedError: one of them has a run in progress in another process.
    """
    from deep_research.persistence.locks import chat_run_lock

    with ExitStack() as held:
        for thread in doomed:
            held.enter_context(chat_run_lock(get_settings().data_dir, thread))
        yield


def _aware(moment: datetime) -> datetime:
    """``moment`` in UTC (SQLite gives back naive datetimes)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _print_chats(chats: list[Chat], out: TextIO) -> None:
    if not chats:
        out.write("no chats yet; start one with: deep-research ask QUESTION\n")
        return
    for chat in chats:
        deleted = f"  (deleted {_when(chat.deleted_at)})" if chat.deleted_at else ""
        out.write(printable(f"{chat.thread_id}  {_when(chat.updated_at)}  {chat.title}{deleted}\n"))


def _print_chat(
    chat: Chat, messages: list[Message], sessions: list[ResearchSession], out: TextIO
) -> None:
    out.write(printable(f"# {chat.title or chat.thread_id}\n\nthread: {chat.thread_id}\n"))
    for research in sessions:
        depth = f", {research.depth}" if research.depth else ""
        error = f": {research.error}" if research.error else ""
        out.write(
            printable(
                f"question {research.question_nr}: {research.status}"
                f" ({research.query_mode or 'deep_research'}{depth}){error}\n"
            )
        )
    for message in messages:
        label = _ROLE_NAMES.get(message.role, message.role)
        if message.is_clarification:
            label += " (clarification)"
        out.write(printable(f"\n--- {label} ---\n\n{message.content.strip()}\n"))
