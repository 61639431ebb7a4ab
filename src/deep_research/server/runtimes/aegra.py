"""The adapter for Aegra (aegra-api 0.11), an open runtime of the LangGraph Agent Server API.

Aegra keeps runs, threads, checkpoints and the store in its own PostgreSQL database (its
``DATABASE_URL``), shared by all its instances; it ignores langgraph.json's
``checkpointer.path`` and ``store.path``. This adapter, imported only inside an Aegra process,
reaches them through Aegra's own objects in process: its ORM models and session factory for
runs and threads, its run cancellation and thread deletion (the functions behind
``POST /runs/cancel`` and ``DELETE /threads/{id}``) and its live checkpointer and store. See
:mod:`deep_research.server.runtimes.base`.

Aegra serves our routes' app as the server itself, adding its own middleware and routes to it.
:meth:`AegraRuntime.adapt_app` then makes Aegra answer as langgraph-api does where it can:

* our CORS policy and request bodies' checks go outermost, so they answer every preflight
  (Studio's private-network one included) and see every body, as under langgraph-api;
* :class:`AegraRequests` refuses a run that asks for a webhook (Aegra has none, and would drop
  it silently) and answers ``/ok``, langgraph-api's health check, with Aegra's ``/health``;
* the thread state routes write the state's records by field name (``step_id``), not by their
  camelCase aliases: FastAPI dumps a route's response by alias unless told otherwise.

Every name of Aegra's that this module uses is listed in :data:`AEGRA_NAMES`; the cluster tests
check them against the installed Aegra (pinned ``aegra-api==0.11.*``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from sqlalchemy import delete, func, or_, select
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from deep_research.server.bodies import answer, replaying, unreadable
from deep_research.server.runtimes.base import MetadataOwner, RunRequest, Stores, ThreadUpdate
from deep_research.sources.bounded_json import loads_bounded

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

WEBHOOKS_REFUSED = (
    "run webhooks are not supported on this runtime (Aegra): the run was not created;"
    " poll the run or join it instead"
)
"""The 422 answer to a run that asks for a webhook."""

HEALTH_PATH = "/health"
"""Aegra's health check, which answers langgraph-api's ``/ok`` too."""

STATE_ROUTES = (
    "/threads/{thread_id}/state",
    "/threads/{thread_id}/state/{checkpoint_id}",
    "/threads/{thread_id}/state/checkpoint",
    "/threads/{thread_id}/history",
)
"""Aegra's routes that answer with a thread's state values (``ThreadState``)."""

AEGRA_NAMES = {
    "aegra_api.api.runs": ("cancel_runs", "router"),
    "aegra_api.api.threads": ("delete_thread", "router"),
    "aegra_api.core.orm": ("Assistant", "Cron", "Run", "Thread", "get_session_maker"),
    "aegra_api.core.database": ("db_manager",),
    "aegra_api.models.auth": ("User",),
    "aegra_api.models.runs": ("RunsCancel",),
}
"""Aegra's modules and names this adapter uses (checked by the cluster tests)."""


class AegraRuntime:
    """Aegra's side of :class:`~deep_research.server.runtimes.base.Runtime`."""

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

    async def stored_metadata(
        self, resource: MetadataOwner, resource_id: str
    ) -> dict[str, Any] | None:
        """The thread's or assistant's metadata in Aegra's database."""
        from aegra_api.core.orm import Assistant, Thread, get_session_maker

        column = (
            select(Thread.metadata_json).where(Thread.thread_id == resource_id)
            if resource == "threads"
            else select(Assistant.metadata_dict).where(Assistant.assistant_id == resource_id)
        )
        async with get_session_maker()() as session:
            found = await session.scalar(column)
        return None if found is None else dict(found)

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
        """Cancel the thread's pending and running runs, on whichever instance holds them.

        As ``POST /runs/cancel`` with ``action=cancel`` does, for the runs' own user (it
        cancels only a user's own runs): Aegra stops a run its worker holds, and marks one no
        live worker holds as interrupted.
        """
        from aegra_api.api.runs import cancel_runs
        from aegra_api.core.orm import Run, get_session_maker
        from aegra_api.models.auth import User
        from aegra_api.models.runs import RunsCancel

        async with get_session_maker()() as session:
            rows = await session.execute(
                select(Run.user_id, Run.run_id).where(
                    Run.thread_id == thread_id, Run.status.in_(ACTIVE)
                )
            )
            by_user: dict[str, list[str]] = {}
            for user_id, run_id in rows:
                by_user.setdefault(str(user_id), []).append(str(run_id))
            for user_id, run_ids in by_user.items():
                await cancel_runs(
                    RunsCancel(thread_id=thread_id, run_ids=run_ids),
                    action="cancel",
                    user=User(identity=user_id),
                    session=session,
                )
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
        thread's row deleted, and with it (by cascade) its runs, crons and TTL. With
        ``all_owned``, the user's crons on no thread go too.
        """
        from aegra_api.api.threads import delete_thread
        from aegra_api.core.orm import Cron, get_session_maker
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
        if all_owned:
            async with maker() as session:
                await session.execute(delete(Cron).where(Cron.user_id == user_id))
                await session.commit()

    def stores(self) -> AbstractAsyncContextManager[Stores]:
        """Aegra's own checkpointer and store (where the served graph's data is)."""
        return _aegra_stores()

    def adapt_app(self, app: FastAPI) -> None:
        """Make Aegra answer as langgraph-api does (see the module docstring).

        Called once Aegra has built the app (its middleware added), before it serves anything.
        """
        _refuse_to_serve_without_auth()
        installed: list[object] = [entry.cls for entry in app.user_middleware]
        if AegraRequests in installed:
            return
        ours = [m for m in app.user_middleware if m.cls.__module__.startswith("deep_research.")]
        theirs = [m for m in app.user_middleware if m not in ours]
        app.user_middleware = [*ours, Middleware(AegraRequests), *theirs]
        _state_by_field_name()


def _refuse_to_serve_without_auth() -> None:
    """Fail closed when Aegra could not load ``auth.path``.

    Aegra logs a warning and serves every request as one shared anonymous user when the auth
    module named by the configuration fails to load; our routes would then answer whoever
    asks. The app refuses to start instead (every request then fails, and the cluster script's
    health check with it).

    Raises:
        RuntimeError: Aegra holds no auth handler.
    """
    from aegra_api.core.auth_middleware import get_auth_instance

    if get_auth_instance() is None:
        raise RuntimeError(
            "Aegra loaded no auth handler from auth.path (see its log for why): refusing to"
            " serve every request as one anonymous user"
        )


@asynccontextmanager
async def _aegra_stores() -> AsyncIterator[Stores]:
    """Aegra's live checkpointer and store; they stay open (Aegra owns them)."""
    from aegra_api.core.database import db_manager

    yield Stores(db_manager.get_checkpointer(), db_manager.get_store())


def _state_by_field_name() -> None:
    """Have Aegra's state routes write the state's records by field name, as langgraph-api.

    FastAPI builds an included route's handler when it first serves it, from the route's
    ``response_model_by_alias``; this runs before that (and tells the router it changed).
    """
    from aegra_api.api.threads import router
    from fastapi.routing import APIRoute

    for route in router.routes:
        if isinstance(route, APIRoute) and route.path in STATE_ROUTES:
            route.response_model_by_alias = False
    getattr(router, "_mark_routes_changed", lambda: None)()


def asks_for_webhook(payload: Any) -> bool:
    """Whether a run creation's JSON body (one run, or a batch of runs) names a webhook."""
    runs = payload if isinstance(payload, list) else [payload]
    return any(isinstance(run, dict) and run.get("webhook") is not None for run in runs)


class AegraRequests:
    """ASGI middleware: a run asking for a webhook is refused (422); ``/ok`` is ``/health``.

    It sits inside :class:`~deep_research.server.bodies.RequestBodies`, so a body it reads is
    within the cap and read once from the client.
    """

    def __init__(self, app: ASGIApp) -> None:
        """Wrap ``app`` (the rest of Aegra's middleware and its routes)."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer or hand on the request."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"].rstrip("/")
        if path == "/ok" and scope["method"] in ("GET", "HEAD"):
            scope = {**scope, "path": HEALTH_PATH, "raw_path": HEALTH_PATH.encode()}
        elif scope["method"] == "POST" and "/runs" in path:
            body, receive = await _read_body(receive)
            refusal = unreadable(body)  # refused outside already; never read past the guard
            if refusal is not None:
                await answer(send, refusal[0], {"detail": refusal[1]})
                return
            payload = loads_bounded(body) if body.strip() else None
            if asks_for_webhook(payload):
                await answer(send, 422, {"detail": WEBHOOKS_REFUSED})
                return
        await self.app(scope, receive, send)


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a ``receive`` that gives it again (the size is capped outside)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    return body, replaying(body, receive)
