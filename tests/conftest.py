"""Fixtures shared by unit and integration tests.

* Every test runs in a clean environment: its own data directory, no model, key or database
  variables from the developer's shell, and fresh settings, engine and corpus caches.
* ``postgres_url`` is a throwaway PostgreSQL database for the session (as langgraph's own
  checkpointer tests create ``test_<uuid>``), dropped at the end.
* Under CI (``CI=true``), a test marked ``postgres`` or ``server`` that skips is reported as a
  failure, so CI can never pass by silently skipping them.
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Generator, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from deep_research import engines, sources
from deep_research.persistence.timeouts import forget_breakers
from deep_research.settings import get_settings

TEST_POSTGRES_URL_VAR = "DEEP_RESEARCH_TEST_POSTGRES_URL"
DEFAULT_TEST_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
"""Administrative connection used to create and drop the throwaway database."""

ISOLATED_PREFIXES = ("DEEP_RESEARCH_", "OPENAI_", "TAVILY_", "NCBI_", "LANGSMITH_", "LANGCHAIN_")
KEPT_VARIABLES = frozenset({TEST_POSTGRES_URL_VAR})
"""Variables of the developer's shell that would change what the code under test does: every
one with these prefixes is removed for each test, except the test database's URL."""

MUST_RUN_MARKERS = ("postgres", "server", "browser", "real_model", "web")
"""Markers whose tests must not be skipped under CI."""


def in_ci() -> bool:
    """True when running under CI (``CI`` is ``true`` or ``1``)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1"}


def _clear_caches() -> None:
    get_settings.cache_clear()
    engines.load_engine.cache_clear()
    engines._window.cache_clear()
    sources._local.cache_clear()
    forget_breakers()


@pytest.fixture(autouse=True)
def _isolated_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Give each test its own data directory and none of the developer's settings."""
    for name in list(os.environ):
        if name.startswith(ISOLATED_PREFIXES) and name not in KEPT_VARIABLES:
            monkeypatch.delenv(name)
    monkeypatch.setenv("DEEP_RESEARCH_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    _clear_caches()
    yield
    _clear_caches()
    gc.unfreeze()  # the command line freezes its start-up objects; a test's stay collectable


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Under CI, turn the skip of a ``postgres`` or ``server`` test into a failure."""
    report = yield
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        markers = [m for m in MUST_RUN_MARKERS if item.get_closest_marker(m) is not None]
        if markers:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
            report.outcome = "failed"
            report.longrepr = (
                f"a test marked {'/'.join(markers)} was skipped under CI, which must run it: "
                f"{reason}"
            )
    return report


def _database_url(admin_url: str, database: str, scheme: str) -> str:
    """``admin_url`` pointed at another database, with another scheme."""
    parts = urlsplit(admin_url)
    return urlunsplit((scheme, parts.netloc, f"/{database}", parts.query, parts.fragment))


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh, empty database for the session, as a SQLAlchemy URL (``postgresql+psycopg``).

    Skips when PostgreSQL cannot be reached (fails under CI).
    """
    import psycopg
    from psycopg import sql

    admin = os.environ.get(TEST_POSTGRES_URL_VAR) or DEFAULT_TEST_POSTGRES_URL
    admin = _database_url(admin, urlsplit(admin).path.lstrip("/") or "postgres", "postgresql")
    try:
        conn = psycopg.connect(admin, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        message = (
            f"PostgreSQL is not reachable at {_redacted(admin)}"
            f" (set {TEST_POSTGRES_URL_VAR} to a server where CREATE DATABASE is allowed): {exc}"
        )
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    database = f"test_{uuid.uuid4().hex}"
    with conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        yield _database_url(admin, database, "postgresql+psycopg")
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            )
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(database)))
