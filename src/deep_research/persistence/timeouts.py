"""Bounded waits on PostgreSQL: nothing waits on the database for longer than a set time.

A database that goes away mid-run must end a command within seconds, with one clear error,
and leave the thread resumable; a server must answer 503 rather than hang. Three layers:

* **connecting**: libpq's ``connect_timeout`` (``DEEP_RESEARCH_DATABASE_CONNECT_TIMEOUT``),
  TCP keepalives and ``tcp_user_timeout`` (a dead peer is noticed by the kernel);
* **on the server**: ``statement_timeout`` and ``idle_in_transaction_session_timeout``, sent
  as connection options, so PostgreSQL ends what runs too long;
* **in the client**: every checkpoint, store and domain-store operation runs under
  :func:`bounded` (``DEEP_RESEARCH_DATABASE_TIMEOUT``), which also covers what the other two
  cannot see: a connection whose peer stopped answering while TCP still acknowledges (a
  frozen server, a stalled proxy), and a pool with no connection to give.

Whatever the layer, the caller sees a :class:`~deep_research.errors.DatabaseUnavailableError`.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from deep_research.errors import DatabaseUnavailableError
from deep_research.settings import get_settings

KEEPALIVE_IDLE = 5
"""Seconds of silence before the kernel probes a PostgreSQL connection."""


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


@dataclass(frozen=True)
class DatabaseTimeouts:
    """How long to wait for a connection, and for one operation, on PostgreSQL."""

    connect: float = 5.0
    """Seconds to wait for a new connection."""

    operation: float = 10.0
    """Seconds one operation (a pooled connection, a statement, a transaction) may take."""

    @classmethod
    def from_settings(cls) -> DatabaseTimeouts:
        """The timeouts of this process (``DEEP_RESEARCH_DATABASE_*TIMEOUT``)."""
        settings = get_settings()
        return cls(connect=settings.database_connect_timeout, operation=settings.database_timeout)

    def libpq_options(self) -> dict[str, Any]:
        """Connection parameters for psycopg: connect timeout, keepalives, server timeouts."""
        statement_ms = math.ceil(self.operation * 1000)
        return {
            "connect_timeout": max(2, math.ceil(self.connect)),
            "keepalives": 1,
            "keepalives_idle": KEEPALIVE_IDLE,
            "keepalives_interval": 2,
            "keepalives_count": 3,
            "tcp_user_timeout": statement_ms,
            "options": (
                f"-c statement_timeout={statement_ms}"
                f" -c idle_in_transaction_session_timeout={statement_ms * 6}"
            ),
        }


def _unreachable_errors() -> tuple[type[BaseException], ...]:
    """The drivers' errors that mean the database is gone (imported lazily)."""
    import psycopg
    import sqlalchemy.exc
    from psycopg_pool import PoolTimeout

    return (
        psycopg.OperationalError,
        PoolTimeout,
        sqlalchemy.exc.OperationalError,
        sqlalchemy.exc.TimeoutError,
    )


def ended_errors() -> tuple[type[BaseException], ...]:
    """What a call raises once its deadline or the breaker ended it (imported lazily).

    Its timeout (``TimeoutError``, an ``OSError``), or whatever the driver and SQLAlchemy
    raise on the severed connection: a lost connection, a transaction that can no longer
    continue, the breaker's own error.
    """
    import psycopg
    import sqlalchemy.exc

    return (OSError, psycopg.Error, sqlalchemy.exc.SQLAlchemyError, DatabaseUnavailableError)


def unavailable(url: str, what: str, error: BaseException) -> DatabaseUnavailableError:
    """The error to raise when ``what`` failed because the database at ``url`` is gone."""
    reason = " ".join(str(getattr(error, "orig", None) or error).split()) or type(error).__name__
    return DatabaseUnavailableError(
        f"could not use the database {redact(url)} while {what}: {reason}"
    )


SEVER_GRACE = 1.0
"""Seconds a call whose connections were severed has to fail on its own before it is
cancelled (the driver notices a shut-down socket on its next wake-up, within milliseconds)."""


def sever(connection: Any) -> bool:
    """Shut down the socket of a psycopg ``connection``; whatever waits on it fails at once.

    Cancelling a task in the middle of a statement is slow on a lost database: psycopg then
    asks the server to cancel the statement (up to 5 s to connect for that) and waits for its
    answer (5 s more), on a database known to be gone. A shut-down socket reads as the server
    closing the connection: the statement fails with ``OperationalError`` at once, and the
    pool discards the connection. The file descriptor stays open (libpq closes it), so it
    cannot be reused under the driver.

    Returns:
        Whether there was a socket to shut down.
    """
    import psycopg  # only psycopg connections are severed; SQLite users never load it

    try:
        descriptor = connection.pgconn.socket
    except psycopg.Error:  # the connection is closed or already lost
        return False
    try:
        with socket.socket(fileno=os.dup(descriptor)) as duplicate:
            duplicate.shutdown(socket.SHUT_RDWR)
    except OSError:
        return False
    return True


@dataclass(eq=False)
class Call:
    """One database call under way: its deadline and the connections it holds."""

    deadline: asyncio.Timeout | None = None
    """Cancels the call; ``None`` for a scope that only groups calls (a transaction)."""
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    connections: set[Any] = field(default_factory=set)
    """The psycopg connections the call holds now."""
    ended: bool = False
    """Whether the call was ended: its time ran out, or the database was found gone."""

    def end(self) -> None:
        """End the call now: sever its connections, and cancel it if that cannot end it."""
        if self.ended:
            return
        self.ended = True
        severed = [sever(connection) for connection in list(self.connections)]
        if self.deadline is not None and not self.deadline.expired():
            grace = SEVER_GRACE if any(severed) else 0.0
            self.deadline.reschedule(self.loop.time() + grace)


_CALLS: ContextVar[tuple[Call, ...]] = ContextVar("deep_research_database_calls", default=())
"""The database calls under way in this task, outermost first."""


def hold(connection: Any) -> None:
    """Count ``connection`` among the connections of the calls under way (a pool hands it out)."""
    for call in _CALLS.get():
        call.connections.add(connection)
        if call.ended:
            sever(connection)


def release(connection: Any) -> None:
    """The calls under way no longer hold ``connection`` (it goes back to its pool)."""
    for call in _CALLS.get():
        call.connections.discard(connection)


@asynccontextmanager
async def within(
    seconds: float | None, *, connection: Any = None, breaker: Breaker | None = None
) -> AsyncIterator[Call]:
    """Run the block as one :class:`Call` that ends after ``seconds`` (never, for ``None``).

    Ending the call severs the connections it holds (``connection``, and those a pool hands
    out inside the block, see :func:`hold`) and cancels the block :data:`SEVER_GRACE` later
    if it has not failed by then; at once if it holds none. The connections also count for
    the calls that enclose this one, so that a transaction's scope can end its statements.

    Yields:
        The call: after an exception, ``call.ended`` tells whether the call was ended.
    """
    outer = _CALLS.get()
    async with asyncio.timeout(None) as deadline:
        call = Call(deadline=deadline if seconds is not None else None)
        token = _CALLS.set((*outer, call))
        if connection is not None:
            hold(connection)
        if breaker is not None:
            breaker.calls.add(call)
        expiry = call.loop.call_later(seconds, call.end) if seconds is not None else None
        if any(enclosing.ended for enclosing in outer):
            call.end()
        try:
            yield call
        finally:
            if expiry is not None:
                expiry.cancel()
            if breaker is not None:
                breaker.calls.discard(call)
            if connection is not None:
                release(connection)
            _CALLS.reset(token)


@dataclass
class Breaker:
    """Once the database is found unreachable, fail at once for ``cool_off`` seconds.

    Without it, each of the calls that follow a lost database (LangGraph saving the failed
    step's error, the command's bookkeeping) would wait out its own timeout. The checkpointer,
    the content store and the domain store of one database share one breaker
    (:func:`breaker_for`): what one of them finds out holds for the others.
    """

    cool_off: float
    """Seconds after a failure during which calls fail without waiting."""
    _open_until: float = 0.0
    _error: DatabaseUnavailableError | None = None
    calls: set[Call] = field(default_factory=set)
    """The calls under way: a failure ends them all at once."""

    @property
    def is_open(self) -> bool:
        """Whether the database was found unreachable less than ``cool_off`` seconds ago."""
        return self._error is not None and time.monotonic() < self._open_until

    def check(self) -> None:
        """Fail at once while the breaker is open.

        Raises:
            DatabaseUnavailableError: the database was found unreachable moments ago.
        """
        if self.is_open:
            raise DatabaseUnavailableError(str(self._error))

    def trip(self, error: DatabaseUnavailableError) -> None:
        """Open the breaker for its cool-off, remembering why, and end the calls under way.

        A call that started just before the failure would otherwise wait out its own
        timeout on a database known to be gone. Only the calls of the running event loop
        are ended (a process may run several loops, one after the other or in threads).
        """
        if not self.is_open:  # open already: keep the first reason, the others follow from it
            self._error, self._open_until = error, time.monotonic() + self.cool_off
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop, so no call under way on it
            return
        for call in list(self.calls):
            if call.loop is loop:
                call.end()

    def ended(self, seconds: float, url: str, what: str) -> DatabaseUnavailableError:
        """Why a call whose deadline passed failed: its own timeout, or another call's failure."""
        if self.is_open:
            return DatabaseUnavailableError(str(self._error))
        return DatabaseUnavailableError(
            f"the database {redact(url)} did not answer within {seconds:g} s while {what}"
        )


def breaker_for(url: str) -> Breaker:
    """The breaker of the database at ``url`` in this process (driver and password aside)."""
    parts = urlsplit(url)
    return _shared_breaker(parts.hostname, parts.port, parts.path, parts.username)


@cache
def _shared_breaker(host: str | None, port: int | None, path: str, user: str | None) -> Breaker:
    return Breaker(cool_off=DatabaseTimeouts.from_settings().connect)


def forget_breakers() -> None:
    """Drop the process's breakers (tests: each starts with a closed one)."""
    _shared_breaker.cache_clear()


@asynccontextmanager
async def translated(url: str, what: str) -> AsyncIterator[None]:
    """Turn the drivers' errors for a lost database into :class:`DatabaseUnavailableError`.

    Raises:
        DatabaseUnavailableError: the driver lost the database, or timed out.
    """
    try:
        yield
    except _unreachable_errors() as exc:
        raise unavailable(url, what, exc) from exc


@asynccontextmanager
async def bounded(
    url: str, what: str, seconds: float, breaker: Breaker | None = None
) -> AsyncIterator[None]:
    """Run the block within ``seconds``; a timeout or a lost connection becomes one error.

    Raises:
        DatabaseUnavailableError: the block ran out of time, the driver lost the database,
            or ``breaker`` is open.
    """
    if breaker is not None:
        breaker.check()
    error: DatabaseUnavailableError
    call: Call | None = None
    try:
        async with within(seconds, breaker=breaker) as call:
            yield
        return
    except ended_errors() as exc:  # once ended, whatever the severed driver raised means "gone"
        if call is not None and call.ended:
            error = (
                breaker.ended(seconds, url, what)
                if breaker is not None
                else DatabaseUnavailableError(
                    f"the database {redact(url)} did not answer within {seconds:g} s while {what}"
                )
            )
        elif isinstance(exc, _unreachable_errors()):
            error = unavailable(url, what, exc)
        else:
            raise
        cause: BaseException = exc
    if breaker is not None:
        breaker.trip(error)
    raise error from cause
