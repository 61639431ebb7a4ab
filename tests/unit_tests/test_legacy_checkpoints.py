"""Threads written in the retired checkpoint formats still read back and resume.

Until bcf4c98, checkpoints stored values compressed with a frozen zlib dictionary
(``+zlib-d1``), evidence as references packed into tables (``evidence-refs-v1``) and a
verification pass's claims as a revision of the pass before. ``tests/fixtures/legacy`` holds
two threads that commit wrote (see its README); today's code resumes them and writes the same
report as the same state stored in today's formats (a copy of the thread, written by
``update_state``), so the test does not depend on the engines writing what they wrote then.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ormsgpack
import pytest
from langgraph.store.memory import InMemoryStore

from deep_research.context import Context
from deep_research.engines import ClaimCheck, Reply
from deep_research.engines.schemas import ClaimVerdict
from deep_research.graph import build_graph
from deep_research.persistence import legacy, open_checkpointer
from deep_research.persistence.content import open_store, put_document
from deep_research.state import Claim, Document, EvidenceSpan, Report, Verdict
from deep_research.state.reducers import replace_claims
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine

FIXTURE = Path(__file__).parents[1] / "fixtures" / "legacy" / "bcf4c98.sqlite"

DICTIONARY_V1_SHA256 = "7eadde061714a90964566f05b3edb2bbebc09cb91d3f77fcc02704410123968e"
"""The digest of the ``+zlib-d1`` dictionary: the stored values need exactly these bytes."""

CONTEXT = Context(allow_clarification=False, depth="medium", max_rounds=1, results_per_query=5)


class DoubtsTheFirstClaim(ShapedEngine):
    """The shaped offline engine, but the first claim it judges it finds unsupported, once.

    So revise rewrites that claim and the next verification pass finds the others moved
    (which bcf4c98 stored as a claim revision).
    """

    doubted = False

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        reply = await super().judge(checks)
        if self.doubted:
            return reply
        self.doubted = True
        first = reply.value[0].model_copy(
            update={"verdict": Verdict.UNSUPPORTED, "reasoning": "doubted"}
        )
        return Reply([first, *reply.value[1:]], reply.usage)


def engine(*, doubted: bool) -> DoubtsTheFirstClaim:
    made = DoubtsTheFirstClaim(3, 2)
    made.doubted = doubted
    return made


async def resume(url: str, thread: str, *, doubted: bool) -> tuple[Report, dict[str, Any]]:
    config: Any = {"configurable": {"thread_id": thread}}
    async with open_checkpointer(url) as saver, open_store(url) as store:
        graph = build_graph(
            engine=engine(doubted=doubted),
            sources=[GeneratedWeb()],
            checkpointer=saver,
            store=store,
        )
        result = await graph.ainvoke(None, config, context=CONTEXT)
        state = (await graph.aget_state(config)).values
    return result["report"], state


async def copied_today(url: str, thread: str, as_node: str, *, doubted: bool) -> str:
    """The legacy thread's state at its stop, written again by today's code as a new thread.

    Its evidence references are resolved to spans first, as a resuming node does; the copy
    shares the file, and so the pages in its store. Returns the copy's thread id.
    """
    async with open_checkpointer(url) as saver, open_store(url) as store:
        graph = build_graph(
            engine=engine(doubted=doubted),
            sources=[GeneratedWeb()],
            checkpointer=saver,
            store=store,
        )
        old: Any = {"configurable": {"thread_id": thread}}
        values = dict((await graph.aget_state(old)).values)
        values["evidence"] = await legacy.resolve_legacy_evidence(store, values["evidence"])
        copy = f"{thread}-today"
        await graph.aupdate_state({"configurable": {"thread_id": copy}}, values, as_node=as_node)
    return copy


@pytest.mark.parametrize(
    ("thread", "before", "doubted"),
    [("before-finalize", "verify", True), ("before-reflect", "researcher", False)],
)
async def test_a_thread_in_retired_formats_resumes_as_one_written_today(
    tmp_path: Path, thread: str, before: str, doubted: bool
) -> None:
    old = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, old)
    url = f"sqlite:///{old}"
    copy = await copied_today(url, thread, before, doubted=doubted)
    report, state = await resume(url, thread, doubted=doubted)
    expected, _ = await resume(url, copy, doubted=doubted)

    assert report.markdown == expected.markdown
    assert report.claims == expected.claims and report.citations == expected.citations
    assert report.citations and all(c.quote for c in report.citations), "quotes cut from pages"
    # the legacy references stay in the channel; every node read them as spans
    assert any(isinstance(e, legacy.LegacyEvidenceRef) for e in state["evidence"])
    with sqlite3.connect(old) as conn:  # the copy is stored in today's formats only
        types = {
            row[0] for row in conn.execute("SELECT type FROM writes WHERE thread_id = ?", (copy,))
        }
        types |= {
            r[0] for r in conn.execute("SELECT type FROM checkpoints WHERE thread_id = ?", (copy,))
        }
    assert types and not any("-d1" in t or "refs" in t for t in types), types


async def test_the_fixture_holds_every_retired_format(tmp_path: Path) -> None:
    """Otherwise the resume test above would not be reading them."""
    copy = tmp_path / "old.sqlite"
    shutil.copy(FIXTURE, copy)
    async with open_checkpointer(f"sqlite:///{copy}") as saver:
        conn: Any = saver.conn  # type: ignore[attr-defined]
        async with conn.execute("SELECT type, value FROM writes") as rows:
            writes = [(row[0], row[1]) async for row in rows]
    types = {type_ for type_, _ in writes}
    assert {"msgpack+zlib-d1", "evidence-refs-v1+zlib-d1"} <= types
    values = [make_serde_loads(type_, value) for type_, value in writes if type_ != "null"]
    assert any(isinstance(v, legacy.LegacyClaimRevision) for v in values)


def make_serde_loads(type_: str, value: bytes) -> Any:
    from deep_research.persistence.checkpointer import make_serde

    return make_serde().loads_typed((type_, value))


def test_the_dictionary_is_the_one_stored_values_were_compressed_with() -> None:
    """Editing the file would leave every ``+zlib-d1`` value unreadable."""
    digest = hashlib.sha256(legacy.DICTIONARY_FILE.read_bytes()).hexdigest()
    assert digest == DICTIONARY_V1_SHA256


def test_packed_references_unpack_with_derived_ids_and_relevance_in_hundredths() -> None:
    url = "https://example.org/a"
    tables = {
        "pages": [[url, "doc_a"]],
        "steps": ["s01"],
        "sections": [None, "Costs"],
        "refs": [[0, 0, 1, 10, 5, 42, True], [0, 0, 0, 30, 4, 0.123, False, "ev_own"]],
    }
    packed = ormsgpack.packb(tables)
    compressor = zlib.compressobj(9, zdict=legacy.DICTIONARY_FILE.read_bytes())
    stored = compressor.compress(packed) + compressor.flush()
    first, second = legacy.decode("evidence-refs-v1+zlib-d1", stored)  # type: ignore[misc]
    assert (first.start, first.end, first.section, first.relevance) == (10, 15, "Costs", 0.42)
    assert first.id.startswith("ev_") and first.has_numbers
    assert (second.id, second.relevance, second.end) == ("ev_own", 0.123, 34)


def claim(n: int, start: int) -> Claim:
    return Claim(
        id=f"cl_{n}",
        text=f"Site {n} stores {10 * n} MWh",
        position_start=start,
        position_end=start + 20,
        citation_keys=[f"ev_{n}"],
        verdict=Verdict.SUPPORTED,
    )


def test_a_stored_claim_revision_applies_to_the_claims_before_it() -> None:
    before = [claim(1, 0), claim(2, 30)]
    stored = {"moved": {"cl_2": [40, 60]}, "changed": [claim(3, 0).model_dump()]}
    revision = legacy.upgrade(stored)
    assert isinstance(revision, legacy.LegacyClaimRevision)
    after = replace_claims(before, [revision])
    assert [(c.id, c.position_start) for c in after] == [("cl_3", 0), ("cl_2", 40)]
    with pytest.raises(ValueError, match="did not have"):
        replace_claims([claim(1, 0)], [revision])


async def test_a_reference_whose_page_is_gone_is_left_out_and_the_rest_keep_order() -> None:
    store = InMemoryStore()
    text = "The plant stores 100 MWh. It cost $90 million."
    await put_document(store, Document(id="doc_a", url="https://a.org/", title="A", text=text))
    kept = legacy.LegacyEvidenceRef("ev_1", "https://a.org/", "doc_a", "s01", 26, 46)
    gone = legacy.LegacyEvidenceRef("ev_2", "https://b.org/", "doc_b", "s01", 0, 4)
    span = EvidenceSpan(
        id="ev_0",
        url="https://c.org/",
        document_id="doc_c",
        step_id="s01",
        quote="x",
        start=0,
        end=1,
    )
    resolved = await legacy.resolve_legacy_evidence(store, [kept, span, gone])
    assert [e.id for e in resolved] == ["ev_1", "ev_0"]
    assert resolved[0].quote == "It cost $90 million."
