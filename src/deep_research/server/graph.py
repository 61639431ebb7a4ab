"""The graph the LangGraph server serves (``langgraph.json`` → ``graphs.deep_research``).

It is :func:`~deep_research.graph.build_graph` with one difference from a graph a Python caller
builds: it always records into the domain store, on the server's
database URL (``DEEP_RESEARCH_DATABASE_URL``, or the embedded SQLite file the server's
checkpointer also uses), because the server's HTTP routes read what it records. Runs are
attributed to the user the server authenticated (``langgraph_auth_user``, which langgraph-api
and Aegra both set), never to a user id the client sent in the run's config or context; on an
open server, to ``DEEP_RESEARCH_USER_ID``, as every request is.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from langgraph.config import get_config

from deep_research.errors import ConfigurationError
from deep_research.events import RunIds
from deep_research.graph import build_graph
from deep_research.persistence.recorder import Batch, RunScope, SqlRecorder, authenticated_user_id
from deep_research.server.database import domain_database, server_database_url
from deep_research.server.tokens import current_verifier
from deep_research.settings import get_settings


class ServerRecorder:
    """Records into the server's domain store, on the pooled engine the routes use.

    The engine is the running event loop's (:func:`domain_database`), so each call records
    through a :class:`SqlRecorder` on it; the threads' ids it found are kept here, across calls.
    """

    def __init__(self) -> None:
        self.known_ids: OrderedDict[str, RunIds] = OrderedDict()

    async def _recorder(self) -> SqlRecorder | None:
        settings = get_settings()
        if server_database_url() is None:
            return None
        return SqlRecorder(
            await domain_database(),
            max_chats=settings.max_chats_per_user,
            max_messages=settings.max_messages_per_chat,
            known_ids=self.known_ids,
        )

    @staticmethod
    def _as_run_user(scope: RunScope) -> RunScope:
        """The scope as the server's user: the local user when open, else the authenticated one.

        Raises:
            ConfigurationError: auth is on and the run carries no authenticated user.
        """
        if current_verifier().open:
            return replace(scope, user_id=get_settings().user_id)
        user_id = authenticated_user_id(get_config().get("configurable", {}))
        if user_id is None:  # only the server's authentication says whose run this is
            raise ConfigurationError(
                "this run carries no authenticated user: it was not started by the server"
            )
        return replace(scope, user_id=user_id)

    async def write(self, scope: RunScope, batch: Batch) -> None:
        """Write one node's batch, as the run's user (nothing when the server keeps no store)."""
        recorder = await self._recorder()
        if recorder is not None:
            await recorder.write(self._as_run_user(scope), batch)

    async def load_run_ids(self, scope: RunScope) -> None:
        """Stamp the task's events with the ids of the scope's question, if recorded."""
        recorder = await self._recorder()
        if recorder is not None:
            await recorder.load_run_ids(self._as_run_user(scope))


graph = build_graph(recorder=ServerRecorder(), served=True)
"""Compiled without a checkpointer: the server brings its own (see ``langgraph.json``)."""
