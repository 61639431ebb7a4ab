"""The provider interface every source implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from deep_research.state.models import Document, SearchResult

if TYPE_CHECKING:
    from deep_research.sources.inventory import CorpusInventory


class SourceProvider(Protocol):
    """Something that can be searched and read: the local corpus, Tavily and the web."""

    name: str
    """Short provider name recorded on results and sources (``local``, ``tavily``)."""

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Return at most ``k`` results for ``query``, best first.

        Raises:
            SourceError: the provider failed; the caller records it and goes on.
        """
        ...

    async def read(self, url: str) -> Document:
        """Return the full document at ``url``.

        Raises:
            SourceError: the document could not be read.
        """
        ...


@runtime_checkable
class WorkReader(Protocol):
    """A provider that reads a scholarly work by its identifiers rather than by URL."""

    async def read_hit(self, hit: SearchResult) -> Document:
        """Return the text of the work ``hit`` names (its ``bib`` holds the identifiers).

        Raises:
            SourceError: the work could not be read.
        """
        ...


@runtime_checkable
class Inventoried(Protocol):
    """A provider over a folder of files: it can tell what it read and what it skipped."""

    def inventory(self) -> CorpusInventory:
        """Documents read by kind, files skipped with their reasons (blocking: a thread).

        Raises:
            SourceError: the index could not be built or read.
        """
        ...
