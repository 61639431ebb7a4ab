"""The graph the LangGraph server serves (``langgraph.json`` → ``graphs.deep_research``).

It is :func:`~deep_research.graph.build_graph` with one difference from a graph a Python caller
builds: it always records into the domain store, on the server's
database URL (``DEEP_RESEARCH_DATABASE_URL``, or the embedded SQLite file the server's
checkpointer also uses), because the server's HTTP routes read what it records. Runs are
attributed to the authenticated user (``langgraph_auth_user_id``); on an open server, to
``DEEP_RESEARCH_USER_ID``, as every request is.
"""

from __future__ import annotations

from dataclasses import replace

from deep_research.graph import build_graph
from deep_research.persistence.recorder import Batch, RunScope, SqlRecorder
from deep_research.server.database import domain_database, server_database_url
from deep_research.server.tokens import current_verifier
from deep_research.settings import get_settings


class ServerRecorder:
    """Records into the server's domain store, on the pooled engine the routes use."""

    async def write(self, scope: RunScope, batch: Batch) -> None:
        """Write one node's batch, as the run's user (nothing when the server keeps no store)."""
        settings = get_settings()
        if server_database_url() is None:
            return
        if current_verifier().open:
            scope = replace(scope, user_id=settings.user_id)
        recorder = SqlRecorder(
            await domain_database(),
            max_chats=settings.max_chats_per_user,
            max_messages=settings.max_messages_per_chat,
        )
        await recorder.write(scope, batch)


graph = build_graph(recorder=ServerRecorder(), served=True)
"""Compiled without a checkpointer: the server brings its own (see ``langgraph.json``)."""
