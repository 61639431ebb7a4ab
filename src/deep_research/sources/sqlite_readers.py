"""A small pool of read-only SQLite connections, for queries from several threads."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ReaderPool:
    """Read-only connections to the index, kept open between queries.

    A query takes an idle connection, or opens one, and gives it back after use: a connection
    is used by one thread at a time (so it may move between threads), and concurrent queries
    each have their own. At most ``keep`` idle connections stay open; a connection that failed
    is closed rather than kept. A query reads the last committed state of the index, since a
    reader outside a transaction sees each new commit.
    """

    def __init__(self, path: Path, keep: int) -> None:
        self._path = path
        self._keep = keep
        self._lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        self._generation = 0  # incremented by close(): connections lent before are not kept
        # Idle connections are closed explicitly when the pool is collected or at exit.
        weakref.finalize(self, _close_all, self._idle)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """Lend a connection for one query.

        Raises:
            sqlite3.Error: no connection could be opened.
        """
        with self._lock:
            conn = self._idle.pop() if self._idle else None
            generation = self._generation
        if conn is None:
            conn = _open_reader(self._path)
        healthy = False
        try:
            yield conn
            healthy = True
        finally:
            with self._lock:
                kept = healthy and generation == self._generation and len(self._idle) < self._keep
                if kept:
                    self._idle.append(conn)
            if not kept:
                conn.close()

    def close(self) -> None:
        """Close the idle connections, and the lent ones when they come back."""
        with self._lock:
            self._generation += 1
            idle = self._idle.copy()
            self._idle.clear()
        _close_all(idle)


def _open_reader(path: Path) -> sqlite3.Connection:
    # check_same_thread=False: the pool hands a connection to one thread at a time.
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _close_all(connections: list[sqlite3.Connection]) -> None:
    for conn in connections:
        conn.close()
    connections.clear()
