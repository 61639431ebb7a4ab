"""Reducers that merge what parallel branches write to the same key.

Each merges by a natural key, so a retried or resumed branch cannot duplicate anything, and
sorts its result, so the merged value does not depend on the order branches finished in.
Sources have several keys: a page is one source per URL, a work one source whatever link and
provider each research step found it by (see :mod:`deep_research.state.identity`).

The main graph keeps its growing lists in LangGraph ``DeltaChannel``s, which call a batched
reducer, ``reducer(state, [write, ...])``: the ``*_batches`` functions. Folding the writes one
at a time or all at once gives the same list, as a ``DeltaChannel`` requires (it replays the
stored writes in batches of its own choosing), because each merge is a fold per key.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar, cast

from langchain_core.messages import AnyMessage, BaseMessage, convert_to_messages
from langgraph.graph.message import Messages, add_messages

from deep_research.state.identity import merge_same_sources, merged_aliases
from deep_research.state.models import (
    Claim,
    EvidenceSpan,
    Finding,
    Source,
    TokenUsage,
)
from deep_research.state.scholarly import merge_records
from deep_research.urls import normalize_url

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
    """One source from two reads of one page or work (``new`` the later): what both saw.

    The more successful crawl is kept (a later "ok" beats an earlier failure). A page fetched
    by either counts as a cache miss of the run, and the flags of both are kept. Two records
    of one work keep every identifier and the fullest fields
    (:func:`~deep_research.state.scholarly.merge_records`, the kept read's first);
    found under two links, the work is known by its best link (the DOI first) and the other
    becomes an alias.
    """
    best = new if _STATUS_RANK[new.crawl_status] >= _STATUS_RANK[old.crawl_status] else old
    other = old if best is new else new
    bib = best.bib or other.bib
    if best.bib is not None and other.bib is not None and best.bib != other.bib:
        bib = merge_records([best.bib, other.bib])
    link = bib.link() if bib is not None else None
    url = old.url if old.url == new.url or link is None else normalize_url(link)
    changes: dict[str, object] = {
        "url": url,
        "aliases": merged_aliases(url, bib, old, new),
        "cache": "miss" if "miss" in (old.cache, new.cache) else best.cache,
        "flags": sorted({*old.flags, *new.flags}),
        "bib": bib,
    }
    if all(getattr(best, name) == value for name, value in changes.items()):
        return best
    return best.model_copy(update=changes)


def merge_sources(left: list[Source], right: list[Source]) -> list[Source]:
    """Merge the sources that are one page or one work, keeping the best crawl; sorted by URL.

    One page: the same normalized URL; one work: see :mod:`deep_research.state.identity`.
    """
    return merge_same_sources((*left, *right), _better_source)


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


def latest_write(state: T, batches: Sequence[T]) -> T:
    """The last write replaces the value (a ``DeltaChannel`` kept for its storage, not merged).

    Batching-invariant as a ``DeltaChannel`` requires: the last of all the writes wins however
    they are split. With no write the value is unchanged.
    """
    return batches[-1] if batches else state


class ClaimsEdit(Protocol):
    """A write to ``claims`` that changes the claims before it rather than replacing them.

    Only threads written before the claims were stored whole hold such writes (claim
    revisions, read by :mod:`deep_research.persistence.legacy`).
    """

    def apply(self, claims: list[Claim]) -> list[Claim]:
        """The claims after this edit."""
        ...


def replace_claims(state: list[Claim], batches: Sequence[list[Claim] | ClaimsEdit]) -> list[Claim]:
    """The latest verification pass's claims: each write replaces the claims before it.

    A :class:`ClaimsEdit` (from a thread written in a retired format) is applied to the claims
    before it instead. Writes are applied one at a time, so the result does not depend on the
    batching.
    """
    for write in batches:
        state = write if isinstance(write, list) else write.apply(state)
    return state


MESSAGE_IDS = uuid.UUID("6f1c3d52-8a0e-4b7e-9d0c-2f6a1b5e7c31")
"""Namespace of the ids :func:`add_message_batches` gives messages written without one."""


def add_message_batches(state: list[AnyMessage], batches: Sequence[Messages]) -> list[AnyMessage]:
    """LangGraph's ``add_messages`` over several writes, giving id-less messages stable ids.

    The chat's messages are a ``DeltaChannel``: a checkpoint keeps the writes that added
    messages, and reading the state replays them. ``add_messages`` gives a message written
    without an id (a question sent as ``{"messages": [HumanMessage(...)]}``, the report's
    ``AIMessage``) a random id, which a replay would draw again: the same message would get
    another id at each read. Here such a message gets an id derived from where it lands and
    what it says (a UUID, unique among the messages), so that every replay gives the ids the
    run saw; messages with ids, ``RemoveMessage`` included, merge as ``add_messages`` merges
    them, except that a human message never replaces a message of another type: one sent
    with the id of the chat's answer is added as a new message, as if it had no id (the
    client writes human messages; the answers are the graph's). Writes are folded one at a
    time, so the result does not depend on the batching.
    """
    merged: list[Any] = list(state)
    for write in batches:
        merged = cast("list[Any]", add_messages(merged, _with_ids(merged, write)))
    return merged


def _with_ids(state: list[AnyMessage], write: Messages) -> list[Any]:
    """The write's messages, each without an id given a stable one (see above)."""
    messages = convert_to_messages(write if isinstance(write, list) else [write])
    taken = {m.id for m in state}
    types = {m.id: m.type for m in state}
    given: list[BaseMessage] = []  # returned as add_messages takes them
    for message in messages:
        replaces = types.get(message.id)
        if message.id is None or (message.type == "human" and replaces not in (None, "human")):
            content = json.dumps(message.content, sort_keys=True, default=str)
            key = f"{len(state) + len(given)}\x1f{message.type}\x1f{content}"
            new = str(uuid.uuid5(MESSAGE_IDS, key))
            while new in taken:  # the same message where one was removed: draw on
                key += "\x1f"
                new = str(uuid.uuid5(MESSAGE_IDS, key))
            message = message.model_copy(update={"id": new})
        taken.add(message.id)
        given.append(message)
    return given


def add_usage(left: TokenUsage, right: TokenUsage) -> TokenUsage:
    """Sum token usage across nodes and branches."""
    return left + right
