"""How checkpoint values are compressed: zlib, starting from a dictionary of our records.

LangGraph stores every checkpoint, channel value and pending write as a value of its own, and
most are small: a researcher's ``Send``, a batch of ten sources, a usage record, a claim
revision. Compressed alone, each spells out the module path, class name and field names of
every kind of record in it, which is most of its bytes. zlib can start from a preset
dictionary (RFC 1950): bytes the compressor treats as already seen, so that a value refers
back to the names it shares with them instead of spelling them out. :data:`DICTIONARY` is
msgpack of one small record of each kind the graph stores (:func:`exemplars`); with it a
usage record takes 33 bytes instead of 135 (126 with zlib alone), and every value, however
small, is compressed when that makes it smaller (:func:`compress`).

A dictionary is part of the stored format: a value compressed with one can be read only with
the same bytes (zlib checks: the stored value names the dictionary's checksum). So the
dictionary is a file of the package, frozen (a test holds its digest), and the stored type
says which was used (``msgpack+zlib-d1``); values stored plainly or as ``+zlib`` (without a
dictionary, before there was one) read as they did. When the records have changed enough that
a new dictionary pays, it is a new version beside this one, made by :func:`exemplars`: never
an edit of a file that stored values need.
"""

from __future__ import annotations

import zlib
from functools import cache
from pathlib import Path

__all__ = ["DICTIONARY_FILE", "compress", "decompress", "dictionary", "exemplars"]

LEVEL = 9
"""zlib's best compression: the values are small (a 16-step run compresses about 110 KB in
all), so it costs about 3 ms a run over level 1 and stores about 13% less."""

WITHOUT_DICTIONARY = "+zlib"
"""Suffix of the stored type of a value compressed without a dictionary (before ``-d1``)."""

WITH_DICTIONARY = "+zlib-d1"
"""Suffix of the stored type of a value compressed with :data:`DICTIONARY_FILE`."""

DICTIONARY_FILE = Path(__file__).with_name("zlib-dictionary-v1.bin")
"""The dictionary of ``+zlib-d1`` values: :func:`exemplars` as it was on 2026-11-25."""


@cache
def dictionary() -> bytes:
    """The bytes of :data:`DICTIONARY_FILE` (read once)."""
    return DICTIONARY_FILE.read_bytes()


def compress(data: bytes) -> tuple[str, bytes] | None:
    """``data`` compressed with the dictionary, and its type suffix; ``None`` if no smaller."""
    compressor = zlib.compressobj(LEVEL, zdict=dictionary())
    packed = compressor.compress(data) + compressor.flush()
    return (WITH_DICTIONARY, packed) if len(packed) < len(data) else None


def decompress(type_: str, payload: bytes) -> tuple[str, bytes]:
    """The stored type without its compression suffix, and the value's serialized bytes.

    A type without a suffix is returned as it is, with its payload.
    """
    if type_.endswith(WITH_DICTIONARY):
        decompressor = zlib.decompressobj(zdict=dictionary())
        data = decompressor.decompress(payload) + decompressor.flush()
        return type_.removesuffix(WITH_DICTIONARY), data
    if type_.endswith(WITHOUT_DICTIONARY):
        return type_.removesuffix(WITHOUT_DICTIONARY), zlib.decompress(payload)
    return type_, payload


def exemplars() -> bytes:
    """A dictionary for today's records: one small value of each kind the graph stores.

    Each is serialized as checkpoints store it (LangGraph's msgpack; a list of evidence
    references as :mod:`~deep_research.persistence.packing` tables), the kinds written most
    often last, where zlib reaches them with the shortest distances. This made
    :data:`DICTIONARY_FILE`; it is kept to make the next version, and is never read by the
    serializer (the stored format must not change when a model does).
    """
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.types import Send

    from deep_research.context import Context, resolve_config
    from deep_research.persistence.packing import pack_refs
    from deep_research.state import models

    doc, ev, url = "doc_000000000000", "ev_000000000000", "https://example.org/"
    source = models.Source(url=url, title="Title", provider="web", document_id=doc)
    ref = models.EvidenceRef(
        id=ev, url=url, document_id=doc, step_id="s01", start=0, end=1, section="Overview"
    )
    step = models.PlanStep(id="s01", title="A step", intent="why", evidence_needed="what")
    config = resolve_config(Context(), depth="medium", engine="offline", sources=["local"])
    claim = models.Claim(
        id="cl_000000000000",
        text="A claim.",
        position_start=0,
        position_end=8,
        citation_keys=[ev],
        verdict=models.Verdict.SUPPORTED,
        confidence=0.9,
        evidence_id=ev,
        checked_by="model",
    )
    finding = models.Finding(
        step_id="s01", notes=f"Notes [@{ev}].", evidence_ids=[ev], queries=["q"], searches=1
    )
    revision = models.ClaimRevision(moved={claim.id: (0, 8)}, changed=[claim])
    task = {"step": step, "question": "q", "config": config, "question_nr": 1, "pool": []}
    serialize = JsonPlusSerializer().dumps_typed
    values: list[object] = [
        config,
        [step],
        [HumanMessage("q", id="m1"), AIMessage("a", id="m2")],
        revision,
        [claim],
        models.TokenUsage(prompt_tokens=1, completion_tokens=1, calls=1),
        [ref],
        [finding],
        [source],
        Send("researcher", task),
    ]
    return b"".join(pack_refs(value) if value == [ref] else serialize(value)[1] for value in values)
