"""The adapter for langgraph-api: ``langgraph dev`` and LangChain's Agent Server.

Its runs and threads are read and deleted through the server's own API in process
(``langgraph_sdk.get_client()`` with no URL uses the server's loopback transport, past the auth
layer); the graph's checkpointer and store are the project's own factories on
``DEEP_RESEARCH_DATABASE_URL``, which langgraph.json names (``checkpointer.path``,
``store.path``). See :mod:`deep_research.server.runtimes.base`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from langgraph_sdk import get_client
from langgraph_sdk.errors import LangGraphError, NotFoundError
from langgraph_sdk.schema import RunStatus

from deep_research.persistence.checkpointer import open_checkpointer
from deep_research.persistence.content import open_store
from deep_research.server.database import StoreDisabledError, server_database_url
from deep_research.server.runtimes.base import MetadataOwner, RunRequest, Stores, ThreadUpdate

logger = logging.getLogger(__name__)

PAGE = 100
"""Threads read per search call."""

THREAD_SCAN = 100
"""Busy threads of one user inspected when counting their runs (the run cap is at most this)."""

ACTIVE: tuple[RunStatus, ...] = ("pending", "running")
"""Run statuses that count against the run cap."""


class LangGraphApiRuntime:
    """langgraph-api's side of :class:`~deep_research.server.runtimes.base.Runtime`."""

    name = "langgraph-api"

    def run_request(self, value: Mapping[str, Any]) -> RunRequest:
        """The run creation, read from ``value["kwargs"]`` (the run's request)."""
        kwargs = value.get("kwargs") or {}
        return RunRequest(
            input=kwargs.get("input"),
            command=kwargs.get("command"),
            config=kwargs.get("config"),
            context=kwargs.get("context"),
            webhook=kwargs.get("webhook"),
            run_id=str(value["run_id"]) if value.get("run_id") else None,
            thread_id=str(value["thread_id"]) if value.get("thread_id") else None,
            extra={k: v for k, v in kwargs.items() if k not in RunRequest().as_kwargs()},
        )

    def admit_run(
        self, value: Mapping[str, Any], request: RunRequest, owner: str
    ) -> dict[str, Any]:
        """Write the context back into ``value["kwargs"]``; filter threads by their owner."""
        kwargs = value.get("kwargs")
        if kwargs is not None and request.context is not None:
            kwargs["context"] = request.context
        return {"owner": owner}

    def thread_update(self, value: Mapping[str, Any]) -> ThreadUpdate:
        """A run's cancellation carries ``action``; a metadata change ``metadata``."""
        if "action" in value:
            return "run"
        return "metadata" if "metadata" in value else "state"

    async def active_runs(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs (on its busy threads)."""
        run_ids: set[str] = set()
        async with get_client() as client:
            threads = await client.threads.search(
                metadata={"owner": user_id}, status="busy", limit=THREAD_SCAN
            )
            for thread in threads:
                for status in ACTIVE:
                    runs = await client.runs.list(
                        thread["thread_id"], status=status, limit=THREAD_SCAN
                    )
                    run_ids.update(str(run["run_id"]) for run in runs)
        return run_ids

    async def stored_metadata(
        self, resource: MetadataOwner, resource_id: str
    ) -> dict[str, Any] | None:
        """The thread's or assistant's metadata, read in process (past the auth layer)."""
        try:
            async with get_client() as client:
                if resource == "threads":
                    found: Mapping[str, Any] = await client.threads.get(resource_id)
                else:
                    found = await client.assistants.get(resource_id)
        except (LangGraphError, httpx.HTTPError):  # none: the server answers that itself
            return None
        return dict(found.get("metadata") or {})

    async def run_status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when the server has not stored it."""
        async with get_client() as client:
            try:
                run = await client.runs.get(thread_id, run_id)
            except NotFoundError:
                return None
        return str(run["status"])

    async def owned_threads(self, user_id: str) -> list[str]:
        """The ids of the server's threads ``user_id`` owns (in process, past the auth layer)."""
        owned: list[str] = []
        try:
            async with get_client() as client:
                while True:
                    page = await client.threads.search(
                        metadata={"owner": user_id},
                        limit=PAGE,
                        offset=len(owned),
                        select=["thread_id"],
                    )
                    owned += [thread["thread_id"] for thread in page]
                    if len(page) < PAGE:
                        return owned
        except httpx.HTTPError as exc:  # not running inside the LangGraph server
            logger.warning("the server's threads were not listed: %s", exc)
            return owned

    async def cancel_runs(self, thread_id: str) -> None:
        """Cancel the thread's pending and running runs."""
        async with get_client() as client:
            for status in ACTIVE:
                try:
                    runs = await client.runs.list(thread_id, status=status, limit=PAGE)
                except LangGraphError:  # no such thread on this server
                    return
                for run in runs:
                    try:
                        await client.runs.cancel(thread_id, run["run_id"])
                    except LangGraphError as exc:  # ended meanwhile
                        logger.info("run %s not cancelled: %s", run["run_id"], exc)

    async def busy(self, thread_id: str) -> bool:
        """Whether the thread is busy (a cancelled run's task ends a moment after)."""
        async with get_client() as client:
            try:
                return bool((await client.threads.get(thread_id))["status"] == "busy")
            except LangGraphError:  # no such thread on this server
                return False

    async def forget_threads(
        self, user_id: str, threads: Sequence[str], *, all_owned: bool = False
    ) -> None:
        """Delete the server's records of ``threads`` (with ``all_owned``, of all ``user_id``'s).

        That is their metadata and the server's copy of their last values.
        """
        owned = await self.owned_threads(user_id) if all_owned else []
        try:
            async with get_client() as client:
                for thread in dict.fromkeys([*threads, *owned]):
                    try:
                        await client.threads.delete(thread)
                    except LangGraphError as exc:  # already gone, or never the server's
                        logger.info("thread %s not deleted by the server: %s", thread, exc)
        except httpx.HTTPError as exc:  # not running inside the LangGraph server
            logger.warning("the server's thread records were not deleted: %s", exc)

    def stores(self) -> AbstractAsyncContextManager[Stores]:
        """The project's checkpointer and content store on the server's database."""
        return _project_stores()

    def adapt_app(self, app: FastAPI) -> None:
        """Nothing to adapt: langgraph-api puts our middleware outside its own."""


@asynccontextmanager
async def _project_stores() -> AsyncIterator[Stores]:
    """The checkpointer and content store on ``DEEP_RESEARCH_DATABASE_URL``.

    Raises:
        StoreDisabledError: the server keeps nothing (``DEEP_RESEARCH_DATABASE_URL=memory``).
    """
    url = server_database_url()
    if url is None:
        raise StoreDisabledError(
            "this server keeps no domain store (DEEP_RESEARCH_DATABASE_URL=memory)"
        )
    async with open_checkpointer(url) as checkpointer, open_store(url) as store:
        yield Stores(checkpointer, store)
