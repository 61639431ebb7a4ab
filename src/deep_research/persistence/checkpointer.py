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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.errors import ConfigurationError
from deep_research.persistence import compression
from deep_research.persistence.locks import async_sqlite_setup_lock
from deep_research.persistence.packing import PACKED_REFS, is_ref_list, pack_refs, unpack_refs
from deep_research.persistence.timeouts import DatabaseTimeouts, redact
from deep_research.persistence.versions import ShortVersions
from deep_research.state import models

__all__ = ["SERDE_ALLOWLIST", "make_serde", "open_checkpointer", "postgres_conninfo", "redact"]

SERDE_ALLOWLIST = tuple(
    (cls.__module__, cls.__name__)
    for cls in vars(models).values()
    if isinstance(cls, type) and cls.__module__ == models.__name__
)
"""Our domain types, allowed explicitly so checkpoints never deserialize unknown classes."""


class CompressingSerializer(JsonPlusSerializer):
    """LangGraph's serializer, storing values zlib-compressed with a dictionary of our records.

    Every value that compression makes smaller is stored as ``<type>+zlib-d1``
    (:mod:`~deep_research.persistence.compression`): large ones (a report, the claims) shrink
    about 3.5 times, small ones (a researcher's ``Send``, a usage record) more, as the
    dictionary holds the names they would otherwise spell out. A list of evidence references
    is stored as tables (:mod:`~deep_research.persistence.packing`), which take half the
    bytes. Values stored plainly or as ``+zlib``, by this class or before it, read as they
    are. A subclass rather than a wrapper, so LangGraph's msgpack allowlist still applies.
    """

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialize ``obj``; compress the result when that makes it smaller."""
        if is_ref_list(obj):
            type_, data = PACKED_REFS, pack_refs(obj)
        else:
            type_, data = super().dumps_typed(obj)
        compressed = compression.compress(data)
        if compressed is None:
            return type_, data
        suffix, packed = compressed
        return type_ + suffix, packed

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Deserialize a stored value, decompressing it first if it was compressed."""
        type_, payload = compression.decompress(*data)
        if type_ == PACKED_REFS:
            return unpack_refs(payload)
        return super().loads_typed((type_, payload))


class CompactMemorySaver(ShortVersions, InMemorySaver):
    """LangGraph's in-memory saver, with short channel versions like the other backends."""


def make_serde() -> JsonPlusSerializer:
    """A serializer that deserializes only LangGraph's safe types and our domain models.

    The snapshots of the state's ``DeltaChannel``s need no entry: LangGraph stores them under
    their own msgpack extension, around values made of our models. Values are stored
    compressed (:class:`CompressingSerializer`).
    """
    return CompressingSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


def postgres_conninfo(url: str) -> str:
    """Turn a SQLAlchemy-style URL (``postgresql+psycopg://``) into a libpq one."""
    for prefix in ("postgresql+psycopg://", "postgres+psycopg://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def sqlite_path(url: str) -> Path:
    """The file of a ``sqlite:///path`` URL.

    Raises:
        ConfigurationError: the URL names no file.
    """
    path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
    if not path or path == ":memory:":
        raise ConfigurationError(f"a SQLite database URL must name a file, got {url!r}")
    return Path(path)


@asynccontextmanager
async def open_checkpointer(url: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open, set up and finally close the checkpointer that ``url`` names.

    Raises:
        ConfigurationError: the URL's scheme is not memory, sqlite or postgresql.
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
