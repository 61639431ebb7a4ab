"""The content store: page text, kept out of graph state, keyed by content hash.

It is a LangGraph ``BaseStore`` (``runtime.store`` in nodes): the server provides its own, and
the command line opens one on the database URL, beside the checkpointer. Documents live in the
``("documents",)`` namespace under their id (``doc_`` + a sha256 prefix of the text), so the
same text read twice is stored once, and a checkpoint refers to it by id.

A run that keeps documents also notes their ids under its thread (:func:`pages_namespace`), in
the same batch, until its round is over (when its sources, which name them, are recorded). A
purge erases the documents noted there too, so a run stopped between keeping pages and
recording their sources leaves no page text behind; and the store refuses the batch, page text
included, once the thread is closed (:mod:`~deep_research.persistence.closed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import cast

from langgraph.store.base import BaseStore, Item, PutOp, TTLConfig
from langgraph.store.memory import InMemoryStore

from deep_research.errors import ConfigurationError
from deep_research.persistence.locks import async_sqlite_setup_lock
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE, RESEARCHERS_NAMESPACE
from deep_research.persistence.timeouts import DatabaseTimeouts
from deep_research.persistence.urls import sqlite_path
from deep_research.settings import get_settings
from deep_research.state.models import Document

logger = logging.getLogger(__name__)


async def put_document(store: BaseStore, document: Document) -> None:
    """Keep one document's text, noted under no thread (see :func:`put_documents`)."""
    await put_documents(store, [document], thread_id=None)


def pages_namespace(thread_id: str) -> tuple[str, ...]:
    """Where a thread notes the documents it kept until its round is over."""
    return (*RESEARCHERS_NAMESPACE, thread_id, "pages")


async def put_documents(
    store: BaseStore, documents: Sequence[Document], *, thread_id: str | None
) -> None:
    """Keep documents' text (idempotent: the key is the hash of the text), in one batch.

    Written in the order of their ids, so that batches written at once lock the same rows in
    the same order.

    With ``thread_id``, the batch also notes their ids under the thread (see the module
    docstring), so a purge of the thread finds them, and a closed thread's store refuses it.
    """
    ttl = (store.ttl_config or {}).get("default_ttl")  # as ``aput`` would give them
    # in one order, whoever writes: researchers keeping the same pages at once lock their rows
    # in the same order, never each holding one the other waits for (PostgreSQL: a deadlock)
    documents = sorted({d.id: d for d in documents}.values(), key=lambda d: d.id)
    ops = [
        PutOp(
            DOCUMENTS_NAMESPACE,
            d.id,
            {"url": d.url, "title": d.title, "text": d.text},
            ttl=ttl,
        )
        for d in documents
    ]
    if thread_id:
        ops += [PutOp(pages_namespace(thread_id), d.id, {"url": d.url}, ttl=ttl) for d in documents]
    if ops:
        await store.abatch(ops)


async def kept_documents(store: BaseStore, thread_id: str) -> set[str]:
    """The ids of the documents the thread noted it kept (:func:`put_documents`)."""
    found: set[str] = set()
    while page := await store.asearch(pages_namespace(thread_id), limit=100, offset=len(found)):
        found.update(item.key for item in page)
    return found


async def get_document_text(store: BaseStore, document_id: str) -> str | None:
    """A document's text, or ``None`` when the store does not have it."""
    return _text(await store.aget(DOCUMENTS_NAMESPACE, document_id))


def _text(item: Item | None | object) -> str | None:
    value = item.value.get("text") if isinstance(item, Item) else None
    return value if isinstance(value, str) else None


TTL_KEYS = ("default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired")
"""The keys of LangGraph's ``TTLConfig``, as ``store.ttl`` in langgraph.json spells them."""


def store_ttl() -> TTLConfig | None:
    """The content store's retention, if one is set.

    ``DEEP_RESEARCH_STORE_TTL_MINUTES`` wins; else, under the LangGraph server, ``store.ttl``
    of ``langgraph.json`` (which the server hands to its process as ``LANGGRAPH_STORE``). An
    item expires that many minutes after it was last written or read; items written while no
    retention was set never expire.
    """
    settings = get_settings()
    if settings.store_ttl_minutes is not None:
        minutes = settings.store_ttl_minutes
        return {"default_ttl": minutes, "refresh_on_read": True, "sweep_interval_minutes": 60}
    ttl = settings.langgraph_store.get("ttl") if settings.langgraph_store else None
    if not isinstance(ttl, dict) or ttl.get("default_ttl") is None:
        return None
    return cast(TTLConfig, {k: ttl[k] for k in TTL_KEYS if k in ttl})


@asynccontextmanager
async def open_store(url: str) -> AsyncIterator[BaseStore]:
    """Open, set up and finally close the content store that ``url`` names.

    Raises:
        ConfigurationError: the URL's scheme is not memory, sqlite or postgresql.
    """
    if url == "memory":
        yield InMemoryStore()
    elif url.startswith("sqlite:"):
        from deep_research.persistence.sqlite_store import ImmediateSqliteStore

        path = sqlite_path(url)
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        async with ImmediateSqliteStore.open(str(path), ttl=store_ttl()) as store:
            async with async_sqlite_setup_lock(path):
                await store.setup()
            if store.ttl_config:
                await store.sweep_ttl()
            yield store
    elif url.startswith(("postgresql", "postgres")):
        from deep_research.persistence.postgres import BoundedPostgresStore, open_pool

        timeouts = DatabaseTimeouts.from_settings()
        async with open_pool(url, timeouts, max_size=4, what="the content store") as pool:
            postgres = BoundedPostgresStore(pool, url=url, timeouts=timeouts, ttl=store_ttl())
            await postgres.setup()
            if postgres.ttl_config:
                await postgres.sweep_ttl()
            yield postgres
    else:
        raise ConfigurationError(
            f"unsupported database URL {url!r}: use memory, sqlite:///FILE or postgresql://..."
        )
