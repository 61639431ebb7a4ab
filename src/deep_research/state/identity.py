"""One source per page or work, however many research steps found it.

Each research step merges its own search results
(:func:`~deep_research.state.scholarly.merge_works`). Parallel steps meet in the main
graph's ``sources`` (and a chat's questions in its pool), where two sources are one when

* they share a URL: their own, one they were merged from (:attr:`Source.aliases`), or a link
  one of their identifiers makes (``https://doi.org/...``, PubMed, PMC, the registry,
  OpenAlex), so that a work is one source whichever provider and link found it; or
* failing that, they are records of one work by title and year, as within a step: both have
  an identifier, their normalized titles and their years are equal, no identifier of one
  contradicts the other's, and a registry record never merges with an article.

:func:`merge_same_sources` folds sources into one per page or work; what the merged source
keeps (which read, which record) is the caller's ``combine``. A merged source is known by one
URL, its others become its ``aliases``, and :func:`on_kept_sources` re-points the evidence
quoted under those to the URL kept, so that one work is one reference.

The fold keeps its result closed (no two of its sources are one), and looks up matches by
sorted URL only, so folding a merged list again with more sources gives what folding all of
them at once gives: the property a LangGraph ``DeltaChannel`` needs of its reducer. A merged
source keeps every key of what it merged (:func:`merged_aliases`), so which sources share a
URL or an identifier does not depend on the order they come in; a record that is one work
with two others by title alone joins the first it meets, as within a step.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from deep_research.state.models import BibRecord, EvidenceSpan, Source
from deep_research.urls import normalize_url

"""An evidence span with its quote, or referring to its page: both name a source by URL."""

Combine = Callable[[Source, Source], Source]
"""Merges two sources found to be one: ``combine(kept, incoming)``."""


@lru_cache(maxsize=4096)
def title_key(title: str) -> str:
    """A title reduced for comparison: accents, case, punctuation and spacing removed."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"[a-z0-9]+", folded))


def _identifier_links(ids: tuple[str | None, ...]) -> frozenset[str]:
    doi, pmid, pmcid, nct_id, openalex_id = ids
    bib = BibRecord(doi=doi, pmid=pmid, pmcid=pmcid, nct_id=nct_id, openalex_id=openalex_id)
    return frozenset(normalize_url(link) for link in bib.links())


def _links(bib: BibRecord | None) -> frozenset[str]:
    """The normalized links of ``bib``'s identifiers (cached: the reducer asks again and again)."""
    if bib is None:
        return frozenset()
    return _identifier_links((bib.doi, bib.pmid, bib.pmcid, bib.nct_id, bib.openalex_id))


_title_key = lru_cache(maxsize=4096)(title_key)


def source_keys(source: Source) -> set[str]:
    """The URLs that name ``source``: its own, its aliases, and its identifiers' links."""
    return {source.url, *source.aliases, *_links(source.bib)}


def merged_aliases(url: str, bib: BibRecord | None, *sources: Source) -> list[str]:
    """The aliases of the source that merges ``sources`` as ``url`` with the record ``bib``.

    Their URLs and aliases, and the links of any identifier ``bib`` lost (two records of one
    work that disagree on a DOI keep one), so that whatever named one of them names the merge.
    """
    names = {name for s in sources for name in (s.url, *s.aliases)}
    names |= {link for s in sources for link in _links(s.bib)} - _links(bib)
    return sorted(names - {url})


def _title_of(source: Source) -> tuple[str, int] | None:
    """A work's normalized title and year, when it has both and an identifier."""
    bib = source.bib
    if bib is None or bib.year is None or not _links(bib):
        return None
    key = _title_key(source.title)
    return (key, bib.year) if key else None


def _same_work_by_title(a: Source, b: Source) -> bool:
    """Whether two works of one title and year agree on every identifier both have."""
    if a.bib is None or b.bib is None or (a.bib.nct_id is None) != (b.bib.nct_id is None):
        return False  # a registry record and an article are two works
    ours, theirs = a.bib.identifiers(), b.bib.identifiers()
    return not any(kind in theirs and theirs[kind] != value for kind, value in ours.items())


class _Merged:
    """Sources one per page or work, indexed by every key and by title."""

    def __init__(self) -> None:
        self.by_url: dict[str, tuple[Source, set[str]]] = {}
        """Each kept source, and its keys, by its URL."""
        self.owner: dict[str, str] = {}
        """Each key of a kept source -> that source's URL."""
        self.titled: dict[tuple[str, int], set[str]] = {}

    def same_as(self, source: Source, keys: set[str]) -> list[str]:
        """URLs of the kept sources ``source`` (whose keys are ``keys``) is one with.

        All that share a key with it, else the first (by URL) that is the same work by title.
        """
        owners = {self.owner[key] for key in keys if key in self.owner}
        if owners:
            return sorted(owners)
        title = _title_of(source)
        alike = self.titled.get(title, set()) if title else set()
        return sorted(u for u in alike if _same_work_by_title(self.by_url[u][0], source))[:1]

    def put(self, source: Source, keys: set[str]) -> None:
        self.by_url[source.url] = (source, keys)
        for key in keys:
            self.owner[key] = source.url
        title = _title_of(source)
        if title:
            self.titled.setdefault(title, set()).add(source.url)

    def take(self, url: str) -> Source:
        source, keys = self.by_url.pop(url)
        for key in keys:
            del self.owner[key]
        title = _title_of(source)
        if title:
            self.titled[title].discard(url)
        return source


def merge_same_sources(sources: Iterable[Source], combine: Combine) -> list[Source]:
    """``sources`` folded into one per page or work (see the module docstring); sorted by URL.

    Each source is combined with every kept source it is one with (in URL order), and the
    result again, until it is one with none; a source alone is kept unchanged.
    """
    merged = _Merged()
    for source in sources:
        keys = source_keys(source)
        while same := merged.same_as(source, keys):
            for url in same:
                source = combine(merged.take(url), source)
            keys = source_keys(source)
        merged.put(source, keys)
    return [merged.by_url[url][0] for url in sorted(merged.by_url)]


def kept_urls(sources: Iterable[Source]) -> dict[str, str]:
    """Each merged source's other URLs -> the URL it is known by."""
    return {alias: source.url for source in sources for alias in source.aliases}


def on_kept_sources(
    evidence: Sequence[EvidenceSpan], sources: Iterable[Source]
) -> list[EvidenceSpan]:
    """``evidence`` with each span quoted under a merged source's other URL moved to its URL."""
    kept = kept_urls(sources)
    return [
        span.model_copy(update={"url": kept[span.url]}) if span.url in kept else span
        for span in evidence
    ]
