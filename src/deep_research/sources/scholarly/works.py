"""Pieces every scholarly provider needs: identifiers, names, dates, and a work's text.

* Identifiers in canonical form (:func:`doi`, :func:`pmid`, :func:`pmcid`, :func:`nct_id`,
  :func:`openalex_id`), so that the same work found by two APIs has equal keys.
* Author names in citation form, ``Surname Initials`` (:func:`author_name`,
  :func:`author_from_display`), as Vancouver lists them.
* Dates as ISO strings as precise as the source knows (:func:`iso_date`).
* A work's text for the content store (:func:`work_text`): the title, then each labelled part
  (``## Background``, ``## Methods`` of a structured abstract, the sections of a full text)
  as a heading, so that evidence quotes know their section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote

from deep_research.sources.html import clean_text
from deep_research.state.models import MAX_AUTHORS, BibRecord, Document, SearchResult, stable_id

SNIPPET_CHARS = 300
"""Longest snippet kept on a search result (the text itself is read later)."""

_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_NCT = re.compile(r"NCT\d{8}", re.IGNORECASE)
_OPENALEX = re.compile(r"W\d+", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}


def doi(value: object) -> str | None:
    """A DOI in canonical form (lower case, no ``https://doi.org/`` or ``doi:`` prefix)."""
    if not isinstance(value, str):
        return None
    found = _DOI.search(value.strip())
    return found.group(0).rstrip(".").lower() if found else None


def pmid(value: object) -> str | None:
    """A PubMed id as digits (``12345678``)."""
    text = str(value).strip() if isinstance(value, str | int) else ""
    return text if text.isdigit() and text != "0" else None


def pmcid(value: object) -> str | None:
    """A PubMed Central id as ``PMC`` + digits (a bare number gets the prefix)."""
    if not isinstance(value, str | int):
        return None
    text = str(value).strip().upper()
    digits = text.removeprefix("PMC")
    return f"PMC{digits}" if digits.isdigit() else None


def nct_id(value: object) -> str | None:
    """A ClinicalTrials.gov id as ``NCT`` + 8 digits."""
    found = _NCT.search(value) if isinstance(value, str) else None
    return found.group(0).upper() if found else None


def openalex_id(value: object) -> str | None:
    """An OpenAlex work id as ``W`` + digits (from ``https://openalex.org/W123``)."""
    if not isinstance(value, str):
        return None
    found = _OPENALEX.search(value.rsplit("/", 1)[-1])
    return found.group(0).upper() if found else None


def author_name(last: str | None, initials: str | None = None, first: str | None = None) -> str:
    """``Surname Initials`` from a surname and initials (or given names)."""
    surname = (last or "").strip()
    letters = (initials or "").replace(".", "").replace(" ", "").strip()
    if not letters and first:
        letters = "".join(part[0] for part in re.split(r"[\s.-]+", first) if part)
    return f"{surname} {letters.upper()}".strip()


def author_from_display(name: str) -> str:
    """``Surname Initials`` from a display name (``Jane A. Smith``, or ``Smith, Jane A``)."""
    name = _SPACES.sub(" ", name).strip()
    if "," in name:
        last, _, first = name.partition(",")
        return author_name(last, first=first)
    parts = name.split(" ")
    if len(parts) == 1:
        return name
    return author_name(parts[-1], first=" ".join(parts[:-1]))


def authors_of(names: Iterable[str]) -> tuple[list[str], bool]:
    """The first :data:`MAX_AUTHORS` non-empty names, and whether any were left out."""
    kept = [n for n in (name.strip() for name in names) if n]
    return kept[:MAX_AUTHORS], len(kept) > MAX_AUTHORS


def month_number(value: object) -> int | None:
    """A month as a number, from ``3``, ``"03"``, ``"Mar"`` or ``"March"``."""
    text = str(value).strip().lower() if value is not None else ""
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    return _MONTHS.get(text) or _MONTHS.get(text[:3])


def iso_date(year: object, month: object = None, day: object = None) -> str | None:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, as precise as the parts allow."""
    text = str(year).strip() if year is not None else ""
    if not (len(text) == 4 and text.isdigit()):
        return None
    number = month_number(month)
    if number is None:
        return text
    found = re.match(r"\d{1,2}(?!\d)", str(day).strip()) if day is not None else None
    if found and 1 <= int(found.group(0)) <= 31:  # "05", "5", or "05T10:00:00Z"
        return f"{text}-{number:02d}-{int(found.group(0)):02d}"
    return f"{text}-{number:02d}"


def parse_date(value: object) -> str | None:
    """An ISO date from ``2021-03-04``, ``2021-03``, ``2021 Mar 4`` or ``2021``."""
    if not isinstance(value, str):
        return None
    parts = re.split(r"[\s/-]+", value.strip())
    return iso_date(*parts[:3]) if parts and parts[0] else None


def year_of(date: str | None) -> int | None:
    """The year of an ISO date."""
    return int(date[:4]) if date and date[:4].isdigit() else None


def plain(text: object) -> str:
    """Text with its whitespace runs collapsed and control characters removed."""
    return _SPACES.sub(" ", clean_text(str(text))).strip() if text else ""


def snippet(text: str) -> str:
    """The first :data:`SNIPPET_CHARS` characters of ``text``, cut at a word."""
    flat = plain(text)
    if len(flat) <= SNIPPET_CHARS:
        return flat
    return flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


Part = tuple[str | None, str]
"""A labelled part of a work's text: (heading or ``None``, text)."""


def work_text(title: str, parts: Sequence[Part]) -> str:
    """The document text of a work: its title, then each part under its heading."""
    blocks = [plain(title)]
    for heading, body in parts:
        text = clean_text(body).strip()
        if not text:
            continue
        blocks.append(f"## {plain(heading)}\n{text}" if heading else text)
    return "\n\n".join(blocks) + "\n"


def work_document(
    reader: str, hit: SearchResult, text: str, *, content_type: str = "text/plain"
) -> Document:
    """The :class:`Document` for a work's text that ``reader`` read, with its identifiers."""
    metadata = {"provider": reader}
    if hit.bib is not None:
        metadata.update(hit.bib.identifiers())
    return Document(
        id=stable_id("doc", text),
        url=hit.url,
        title=hit.title,
        text=text,
        content_type=content_type,
        metadata=metadata,
    )


def result(
    bib: BibRecord, *, title: str, text: str, provider: str, rank: int, richness: int
) -> SearchResult | None:
    """A search result for a work, linked by its best identifier (``None`` if it has none)."""
    link = bib.link()
    if link is None or not title:
        return None
    found = bib.model_copy(update={"found_by": [provider]})
    return SearchResult(
        url=link,
        title=plain(title),
        snippet=snippet(text),
        score=1.0 / (1 + rank),
        provider=provider,
        bib=found,
        richness=richness,
    )


def ids_from_url(url: str) -> BibRecord:
    """The identifiers a work's link carries (a DOI, PubMed, PMC, registry or OpenAlex link)."""
    lowered = url.lower()
    if "doi.org/" in lowered:
        return BibRecord(doi=doi(unquote(url)))
    if "pubmed" in lowered:
        numbers = _DIGITS.findall(url.rsplit("pubmed", 1)[-1])
        return BibRecord(pmid=pmid(numbers[0]) if numbers else None)
    if "/pmc" in lowered or "pmc." in lowered:
        found = re.search(r"PMC\d+", url, re.IGNORECASE)
        return BibRecord(pmcid=pmcid(found.group(0)) if found else None)
    if "clinicaltrials.gov" in lowered:
        return BibRecord(nct_id=nct_id(url))
    if "openalex.org" in lowered:
        return BibRecord(openalex_id=openalex_id(url))
    return BibRecord()
