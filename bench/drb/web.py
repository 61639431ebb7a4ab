"""A simulated web for one DRB task: a page per rubric criterion, in the task's language.

DRB ships no source pages, so the pages are made of the task's own rubric text (each
criterion and its explanation): real sentences in the task's language about its subject.
Search ranks them by BM25 with our tokenizer, so what is measured is whether our pipeline
finds and quotes evidence in that language, not whether a web index has it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.drb.data import Task
from deep_research.errors import SourceError
from deep_research.state import Document, SearchResult, stable_id
from deep_research.text import BM25, content_tokens

PROVIDER = "drb-sim"


@dataclass
class TaskWeb:
    """A :class:`~deep_research.sources.SourceProvider` over one task's pages."""

    task: Task
    name: str = PROVIDER

    def _pages(self) -> list[tuple[str, str, str]]:
        """``(url, title, text)`` of every page."""
        return [
            (
                f"https://drb.example/{self.task.id}/{i + 1}",
                c.criterion,
                f"# {c.criterion}\n\n{c.explanation}\n",
            )
            for i, c in enumerate(self.task.criteria)
        ]

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """The ``k`` pages that best match ``query`` (none when no term matches)."""
        pages = self._pages()
        bm25 = BM25([content_tokens(f"{title} {text}") for _, title, text in pages])
        terms = content_tokens(query)
        scored = sorted(
            ((bm25.score(terms, i), i) for i in range(len(pages))), key=lambda s: (-s[0], s[1])
        )
        return [
            SearchResult(
                url=pages[i][0],
                title=pages[i][1],
                snippet=pages[i][2][:200],
                score=round(score, 4),
                provider=self.name,
            )
            for score, i in scored[:k]
            if score > 0
        ]

    async def read(self, url: str) -> Document:
        """The page at ``url``.

        Raises:
            SourceError: no page of this task has that URL.
        """
        for page_url, title, text in self._pages():
            if page_url == url:
                return Document(id=stable_id("doc", text), url=url, title=title, text=text)
        raise SourceError(f"no simulated DRB page at {url}")
