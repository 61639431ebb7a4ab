"""OpenAlex works (``DEEP_RESEARCH_OPENALEX_BASE_URL``), keyless.

* Search: ``works?search=...``, paged with ``cursor``. Each work gives its identifiers
  (OpenAlex id, DOI, PMID, PMC id), authors, year and date, venue (the primary location's
  source: a journal or a repository), volume, issue and pages.
* Abstracts come as an inverted index (word → positions); :func:`rebuild_abstract` puts the
  words back in order.
* Read: ``works/{id}`` (or ``works/doi:...``, ``works/pmid:...``) for the abstract.
* ``DEEP_RESEARCH_CONTACT_EMAIL``, when set, goes as ``mailto`` with every request, which
  puts the requests in OpenAlex's polite pool.
"""

from __future__ import annotations

from typing import Any

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.client import ApiClient
from deep_research.sources.scholarly.works import (
    author_from_display,
    authors_of,
    doi,
    openalex_id,
    parse_date,
    plain,
    pmcid,
    pmid,
    result,
    work_document,
    work_text,
)
from deep_research.state.models import BibRecord, Document, SearchResult, VenueType

_VENUES: dict[str, VenueType] = {
    "journal": "journal",
    "repository": "repository",
    "book series": "book",
    "ebook platform": "book",
    "conference": "other",
}


class OpenAlexSearch(ScholarlyProvider):
    """Search and read OpenAlex works; see the module docstring."""

    name = "openalex"

    def __init__(
        self, client: ApiClient, *, email: str | None = None, page_size: int | None = None
    ) -> None:
        """Search with ``client``; ``email`` joins OpenAlex's polite pool."""
        super().__init__(client, page_size=page_size)
        self._common = {"mailto": email} if email else {}

    async def search_page(
        self, query: str, size: int, page: int, cursor: str | None, rank: int
    ) -> tuple[list[SearchResult], str | None]:
        """One page of works; the next page's ``cursor``."""
        payload = await self.client.get_json(
            "works",
            {**self._common, "search": query, "per-page": str(size), "cursor": cursor or "*"},
        )
        if not isinstance(payload, dict):
            raise SourceError("OpenAlex answered with JSON that is not an object")
        works = payload.get("results") or []
        hits: list[SearchResult] = []
        for n, work in enumerate(works):
            hit = self._hit(work, rank + n)
            if hit is not None:
                hits.append(hit)
                await self.remember(hit, abstract_text(work, hit.title))
        following = (payload.get("meta") or {}).get("next_cursor")
        more = isinstance(following, str) and bool(following) and len(works) >= size
        return hits, following if more else None

    def _hit(self, work: Any, rank: int) -> SearchResult | None:
        if not isinstance(work, dict):
            return None
        abstract = rebuild_abstract(work.get("abstract_inverted_index"))
        return result(
            work_record(work),
            title=str(work.get("display_name") or work.get("title") or ""),
            text=abstract,
            provider=self.name,
            rank=rank,
            richness=2 if abstract else 0,
        )

    async def read_work(self, hit: SearchResult) -> Document:
        """The work's abstract, rebuilt from its inverted index.

        Raises:
            FetchSkippedError: OpenAlex has no abstract for it.
            SourceError: no identifier OpenAlex resolves, or the request failed.
        """
        bib = hit.bib or BibRecord()
        key = (
            bib.openalex_id
            or (f"doi:{bib.doi}" if bib.doi else None)
            or (f"pmid:{bib.pmid}" if bib.pmid else None)
            or (f"pmcid:{bib.pmcid}" if bib.pmcid else None)
        )
        if key is None:
            raise SourceError(f"OpenAlex cannot tell which work {hit.url} is")
        work = await self.client.get_json(f"works/{key}", self._common)
        if not isinstance(work, dict):
            raise SourceError("OpenAlex answered with JSON that is not an object")
        text = abstract_text(work, hit.title)
        if not text:
            raise FetchSkippedError(f"OpenAlex has no abstract for {hit.url}")
        return work_document(self.name, hit, text)


def abstract_text(work: dict[str, Any], title: str) -> str:
    """A work's title and rebuilt abstract as a document's text (empty without an abstract)."""
    abstract = rebuild_abstract(work.get("abstract_inverted_index"))
    if not abstract:
        return ""
    return work_text(str(work.get("display_name") or title), [("Abstract", abstract)])


def rebuild_abstract(index: Any) -> str:
    """The abstract an inverted index (``{"word": [positions]}``) encodes, words in order."""
    if not isinstance(index, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in index.items():
        for position in positions if isinstance(positions, list) else []:
            if isinstance(position, int):
                placed[position] = str(word)
    return plain(" ".join(placed[p] for p in sorted(placed)))


def work_record(work: dict[str, Any]) -> BibRecord:
    """The bibliographic record of one OpenAlex work."""
    ids = work.get("ids") or {}
    names = [
        str((a.get("author") or {}).get("display_name") or a.get("raw_author_name") or "")
        for a in work.get("authorships") or []
        if isinstance(a, dict)
    ]
    authors, more = authors_of(author_from_display(n) for n in names if n)
    location = work.get("primary_location") or {}
    source = location.get("source") or {}
    biblio = work.get("biblio") or {}
    first, last = biblio.get("first_page"), biblio.get("last_page")
    pages = f"{first}-{last}" if first and last and first != last else first or None
    date = parse_date(work.get("publication_date")) or parse_date(
        str(work.get("publication_year") or "")
    )
    preprint = work.get("type") == "preprint"
    year = work.get("publication_year")
    return BibRecord(
        authors=authors,
        more_authors=more,
        year=year if isinstance(year, int) else None,
        date=date,
        venue=plain(source.get("display_name")) or None,
        venue_type="preprint" if preprint else _VENUES.get(str(source.get("type")), None),
        volume=str(biblio.get("volume") or "") or None,
        issue=str(biblio.get("issue") or "") or None,
        pages=str(pages) if pages else None,
        publication_type=str(work.get("type") or "") or None,
        doi=doi(work.get("doi") or ids.get("doi")),
        pmid=pmid(str(ids.get("pmid") or "").rstrip("/").rsplit("/", 1)[-1]),
        pmcid=pmcid(str(ids.get("pmcid") or "").rstrip("/").rsplit("/", 1)[-1]),
        openalex_id=openalex_id(work.get("id") or ids.get("openalex")),
        open_access=(work.get("open_access") or {}).get("is_oa"),
    )
