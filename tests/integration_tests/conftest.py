"""A real ``langgraph dev`` with auth: two users with fixed tokens, and signed tokens."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from psycopg import sql

from deep_research.server.tokens import sign_token
from deep_research.settings import get_settings
from tests.integration_tests.server_process import langgraph_dev


@contextmanager
def own_database(postgres_url: str, prefix: str) -> Iterator[str]:
    """A PostgreSQL database of its own on the server of ``postgres_url``, dropped afterwards.

    For tests that must not share the session's database (a server of their own, migrations
    from empty).
    """
    parts = urlsplit(postgres_url)
    admin = urlunsplit(("postgresql", parts.netloc, "/postgres", "", ""))
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


SECRET = "test-signing-secret-0123456789-abcdef-0123"
TOKENS = {"alice": "alice-token-0123456789abcdef", "bob": "bob-token-0123456789abcdef"}


@dataclass(frozen=True)
class AuthServer:
    """A running server with auth configured."""

    url: str
    data_dir: Path
    """Where the server keeps its SQLite file (checkpoints, content and domain store)."""

    def token(self, user: str) -> str:
        """The bearer token of a user: listed for alice and bob, signed for anyone else."""
        return TOKENS.get(user) or sign_token(user, SECRET)

    def headers(self, user: str) -> dict[str, str]:
        """The ``Authorization`` header of a user."""
        return {"Authorization": f"Bearer {self.token(user)}"}

    def http(self, user: str) -> httpx.AsyncClient:
        """An HTTP client of the server signed in as ``user`` (use it with ``async with``)."""
        return httpx.AsyncClient(base_url=self.url, headers=self.headers(user), trust_env=False)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A SQLite file, then the test PostgreSQL database, as the process's database and a user
    of the test's own; the working directory is the test's folder."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", url)
    monkeypatch.setenv("DEEP_RESEARCH_USER_ID", f"user-{request.param}-{tmp_path.name}")
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    return url


@pytest.fixture(scope="session")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthServer]:
    """``langgraph dev`` with ``DEEP_RESEARCH_AUTH_TOKENS`` and ``DEEP_RESEARCH_AUTH_SECRET``."""
    workdir = tmp_path_factory.mktemp("langgraph-auth")
    env = {
        "DEEP_RESEARCH_AUTH_TOKENS": ",".join(f"{t}={u}" for u, t in TOKENS.items()),
        "DEEP_RESEARCH_AUTH_SECRET": SECRET,
    }
    with langgraph_dev(workdir, env) as url:
        yield AuthServer(url=url, data_dir=workdir / ".data")
