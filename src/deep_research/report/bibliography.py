"""References in one citation style: Vancouver (the NLM / ICMJE form used in medicine).

The report lists every reference in this style (see docs/scholarly-sources.md):

* journal article: ``Okafor NA, Lindqvist M, Tanaka H. Title. J Pediatr.
  2023;255(4):112-120. doi:10.1000/x. PMID: 36100117; PMCID: PMC9900117.``
* preprint: ``Okafor NA. Title [Preprint]. medRxiv. 2022 Jun 3. doi:10.1101/x.``
* trial registration: ``University of Nairobi. Title. ClinicalTrials.gov identifier:
  NCT05100117. First posted 2021 Aug 27. Available from: https://clinicaltrials.gov/...``
* web page: ``Author. Title [Internet]. Site; 2024 Mar 5. Available from: https://...``
* local document: ``Title. Available from: docs/file.md``

Up to six authors are listed, then ``et al.``; an author is ``Surname Initials``. ``Available
from:`` is written in the report's language (``Disponible sur :``, ``获取地址：``); the rest keeps
Vancouver's English abbreviations.
"""

from __future__ import annotations

from deep_research.state.models import BibRecord
from deep_research.text.labels import label

MAX_LISTED_AUTHORS = 6
"""Vancouver lists the first six authors, then ``et al.``."""

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def nlm_date(date: str | None, year: int | None = None) -> str:
    """``2022-06-03`` → ``2022 Jun 3``; ``2022-06`` → ``2022 Jun``; else the year."""
    parts = (date or "").split("-")
    if not parts[0].isdigit():
        return str(year) if year else ""
    text = parts[0]
    if len(parts) > 1 and parts[1].isdigit() and 1 <= int(parts[1]) <= 12:
        text += f" {_MONTHS[int(parts[1]) - 1]}"
        if len(parts) > 2 and parts[2].isdigit():
            text += f" {int(parts[2])}"
    return text


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".?!" else f"{text}."


def _authors(bib: BibRecord) -> str:
    names = bib.authors[:MAX_LISTED_AUTHORS]
    if not names:
        return ""
    more = bib.more_authors or len(bib.authors) > MAX_LISTED_AUTHORS
    return ", ".join(names) + (", et al." if more else ".")


def _identifiers(bib: BibRecord) -> str:
    parts = []
    if bib.doi:
        parts.append(f"doi:{bib.doi}.")
    pubmed = "; ".join(
        label
        for label in (bib.pmid and f"PMID: {bib.pmid}", bib.pmcid and f"PMCID: {bib.pmcid}")
        if label
    )
    if pubmed:
        parts.append(f"{pubmed}.")
    return " ".join(parts)


def _journal(bib: BibRecord) -> str:
    """The journal part: ``J Pediatr. 2023;255(4):112-120.``."""
    issue = f"({bib.issue})" if bib.issue else ""
    where = f"{bib.volume or ''}{issue}"
    text = f"{bib.year or nlm_date(bib.date)}" if bib.year or bib.date else ""
    if where:
        text += f";{where}"
    if bib.pages:
        text += f":{bib.pages}"
    venue = _sentence(bib.venue) if bib.venue else ""
    return " ".join(p for p in (venue, _sentence(text) if text else "") if p)


def vancouver(title: str, location: str, bib: BibRecord | None, language: str = "en") -> str:
    """The reference of a source in Vancouver style (see the module docstring).

    Args:
        title: The source's title.
        location: Its link (a web page's URL) or file path.
        bib: What is known of it: authors, date, venue, identifiers.
        language: The report's language, which ``Available from:`` is written in.
    """
    web = location.startswith(("http://", "https://"))
    available = label(language, "available_from").format(location=location)
    if bib is None:
        return f"{_sentence(title + (' [Internet]' if web else ''))} {available}"
    authors = _authors(bib)
    when = nlm_date(bib.date, bib.year)
    if bib.venue_type == "registry":
        parts = [
            authors,
            _sentence(title),
            f"{bib.venue or 'Registry'} identifier: {bib.nct_id}." if bib.nct_id else "",
            f"First posted {when}." if when else "",
            available,
        ]
    elif bib.venue_type == "website" or not bib.identifiers():
        site = "; ".join(p for p in (bib.venue or "", when) if p)
        parts = [
            authors,
            _sentence(f"{title} [Internet]" if web else title),
            _sentence(site) if site else "",
            available,
        ]
    elif bib.venue_type == "preprint":
        parts = [
            authors,
            _sentence(f"{title.rstrip('.')} [Preprint]"),
            _sentence(bib.venue) if bib.venue else "",
            _sentence(when) if when else "",
            _identifiers(bib),
        ]
    else:
        parts = [authors, _sentence(title), _journal(bib), _identifiers(bib)]
        if not bib.doi:
            parts.append(available)
    return " ".join(p for p in parts if p)
