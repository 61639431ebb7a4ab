"""Reading checkpoints written in formats that are no longer written.

Until 2026-11-27 (commit bcf4c98, the cut-off) checkpoints were stored in three formats of
our own, retired because they saved about 26 KB on a 16-step run that stores 0.1 MB and cost
every later reader (docs/decisions.md):

* values compressed with a frozen zlib dictionary, stored as ``<type>+zlib-d1``
  (:data:`DICTIONARY_FILE`, kept only to read them);
* evidence stored as references into the stored page text (``EvidenceRef``: a span without
  its quote), a list of them packed into tables under the type ``evidence-refs-v1``;
* a verification pass's claims stored as what changed since the previous pass
  (``ClaimRevision``: moved claims by id with their new offsets, the others whole).

Values are written today as LangGraph's msgpack, compressed with plain zlib when that makes
them smaller (``+zlib``, which was written before the dictionary too). This module reads
everything ever written: :func:`decode` turns a stored value back into msgpack bytes or, for
packed references, into :class:`LegacyEvidenceRef` records; :func:`upgrade` replaces the
records that a retired class left as plain dicts (its class is gone, so LangGraph's
serializer gives back its fields) by :class:`LegacyEvidenceRef` and
:class:`LegacyClaimRevision`. A claim revision is applied by the claims channel's reducer
(:class:`~deep_research.state.reducers.ClaimsEdit`); references are resolved to spans with
their quotes, from the content store, before a node reads the state
(:func:`resolve_legacy_evidence`, called by the recording wrapper). Threads written before
the cut-off resume (``tests/unit_tests/test_legacy_checkpoints.py``); nothing writes these
formats any more.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import ormsgpack
from langgraph.store.base import BaseStore, GetOp, Item

from deep_research.langgraph_internals import DeltaSnapshot
from deep_research.persistence.namespaces import DOCUMENTS_NAMESPACE
from deep_research.state.models import Claim, EvidenceSpan, evidence_id

__all__ = [
    "DICTIONARY_FILE",
    "RETIRED_TYPES",
    "LegacyClaimRevision",
    "LegacyEvidenceRef",
    "decode",
    "has_legacy_evidence",
    "resolve_legacy_evidence",
    "upgrade",
]

logger = logging.getLogger(__name__)

ZLIB = "+zlib"
"""Suffix of the stored type of a value compressed with plain zlib (written today)."""

ZLIB_DICTIONARY = "+zlib-d1"
"""Suffix of the stored type of a value compressed with :data:`DICTIONARY_FILE` (retired)."""

PACKED_REFS = "evidence-refs-v1"
"""Stored type of a list of evidence references packed into tables (retired)."""

DICTIONARY_FILE = Path(__file__).with_name("legacy-zlib-dictionary-v1.bin")
"""The preset dictionary of ``+zlib-d1`` values (a test holds its digest)."""

RETIRED_TYPES = (
    ("deep_research.state.models", "EvidenceRef"),
    ("deep_research.state.models", "ClaimRevision"),
)
"""Classes that stored values name and that no longer exist: the checkpoint serializer
allows them, so that their fields come back as a dict (for :func:`upgrade`) without a
warning that they were blocked."""

_REF_FIELDS = frozenset(
    {"id", "url", "document_id", "step_id", "start", "end", "section", "relevance", "has_numbers"}
)


@dataclass(frozen=True)
class LegacyEvidenceRef:
    """An evidence span stored without its quote: ``text[start:end]`` of its document."""

    id: str
    url: str
    document_id: str
    step_id: str
    start: int
    end: int
    section: str | None = None
    relevance: float = 0.0
    has_numbers: bool = False

    def resolve(self, text: str) -> EvidenceSpan:
        """The span with its quote, cut from ``text``, the text of its document."""
        return EvidenceSpan(
            id=self.id,
            url=self.url,
            document_id=self.document_id,
            step_id=self.step_id,
            quote=text[self.start : self.end],
            start=self.start,
            end=self.end,
            section=self.section,
            relevance=self.relevance,
            has_numbers=self.has_numbers,
        )


@dataclass(frozen=True)
class LegacyClaimRevision:
    """A pass's claims stored as the claims that moved (id to new offsets) and the others."""

    moved: dict[str, tuple[int, int]] = field(default_factory=dict)
    changed: list[Claim] = field(default_factory=list)

    def apply(self, claims: list[Claim]) -> list[Claim]:
        """The pass's claims: the moved ones from ``claims`` and the changed ones.

        Raises:
            ValueError: a moved claim is not among ``claims``.
        """
        before = {claim.id: claim for claim in claims}
        result = list(self.changed)
        for claim_id, (start, end) in self.moved.items():
            if claim_id not in before:
                raise ValueError(
                    f"a stored claim revision moves claim {claim_id!r}, which the previous"
                    " verification pass did not have"
                )
            update = {"position_start": start, "position_end": end}
            result.append(before[claim_id].model_copy(update=update))
        return sorted(result, key=lambda claim: claim.position_start)


@cache
def _dictionary() -> bytes:
    return DICTIONARY_FILE.read_bytes()


def decode(type_: str, payload: bytes) -> tuple[str, bytes] | list[LegacyEvidenceRef]:
    """A stored value's type and msgpack bytes, decompressed; packed references unpacked.

    A type without a compression suffix is returned as it is, with its payload.
    """
    if type_.endswith(ZLIB_DICTIONARY):
        decompressor = zlib.decompressobj(zdict=_dictionary())
        type_ = type_.removesuffix(ZLIB_DICTIONARY)
        payload = decompressor.decompress(payload) + decompressor.flush()
    elif type_.endswith(ZLIB):
        type_, payload = type_.removesuffix(ZLIB), zlib.decompress(payload)
    if type_ == PACKED_REFS:
        return _unpack_refs(payload)
    return type_, payload


def _unpack_refs(data: bytes) -> list[LegacyEvidenceRef]:
    """The references of ``evidence-refs-v1`` tables (pages, steps and headings once each)."""
    tables = ormsgpack.unpackb(data)
    pages, steps, sections = tables["pages"], tables["steps"], tables["sections"]
    refs = []
    for row in tables["refs"]:
        page, step, section, start, length, relevance, has_numbers = row[:7]
        url, document_id = pages[page]
        end = start + length
        refs.append(
            LegacyEvidenceRef(
                id=row[7] if len(row) > 7 else evidence_id(steps[step], url, start, end),
                url=url,
                document_id=document_id,
                step_id=steps[step],
                start=start,
                end=end,
                section=sections[section],
                relevance=relevance / 100 if type(relevance) is int else relevance,
                has_numbers=has_numbers,
            )
        )
    return refs


def upgrade(value: Any) -> Any:
    """``value`` with the fields of retired records turned back into legacy records.

    Looks into lists and into LangGraph's delta-channel snapshots (a value that carries
    its list as ``.value``), where the evidence and claims channels keep their writes.
    """
    if isinstance(value, list):
        return [upgrade(item) for item in value] if any(map(_retired, value)) else value
    if isinstance(value, dict) and _retired(value):
        if value.keys() <= _REF_FIELDS:
            return LegacyEvidenceRef(**value)
        return LegacyClaimRevision(
            moved={key: (start, end) for key, (start, end) in value.get("moved", {}).items()},
            changed=[Claim.model_validate(claim) for claim in value.get("changed", [])],
        )
    if isinstance(value, DeltaSnapshot) and isinstance(value.value, list):
        upgraded = upgrade(value.value)
        return value if upgraded is value.value else DeltaSnapshot(upgraded)
    return value


def _retired(item: object) -> bool:
    """Whether ``item`` is the dict of fields a retired record came back as."""
    if not isinstance(item, dict):
        return isinstance(item, list) and any(map(_retired, item))
    keys = item.keys()
    is_ref = {"id", "document_id", "start", "end"} <= keys <= _REF_FIELDS
    return is_ref or (bool(keys) and keys <= {"moved", "changed"})


def has_legacy_evidence(evidence: Sequence[object]) -> bool:
    """Whether a state's evidence holds references written before the cut-off."""
    return any(isinstance(span, LegacyEvidenceRef) for span in evidence)


async def resolve_legacy_evidence(
    store: BaseStore | None, evidence: Sequence[EvidenceSpan | LegacyEvidenceRef]
) -> list[EvidenceSpan]:
    """The evidence with each legacy reference's quote cut from its stored page, in order.

    A reference whose page the store no longer has (expired, or a thread resumed without its
    store) is left out and logged: no quote can be shown for it.
    """
    wanted = sorted({s.document_id for s in evidence if isinstance(s, LegacyEvidenceRef)})
    texts: dict[str, str] = {}
    if wanted and store is not None:
        items = await store.abatch([GetOp(DOCUMENTS_NAMESPACE, key) for key in wanted])
        for key, item in zip(wanted, items, strict=True):
            text = item.value.get("text") if isinstance(item, Item) else None
            if isinstance(text, str):
                texts[key] = text
    resolved: list[EvidenceSpan] = []
    for span in evidence:
        if isinstance(span, EvidenceSpan):
            resolved.append(span)
        elif (text := texts.get(span.document_id)) is not None and span.end <= len(text):
            resolved.append(span.resolve(text))
        else:
            logger.warning("evidence %s left out: its page %s is not stored", span.id, span.url)
    return resolved
