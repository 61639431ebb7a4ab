"""What the four scholarly providers share: paging, and reading a work by its identifiers.

A provider's search returns small records (title, snippet, a :class:`BibRecord`), never the
work's text: that is read later, by identifier (:meth:`ScholarlyProvider.read_hit`), and goes
to the content store like any page. Results link to the work's DOI first
(:meth:`BibRecord.link`), so the same article found by several APIs has one URL, and the
researcher merges them by identifier (:mod:`deep_research.state.scholarly`).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from deep_research.errors import SourceError
from deep_research.sources.scholarly.client import ApiClient
from deep_research.sources.scholarly.works import ids_from_url, work_document
from deep_research.sources.web.cache import CachedPage, PageCache
from deep_research.state.models import Document, SearchResult

MAX_PAGES = 3
"""Most result pages one search asks for (results without a usable record are skipped)."""

_WORDS = re.compile(r"[^\W_][\w-]*")
_OPERATORS = frozenset({"and", "or", "not"})


def relaxed(query: str) -> str:
    """``query``'s words (of three letters or more) joined by ``OR``; itself when too short."""
    words = [w for w in _WORDS.findall(query) if len(w) > 2 and w.lower() not in _OPERATORS]
    unique = list(dict.fromkeys(words))
    return " OR ".join(unique) if len(unique) > 2 else query


class ScholarlyProvider(ABC):
    """A keyless scholarly API as a source provider."""

    name: str
    """Provider name recorded on results and sources (``pubmed``, ``europepmc``...)."""

    reads_own_results = True
    """Its links (DOIs, PubMed pages) are read through the API, not fetched as web pages."""

    def __init__(
        self, client: ApiClient, *, page_size: int | None = None, cache: PageCache | None = None
    ) -> None:
        """Search and read with ``client``.

        Args:
            client: The API's HTTP client (base URL, rate limit, retries).
            page_size: Records asked for per page; unset asks for ``k`` at once.
            cache: Where texts that came with search results wait to be read (the page
                cache, under ``NAME:LINK`` keys), so that reading them asks the API nothing.
        """
        self.client = client
        self.page_size = page_size
        self.cache = cache

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Return at most ``k`` works for ``query``, best first, one page after another.

        These APIs want every word of a query to match; a long query that matches nothing is
        asked again with its words joined by ``OR`` (:func:`relaxed`), which they all
        understand, and their relevance ranking puts the works matching most words first.

        Raises:
            SourceError: the API failed after its retries.
        """
        results = await self._collect(query, k)
        broader = relaxed(query)
        if not results and broader != query:
            results = await self._collect(broader, k)
        return results

    async def _collect(self, query: str, k: int) -> list[SearchResult]:
        results: list[SearchResult] = []
        seen: set[str] = set()
        cursor: str | None = None
        size = max(1, self.page_size or k)
        for page in range(MAX_PAGES):
            found, cursor = await self.search_page(query, size, page, cursor, len(results))
            for hit in found:
                if hit.url not in seen:
                    seen.add(hit.url)
                    results.append(hit)
            if len(results) >= k or cursor is None:
                break
        return results[:k]

    @abstractmethod
    async def search_page(
        self, query: str, size: int, page: int, cursor: str | None, rank: int
    ) -> tuple[list[SearchResult], str | None]:
        """One page of results, and the cursor of the next page (``None``: no more).

        Args:
            query: The query.
            size: Records to ask for.
            page: The page number, from 0.
            cursor: What the previous page said the next one is (a token, an offset).
            rank: Results already found (the first result of this page ranks after them).
        """

    async def read(self, url: str) -> Document:
        """Read the work a link names (``https://doi.org/...``, a PubMed page...).

        Raises:
            SourceError: the link names no work this API knows, or the read failed.
        """
        bib = ids_from_url(url)
        if not bib.identifiers():
            raise SourceError(f"{self.name} cannot tell which work {url} is")
        return await self.read_hit(SearchResult(url=url, title=url, provider=self.name, bib=bib))

    async def read_hit(self, hit: SearchResult) -> Document:
        """Read the work of ``hit``, from the cache when its search brought the text.

        Otherwise the API is asked by the work's identifiers (:meth:`read_work`), and the
        text is kept in the cache.

        Raises:
            FetchSkippedError: the API has no text for it (a title alone).
            SourceError: the read failed.
        """
        if self.cache is not None:
            page = await self.cache.get(self._key(hit))
            if page is not None:
                return work_document(self.name, hit, page.text)
        document = await self.read_work(hit)
        await self.remember(hit, document.text)
        return document

    @abstractmethod
    async def read_work(self, hit: SearchResult) -> Document:
        """Read the work of ``hit`` from the API by its identifiers: full text or abstract.

        Raises:
            FetchSkippedError: the API has no text for it (a title alone).
            SourceError: the read failed.
        """

    async def remember(self, hit: SearchResult, text: str) -> None:
        """Keep the text of ``hit`` in the cache (when there is one) for its read."""
        if self.cache is None or not text.strip():
            return
        await self.cache.put(
            CachedPage(
                url=self._key(hit),
                title=hit.title,
                text=text,
                content_type="text/plain",
                language=None,
                origin=self.name,
                fetched_at=self.cache.now(),
            )
        )

    def _key(self, hit: SearchResult) -> str:
        return f"{self.name}:{hit.url}"
