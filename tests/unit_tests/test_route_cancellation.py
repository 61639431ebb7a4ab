"""A route's transaction runs to its end when its request is cancelled (SQLite server).

A request is cancelled when its client goes away or the server stops; Starlette cancels it
again at each ``await`` that follows. Interrupted in the middle of a statement (the rollback
that the first cancellation starts), SQLAlchemy closes the SQLite connection by force and
that connection keeps the file's write lock: every other connection then waits in vain. The
routes' transactions run as the recorder's do (:func:`~deep_research.persistence.db.finished`).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.persistence.preferences import Preferences
from deep_research.server import routes
from deep_research.server.database import close_domain_stores
from deep_research.settings import get_settings

SLOW_STATEMENT = text(
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000)"
    " SELECT count(*) FROM n"
)
"""A statement that runs for a second or so."""


async def test_a_cancelled_route_leaves_the_sqlite_file_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "server.sqlite"
    monkeypatch.setenv("DEEP_RESEARCH_DATABASE_URL", f"sqlite:///{path}")
    get_settings.cache_clear()
    written = asyncio.Event()
    real_put = routes.put_user_preferences

    async def slow_put(session: AsyncSession, **kwargs: Any) -> None:
        await real_put(session, **kwargs)  # the transaction holds the file's write lock now
        written.set()
        await session.execute(SLOW_STATEMENT)  # in flight when the request is cancelled

    monkeypatch.setattr(routes, "put_user_preferences", slow_put)
    preferences = Preferences(system_instructions="Answer in French.")
    request = asyncio.ensure_future(routes.put_preferences(preferences, "local"))
    try:
        await asyncio.wait_for(written.wait(), timeout=10)
        await asyncio.sleep(0.2)
        for _ in range(5):  # as Starlette does: cancelled again at each await
            request.cancel()
            await asyncio.sleep(0)
        await asyncio.wait({request}, timeout=30)
        assert request.done(), "the cancelled route did not end"

        other = sqlite3.connect(path, timeout=0)  # no wait: the lock must be free now
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("DELETE FROM user_preferences")
            other.commit()
        finally:
            other.close()
    finally:
        await close_domain_stores()
