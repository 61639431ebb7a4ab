"""The content store: page text, kept out of graph state, keyed by content hash.

It is a LangGraph ``BaseStore`` (``runtime.store`` in nodes): the server provides its own, and
the command line opens one on the database URL, beside the checkpointer. Documents live in the
``("documents",)`` namespace under their id (``doc_`` + a sha256 prefix of the text), so the
same text read twice is stored once, and a checkpoint refers to it by id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from deep_research.errors import ConfigurationError
from deep_research.persistence.checkpointer import postgres_conninfo, sqlite_path
from deep_research.persistence.locks import async_sqlite_setup_lock
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.state.models import Document


async def put_document(store: BaseStore, document: Document) -> None:
    """Keep a document's text (idempotent: the key is the hash of the text)."""
    await store.aput(
        DOCUMENTS_NAMESPACE,
        document.id,
        {"url": document.url, "title": document.title, "text": document.text},
    )


async def get_document_text(store: BaseStore, document_id: str) -> str | None:
    """A document's text, or ``None`` when the store does not have it."""
    item = await store.aget(DOCUMENTS_NAMESPACE, document_id)
    if item is None:
        return None
    text = item.value.get("text")
    return text if isinstance(text, str) else None


@asynccontextmanager
async def open_store(url: str) -> AsyncIterator[BaseStore]:
    """Open, set up and finally close the content store that ``url`` names.

    Raises:
        ConfigurationError: the URL's scheme is not memory, sqlite or postgresql.
    """
    if url == "memory":
        yield InMemoryStore()
    elif url.startswith("sqlite:"):
        from langgraph.store.sqlite.aio import AsyncSqliteStore

        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        async with AsyncSqliteStore.from_conn_string(str(path)) as store:
            async with async_sqlite_setup_lock(path):
                await store.setup()
            yield store
    elif url.startswith(("postgresql", "postgres")):
        from langgraph.store.postgres.aio import AsyncPostgresStore

        async with AsyncPostgresStore.from_conn_string(
            postgres_conninfo(url), pool_config={"min_size": 1, "max_size": 4}
        ) as postgres:
            await postgres.setup()
            yield postgres
    else:
        raise ConfigurationError(
            f"unsupported database URL {url!r}: use memory, sqlite:///FILE or postgresql://..."
        )
