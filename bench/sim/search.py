"""The simulated search provider: fixture pages behind a fixed latency per search and read."""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, field

from bench.sim import text
from bench.sim.trace import CallRecord, Trace, current_ns
from deep_research.state import Document, SearchResult, stable_id

PROVIDER = "sim"


@dataclass
class SimulatedSearch:
    """A :class:`~deep_research.sources.SourceProvider` answering from :mod:`bench.sim.text`."""

    search_latency: float = 0.0
    read_latency: float = 0.0
    trace: Trace = field(default_factory=Trace)
    name: str = PROVIDER

    def _record(self, kind: str, key: str) -> CallRecord:
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        return self.trace.start(
            CallRecord(
                kind=kind,
                stage="research" if kind == "search" else "reading",
                call=kind,
                key=digest,
                ns=current_ns(),
                start=time.perf_counter(),
            )
        )

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """The fixture results of ``query``, after ``search_latency``."""
        record = self._record("search", f"{query}\x1f{k}")
        await asyncio.sleep(self.search_latency)
        results = [
            SearchResult(
                url=url,
                title=text.page(url).title,
                snippet=text.snippet(url),
                score=1.0 - i / 100,
                provider=self.name,
            )
            for i, url in enumerate(text.result_urls(query, k))
        ]
        self.trace.end(record, cost=self.search_latency)
        return results

    async def read(self, url: str) -> Document:
        """The fixture page at ``url``, after ``read_latency``."""
        record = self._record("read", url)
        await asyncio.sleep(self.read_latency)
        page = text.page(url)
        self.trace.end(record, cost=self.read_latency)
        return Document(id=stable_id("doc", page.text), url=url, title=page.title, text=page.text)
