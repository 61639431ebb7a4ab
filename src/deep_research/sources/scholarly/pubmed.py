"""PubMed through NCBI's E-utilities (``DEEP_RESEARCH_PUBMED_BASE_URL``).

* Search: ``esearch.fcgi`` (``db=pubmed``, JSON, by relevance, paged with ``retstart``) for
  PMIDs, then ``esummary.fcgi`` (JSON) for their metadata: title, authors, journal, date,
  volume, issue, pages, publication types and identifiers (DOI, PMC id). A record that
  ``esummary`` lists as updating a preprint (or updated by a published article) links the
  two versions.
* Read: ``efetch.fcgi`` (``retmode=xml``) for the abstract; a structured abstract keeps its
  labels (``BACKGROUND``, ``METHODS``...) as sections.
* Rate: NCBI allows 3 requests a second without a key and 10 with ``NCBI_API_KEY``; every
  request carries ``tool`` and, when set, ``email`` (``DEEP_RESEARCH_CONTACT_EMAIL``), as
  NCBI asks.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.client import ApiClient
from deep_research.sources.scholarly.works import (
    Part,
    authors_of,
    doi,
    parse_date,
    pmcid,
    pmid,
    result,
    work_document,
    work_text,
    year_of,
)
from deep_research.state.models import BibRecord, Document, SearchResult

TOOL = "deep-research"
"""The ``tool`` parameter NCBI asks every E-utilities client to send."""

VERSION_LINKS = frozenset({"updateof", "updatein"})
"""``esummary`` reference types that link a preprint and its published article."""


class PubMedSearch(ScholarlyProvider):
    """Search and read PubMed; see the module docstring."""

    name = "pubmed"

    def __init__(
        self,
        client: ApiClient,
        *,
        api_key: str | None = None,
        email: str | None = None,
        page_size: int | None = None,
    ) -> None:
        """Search with ``client``; ``api_key`` and ``email`` go with every request."""
        super().__init__(client, page_size=page_size)
        self._common = {"tool": TOOL}
        if api_key:
            self._common["api_key"] = api_key
        if email:
            self._common["email"] = email

    async def search_page(
        self, query: str, size: int, page: int, cursor: str | None, rank: int
    ) -> tuple[list[SearchResult], str | None]:
        """PMIDs from ``esearch``, then their records from ``esummary``."""
        start = int(cursor or 0)
        found = await self.client.get_json(
            "esearch.fcgi",
            {
                **self._common,
                "db": "pubmed",
                "term": query,
                "retmode": "json",
                "retmax": str(size),
                "retstart": str(start),
                "sort": "relevance",
            },
        )
        search = found.get("esearchresult") if isinstance(found, dict) else None
        if not isinstance(search, dict):
            raise SourceError("PubMed esearch answered without an esearchresult")
        ids = [i for i in (pmid(x) for x in search.get("idlist") or []) if i]
        if not ids:
            return [], None
        summary = await self.client.get_json(
            "esummary.fcgi",
            {**self._common, "db": "pubmed", "id": ",".join(ids), "retmode": "json"},
        )
        records = summary.get("result") if isinstance(summary, dict) else None
        if not isinstance(records, dict):
            raise SourceError("PubMed esummary answered without a result")
        hits = [
            hit
            for n, uid in enumerate(ids)
            if (hit := self._hit(records.get(uid), rank + n)) is not None
        ]
        total = int(search.get("count") or 0)
        more = start + len(ids) < total
        return hits, str(start + len(ids)) if more else None

    def _hit(self, record: Any, rank: int) -> SearchResult | None:
        if not isinstance(record, dict) or record.get("error") or not record.get("uid"):
            return None
        bib = summary_record(record)
        has_abstract = "Has Abstract" in (record.get("attributes") or [])
        return result(
            bib,
            title=str(record.get("title") or ""),
            text="",
            provider=self.name,
            rank=rank,
            richness=2 if has_abstract else 0,
        )

    async def read_work(self, hit: SearchResult) -> Document:
        """The abstract from ``efetch``, labelled parts as sections.

        Raises:
            FetchSkippedError: the record has no abstract.
            SourceError: no PMID, or the request failed.
        """
        bib = hit.bib or BibRecord()
        if bib.pmid is None:
            raise SourceError(f"PubMed reads works by PMID; {hit.url} has none")
        xml = await self.client.get_text(
            "efetch.fcgi", {**self._common, "db": "pubmed", "id": bib.pmid, "retmode": "xml"}
        )
        title, parts = parse_efetch(xml, bib.pmid)
        if not parts:
            raise FetchSkippedError(f"PubMed has no abstract for PMID {bib.pmid}")
        return work_document(self.name, hit, work_text(title or hit.title, parts))


def summary_record(record: dict[str, Any]) -> BibRecord:
    """The bibliographic record of one ``esummary`` document summary."""
    ids = {
        str(a.get("idtype", "")).lower(): a.get("value")
        for a in record.get("articleids") or []
        if isinstance(a, dict)
    }
    names = [
        str(a.get("name") or "")
        for a in record.get("authors") or []
        if isinstance(a, dict) and a.get("authtype", "Author") in ("Author", "CollectiveName")
    ]
    authors, more = authors_of(names)
    date = parse_date(record.get("pubdate")) or parse_date(record.get("sortpubdate"))
    types = [str(t) for t in record.get("pubtype") or []]
    versions = [
        f"pmid:{ref_pmid}"
        for ref in record.get("references") or []
        if isinstance(ref, dict)
        and str(ref.get("reftype", "")).lower() in VERSION_LINKS
        and (ref_pmid := pmid(ref.get("pmid")))
    ]
    return BibRecord(
        authors=authors,
        more_authors=more,
        year=year_of(date),
        date=date,
        venue=str(record.get("source") or record.get("fulljournalname") or "") or None,
        venue_type="preprint" if "Preprint" in types else "journal",
        volume=str(record.get("volume") or "") or None,
        issue=str(record.get("issue") or "") or None,
        pages=str(record.get("pages") or "") or None,
        publication_type=types[0] if types else None,
        doi=doi(ids.get("doi")) or doi(record.get("elocationid")),
        pmid=pmid(ids.get("pubmed") or record.get("uid")),
        pmcid=pmcid(ids.get("pmc")),
        open_access=True if ids.get("pmc") else None,
        versions=versions,
    )


def parse_efetch(xml: str, wanted: str) -> tuple[str, list[Part]]:
    """The title and abstract parts of the record ``wanted`` in an ``efetch`` answer.

    Raises:
        SourceError: the XML does not parse, or holds no such record.
    """
    try:
        # no external entities are fetched, and expat (>= 2.4) refuses expansion bombs
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise SourceError(f"PubMed efetch answered with XML that does not parse: {exc}") from None
    for article in root.iter("PubmedArticle"):
        if (article.findtext("MedlineCitation/PMID") or "").strip() != wanted:
            continue
        title = _text(article.find("MedlineCitation/Article/ArticleTitle"))
        parts: list[Part] = []
        for node in article.iterfind("MedlineCitation/Article/Abstract/AbstractText"):
            label = node.get("Label")
            parts.append((label.strip().capitalize() if label else "Abstract", _text(node)))
        return title, [(h, t) for h, t in parts if t]
    raise SourceError(f"PubMed efetch returned no record for PMID {wanted}")


def _text(node: ET.Element | None) -> str:
    """All the text of ``node``, inline markup (``<i>``, ``<sup>``) included."""
    return " ".join("".join(node.itertext()).split()) if node is not None else ""
