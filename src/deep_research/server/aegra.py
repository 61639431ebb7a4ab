"""The adapter for Aegra (aegra-api 0.11), an open runtime of the LangGraph Agent Server API.

Aegra keeps runs, threads, checkpoints and the store in its own PostgreSQL database (its
``DATABASE_URL``), shared by all its instances; it ignores langgraph.json's
``checkpointer.path`` and ``store.path``. This adapter, imported only inside an Aegra process,
reaches them through Aegra's own objects in process: its ORM models and session factory for
runs and threads, its thread deletion (which cancels the thread's active runs and deletes its
checkpoints) and its live checkpointer and store. See :mod:`deep_research.server.runtime`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sqlalchemy import select

from deep_research.server.runtime import RunRequest, Stores

logger = logging.getLogger(__name__)

ACTIVE = ("pending", "running")
"""Run statuses that count against the run cap."""

_FIELDS = ("input", "command", "config", "context", "webhook", "thread_id")


class AegraRuntime:
    """Aegra's side of :class:`~deep_research.server.runtime.Runtime`."""

    name = "aegra"

    def run_request(self, value: Mapping[str, Any]) -> RunRequest:
        """The run creation: Aegra's value is the request itself (``RunCreate``), flat.

        Aegra chooses the run's id after the handler, so ``run_id`` is unknown here.
        """
        return RunRequest(
            input=value.get("input"),
            command=value.get("command"),
            config=value.get("config"),
            context=value.get("context"),
            webhook=value.get("webhook"),
            thread_id=str(value["thread_id"]) if value.get("thread_id") else None,
            extra={k: v for k, v in value.items() if k not in _FIELDS},
        )

    def admit_run(
        self, value: Mapping[str, Any], request: RunRequest, owner: str
    ) -> dict[str, Any]:
        """Return the context, which Aegra merges into the run's.

        Aegra ignores changes made to ``value``, and checks a thread's owner itself.
        """
        result: dict[str, Any] = {"owner": owner}
        if request.context is not None:
            result["context"] = request.context
        return result

    async def active_runs(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs, on every instance."""
        from aegra_api.core.orm import Run, get_session_maker

        async with get_session_maker()() as session:
            rows = await session.scalars(
                select(Run.run_id).where(Run.user_id == user_id, Run.status.in_(ACTIVE))
            )
            return {str(run_id) for run_id in rows}

    async def run_status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when Aegra has not stored it."""
        from aegra_api.core.orm import Run, get_session_maker

        async with get_session_maker()() as session:
            status = await session.scalar(
                select(Run.status).where(Run.run_id == run_id, Run.thread_id == thread_id)
            )
        return None if status is None else str(status)

    async def forget_threads(
        self, user_id: str, threads: Sequence[str], *, all_owned: bool = False
    ) -> None:
        """Delete ``user_id``'s threads ``threads`` (with ``all_owned``, all of them) from Aegra.

        As its ``DELETE /threads/{id}`` does: active runs cancelled, checkpoints and the
        thread's row (with its runs) deleted.
        """
        from aegra_api.api.threads import delete_thread
        from aegra_api.core.orm import Thread, get_session_maker
        from aegra_api.models.auth import User
        from fastapi import HTTPException

        maker = get_session_maker()
        owned: list[str] = []
        if all_owned:
            async with maker() as session:
                rows = await session.scalars(
                    select(Thread.thread_id).where(Thread.user_id == user_id)
                )
                owned = [str(thread) for thread in rows]
        user = User(identity=user_id)
        for thread in dict.fromkeys([*threads, *owned]):
            async with maker() as session:
                try:
                    await delete_thread(thread, user=user, session=session)
                except HTTPException as exc:  # already gone, or not the user's
                    logger.info("thread %s not deleted by Aegra: %s", thread, exc.detail)

    def stores(self) -> AbstractAsyncContextManager[Stores]:
        """Aegra's own checkpointer and store (where the served graph's data is)."""
        return _aegra_stores()


@asynccontextmanager
async def _aegra_stores() -> AsyncIterator[Stores]:
    """Aegra's live checkpointer and store; they stay open (Aegra owns them)."""
    from aegra_api.core.database import db_manager

    yield Stores(db_manager.get_checkpointer(), db_manager.get_store())
