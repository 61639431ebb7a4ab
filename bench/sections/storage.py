"""Checkpointers by name, a throwaway PostgreSQL database, and what a thread stores."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.persistence import open_checkpointer

ADMIN_URL_VARS = ("DEEP_RESEARCH_BENCH_POSTGRES_URL", "DEEP_RESEARCH_TEST_POSTGRES_URL")
DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
BACKENDS = ("memory", "sqlite", "postgres")


def admin_url() -> str:
    """The PostgreSQL server's administrative URL (a database where CREATE DATABASE works)."""
    for name in ADMIN_URL_VARS:
        if os.environ.get(name):
            return os.environ[name].replace("postgresql+psycopg://", "postgresql://")
    return DEFAULT_ADMIN_URL


def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used, or ``None`` when it can."""
    import psycopg

    try:
        with psycopg.connect(admin_url(), connect_timeout=5):
            return None
    except psycopg.OperationalError as exc:
        return f"PostgreSQL is not reachable at {urlsplit(admin_url()).netloc}: {exc}".strip()


@asynccontextmanager
async def throwaway_database() -> AsyncIterator[str]:
    """A new, empty database (``bench_<uuid>``) for the duration; dropped afterwards."""
    import psycopg
    from psycopg import sql

    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = admin_url()
    async with await psycopg.AsyncConnection.connect(admin, autocommit=True) as conn:
        await conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(admin)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        async with await psycopg.AsyncConnection.connect(admin, autocommit=True) as conn:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            await conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@asynccontextmanager
async def checkpointer(
    backend: str, workdir: Path, postgres_url: str | None = None
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """The project's checkpointer for ``backend`` (memory, sqlite, postgres)."""
    if backend == "memory":
        url = "memory"
    elif backend == "sqlite":
        url = f"sqlite:///{workdir / f'checkpoints-{uuid.uuid4().hex[:8]}.sqlite'}"
    else:
        assert postgres_url is not None
        url = postgres_url
    async with open_checkpointer(url) as saver:
        yield saver


async def stored_bytes(saver: BaseCheckpointSaver[str], thread_id: str) -> tuple[int, int]:
    """Bytes a thread occupies (checkpoints, channel blobs, pending writes) and its checkpoints.

    Bytes are the stored payloads: serialized values and metadata, not indexes or row headers.
    """
    kind = type(saver).__name__
    if isinstance(saver, InMemorySaver):
        return _memory_bytes(saver, thread_id)
    if kind in ("AsyncSqliteSaver", "BlobSqliteSaver"):
        conn: Any = saver.conn  # type: ignore[attr-defined]
        async with conn.execute(
            "SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0), count(*)"
            " FROM checkpoints WHERE thread_id = ?",
            (thread_id,),
        ) as cursor:
            row = await cursor.fetchone()
            checkpoint_bytes, count = row[0], row[1]
        async with conn.execute(
            "SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = ?",
            (thread_id,),
        ) as cursor:
            writes = (await cursor.fetchone())[0]
        blobs = 0
        if kind == "BlobSqliteSaver":
            async with conn.execute(
                "SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_blobs WHERE thread_id = ?",
                (thread_id,),
            ) as cursor:
                blobs = (await cursor.fetchone())[0]
        return int(checkpoint_bytes + writes + blobs), int(count)
    pool: Any = saver.conn  # type: ignore[attr-defined]
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT"
            " (SELECT coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)),"
            "  0) FROM checkpoints WHERE thread_id = %(t)s) AS checkpoints,"
            " (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs"
            "  WHERE thread_id = %(t)s) AS blobs,"
            " (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes"
            "  WHERE thread_id = %(t)s) AS writes,"
            " (SELECT count(*) FROM checkpoints WHERE thread_id = %(t)s) AS count",
            {"t": thread_id},
        )
        row = await cursor.fetchone()
    return int(row["checkpoints"] + row["blobs"] + row["writes"]), int(row["count"])


def _memory_bytes(saver: Any, thread_id: str) -> tuple[int, int]:
    total = count = 0
    for checkpoints in saver.storage.get(thread_id, {}).values():
        for checkpoint, metadata, _parent in checkpoints.values():
            total += len(checkpoint[1]) + len(metadata[1])
            count += 1
    for key, (_type, blob) in saver.blobs.items():
        if key[0] == thread_id:
            total += len(blob)
    for key, writes in saver.writes.items():
        if key[0] == thread_id:
            total += sum(len(value[2][1]) for value in writes.values())
    return total, count
