"""Database URLs as each client spells them: SQLAlchemy's sync and async drivers, libpq, a file.

``DEEP_RESEARCH_DATABASE_URL`` is one URL (``sqlite:///FILE`` or ``postgresql://...``, with or
without a ``+driver``); the checkpointer, the content store, the domain store and the
migrations each need it spelt their own way.
"""

from __future__ import annotations

from pathlib import Path

from deep_research.errors import ConfigurationError

__all__ = ["async_url", "postgres_conninfo", "sqlite_path", "sync_url"]


def _scheme(url: str) -> str:
    if url.startswith("sqlite:"):
        return "sqlite"
    if url.startswith(("postgresql", "postgres:", "postgres+")):
        return "postgresql"
    raise ConfigurationError(
        f"unsupported database URL {url!r}: use sqlite:///FILE or postgresql+psycopg://..."
    )


def _rest(url: str) -> str:
    return url.split("://", 1)[1] if "://" in url else ""


def async_url(url: str) -> str:
    """The SQLAlchemy async URL for a configured one (``sqlite+aiosqlite``, ``postgresql+psycopg``).

    Raises:
        ConfigurationError: the URL is neither SQLite nor PostgreSQL.
    """
    if _scheme(url) == "sqlite":
        return f"sqlite+aiosqlite://{_rest(url)}"
    return f"postgresql+psycopg://{_rest(url)}"


def sync_url(url: str) -> str:
    """The SQLAlchemy sync URL (``sqlite``, ``postgresql+psycopg``), used by migrations.

    Raises:
        ConfigurationError: the URL is neither SQLite nor PostgreSQL.
    """
    if _scheme(url) == "sqlite":
        return f"sqlite://{_rest(url)}"
    return f"postgresql+psycopg://{_rest(url)}"


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
