"""Reducers that merge what parallel branches write to the same key.

Each merges by a natural key, so a retried or resumed branch cannot duplicate anything, and
sorts its result, so the merged value does not depend on the order branches finished in.

The main graph keeps its growing lists in LangGraph ``DeltaChannel``s, which call a batched
reducer, ``reducer(state, [write, ...])``: the ``*_batches`` functions. Folding the writes one
at a time or all at once gives the same list, as a ``DeltaChannel`` requires (it replays the
stored writes in batches of its own choosing), because each merge is a fold per key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from deep_research.state.models import EvidenceSpan, Finding, Source, TokenUsage

T = TypeVar("T")

_STATUS_RANK = {"ok": 3, "blocked": 2, "skipped": 1, "failed": 0}


def _merge_by_key(
    left: Iterable[T],
    right: Iterable[T],
    key: Callable[[T], str],
    prefer: Callable[[T, T], T],
) -> dict[str, T]:
    merged: dict[str, T] = {}
    for item in (*left, *right):
        k = key(item)
        merged[k] = prefer(merged[k], item) if k in merged else item
    return merged


def _newer(old: T, new: T) -> T:
    return new


def _better_source(old: Source, new: Source) -> Source:
    """Keep the more successful crawl of the same URL (a later "ok" beats an earlier failure).

    Two reads of one page in a run (by two researchers) keep what both saw: a page fetched by
    either counts as a cache miss of the run, and the flags of both are kept.
    """
    best = new if _STATUS_RANK[new.crawl_status] >= _STATUS_RANK[old.crawl_status] else old
    cache = "miss" if "miss" in (old.cache, new.cache) else best.cache
    flags = sorted({*old.flags, *new.flags})
    if cache == best.cache and flags == best.flags:
        return best
    return best.model_copy(update={"cache": cache, "flags": flags})


def merge_sources(left: list[Source], right: list[Source]) -> list[Source]:
    """Merge sources by normalized URL, keeping the best crawl status; sorted by URL."""
    merged = _merge_by_key(left, right, lambda s: s.url, _better_source)
    return [merged[url] for url in sorted(merged)]


def merge_evidence(left: list[EvidenceSpan], right: list[EvidenceSpan]) -> list[EvidenceSpan]:
    """Merge evidence spans by id; sorted by step, then by descending relevance, then id."""
    merged = _merge_by_key(left, right, lambda e: e.id, _newer)
    return sorted(merged.values(), key=lambda e: (e.step_id, -e.relevance, e.id))


def merge_findings(left: list[Finding], right: list[Finding]) -> list[Finding]:
    """Merge findings by step id (a re-run step replaces its finding); sorted by step id."""
    merged = _merge_by_key(left, right, lambda f: f.step_id, _newer)
    return [merged[step_id] for step_id in sorted(merged)]


def _flatten(batches: Sequence[list[T]]) -> list[T]:
    return [item for batch in batches for item in batch]


def merge_source_batches(state: list[Source], batches: Sequence[list[Source]]) -> list[Source]:
    """:func:`merge_sources` of several writes at once (the reducer of a ``DeltaChannel``)."""
    return merge_sources(state, _flatten(batches))


def merge_evidence_batches(
    state: list[EvidenceSpan], batches: Sequence[list[EvidenceSpan]]
) -> list[EvidenceSpan]:
    """:func:`merge_evidence` of several writes at once (the reducer of a ``DeltaChannel``)."""
    return merge_evidence(state, _flatten(batches))


def merge_finding_batches(state: list[Finding], batches: Sequence[list[Finding]]) -> list[Finding]:
    """:func:`merge_findings` of several writes at once (the reducer of a ``DeltaChannel``)."""
    return merge_findings(state, _flatten(batches))


def add_usage(left: TokenUsage, right: TokenUsage) -> TokenUsage:
    """Sum token usage across nodes and branches."""
    return left + right
