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

from sqlalchemy import func, or_, select

from deep_research.server.runtime import RunRequest, Stores, ThreadUpdate

logger = logging.getLogger(__name__)

ACTIVE = ("pending", "running")
"""Run statuses that count against the run cap."""

ADMISSION_KEY = "deep_research_admission"
"""Key of ``config.configurable`` under which a run carries the id the run cap admitted it by.

Aegra chooses a run's id only after the ``create_run`` handler, so the cap admits the run under
an id of its own, which the handler hands Aegra in the run's config; Aegra stores the config
with the run, and the run is then counted once, under that id, by every instance."""

_FIELDS = ("input", "command", "config", "context", "webhook", "thread_id")

_METADATA_KEYS = frozenset({"metadata"})
"""What Aegra's ``threads.update`` value holds for ``PATCH /threads/{id}`` (besides the id)."""

_RUN_KEYS = frozenset({"run_id", "run_ids", "status", "action", "wait"})
"""What it may hold when a run is cancelled or interrupted."""


class AegraRuntime:
    """Aegra's side of :class:`~deep_research.server.runtime.Runtime`."""

    name = "aegra"

    def run_request(self, value: Mapping[str, Any]) -> RunRequest:
        """The run creation: Aegra's value is the request itself (``RunCreate``), flat.

        Aegra chooses the run's id after the handler, so ``run_id`` is unknown here (see
        :data:`ADMISSION_KEY`).
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

        Aegra ignores changes made to ``value``, and checks a thread's owner itself. The
        returned ``config`` replaces the run's ``configurable`` (Aegra merges one level deep):
        it is the client's, plus the id the run cap admitted the run by (:data:`ADMISSION_KEY`).
        """
        result: dict[str, Any] = {"owner": owner}
        if request.context is not None:
            result["context"] = request.context
        if request.run_id is not None:
            configurable = (request.config or {}).get("configurable") or {}
            result["config"] = {"configurable": {**configurable, ADMISSION_KEY: request.run_id}}
        return result

    def thread_update(self, value: Mapping[str, Any]) -> ThreadUpdate:
        """Tell a metadata change or a run's cancellation by its exact keys; else the state.

        Aegra's value is the request's body with the path's ids: ``PATCH /threads/{id}``
        gives ``metadata``; cancelling (``/threads/{id}/runs/{run_id}/cancel``,
        ``PATCH /threads/{id}/runs/{run_id}``, ``/runs/cancel``) gives a run id and a status.
        A body can carry any key, so one with anything else (``values``, ``as_node``...) is a
        write of the state, whatever else it holds.
        """
        keys = set(value) - {"thread_id"}
        if keys and keys <= _METADATA_KEYS:
            return "metadata"
        if keys & {"run_id", "run_ids"} and keys <= _RUN_KEYS:
            return "run"
        return "state"

    async def active_runs(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs, on every instance."""
        from aegra_api.core.orm import Run, get_session_maker

        admitted = func.coalesce(Run.config["configurable"][ADMISSION_KEY].astext, Run.run_id)
        async with get_session_maker()() as session:
            rows = await session.scalars(
                select(admitted).where(Run.user_id == user_id, Run.status.in_(ACTIVE))
            )
            return {str(run_id) for run_id in rows}

    async def run_status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when Aegra has not stored it.

        ``run_id`` is Aegra's id of the run or the id the run cap admitted it by.
        """
        from aegra_api.core.orm import Run, get_session_maker

        admitted = Run.config["configurable"][ADMISSION_KEY].astext
        async with get_session_maker()() as session:
            status = await session.scalar(
                select(Run.status).where(
                    Run.thread_id == thread_id, or_(Run.run_id == run_id, admitted == run_id)
                )
            )
        return None if status is None else str(status)

    async def owned_threads(self, user_id: str) -> list[str]:
        """The ids of Aegra's threads of ``user_id``."""
        from aegra_api.core.orm import Thread, get_session_maker

        async with get_session_maker()() as session:
            rows = await session.scalars(select(Thread.thread_id).where(Thread.user_id == user_id))
            return [str(thread) for thread in rows]

    async def cancel_runs(self, thread_id: str) -> None:
        """Cancel the thread's pending and running runs, on whichever instance holds them."""
        from aegra_api.api.runs import _request_run_interruption
        from aegra_api.core.orm import Run, get_session_maker

        async with get_session_maker()() as session:
            runs = await session.scalars(
                select(Run).where(Run.thread_id == thread_id, Run.status.in_(ACTIVE))
            )
            for run in list(runs):
                await _request_run_interruption(session, run, "cancel")
            await session.commit()

    async def busy(self, thread_id: str) -> bool:
        """Whether a run of the thread is still pending or running."""
        from aegra_api.core.orm import Run, get_session_maker

        async with get_session_maker()() as session:
            active = await session.scalar(
                select(Run.run_id)
                .where(Run.thread_id == thread_id, Run.status.in_(ACTIVE))
                .limit(1)
            )
        return active is not None

    async def forget_threads(
        self, user_id: str, threads: Sequence[str], *, all_owned: bool = False
    ) -> None:
        """Delete ``user_id``'s threads ``threads`` (with ``all_owned``, all of them) from Aegra.

        As its ``DELETE /threads/{id}`` does: active runs cancelled, checkpoints and the
        thread's row (with its runs) deleted.
        """
        from aegra_api.api.threads import delete_thread
        from aegra_api.core.orm import get_session_maker
        from aegra_api.models.auth import User
        from fastapi import HTTPException

        maker = get_session_maker()
        owned = await self.owned_threads(user_id) if all_owned else []
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
