"""One checkpointer factory: in-memory, a SQLite file, or PostgreSQL, chosen by URL.

``DEEP_RESEARCH_DATABASE_URL`` (or an explicit URL) picks the backend:

* ``memory``: :class:`InMemorySaver` (tests; nothing survives the process);
* ``sqlite:///path/to/file.sqlite``: :class:`AsyncSqliteSaver` (the embedded default);
* ``postgresql://...`` or ``postgresql+psycopg://...``: :class:`AsyncPostgresSaver` on a pool.

Every checkpointer is set up (its tables created) and closed by the context manager.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.errors import ConfigurationError, StoreError
from deep_research.persistence.locks import async_sqlite_setup_lock
from deep_research.state import models

SERDE_ALLOWLIST = tuple(
    (cls.__module__, cls.__name__)
    for cls in vars(models).values()
    if isinstance(cls, type) and cls.__module__ == models.__name__
)
"""Our domain types, allowed explicitly so checkpoints never deserialize unknown classes."""


CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the first PostgreSQL connection before giving up with a clear error."""


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def make_serde() -> JsonPlusSerializer:
    """A serializer that deserializes only LangGraph's safe types and our domain models.

    The snapshots of the state's ``DeltaChannel``s need no entry: LangGraph stores them under
    their own msgpack extension, around values made of our models.
    """
    return JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST)


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
        yield InMemorySaver(serde=make_serde())
    elif url.startswith("sqlite:"):
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            saver.serde = make_serde()
            async with async_sqlite_setup_lock(path):
                await saver.setup()
            yield saver
    elif url.startswith(("postgresql", "postgres")):
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool, PoolTimeout

        try:  # one plain connection first: a clear, immediate error when the server is down
            probe = await psycopg.AsyncConnection.connect(
                postgres_conninfo(url), connect_timeout=int(CONNECT_TIMEOUT)
            )
        except psycopg.OperationalError as exc:
            reason = " ".join(str(exc).split())
            raise StoreError(
                f"could not connect to the checkpoint database {redact(url)}: {reason}"
            ) from exc
        await probe.close()
        pool = AsyncConnectionPool(
            postgres_conninfo(url),
            min_size=1,
            max_size=8,
            open=False,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        )
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except PoolTimeout as exc:
            await pool.close()
            raise StoreError(
                f"could not connect to the checkpoint database {redact(url)} "
                f"within {CONNECT_TIMEOUT:g} s"
            ) from exc
        async with pool:
            postgres = AsyncPostgresSaver(pool, serde=make_serde())  # type: ignore[arg-type]
            await postgres.setup()
            yield postgres
    else:
        raise ConfigurationError(
            f"unsupported database URL {url!r}: use memory, sqlite:///FILE or postgresql://..."
        )
