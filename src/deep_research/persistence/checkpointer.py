"""One checkpointer factory: in-memory, a SQLite file, or PostgreSQL, chosen by URL.

``DEEP_RESEARCH_DATABASE_URL`` (or an explicit URL) picks the backend:

* ``memory``: :class:`CompactMemorySaver`, LangGraph's :class:`InMemorySaver` (tests; nothing
  survives the process);
* ``sqlite:///path/to/file.sqlite``: :class:`~.sqlite_saver.BlobSqliteSaver` (the embedded
  default: LangGraph's SQLite saver, storing each channel value once per version);
* ``postgresql://...`` or ``postgresql+psycopg://...``: :class:`AsyncPostgresSaver` on a pool.

Every checkpointer is set up (its tables created) and closed by the context manager, and
writes short channel versions (:mod:`~deep_research.persistence.versions`).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.errors import ConfigurationError
from deep_research.persistence import legacy
from deep_research.persistence.locks import async_sqlite_setup_lock
from deep_research.persistence.timeouts import DatabaseTimeouts, redact
from deep_research.persistence.urls import sqlite_path
from deep_research.persistence.versions import ShortVersions
from deep_research.state import models

__all__ = ["SERDE_ALLOWLIST", "make_serde", "open_checkpointer", "redact"]

SERDE_ALLOWLIST = (
    *(
        (cls.__module__, cls.__name__)
        for cls in vars(models).values()
        if isinstance(cls, type) and cls.__module__ == models.__name__
    ),
    *legacy.RETIRED_TYPES,
)
"""Our domain types, allowed explicitly so checkpoints never deserialize unknown classes
(and the retired ones, which come back as their fields: :mod:`.legacy`)."""

COMPRESSED = "+zlib"
"""Suffix of the stored type of a value stored zlib-compressed."""


class CompressingSerializer(JsonPlusSerializer):
    """LangGraph's serializer, storing values zlib-compressed when that makes them smaller.

    A compressed value's stored type is ``<type>+zlib`` (a report or the claims shrink about
    3.5 times). Values written in retired formats read as they were written
    (:mod:`~deep_research.persistence.legacy`). A subclass rather than a wrapper, so
    LangGraph's msgpack allowlist still applies.
    """

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize ``obj``; compress the result when that makes it smaller."""
        type_, data = super().dumps_typed(obj)
        packed = zlib.compress(data)
        return (type_ + COMPRESSED, packed) if len(packed) < len(data) else (type_, data)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Deserialize a stored value, in any format ever written."""
        decoded = legacy.decode(*data)
        if isinstance(decoded, list):
            return decoded
        return legacy.upgrade(super().loads_typed(decoded))


class CompactMemorySaver(ShortVersions, InMemorySaver):
    """LangGraph's in-memory saver, with short channel versions like the other backends."""


def make_serde() -> JsonPlusSerializer:
    """A serializer that deserializes only LangGraph's safe types and our domain models.

    The snapshots of the state's ``DeltaChannel``s need no entry: LangGraph stores them under
    their own msgpack extension, around values made of our models. Values are stored
    compressed when that pays (:class:`CompressingSerializer`).
    """
    return CompressingSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


@asynccontextmanager
async def open_checkpointer(url: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open, set up and finally close the checkpointer that ``url`` names.

    Raises:
        ConfigurationError: the URL's scheme is not memory, sqlite or postgresql.

    Example:
        ``memory``, ``sqlite:///FILE`` or ``postgresql://...``; the tables are set up on open:

        >>> import asyncio, tempfile
        >>> async def saver_for(url: str) -> str:
        ...     async with open_checkpointer(url) as saver:
        ...         return type(saver).__name__
        >>> asyncio.run(saver_for("memory"))
        'CompactMemorySaver'
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     asyncio.run(saver_for(f"sqlite:///{folder}/checkpoints.db"))
        'BlobSqliteSaver'
    """
    if url == "memory":
        yield CompactMemorySaver(serde=make_serde())
    elif url.startswith("sqlite:"):
        from deep_research.persistence.sqlite_saver import BlobSqliteSaver

        path = sqlite_path(url)
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        async with BlobSqliteSaver.from_conn_string(str(path)) as saver:
            saver.serde = make_serde()
            async with async_sqlite_setup_lock(path):
                await saver.setup()
            yield saver
    elif url.startswith(("postgresql", "postgres")):
        from deep_research.persistence.postgres import BoundedPostgresSaver, open_pool

        timeouts = DatabaseTimeouts.from_settings()
        async with open_pool(url, timeouts, max_size=8, what="the checkpoint database") as pool:
            postgres = BoundedPostgresSaver(pool, url=url, timeouts=timeouts, serde=make_serde())
            await postgres.setup()
            yield postgres
    else:
        raise ConfigurationError(
            f"unsupported database URL {url!r}: use memory, sqlite:///FILE or postgresql://..."
        )
