"""Bounded waits on the database: timeouts and lost connections become one error."""

from __future__ import annotations

import asyncio
import socket
import time
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest

from deep_research.errors import DatabaseUnavailableError
from deep_research.persistence.timeouts import (
    Breaker,
    DatabaseTimeouts,
    bounded,
    breaker_for,
    hold,
    translated,
    within,
)
from deep_research.settings import get_settings

URL = "postgresql+psycopg://app:secret@db.internal:5432/research"


async def test_an_operation_past_its_timeout_is_a_database_unavailable_error() -> None:
    started = time.monotonic()
    with pytest.raises(
        DatabaseUnavailableError, match=r"did not answer within 0.05 s while"
    ) as info:
        async with bounded(URL, "writing a checkpoint", 0.05):
            await asyncio.sleep(10)
    assert time.monotonic() - started < 1
    assert "secret" not in str(info.value) and "***" in str(info.value)


async def test_a_timeout_raised_by_the_block_itself_is_not_translated() -> None:
    with pytest.raises(TimeoutError):
        async with bounded(URL, "reading", 5):
            raise TimeoutError


async def test_a_lost_connection_is_translated_and_trips_the_breaker() -> None:
    breaker = Breaker(cool_off=60)
    with pytest.raises(
        DatabaseUnavailableError, match="could not use the database .* server closed"
    ):
        async with bounded(URL, "reading", 5, breaker):
            raise psycopg.OperationalError("server closed the connection unexpectedly")
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailableError, match="server closed"):
        async with bounded(URL, "reading", 5, breaker):
            await asyncio.sleep(10)  # never reached: the breaker is open
    assert time.monotonic() - started < 1


async def test_a_failure_ends_the_calls_already_under_way_at_once() -> None:
    """A call that started just before the database was found gone does not wait it out."""
    breaker = Breaker(cool_off=60)

    async def waiting() -> None:
        async with bounded(URL, "writing a step's results", 60, breaker):
            await asyncio.sleep(60)  # a statement on a connection that will never answer

    under_way = asyncio.create_task(waiting())
    await asyncio.sleep(0.01)
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailableError):
        async with bounded(URL, "reading", 5, breaker):
            raise psycopg.OperationalError("server closed the connection unexpectedly")
    with pytest.raises(DatabaseUnavailableError, match="server closed"):
        await under_way
    assert time.monotonic() - started < 1


async def test_the_breaker_closes_after_its_cool_off() -> None:
    breaker = Breaker(cool_off=0.01)
    breaker.trip(DatabaseUnavailableError("gone"))
    await asyncio.sleep(0.02)
    breaker.check()
    async with bounded(URL, "reading", 5, breaker):
        pass


async def test_translated_leaves_other_errors_alone() -> None:
    with pytest.raises(ValueError):
        async with translated(URL, "reading"):
            raise ValueError("not a database error")


def test_timeouts_come_from_the_settings_and_reach_libpq(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_CONNECT_TIMEOUT", "3.5")
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_TIMEOUT", "7")
    get_settings.cache_clear()
    timeouts = DatabaseTimeouts.from_settings()
    assert timeouts == DatabaseTimeouts(connect=3.5, operation=7.0)
    options = timeouts.libpq_options()
    assert options["connect_timeout"] == 4
    assert "statement_timeout=7000" in options["options"]
    assert options["tcp_user_timeout"] == 7000 and options["keepalives"] == 1


def test_nodes_retry_a_flaky_connection_but_not_a_lost_database() -> None:
    from deep_research.graph.researcher import retry_on

    assert retry_on(ConnectionResetError("peer reset"))
    assert not retry_on(DatabaseUnavailableError("the database did not answer"))
    assert not retry_on(ValueError("a bug"))


class _Connection:
    """A stand-in for a psycopg connection whose socket is one end of a socket pair."""

    def __init__(self, sock: socket.socket) -> None:
        self.pgconn = SimpleNamespace(socket=sock.fileno())


async def _read_like_a_driver(sock: socket.socket) -> None:
    """Wait for the server's answer as psycopg does; a closed connection is its error."""
    data = await asyncio.get_running_loop().sock_recv(sock, 1)
    if not data:
        raise psycopg.OperationalError("server closed the connection unexpectedly")


async def test_a_call_out_of_time_severs_its_connection_instead_of_cancelling_the_driver() -> None:
    """psycopg answers a cancellation mid-statement by asking a lost server to cancel it
    (up to 10 s more); a severed socket makes the driver fail on its own, at once."""
    ours, server = socket.socketpair()
    ours.setblocking(False)
    with ours, server:
        connection = _Connection(ours)
        with pytest.raises(DatabaseUnavailableError, match="did not answer within 0.05 s") as info:
            async with bounded(URL, "writing a checkpoint", 0.05):
                hold(connection)  # as the pool does when it hands the connection out
                await _read_like_a_driver(ours)
        assert isinstance(info.value.__cause__, psycopg.OperationalError)  # not cancelled
        server.settimeout(1)
        assert server.recv(1) == b""  # the connection is shut down: the pool discards it


async def test_a_failure_elsewhere_severs_the_connections_of_a_transaction_under_way() -> None:
    breaker = Breaker(cool_off=60)
    ours, server = socket.socketpair()
    ours.setblocking(False)

    async def transaction() -> None:
        async with within(None, breaker=breaker):  # a session scope: no deadline of its own
            async with within(60, connection=_Connection(ours)):  # one statement
                await _read_like_a_driver(ours)

    with ours, server:
        under_way = asyncio.create_task(transaction())
        await asyncio.sleep(0.01)
        with pytest.raises(DatabaseUnavailableError):
            async with bounded(URL, "writing a checkpoint", 5, breaker):
                raise psycopg.OperationalError("server closed the connection unexpectedly")
        with pytest.raises(psycopg.OperationalError, match="server closed"):
            await asyncio.wait_for(under_way, 5)


async def test_a_statement_in_a_transaction_already_ended_fails_at_once() -> None:
    ours, server = socket.socketpair()
    ours.setblocking(False)
    with ours, server:
        async with within(None) as transaction:
            transaction.end()
            with pytest.raises(psycopg.OperationalError):
                async with within(60, connection=_Connection(ours)) as statement:
                    await _read_like_a_driver(ours)
            assert statement.ended


def test_the_stores_of_one_database_share_a_breaker() -> None:
    """The checkpointer, the content store and the domain store name the database
    differently (driver, password); one lost database opens all three at once."""
    shared = breaker_for("postgresql://app:secret@db.internal:5432/research")
    assert breaker_for("postgresql+psycopg://app:***@db.internal:5432/research") is shared
    assert breaker_for("postgresql+psycopg://app@db.internal:5432/other") is not shared


async def test_a_statement_out_of_time_trips_the_breaker_so_reconnecting_fails_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SQLAlchemy answers a failed ping by connecting again: on a database just found gone
    that would wait out the connect timeout too."""
    from deep_research.persistence import postgres

    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_TIMEOUT", "0.05")
    get_settings.cache_clear()
    url = "postgresql://app:secret@192.0.2.1:5432/research"  # TEST-NET: never reached
    ours, server = socket.socketpair()
    ours.setblocking(False)
    with ours, server:
        connection: Any = _Connection(ours)
        connection.breaker, connection.url = breaker_for(url), url
        with pytest.raises(psycopg.OperationalError, match="no answer within 0.05 s"):
            async with postgres._statement_deadline(connection):
                await _read_like_a_driver(ours)
    connect = postgres.bounded_connector(url, DatabaseTimeouts.from_settings())
    started = time.monotonic()
    with pytest.raises(DatabaseUnavailableError, match="did not answer within 0.05 s") as info:
        await connect()
    assert time.monotonic() - started < 1
    assert "secret" not in str(info.value)
