"""A verification pass after a revision writes its claims as what changed.

Revising the draft rewrites a few sentences; the next pass finds most claims as they were,
only moved. verify writes such a pass as a ``ClaimRevision`` (moved claims by id with their
new offsets, the others whole), and the ``claims`` channel's reducer applies it to the claims
before it. What is applied must be exactly the pass's claims, however the writes are batched,
and a thread read back from its checkpoints must hold the claims the run had.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage

from deep_research.context import Context
from deep_research.engines import ClaimCheck, Reply
from deep_research.engines.schemas import ClaimVerdict
from deep_research.graph import build_graph
from deep_research.persistence import open_checkpointer
from deep_research.persistence.checkpointer import make_serde
from deep_research.state import Claim, Verdict
from deep_research.state.models import ClaimRevision
from deep_research.state.reducers import revise_claims
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine


def claim(n: int, start: int, *, verdict: Verdict = Verdict.SUPPORTED) -> Claim:
    return Claim(
        id=f"cl_{n:012x}",
        text=f"Site {n} stores {10 * n} MWh",
        position_start=start,
        position_end=start + 20,
        citation_keys=[f"ev_{n:012x}"],
        verdict=verdict,
        confidence=0.9,
        reasoning="stated",
    )


def draft_claims(numbers: Sequence[int], gap: int = 30) -> list[Claim]:
    """Claims in draft order, one every ``gap`` characters."""
    return [claim(n, 5 + i * gap) for i, n in enumerate(numbers)]


@st.composite
def passes(draw: st.DrawFn) -> tuple[list[Claim], list[Claim]]:
    """Two passes over one draft: kept claims moved, some dropped, judged again or new."""
    before = draft_claims(draw(st.lists(st.integers(0, 60), unique=True, max_size=12)))
    after: list[Claim] = []
    start = draw(st.integers(0, 40))
    for old in before:
        fate = draw(st.sampled_from(["kept", "kept", "dropped", "judged again"]))
        if fate == "dropped":
            continue
        moved = old.model_copy(update={"position_start": start, "position_end": start + 20})
        if fate == "judged again":
            moved = moved.model_copy(update={"verdict": Verdict.PARTIAL, "reasoning": "again"})
        after.append(moved)
        start += draw(st.integers(21, 60))
    for n in draw(st.lists(st.integers(100, 160), unique=True, max_size=3)):
        after.append(claim(n, start))
        start += 30
    return before, after


@settings(max_examples=200, deadline=None, database=None)
@given(two=passes())
def test_a_pass_written_as_a_revision_reads_back_as_the_pass_itself(
    two: tuple[list[Claim], list[Claim]],
) -> None:
    before, after = two
    write = ClaimRevision.between(before, after)
    assert revise_claims(before, [write]) == after
    if isinstance(write, ClaimRevision):
        assert write.moved and len(write.moved) + len(write.changed) == len(after)
        assert all(c.id not in write.moved for c in write.changed)


def test_only_the_claims_judged_again_or_new_are_written_whole() -> None:
    before = draft_claims([1, 2, 3, 4])
    # the first claim's sentence was narrowed by 7 characters, so every later claim moves
    narrowed = before[0].model_copy(update={"text": "Site 1 stores", "position_end": 18})
    moved = [
        c.model_copy(
            update={"position_start": c.position_start - 7, "position_end": c.position_end - 7}
        )
        for c in before[1:]
    ]
    write = ClaimRevision.between(before, [narrowed, *moved])
    assert isinstance(write, ClaimRevision)
    assert write.changed == [narrowed]
    assert write.moved == {c.id: (c.position_start, c.position_end) for c in moved}


def test_a_first_pass_or_one_where_nothing_only_moved_is_written_whole() -> None:
    claims = draft_claims([1, 2, 3])
    assert ClaimRevision.between([], claims) is claims
    judged_again = [c.model_copy(update={"verdict": Verdict.PARTIAL}) for c in claims]
    assert ClaimRevision.between(claims, judged_again) is judged_again


def test_claims_out_of_draft_order_are_written_whole_rather_than_reordered() -> None:
    before = draft_claims([1, 2, 3])
    out_of_order = [before[1], before[0], before[2]]
    assert ClaimRevision.between(before, out_of_order) is out_of_order
    assert revise_claims(before, [out_of_order]) == out_of_order


def test_a_revision_of_other_claims_is_refused_with_a_clear_error() -> None:
    write = ClaimRevision(moved={"cl_missing": (0, 10)})
    with pytest.raises(ValueError, match="moves claim 'cl_missing'"):
        revise_claims(draft_claims([1]), [write])


@settings(max_examples=60, deadline=None, database=None)
@given(two=passes(), cut=st.integers(0, 3))
def test_revisions_apply_alike_however_the_writes_are_batched(
    two: tuple[list[Claim], list[Claim]], cut: int
) -> None:
    """A ``DeltaChannel`` replays stored writes in batches of its own choosing."""
    before, after = two
    third = [c.model_copy(update={"position_start": c.position_start + 1}) for c in after]
    writes: list[Any] = [before, ClaimRevision.between(before, after)]
    writes.append(ClaimRevision.between(after, third))
    once = revise_claims([], writes)
    assert once == third
    assert revise_claims(revise_claims([], writes[:cut]), writes[cut:]) == once


def test_a_revision_survives_the_checkpoint_serializer() -> None:
    before = draft_claims([1, 2])
    write = ClaimRevision.between(before, [before[0], claim(2, 90)])
    serde = make_serde()
    assert serde.loads_typed(serde.dumps_typed(write)) == write


class DoubtsTheFirstClaim(ShapedEngine):
    """The offline engine, but the first claim it judges it finds unsupported, once.

    So revise rewrites that claim and the next pass finds the others moved.
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


async def test_a_thread_read_back_holds_each_pass_s_claims(tmp_path: Path) -> None:
    context = Context(allow_clarification=False, depth="medium", max_rounds=1, results_per_query=5)
    async with open_checkpointer(f"sqlite:///{tmp_path / 'checkpoints.sqlite'}") as saver:
        graph = build_graph(
            engine=DoubtsTheFirstClaim(3, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        config: Any = {"configurable": {"thread_id": "revised"}}
        written: list[Any] = []
        passes: list[list[Claim]] = []
        async for mode, chunk in graph.astream(
            {"messages": [HumanMessage("Which storage sites?")]},
            config,
            context=context,
            stream_mode=["updates", "values"],
        ):
            if mode == "updates" and "verify" in chunk and "claims" in chunk["verify"]:
                written.append(chunk["verify"]["claims"])
            elif mode == "values" and written and len(passes) < len(written):
                passes.append(chunk["claims"])
        assert [type(w) for w in written] == [list, ClaimRevision], "the second pass moved most"
        assert written[1].changed, "the doubted claim was rewritten and judged again"

        history = [s async for s in graph.aget_state_history(config)]
        read_back = [s.values["claims"] for s in reversed(history) if s.metadata and s.values]
        distinct = [c for i, c in enumerate(read_back) if c and (i == 0 or c != read_back[i - 1])]
        assert distinct == passes
        state = (await graph.aget_state(config)).values
        assert state["claims"] == passes[-1]
        for c in state["claims"]:
            assert state["draft"][c.position_start : c.position_end] == c.text
