"""Evidence references stored column-wise: how checkpoints keep a researcher's evidence.

A researcher writes its evidence as a list of :class:`~deep_research.state.models.EvidenceRef`
(the quotes stay in the pages, in the content store), and the state's ``evidence`` channel
keeps every such write. Stored as records, each reference repeats its page's URL and document
id, its field names and its id, which is a digest of its step, URL and offsets, and its
relevance takes a 64-bit float: about 37 bytes a reference once compressed, the largest part
of a real run's checkpoints. :func:`pack_refs` stores a list of them as tables instead: the
pages, steps and section headings once each, then per reference the indexes into them, its
offsets (the end as a length), its relevance in hundredths when that is exact, and its id only
when it is not the digest. :func:`unpack_refs` gives back equal references (a property test
holds them equal field by field: ``tests/unit_tests/test_checkpoint_packing.py``).

The checkpoint serializer (:class:`~deep_research.persistence.checkpointer.CompressingSerializer`)
packs any list made only of references, and stores it under its own type name
(:data:`PACKED_REFS`); values stored before it read as they always did.
"""

from __future__ import annotations

from typing import Any

import ormsgpack

from deep_research.state.models import EvidenceRef, evidence_id

PACKED_REFS = "evidence-refs-v1"
"""The stored type of a packed list of evidence references (before any compression suffix)."""

_FIELDS = frozenset(
    {"id", "url", "document_id", "step_id", "start", "end", "section", "relevance", "has_numbers"}
)
"""The fields :func:`pack_refs` stores; a reference with others cannot be packed."""

_PACKABLE = EvidenceRef.model_fields.keys() == _FIELDS
"""Whether the tables hold every field of a reference (until a new field is added to them)."""


def is_ref_list(value: object) -> bool:
    """Whether ``value`` is a non-empty list of evidence references and nothing else."""
    return (
        _PACKABLE
        and type(value) is list
        and bool(value)
        and all(type(item) is EvidenceRef for item in value)
    )


def pack_refs(refs: list[EvidenceRef]) -> bytes:
    """The references as msgpack tables (see the module docstring)."""
    pages: dict[tuple[str, str], int] = {}
    steps: dict[str, int] = {}
    sections: dict[str | None, int] = {}
    rows: list[list[Any]] = []
    for ref in refs:
        page = pages.setdefault((ref.url, ref.document_id), len(pages))
        step = steps.setdefault(ref.step_id, len(steps))
        section = sections.setdefault(ref.section, len(sections))
        hundredths = round(ref.relevance * 100)
        relevance = hundredths if hundredths / 100 == ref.relevance else ref.relevance
        own_id = None if ref.id == evidence_id(ref.step_id, ref.url, ref.start, ref.end) else ref.id
        row = [page, step, section, ref.start, ref.end - ref.start, relevance, ref.has_numbers]
        rows.append(row if own_id is None else [*row, own_id])
    tables = {
        "pages": [list(page) for page in pages],
        "steps": list(steps),
        "sections": list(sections),
        "refs": rows,
    }
    return ormsgpack.packb(tables)


def unpack_refs(data: bytes) -> list[EvidenceRef]:
    """The references :func:`pack_refs` stored, equal to those it was given."""
    tables = ormsgpack.unpackb(data)
    pages, steps, sections = tables["pages"], tables["steps"], tables["sections"]
    refs = []
    for row in tables["refs"]:
        page, step, section, start, length, relevance, has_numbers = row[:7]
        url, document_id = pages[page]
        end = start + length
        refs.append(
            EvidenceRef(
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
