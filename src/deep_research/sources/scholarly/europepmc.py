"""Europe PMC's REST API (``DEEP_RESEARCH_EUROPEPMC_BASE_URL``).

* Search: ``search`` with ``resultType=core`` (abstracts, authors, journal, identifiers),
  JSON, paged with ``cursorMark``. Preprints (source ``PPR``) name their server as venue;
  a comment-correction entry of a preprint type links a preprint and its article.
* Read: when the record is open access with a PMC id, ``{PMCID}/fullTextXML`` (JATS) is the
  document's text: the abstract, then each section of the body under its title. Otherwise,
  or when the full text cannot be had, the abstract from a search by identifier; its
  ``<h4>`` headings (structured abstracts) become sections.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Any

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.works import (
    Part,
    author_name,
    authors_of,
    doi,
    parse_date,
    plain,
    pmcid,
    pmid,
    result,
    work_document,
    work_text,
    year_of,
)
from deep_research.state.models import BibRecord, Document, SearchResult

_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


class EuropePmcSearch(ScholarlyProvider):
    """Search and read Europe PMC; see the module docstring."""

    name = "europepmc"

    async def search_page(
        self, query: str, size: int, page: int, cursor: str | None, rank: int
    ) -> tuple[list[SearchResult], str | None]:
        """One page of core results; the next page's ``cursorMark``."""
        mark = cursor or "*"
        payload = await self._search(query, size, mark)
        found = payload.get("resultList", {}).get("result") or []
        hits: list[SearchResult] = []
        for n, record in enumerate(found):
            hit = self._hit(record, rank + n)
            if hit is not None:
                hits.append(hit)
                if hit.richness == 2:  # the abstract is all there is to read: keep it
                    await self.remember(hit, abstract_text(record, hit.title))
        following = payload.get("nextCursorMark")
        more = isinstance(following, str) and following != mark and len(found) >= size
        return hits, following if more else None

    async def _search(self, query: str, size: int, mark: str = "*") -> dict[str, Any]:
        payload = await self.client.get_json(
            "search",
            {
                "query": query,
                "format": "json",
                "resultType": "core",
                "pageSize": str(size),
                "cursorMark": mark,
            },
        )
        if not isinstance(payload, dict):
            raise SourceError("Europe PMC answered with JSON that is not an object")
        return payload

    def _hit(self, record: Any, rank: int) -> SearchResult | None:
        if not isinstance(record, dict):
            return None
        bib = core_record(record)
        abstract = abstract_parts(str(record.get("abstractText") or ""))
        full = bool(bib.open_access and bib.pmcid)
        return result(
            bib,
            title=str(record.get("title") or ""),
            text=" ".join(text for _, text in abstract),
            provider=self.name,
            rank=rank,
            richness=3 if full else 2 if abstract else 0,
        )

    async def read_work(self, hit: SearchResult) -> Document:
        """The open-access full text when there is one, else the abstract.

        Raises:
            FetchSkippedError: Europe PMC has neither for the work.
            SourceError: the work has no identifier Europe PMC knows, or the requests failed.
        """
        bib = hit.bib or BibRecord()
        if bib.pmcid and bib.open_access:
            try:
                xml = await self.client.get_text(f"{bib.pmcid}/fullTextXML")
                title, parts = parse_jats(xml)
            except SourceError:
                pass  # no full text after all: the abstract will do
            else:
                if parts:
                    return work_document(self.name, hit, work_text(title or hit.title, parts))
        text = abstract_text(await self._record(bib), hit.title)
        if not text:
            raise FetchSkippedError(f"Europe PMC has no abstract for {hit.url}")
        return work_document(self.name, hit, text)

    async def _record(self, bib: BibRecord) -> dict[str, Any]:
        if bib.pmid:
            query = f"EXT_ID:{bib.pmid} AND SRC:MED"
        elif bib.pmcid:
            query = f"PMCID:{bib.pmcid}"
        elif bib.doi:
            query = f'DOI:"{bib.doi}"'
        else:
            raise SourceError("Europe PMC reads works by PMID, PMCID or DOI; this one has none")
        found = (await self._search(query, 1)).get("resultList", {}).get("result") or []
        if not found or not isinstance(found[0], dict):
            raise SourceError(f"Europe PMC found no record for {query}")
        record: dict[str, Any] = found[0]
        return record


def core_record(record: dict[str, Any]) -> BibRecord:
    """The bibliographic record of one ``resultType=core`` result."""
    people = (record.get("authorList") or {}).get("author") or []
    names = [
        author_name(a.get("lastName"), a.get("initials"), a.get("firstName"))
        if a.get("lastName")
        else str(a.get("fullName") or a.get("collectiveName") or "")
        for a in people
        if isinstance(a, dict)
    ]
    if not names and record.get("authorString"):
        names = [n.strip().rstrip(".") for n in str(record["authorString"]).split(",")]
    authors, more = authors_of(names)
    info = record.get("journalInfo") or {}
    journal = info.get("journal") or {}
    preprint = record.get("source") == "PPR"
    server = (record.get("bookOrReportDetails") or {}).get("publisher")
    venue = server if preprint else journal.get("isoabbreviation") or journal.get("title")
    date = parse_date(record.get("firstPublicationDate")) or parse_date(
        info.get("printPublicationDate")
    )
    date = date or parse_date(str(record.get("pubYear") or ""))
    types = (record.get("pubTypeList") or {}).get("pubType") or []
    return BibRecord(
        authors=authors,
        more_authors=more,
        year=year_of(date),
        date=date,
        venue=plain(venue) or None,
        venue_type="preprint" if preprint else "journal" if venue else None,
        volume=str(info.get("volume") or "") or None,
        issue=str(info.get("issue") or "") or None,
        pages=str(record.get("pageInfo") or "") or None,
        publication_type="preprint" if preprint else (str(types[0]) if types else None),
        doi=doi(record.get("doi")),
        pmid=pmid(record.get("pmid")),
        pmcid=pmcid(record.get("pmcid")),
        open_access=record.get("isOpenAccess") == "Y",
        versions=_versions(record),
    )


def _versions(record: dict[str, Any]) -> list[str]:
    """Preprint ↔ article links of a record's comment-correction list."""
    entries = (record.get("commentCorrectionList") or {}).get("commentCorrection") or []
    linked: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict) or "preprint" not in str(entry.get("type", "")).lower():
            continue
        source, ident = entry.get("source"), str(entry.get("id") or "")
        if source == "MED" and pmid(ident):
            linked.append(f"pmid:{ident}")
        elif source == "PMC" and pmcid(ident):
            linked.append(f"pmcid:{pmcid(ident)}")
        elif source == "PPR" and ident:
            linked.append(f"ppr:{ident}")
    return linked


def abstract_text(record: dict[str, Any], title: str) -> str:
    """A record's title and abstract as a document's text (empty without an abstract)."""
    parts = abstract_parts(str(record.get("abstractText") or ""))
    return work_text(str(record.get("title") or title), parts) if parts else ""


def abstract_parts(abstract: str) -> list[Part]:
    """An abstract's parts: its ``<h4>`` headings (structured abstracts) as section titles."""
    if not abstract.strip():
        return []
    pieces = _HEADING.split(abstract)
    parts: list[Part] = []
    first = _strip(pieces[0])
    if first:
        parts.append(("Abstract", first))
    for heading, body in zip(pieces[1::2], pieces[2::2], strict=True):
        text = _strip(body)
        if text:
            parts.append((_strip(heading).rstrip(":") or "Abstract", text))
    return parts


def _strip(fragment: str) -> str:
    return plain(html.unescape(_TAG.sub(" ", fragment)))


def parse_jats(xml: str) -> tuple[str, list[Part]]:
    """The title, abstract and body sections of a JATS article (``fullTextXML``).

    Raises:
        SourceError: the XML does not parse.
    """
    try:
        # no external entities are fetched, and expat (>= 2.4) refuses expansion bombs
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise SourceError(f"Europe PMC full text does not parse: {exc}") from None
    title = _flat(root.find(".//article-meta/title-group/article-title"))
    parts: list[Part] = []
    for abstract in root.iterfind(".//article-meta/abstract"):
        parts += _sections(abstract, "Abstract")
    body = root.find("body")
    if body is not None:
        parts += _sections(body, "Main text")
    return title, parts


def _sections(node: ET.Element, default: str) -> list[Part]:
    """The paragraphs of ``node`` grouped under their nearest section title."""
    parts: list[Part] = []
    loose = [_flat(p) for p in node.findall("p")]
    if any(loose):
        parts.append((default, "\n".join(p for p in loose if p)))
    for section in node.iter("sec"):
        heading = _flat(section.find("title")) or default
        paragraphs = [_flat(p) for p in section.findall("p")]
        text = "\n".join(p for p in paragraphs if p)
        if text:
            parts.append((heading, text))
    return parts


def _flat(node: ET.Element | None) -> str:
    return " ".join("".join(node.itertext()).split()) if node is not None else ""
