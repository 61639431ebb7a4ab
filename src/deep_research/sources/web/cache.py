"""The page cache: extracted page text in SQLite, keyed by normalized URL, with a TTL.

It holds what a read produced (text, title, language, type), not raw bytes. Rows come from two
origins: ``web`` (the fetcher read the page) and a search provider that delivered page text
with its results (``tavily``), which is how that text reaches the reading step without
travelling in graph state.

The cache is an economy, never a source of failure: a SQLite error is logged and the read
goes to the network. Each operation opens its own connection and runs in a thread, so the
event loop never blocks on the file.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

_SCHEMA = """CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    content_type TEXT NOT NULL,
    language TEXT,
    origin TEXT NOT NULL,
    fetched_at REAL NOT NULL,
    byline TEXT,
    pages TEXT
)"""

_COLUMNS = "url, title, text, content_type, language, origin, fetched_at, byline, pages"
_ADDED = ("byline", "pages")
"""Columns added since the first release: a cache written before gets them on opening."""


@dataclass(frozen=True, slots=True)
class CachedPage:
    """One cached page."""

    url: str
    """Normalized URL, the key."""
    title: str
    text: str
    content_type: str
    language: str | None
    origin: str
    """``web`` when fetched, else the search provider that delivered the text."""
    fetched_at: float
    """Epoch seconds when the text was obtained."""
    byline: str | None = None
    """What extraction found of the page's author, date and site name, as JSON
    (``{"author": ..., "date": ..., "site_name": ...}``), or ``None``."""
    pages: str | None = None
    """Where each page of a PDF starts (a page map, ``page:0,1830``), or ``None``."""


class PageCache:
    """Pages by normalized URL, fresh for ``ttl`` seconds."""

    def __init__(self, path: Path, ttl: float, *, clock: Callable[[], float] = time.time):
        """Create a cache in the SQLite file at ``path`` (created on first write).

        Args:
            path: The SQLite file.
            ttl: Seconds a page stays fresh; ``0`` disables the cache.
            clock: Current time in epoch seconds (tests move it).
        """
        self.path = path
        self.ttl = ttl
        self._clock = clock

    @property
    def enabled(self) -> bool:
        """False when the TTL is zero: nothing is stored or served."""
        return self.ttl > 0

    def now(self) -> float:
        """The cache's current time."""
        return self._clock()

    async def get(self, url: str) -> CachedPage | None:
        """Return the fresh page cached for the normalized ``url``, or ``None``."""
        if not self.enabled:
            return None
        return await asyncio.to_thread(self._get, url, self.now() - self.ttl)

    async def put(self, page: CachedPage) -> None:
        """Store ``page`` (replacing an older one) and drop expired pages."""
        if self.enabled:
            await asyncio.to_thread(self._put, page, self.now() - self.ttl)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            _add_columns(conn)
            yield conn
        finally:
            conn.close()

    def _get(self, url: str, oldest: float) -> CachedPage | None:
        if not self.path.exists():
            return None
        try:
            with self._connect() as conn:
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM pages WHERE url = ? AND fetched_at >= ?",
                    (url, oldest),
                ).fetchone()
        except sqlite3.Error as exc:
            logger.warning("page cache %s unreadable, fetching instead: %s", self.path, exc)
            return None
        return CachedPage(*row) if row is not None else None

    def _put(self, page: CachedPage, oldest: float) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM pages WHERE fetched_at < ?", (oldest,))
                conn.execute(
                    f"INSERT OR REPLACE INTO pages ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    astuple(page),
                )
                conn.execute("COMMIT")
        except (sqlite3.Error, OSError) as exc:
            logger.warning("page cache %s not written: %s", self.path, exc)


def _add_columns(conn: sqlite3.Connection) -> None:
    """Give a cache written by an earlier release the columns added since (:data:`_ADDED`)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(pages)")}
    for column in _ADDED:
        if column not in columns:
            conn.execute(f"ALTER TABLE pages ADD COLUMN {column} TEXT")
