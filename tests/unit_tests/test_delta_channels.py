"""The main graph keeps sources, evidence and findings in LangGraph ``DeltaChannel``s.

A ``DeltaChannel`` keeps no copy of its list in each checkpoint: LangGraph stores the writes
and rebuilds the list by replaying them through the batched reducer, in batches of its own
choosing. So the reducers must give the same list however the writes are batched, and a thread
read back from the store must hold what the researchers returned, also after clarify resets
the lists for a follow-up question (see docs/decisions.md). The report is kept the same way
(latest write wins, empty is ``None``), and a thread written while it was a plain channel,
with the report in every checkpoint, reads back and continues. So are the chat's messages
(merged as ``add_messages`` merges them, id-less messages given ids that every replay gives
alike), so that a follow-up question does not store the earlier reports again.
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import reduce
from pathlib import Path
from random import Random
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.last_value import LastValue
from langgraph.checkpoint.base import copy_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph.message import add_messages
from langgraph.types import Command, Overwrite

from deep_research.context import Context
from deep_research.engines import Reply
from deep_research.graph import build_graph
from deep_research.nodes._progress import is_progress
from deep_research.persistence import open_checkpointer
from deep_research.persistence.checkpointer import CompactMemorySaver, make_serde
from deep_research.report.chat import chat_markdown
from deep_research.sources.pool import extend_pool
from deep_research.state import BibRecord, EvidenceSpan, Finding, PlanStep, Report, Source
from deep_research.state.identity import source_keys
from deep_research.state.reducers import (
    add_message_batches,
    latest_write,
    merge_evidence,
    merge_evidence_batches,
    merge_finding_batches,
    merge_findings,
    merge_source_batches,
    merge_sources,
)
from tests.unit_tests.test_checkpoint_size import GeneratedWeb, ShapedEngine

T = TypeVar("T")

CLARIFY = importlib.import_module("deep_research.nodes.clarify")
"""The module (the package's ``clarify`` is the node function)."""

GROWING = ("sources", "evidence", "findings")
REPLACED = ("draft", "claims", "report")
KEPT = (*GROWING, *REPLACED)

# Few distinct keys, so that writes collide and the keyed merges have work to do.
sources = st.builds(
    Source,
    url=st.sampled_from(["https://a.example/1", "https://a.example/2", "https://b.example/"]),
    title=st.sampled_from(["one", "two"]),
    provider=st.just("web"),
    crawl_status=st.sampled_from(["ok", "blocked", "skipped", "failed"]),
    document_id=st.sampled_from([None, "doc_1"]),
    cache=st.sampled_from([None, "hit", "miss"]),
    flags=st.lists(st.sampled_from(["injection", "thin"]), unique=True, max_size=2),
)


WEB = "https://a.example/1"


@st.composite
def works(draw: st.DrawFn) -> Source:
    """Records of a few works, under their links or a web page's URL, sharing identifiers,
    titles and years in every way, so that one work has several records to merge."""
    bib = BibRecord(
        doi=draw(st.sampled_from([None, "10.1/a", "10.1/b"])),
        pmid=draw(st.sampled_from([None, "11", "12"])),
        pmcid=draw(st.sampled_from([None, "PMC7"])),
        nct_id=draw(st.sampled_from([None, None, "NCT00000001"])),
        year=draw(st.sampled_from([None, 2020, 2021])),
        authors=draw(st.sampled_from([[], ["Ng A"], ["Ng A", "Li B"]])),
        found_by=[draw(st.sampled_from(["pubmed", "europepmc"]))],
    )
    link = "https://pubmed.ncbi.nlm.nih.gov/11/"
    return Source(
        url=draw(st.sampled_from([bib.link() or WEB, WEB, link])),
        title=draw(st.sampled_from(["Zinc trial", "ZINC TRIAL.", "Iron trial"])),
        provider=bib.found_by[0],
        crawl_status=draw(st.sampled_from(["ok", "skipped", "failed"])),
        document_id=draw(st.sampled_from([None, "doc_1"])),
        bib=draw(st.sampled_from([bib, bib, None])),
    )


@st.composite
def spans(draw: st.DrawFn) -> EvidenceSpan:
    quote = draw(st.sampled_from(["12 MW.", "It failed twice."]))
    start = draw(st.integers(0, 3))
    return EvidenceSpan(
        id=draw(st.sampled_from(["ev_1", "ev_2", "ev_3", "ev_4"])),
        url="https://a.example/1",
        document_id="doc_1",
        step_id=draw(st.sampled_from(["s01", "s02"])),
        quote=quote,
        start=start,
        end=start + len(quote),
        relevance=draw(st.sampled_from([0.0, 0.5, 0.9])),
    )


@st.composite
def findings(draw: st.DrawFn) -> Finding:
    return Finding(
        step_id=draw(st.sampled_from(["s01", "s02", "s03"])),
        notes=draw(st.sampled_from(["old", "new"])),
        sufficient=draw(st.booleans()),
    )


def _check_batching(
    batched: Callable[[list[T], Sequence[list[T]]], list[T]],
    pairwise: Callable[[list[T], list[T]], list[T]],
    state: list[T],
    xs: list[list[T]],
    ys: list[list[T]],
) -> None:
    state = batched([], [state])  # a channel holds only what its reducer returned
    once = batched(state, xs + ys)
    assert batched(batched(state, xs), ys) == once
    assert reduce(pairwise, xs + ys, state) == once  # what the binary reducer gave, write by write


SETTINGS = settings(max_examples=200, deadline=None, database=None)


@SETTINGS
@given(
    st.lists(sources, max_size=4),
    st.lists(st.lists(sources, max_size=4), max_size=4),
    st.lists(st.lists(sources, max_size=4), max_size=4),
)
def test_merging_sources_does_not_depend_on_batching(
    state: list[Source], xs: list[list[Source]], ys: list[list[Source]]
) -> None:
    _check_batching(merge_source_batches, merge_sources, state, xs, ys)


@SETTINGS
@given(
    st.lists(works(), max_size=4),
    st.lists(st.lists(works(), max_size=4), max_size=4),
    st.lists(st.lists(works(), max_size=4), max_size=4),
)
def test_merging_works_by_identifier_does_not_depend_on_batching(
    state: list[Source], xs: list[list[Source]], ys: list[list[Source]]
) -> None:
    _check_batching(merge_source_batches, merge_sources, state, xs, ys)


@SETTINGS
@given(st.lists(st.lists(works(), max_size=4), max_size=5))
def test_each_url_found_is_one_merged_source_and_no_two_are_one(
    writes: list[list[Source]],
) -> None:
    merged = merge_source_batches([], writes)
    names = [url for s in merged for url in (s.url, *s.aliases)]
    assert len(names) == len(set(names))
    assert {s.url for write in writes for s in write} <= set(names)
    for a, b in itertools.combinations(merged, 2):
        assert not source_keys(a) & source_keys(b)
    assert merge_sources(merged, []) == merged  # closed: merging again changes nothing


@SETTINGS
@given(st.lists(st.lists(works(), max_size=4), max_size=4), st.randoms())
def test_which_records_are_one_work_does_not_depend_on_the_order_steps_finish(
    writes: list[list[Source]], random: Random
) -> None:
    """Identifiers and links alone (distinct titles): the grouping is order-free. (A record
    with no identifier of its own in common may join one of two works of its title, the
    first it meets, as within a step.)"""
    titled = [
        [s.model_copy(update={"title": f"{s.url} {n}"}) for n, s in enumerate(write)]
        for write in writes
    ]
    shuffled = random.sample(titled, len(titled))

    found = {s.url for write in writes for s in write}

    def groups(batches: list[list[Source]]) -> set[frozenset[str]]:
        merged = merge_source_batches([], batches)
        return {frozenset({s.url, *s.aliases} & found) for s in merged}

    assert groups(shuffled) == groups(titled)


@SETTINGS
@given(
    st.lists(spans(), max_size=4),
    st.lists(st.lists(spans(), max_size=4), max_size=4),
    st.lists(st.lists(spans(), max_size=4), max_size=4),
)
def test_merging_evidence_does_not_depend_on_batching(
    state: list[EvidenceSpan], xs: list[list[EvidenceSpan]], ys: list[list[EvidenceSpan]]
) -> None:
    _check_batching(merge_evidence_batches, merge_evidence, state, xs, ys)


@SETTINGS
@given(
    st.lists(findings(), max_size=4),
    st.lists(st.lists(findings(), max_size=4), max_size=4),
    st.lists(st.lists(findings(), max_size=4), max_size=4),
)
def test_merging_findings_does_not_depend_on_batching(
    state: list[Finding], xs: list[list[Finding]], ys: list[list[Finding]]
) -> None:
    _check_batching(merge_finding_batches, merge_findings, state, xs, ys)


@SETTINGS
@given(
    st.lists(st.integers(), max_size=3),
    st.lists(st.lists(st.integers(), max_size=3), max_size=4),
    st.lists(st.lists(st.integers(), max_size=3), max_size=4),
)
def test_the_latest_write_wins_however_writes_are_batched(
    state: list[int], xs: list[list[int]], ys: list[list[int]]
) -> None:
    once = latest_write(state, xs + ys)
    assert latest_write(latest_write(state, xs), ys) == once
    assert once == ((xs + ys)[-1] if xs + ys else state)


class QuestionEngine(ShapedEngine):
    """Queries that depend on the question, so that two questions read different pages."""

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int, **_: Any
    ) -> Reply[list[str]]:
        reply = await super().queries(question, step, previous, n)
        return Reply([f"{question} {query}" for query in reply.value])


CONTEXT = Context(
    allow_clarification=False, depth="extended", max_rounds=1, results_per_query=5, max_revisions=0
)
MERGES: dict[str, Callable[[Any, Any], Any]] = {
    "sources": merge_sources,
    "evidence": merge_evidence,
    "findings": merge_findings,
}


async def _ask(graph: Any, config: dict[str, Any], question: str) -> dict[str, Any]:
    """Run one question; return the lists its researchers' updates merge into, and the last
    draft, claims, citations and report written."""
    updates: list[dict[str, Any]] = []
    latest: dict[str, Any] = {}
    async for chunk in graph.astream(
        {"messages": [HumanMessage(question)]}, config, context=CONTEXT, stream_mode="updates"
    ):
        for node, update in chunk.items():
            if node == "researcher":
                updates.append(update)
            elif isinstance(update, dict):
                latest |= {k: v for k, v in update.items() if k in REPLACED}
    assert updates and latest.keys() == set(REPLACED)
    merged = {k: reduce(MERGES[k], (u[k] for u in updates if k in u), []) for k in GROWING}
    return merged | {k: v.value if isinstance(v, Overwrite) else v for k, v in latest.items()}


async def test_a_thread_read_back_from_sqlite_holds_what_the_researchers_returned(
    tmp_path: Path,
) -> None:
    async with open_checkpointer(f"sqlite:///{tmp_path / 'checkpoints.sqlite'}") as saver:
        graph = build_graph(
            engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        config: Any = {"configurable": {"thread_id": "delta"}}
        first = await _ask(graph, config, "Which storage sites?")
        state = (await graph.aget_state(config)).values
        assert len(first["sources"]) == 20
        assert {k: state[k] for k in KEPT} == first

        latest = await saver.aget_tuple(config)
        assert latest is not None
        assert not {*GROWING, *REPLACED} & latest.checkpoint["channel_values"].keys()
        assert all(first[k] for k in REPLACED), "the first answer has claims and a report"
        namespaces = {
            c.config["configurable"]["checkpoint_ns"]
            async for c in saver.alist({"configurable": {"thread_id": "delta"}})
        }
        assert namespaces == {""}, "researchers keep no checkpoints (nor copies of their records)"

        second = await _ask(graph, config, "Which of them are in Europe?")
        state = (await graph.aget_state(config)).values
        assert {k: state[k] for k in KEPT} == second, "clarify's reset is replayed"
        assert not {s.url for s in first["sources"]} & {s.url for s in second["sources"]}
        assert state["pool"] == extend_pool([], first["sources"])

        assert second["draft"] != first["draft"], "the second answer replaced the first"
        assert second["report"].question == "Which of them are in Europe?"
        resets = [
            c.metadata["step"]
            async for c in saver.alist(config)
            if not c.config["configurable"]["checkpoint_ns"]
            and all(isinstance(c.checkpoint["channel_values"].get(k), _DeltaSnapshot) for k in KEPT)
        ]
        assert len(resets) == 2, "each question's reset (an Overwrite) stores one snapshot"

        earlier = [s async for s in graph.aget_state_history(config)]
        end_of_first = next(s for s in earlier if s.values["question"] == "Which storage sites?")
        assert {k: end_of_first.values[k] for k in KEPT} == first
        reset = next(
            s
            for s in earlier
            if s.values["question"] == "Which of them are in Europe?" and s.next == ("plan",)
        )
        assert not any(reset.values[k] for k in REPLACED), "clarify's reset is replayed"


def test_the_report_channel_keeps_the_declared_type_for_the_schemas() -> None:
    """Studio and the server build the graph's schemas from each channel's declared type."""
    graph = build_graph(engine=QuestionEngine(1, 1), sources=[GeneratedWeb()])
    report = graph.get_output_jsonschema()["properties"]["report"]
    assert report["anyOf"] == [{"$ref": "#/$defs/Report"}, {"type": "null"}]
    channel = graph.channels["report"]
    assert channel.UpdateType == channel.copy().UpdateType == Report | None
    assert channel.from_checkpoint(None).get() is None, "an empty report is None"


@pytest.mark.parametrize("paused", [False, True], ids=["finished", "paused_at_plan_review"])
async def test_a_thread_with_the_report_in_its_checkpoints_reads_back_and_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paused: bool
) -> None:
    """A thread written while ``report`` was a plain channel (the report in every checkpoint,
    clarify resetting it to ``None``): its report reads back, and a follow-up question, or
    the question paused at its plan review, ends with its own report, stored as a write."""
    url = f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    config: Any = {"configurable": {"thread_id": "before"}}
    reviewed = replace(CONTEXT, review_plan=True)
    follow_up = {"messages": [HumanMessage("Which of them are in Europe?")]}
    with monkeypatch.context() as before:
        fresh = CLARIFY._fresh_question
        before.setattr(CLARIFY, "_fresh_question", lambda *a: fresh(*a) | {"report": None})
        async with open_checkpointer(url) as saver:
            graph = build_graph(
                engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
            )
            plain = LastValue(Report | None)
            plain.key = "report"
            before.setitem(graph.channels, "report", plain)
            first = await graph.ainvoke(
                {"messages": [HumanMessage("Which storage sites?")]}, config, context=CONTEXT
            )
            if paused:
                stop = await graph.ainvoke(follow_up, config, context=reviewed)
                assert stop["__interrupt__"][0].value["type"] == "plan_review"
            stored = await saver.aget_tuple(config)
    assert stored is not None
    kept = stored.checkpoint["channel_values"]["report"]
    assert kept == (None if paused else first["report"]), "the old layout: a checkpoint value"

    async with open_checkpointer(url) as saver:
        graph = build_graph(
            engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        state = (await graph.aget_state(config)).values
        assert state["report"] == kept
        if paused:
            second = await graph.ainvoke(Command(resume="approve"), config, context=reviewed)
        else:
            second = await graph.ainvoke(follow_up, config, context=CONTEXT)
        state = (await graph.aget_state(config)).values
        latest = await saver.aget_tuple(config)
        history = [s async for s in graph.aget_state_history(config)]
    assert second["report"].question == "Which of them are in Europe?"
    assert state["report"] == second["report"]
    assert latest is not None and "report" not in latest.checkpoint["channel_values"]
    end_of_first = next(s for s in history if s.values["question"] == "Which storage sites?")
    assert end_of_first.values["report"] == first["report"]


async def test_a_thread_with_a_citations_channel_reads_back_and_continues(
    tmp_path: Path,
) -> None:
    """Threads written while ``citations`` was a channel of its own keep its value in their
    checkpoints (and may hold a pending write to it): the graph, which derives the citations
    from the claims now, reads such a thread and answers a follow-up question."""
    url = f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    config: Any = {"configurable": {"thread_id": "citations"}}
    async with open_checkpointer(url) as saver:
        graph = build_graph(
            engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        first = await graph.ainvoke(
            {"messages": [HumanMessage("Which storage sites?")]}, config, context=CONTEXT
        )
        stored = await saver.aget_tuple(config)
        assert stored is not None
        old = [c.model_copy(update={"quote": None}) for c in first["report"].citations]
        # a checkpoint after it, as the old layout stored one: the citations as a value
        checkpoint = copy_checkpoint(stored.checkpoint)
        checkpoint["id"] = str(uuid6(clock_seq=-2))
        version = checkpoint["channel_versions"]["claims"]
        checkpoint["channel_values"]["citations"] = old
        checkpoint["channel_versions"]["citations"] = version
        metadata = {**stored.metadata, "step": stored.metadata["step"] + 1}
        config = await saver.aput(stored.config, checkpoint, metadata, {"citations": version})
        await saver.aput_writes(config, [("citations", old)], "an-old-task")
        written = await saver.aget_tuple(config)
        assert written is not None and written.checkpoint["channel_values"]["citations"] == old
        assert [w[1] for w in written.pending_writes or []] == ["citations"]

        state = (await graph.aget_state(config)).values
        assert "citations" not in state and state["report"] == first["report"]
        follow_up = {"messages": [HumanMessage("Which storage sites opened first?")]}
        second = await graph.ainvoke(follow_up, config, context=CONTEXT)
    assert second["report"].question == "Which storage sites opened first?"
    assert second["report"].citations, "the follow-up's citations come from its claims"


@st.composite
def message_writes(draw: st.DrawFn) -> list[AnyMessage]:
    """A write of a few messages: questions and answers, some with ids that collide."""
    kinds = st.sampled_from([HumanMessage, AIMessage])
    return [
        draw(kinds)(
            draw(st.sampled_from(["yes", "How large?", "A report."])),
            id=draw(st.sampled_from([None, None, "m1", "m2"])),
        )
        for _ in range(draw(st.integers(1, 3)))
    ]


def _add_questions(left: list[AnyMessage], right: list[AnyMessage]) -> list[AnyMessage]:
    """``add_messages``, but a human message never replaces one of another type: it is new."""
    types = {m.id: m.type for m in left}
    added = [
        m.model_copy(update={"id": None})
        if m.type == "human" and types.get(m.id, "human") != "human"
        else m
        for m in right
    ]
    return add_messages(left, added)  # type: ignore[return-value]


@SETTINGS
@given(
    st.lists(message_writes(), max_size=3),
    st.lists(message_writes(), max_size=4),
    st.lists(message_writes(), max_size=4),
)
def test_messages_merge_alike_however_batched_and_id_less_ones_get_the_same_ids(
    state: list[list[AnyMessage]], xs: list[list[AnyMessage]], ys: list[list[AnyMessage]]
) -> None:
    """What ``add_messages`` gives, with the random ids of id-less messages replaced by ids
    that a replay of the same writes gives again (a ``DeltaChannel`` replays them)."""
    written = [m.id for write in [*state, *xs, *ys] for m in write]
    start = add_message_batches([], state)
    once = add_message_batches(start, xs + ys)
    assert add_message_batches(add_message_batches(start, xs), ys) == once
    assert add_message_batches(add_message_batches([], state), xs + ys) == once, "same ids"
    assert [m.id for write in [*state, *xs, *ys] for m in write] == written, "writes unchanged"
    ids = [m.id for m in once]
    assert None not in ids and len(set(ids)) == len(ids)
    plain = reduce(_add_questions, xs + ys, reduce(_add_questions, state, []))  # random ids
    assert [(m.type, m.content) for m in once] == [(m.type, m.content) for m in plain]


def test_messages_keep_add_messages_updates_and_removals() -> None:
    first = add_message_batches([], [[HumanMessage("How large?"), AIMessage("Draft.")]])
    answer = first[1]
    edited = add_message_batches(first, [AIMessage("Report.", id=answer.id)])
    assert [m.content for m in edited] == ["How large?", "Report."]
    assert add_message_batches(edited, [RemoveMessage(id=answer.id)]) == first[:1]
    # the question removed, the same answer written again where the first one stood would
    # get the first one's id: it draws another instead of replacing the first
    kept = add_message_batches(first, [RemoveMessage(id=first[0].id)])
    again = add_message_batches(kept, [AIMessage("Draft.")])
    assert [m.content for m in again] == ["Draft.", "Draft."]
    assert again[0].id == answer.id != again[1].id


def test_a_question_sent_with_the_answers_id_does_not_replace_the_answer() -> None:
    """A client writes human messages; one with the id of the graph's answer is a new one."""
    chat = add_message_batches([], [[HumanMessage("How large?"), AIMessage("Report.")]])
    answer = chat[1]
    forged = add_message_batches(chat, [[HumanMessage("Forged reply.", id=answer.id)]])
    assert [(m.type, m.content) for m in forged] == [
        ("human", "How large?"),
        ("ai", "Report."),
        ("human", "Forged reply."),
    ]
    assert forged[1].id == answer.id and forged[2].id not in (m.id for m in chat)
    again = add_message_batches(chat, [[HumanMessage("Forged reply.", id=answer.id)]])
    assert again == forged  # a replay gives the same ids
    edited = add_message_batches(chat, [[HumanMessage("How large, in MWh?", id=chat[0].id)]])
    assert [m.content for m in edited] == ["How large, in MWh?", "Report."]  # as add_messages


async def test_a_follow_up_question_stores_no_earlier_message_again() -> None:
    """Each message is stored once, as the write that added it (the chat's earlier reports
    are not copied into the follow-up's checkpoints), and every read gives the same ids."""
    saver = CompactMemorySaver(serde=make_serde())
    graph = build_graph(engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "chat"}}
    first = await graph.ainvoke(
        {"messages": [HumanMessage("Which storage sites?")]}, config, context=CONTEXT
    )
    follow_up = {"messages": [HumanMessage("Which of them are in Europe?")]}
    second = await graph.ainvoke(follow_up, config, context=CONTEXT)
    state = (await graph.aget_state(config)).values
    again = (await graph.aget_state(config)).values
    assert [m.content for m in state["messages"]] == [
        "Which storage sites?",
        chat_markdown(first["report"].markdown),
        "Which of them are in Europe?",
        chat_markdown(second["report"].markdown),
    ]
    assert [m.id for m in state["messages"]] == [m.id for m in second["messages"]]
    assert [m.id for m in again["messages"]] == [m.id for m in state["messages"]]

    serde = make_serde()
    stored = [
        serde.loads_typed(v)
        for k, v in saver.blobs.items()
        if k[2] == "messages" and v[0] != "empty"
    ]
    stored += [
        serde.loads_typed(w[2])
        for writes in saver.writes.values()
        for w in writes.values()
        if w[1] == "messages"
    ]
    held = [
        m.content
        for value in stored
        for m in (value if isinstance(value, list) else [])
        if isinstance(m, AIMessage) and not is_progress(m)  # progress lines: written, removed
    ]
    reports = [chat_markdown(first["report"].markdown), chat_markdown(second["report"].markdown)]
    assert sorted(held) == sorted(reports)


async def test_a_thread_with_the_messages_in_its_checkpoints_reads_back_and_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread written while ``messages`` was a plain ``add_messages`` channel (the chat in
    every checkpoint that changed it) reads back with its messages and their ids, and a
    follow-up question appends its question and report, stored as writes."""
    url = f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    config: Any = {"configurable": {"thread_id": "before"}}
    async with open_checkpointer(url) as saver:
        graph = build_graph(
            engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        plain = BinaryOperatorAggregate(list, add_messages)
        plain.key = "messages"
        monkeypatch.setitem(graph.channels, "messages", plain)
        first = await graph.ainvoke(
            {"messages": [HumanMessage("Which storage sites?")]}, config, context=CONTEXT
        )
        stored = await saver.aget_tuple(config)
    assert stored is not None
    kept = stored.checkpoint["channel_values"]["messages"]
    assert [m.id for m in kept] == [m.id for m in first["messages"]], "the old layout: a value"

    monkeypatch.undo()
    async with open_checkpointer(url) as saver:
        graph = build_graph(
            engine=QuestionEngine(2, 2), sources=[GeneratedWeb()], checkpointer=saver
        )
        state = (await graph.aget_state(config)).values
        assert state["messages"] == kept
        follow_up = {"messages": [HumanMessage("Which of them are in Europe?")]}
        second = await graph.ainvoke(follow_up, config, context=CONTEXT)
        state = (await graph.aget_state(config)).values
        latest = await saver.aget_tuple(config)
    assert latest is not None and "messages" not in latest.checkpoint["channel_values"]
    assert state["messages"][:2] == kept
    assert [m.content for m in state["messages"][2:]] == [
        "Which of them are in Europe?",
        second["report"].markdown,
    ]
    assert [m.id for m in state["messages"]] == [m.id for m in second["messages"]]
