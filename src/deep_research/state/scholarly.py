"""One work, one source: results of several providers merged by identifier.

Two results are the same work when they share a DOI, else a PMID, a PMC id or an NCT id, else
when their normalized titles and years are equal and no identifier of one contradicts the
other's (a preprint and its article often share title and year, never a DOI); a trial's
registry record never merges with an article by title. The merged
result keeps every identifier, the fullest author list, the most precise date, the first
venue, and is read by the provider that promises the richest text (full text, then an
abstract); the others stay listed in ``found_by`` and read it if that one fails.

A preprint and its published version stay two works, but when the metadata of either links
the other (``versions``), both list each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from deep_research.state.identity import title_key
from deep_research.state.models import BibRecord, SearchResult

STRONG_KEYS = ("doi", "pmid", "pmcid", "nct")
"""Identifiers that name one work, in the order they are trusted."""

_ALL_KEYS = (*STRONG_KEYS, "openalex")


def merge_works(results: Sequence[SearchResult]) -> list[SearchResult]:
    """``results`` (best first) with the results of one work merged into its first place.

    Results without a bibliographic record (web pages) pass through untouched.
    """
    groups: list[list[SearchResult]] = []
    slots: list[int | SearchResult] = []
    for hit in results:
        if hit.bib is None:
            slots.append(hit)
            continue
        group = _group_of(hit.bib, hit.title, groups)
        if group is None:
            groups.append([hit])
            slots.append(len(groups) - 1)
        else:
            groups[group].append(hit)
    merged = [_merge(group) for group in groups]
    _link_versions(merged)
    return [merged[slot] if isinstance(slot, int) else slot for slot in slots]


def _keys(bib: BibRecord) -> dict[str, str]:
    return bib.identifiers()


def _group_of(bib: BibRecord, title: str, groups: list[list[SearchResult]]) -> int | None:
    keys = _keys(bib)
    for kind in _ALL_KEYS:
        if kind not in keys:
            continue
        for index, group in enumerate(groups):
            if any(_keys(h.bib).get(kind) == keys[kind] for h in group if h.bib is not None):
                return index
    wanted = (title_key(title), bib.year)
    if not wanted[0] or bib.year is None:
        return None
    for index, group in enumerate(groups):
        for other in group:
            if other.bib is None or (title_key(other.title), other.bib.year) != wanted:
                continue
            if (other.bib.nct_id is None) != (bib.nct_id is None):
                continue  # a registry record and an article are two works
            theirs = _keys(other.bib)
            if not any(k in theirs and theirs[k] != keys[k] for k in keys):
                return index
    return None


def _merge(group: list[SearchResult]) -> SearchResult:
    """One result for one work (see the module docstring)."""
    if len(group) == 1:
        return group[0]
    records = [h.bib for h in group if h.bib is not None]
    reader = max(group, key=lambda h: h.richness)  # max keeps the first of equals
    found_by = list(dict.fromkeys(p for b in records for p in (b.found_by or [])))
    readers = [reader.provider, *(p for p in found_by if p != reader.provider)]
    bib = merge_records(records).model_copy(update={"found_by": readers})
    return reader.model_copy(
        update={
            "url": bib.link() or reader.url,
            "bib": bib,
            "score": max(h.score for h in group),
            "snippet": max((h.snippet for h in group), key=len),
        }
    )


def merge_records(records: Sequence[BibRecord]) -> BibRecord:
    """One record from several of the same work: every identifier, the fullest fields."""
    first = records[0]
    values: dict[str, object] = {}
    for field in BibRecord.model_fields:
        if field in {"authors", "more_authors", "versions", "found_by", "date", "year"}:
            continue
        values[field] = next(
            (getattr(r, field) for r in records if getattr(r, field) not in (None, "")),
            getattr(first, field),
        )
    authored = max(records, key=lambda r: (len(r.authors), r.more_authors))
    dated = max(records, key=lambda r: len(r.date or ""))
    return BibRecord.model_validate(
        {
            **values,
            "authors": authored.authors,
            "more_authors": authored.more_authors,
            "date": dated.date,
            "year": dated.year or next((r.year for r in records if r.year), None),
            "versions": list(dict.fromkeys(v for r in records for v in r.versions)),
            "found_by": list(dict.fromkeys(p for r in records for p in r.found_by)),
        }
    )


def work_tags(bib: BibRecord | None) -> set[str]:
    """A work's identifiers as ``kind:value`` tags (none for a web page)."""
    if bib is None:
        return set()
    return {f"{kind}:{value}" for kind, value in bib.identifiers().items()}


def _link_versions(merged: list[SearchResult]) -> None:
    """Make version links mutual: a work another work names as its version names it back."""
    tags = [work_tags(h.bib) for h in merged]
    for i, hit in enumerate(merged):
        if hit.bib is None:
            continue
        named_by = [
            _primary_tag(other.bib)
            for j, other in enumerate(merged)
            if j != i and other.bib is not None and set(other.bib.versions) & tags[i]
        ]
        new = [t for t in dict.fromkeys(named_by) if t and t not in hit.bib.versions]
        if new:
            versions = [*hit.bib.versions, *new]
            merged[i] = hit.model_copy(
                update={"bib": hit.bib.model_copy(update={"versions": versions})}
            )


def _primary_tag(bib: BibRecord) -> str | None:
    for kind, value in bib.identifiers().items():
        return f"{kind}:{value}"
    return None
