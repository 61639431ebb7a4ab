"""A local corpus as a served run sees it: documents named relative to the corpus folder.

On the command line a corpus file is its ``file://`` URI, the user's own path. On a server
that path is the server's: a served run reads the corpus through :class:`ServedCorpus`, whose
documents are ``corpus:///RELATIVE/PATH`` (their place inside the corpus folder), so no
result, source, evidence span, event, stored row or report holds a folder of the server.
The files are still read through the wrapped :class:`LocalCorpus` and its index.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, unquote, urlsplit

from deep_research.errors import SourceError
from deep_research.sources.inventory import CorpusInventory
from deep_research.sources.local import LocalCorpus
from deep_research.state.models import Document, SearchResult

T = TypeVar("T")

CORPUS_SCHEME = "corpus"
"""The URL scheme of a served corpus's documents."""


class ServedCorpus:
    """A :class:`LocalCorpus` whose documents are named relative to its folder."""

    name = "local"
    """Provider name recorded on results and sources (the local corpus's)."""

    def __init__(self, corpus: LocalCorpus) -> None:
        """Serve ``corpus`` under relative names."""
        self.corpus = corpus

    def close(self) -> None:
        """Close the wrapped corpus's connections."""
        self.corpus.close()

    def inventory(self) -> CorpusInventory:
        """The wrapped corpus's inventory (its paths are relative to the corpus already)."""
        return self.corpus.inventory()

    def public_url(self, url: str) -> str:
        """``corpus:///RELATIVE`` for the ``file://`` URI of a file inside the corpus.

        Raises:
            SourceError: the file lies outside the corpus folder.
        """
        path = Path(unquote(urlsplit(url).path))
        if not path.is_relative_to(self.corpus.root):
            raise SourceError("a corpus result lies outside its folder")
        return f"{CORPUS_SCHEME}:///{quote(path.relative_to(self.corpus.root).as_posix())}"

    def private_url(self, url: str) -> str:
        """The ``file://`` URI of ``corpus:///RELATIVE``, inside the corpus folder.

        Raises:
            SourceError: the URL is not a served corpus URL, or leaves the folder.
        """
        parts = urlsplit(url)
        if parts.scheme != CORPUS_SCHEME:
            raise SourceError(f"not a document of the served corpus: {url}")
        relative = unquote(parts.path).lstrip("/")
        path = (self.corpus.root / relative).resolve()
        if not path.is_relative_to(self.corpus.root):
            raise SourceError(f"not a document of the served corpus: {url}")
        return path.as_uri()

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """The corpus's results, named relative to its folder.

        Raises:
            SourceError: the index could not be built or read (the message names no folder).
        """
        results = await self._hiding_folders(self.corpus.search(query, k))
        return [r.model_copy(update={"url": self.public_url(r.url)}) for r in results]

    async def read(self, url: str) -> Document:
        """The document at ``corpus:///RELATIVE``, named as it was asked for.

        Raises:
            SourceError: no such document (the message names no folder).
        """
        document = await self._hiding_folders(self.corpus.read(self.private_url(url)))
        metadata = {k: v for k, v in document.metadata.items() if k != "path"}
        metadata["path"] = unquote(urlsplit(url).path).lstrip("/")
        return document.model_copy(update={"url": url, "metadata": metadata})

    async def _hiding_folders(self, pending: Awaitable[T]) -> T:
        """Await ``pending``; a failure's message loses the server's folders."""
        try:
            return await pending
        except SourceError as exc:
            message = str(exc).replace(str(self.corpus.root), "<corpus>")
            message = message.replace(str(self.corpus.index_path), "<index>")
            raise SourceError(message) from None
