"""A researcher's evidence references are stored as tables, and read back equal.

``deep_research.persistence.packing`` is how the checkpoint serializer stores a list made only
of ``EvidenceRef``s (the ``evidence`` channel's writes): pages, steps and headings once, ids
left out when they are the digest the researcher gives them, relevance in hundredths when
that is exact. What is read back must equal what was written, field by field, and values
stored before (msgpack records) must still read.
"""

from __future__ import annotations

import zlib

from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deep_research.persistence import packing
from deep_research.persistence.checkpointer import SERDE_ALLOWLIST, make_serde
from deep_research.persistence.packing import (
    PACKED_REFS,
    is_ref_list,
    pack_refs,
    unpack_refs,
)
from deep_research.state import EvidenceSpan
from deep_research.state.models import EvidenceRef, evidence_id


def ref(
    n: int,
    *,
    page: int = 0,
    step: str = "s01",
    relevance: float = 0.5,
    section: str | None = "Overview",
    own_id: str | None = None,
) -> EvidenceRef:
    url = f"https://site{page}.example.org/report"
    start, end = 100 * n, 100 * n + 40 + n
    return EvidenceRef(
        id=own_id or evidence_id(step, url, start, end),
        url=url,
        document_id=f"doc_{page:012x}",
        step_id=step,
        start=start,
        end=end,
        section=section,
        relevance=relevance,
        has_numbers=n % 2 == 0,
    )


refs = st.lists(
    st.builds(
        ref,
        n=st.integers(0, 500),
        page=st.integers(0, 4),
        step=st.sampled_from(["s01", "s02", "s10"]),
        relevance=st.one_of(
            st.integers(0, 100).map(lambda h: h / 100), st.floats(0.0, 1.0, allow_nan=False)
        ),
        section=st.sampled_from([None, "Overview", "Key figures", "设计"]),
        own_id=st.sampled_from([None, "ev_given_elsewhere"]),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None, database=None)
@given(written=refs)
def test_packed_references_read_back_equal_field_by_field(written: list[EvidenceRef]) -> None:
    read = unpack_refs(pack_refs(written))
    assert [r.model_dump() for r in read] == [r.model_dump() for r in written]
    assert all(type(r.relevance) is float for r in read)


def test_the_serializer_packs_a_list_of_references_into_fewer_bytes() -> None:
    serde = make_serde()
    written = [ref(n, page=n % 5, relevance=(n % 90) / 100) for n in range(60)]
    type_, data = serde.dumps_typed(written)
    assert type_ == PACKED_REFS + "+zlib-d1"
    assert serde.loads_typed((type_, data)) == written
    as_records = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST).dumps_typed(written)
    assert len(data) * 1.6 < len(zlib.compress(as_records[1], 9))


def test_references_stored_as_records_before_packing_still_read() -> None:
    serde = make_serde()
    written = [ref(n) for n in range(20)]
    type_, data = JsonPlusSerializer(allowed_msgpack_modules=SERDE_ALLOWLIST).dumps_typed(written)
    assert serde.loads_typed((type_ + "+zlib", zlib.compress(data))) == written
    assert serde.loads_typed((type_, data)) == written


def test_only_lists_made_only_of_references_are_packed() -> None:
    span = EvidenceSpan(**ref(1).model_dump(), quote="x" * 41)
    assert is_ref_list([ref(1), ref(2)])
    assert not is_ref_list([])
    assert not is_ref_list([ref(1), span])
    assert not is_ref_list((ref(1),))
    assert make_serde().dumps_typed([span] * 20)[0] == "msgpack+zlib-d1"


def test_every_field_of_a_reference_is_packed() -> None:
    # a field added to EvidenceRef must be added to the tables: until then nothing is packed
    assert set(EvidenceRef.model_fields) == packing._FIELDS
    assert is_ref_list([ref(0)])
