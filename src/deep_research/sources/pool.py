"""The chat's source pool: a follow-up question searches what earlier questions read.

When a new question arrives in a thread, clarify moves the sources the previous question read
into ``State.pool`` (small records; newest first, at most :data:`POOL_LIMIT`), and each
researcher gets the pool with its step. :func:`chat_pool` turns it into one more source
provider, ``chat``, which ranks the pooled documents by BM25 and reads their text back from
the content store, so a follow-up can cite them without searching or fetching them again.
Without a content store there is no pool. The provider is handed the store's reader (a
:data:`TextReader`, from :mod:`deep_research.services`): a provider does not touch the store.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from deep_research.errors import SourceError
from deep_research.sources import SourceProvider
from deep_research.state.identity import source_keys
from deep_research.state.models import POOL_PROVIDER, Document, SearchResult, Source
from deep_research.text.words import BM25, content_tokens

POOL_LIMIT = 60
"""Most sources carried over to follow-up questions."""

TextReader = Callable[[str], Awaitable[str | None]]
"""Reads a kept document's text by its id (``None`` when the content store does not have it)."""


def extend_pool(pool: Sequence[Source], read: Sequence[Source]) -> list[Source]:
    """The pool after a question: its successfully read sources first, one per page or work.

    An earlier entry that shares a URL or an identifier's link with a newer one is dropped.
    """
    merged: list[Source] = []
    taken: set[str] = set()
    for source in (*read, *pool):
        keys = source_keys(source)
        if source.crawl_status == "ok" and source.document_id and not keys & taken:
            merged.append(source)
            taken |= keys
    return merged[:POOL_LIMIT]


class ChatPool:
    """A source provider over the chat's earlier sources, read from the content store."""

    name = POOL_PROVIDER

    def __init__(self, pool: Sequence[Source], read_text: TextReader) -> None:
        self._pool = {s.url: s for s in pool}
        self._read_text = read_text
        self._texts: dict[str, str] = {}

    async def _text(self, source: Source) -> str | None:
        if source.url not in self._texts and source.document_id:
            text = await self._read_text(source.document_id)
            if text is not None:
                self._texts[source.url] = text
        return self._texts.get(source.url)

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """The pooled documents that match ``query`` best, at most ``k``."""
        found = [(s, await self._text(s)) for s in self._pool.values()]
        readable = [(s, text) for s, text in found if text is not None]
        index = BM25([content_tokens(f"{s.title} {text}") for s, text in readable])
        terms = content_tokens(query)
        scored = [(index.score(terms, i), s) for i, (s, _) in enumerate(readable)]
        ranked = sorted((p for p in scored if p[0] > 0), key=lambda p: (-p[0], p[1].url))
        return [
            # the text is at hand: when a scholarly API finds the same work, the pool reads it
            SearchResult(
                url=s.url, title=s.title, provider=self.name, score=score, bib=s.bib, richness=3
            )
            for score, s in ranked[:k]
        ]

    async def read(self, url: str) -> Document:
        """The pooled document at ``url``, as it was read the first time.

        Raises:
            SourceError: the URL is not in the pool, or its text is not in the content store.
        """
        source = self._pool.get(url)
        text = await self._text(source) if source is not None else None
        if source is None or source.document_id is None or text is None:
            raise SourceError(f"the chat's content store has no text for {url}")
        return Document(id=source.document_id, url=url, title=source.title, text=text)


def chat_pool(state: Any, read_text: TextReader | None) -> list[SourceProvider]:
    """The pool provider for a researcher, or nothing (no pool or no content store)."""
    pool: Sequence[Source] = getattr(state, "pool", ())
    if not pool or read_text is None:
        return []
    return [ChatPool(pool, read_text)]
