"""With a content store, graph state keeps evidence as offsets into the stored page text.

A span's quote is a slice of its page (``document.text[start:end]``), and the page is in the
content store already, so checkpoints keep :class:`EvidenceRef`s and the nodes that read
quotes cut them from the store. These tests run the graph on the offline engine over the
sample corpus with and without a store: the store changes what the checkpoints hold, never
the report, and the quotes cut from the store are the quotes the spans had.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from pydantic import ValidationError

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.persistence.compression import decompress
from deep_research.persistence.content import put_document, resolve_evidence, state_evidence
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import Document, EvidenceRef, EvidenceSpan, Report

QUESTION = "What did Hornsdale Power Reserve cost, and how do LFP and NMC batteries compare?"
CONTEXT = Context(allow_clarification=False, depth="light")


@dataclass
class Run:
    """One finished run: its state as read back, its report, its saver and its store."""

    values: dict[str, Any]
    report: Report
    saver: InMemorySaver
    store: InMemoryStore | None


async def _run(corpus: LocalCorpus, *, with_store: bool) -> Run:
    saver, store = InMemorySaver(serde=make_serde()), InMemoryStore() if with_store else None
    graph = build_graph(engine=OfflineEngine(), sources=[corpus], checkpointer=saver, store=store)
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    out = await graph.ainvoke({"messages": [HumanMessage(QUESTION)]}, config, context=CONTEXT)
    values = dict((await graph.aget_state(config)).values)
    return Run(values, out["report"], saver, store)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Run]:
    data = tmp_path_factory.mktemp("data")
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(data, SAMPLE_CORPUS))

    async def both() -> tuple[Run, Run]:
        return await _run(corpus, with_store=False), await _run(corpus, with_store=True)

    return asyncio.run(both())


def _stable(report: Report) -> dict[str, Any]:
    data = report.model_dump(mode="json")
    data.pop("created_at")
    data["metrics"].pop("duration_seconds")
    return data


def test_the_store_changes_no_report(runs: tuple[Run, Run]) -> None:
    inline, stored = runs
    assert _stable(stored.report) == _stable(inline.report)
    quoted = [c for c in stored.report.citations if c.quote]
    assert quoted, "report.json still carries the quotes"


def test_state_keeps_references_with_a_store_and_quotes_without(runs: tuple[Run, Run]) -> None:
    inline, stored = runs
    assert inline.values["evidence"]
    assert all(isinstance(e, EvidenceSpan) for e in inline.values["evidence"])
    assert all(isinstance(e, EvidenceRef) for e in stored.values["evidence"])
    assert [e.id for e in stored.values["evidence"]] == [e.id for e in inline.values["evidence"]]


async def test_quotes_cut_from_the_store_are_the_spans_quotes(runs: tuple[Run, Run]) -> None:
    inline, stored = runs
    resolved = await resolve_evidence(stored.store, stored.values["evidence"])
    assert resolved == inline.values["evidence"]


def _evidence_writes(saver: InMemorySaver) -> list[bytes]:
    """The stored payloads of every write to an ``evidence`` channel, in any namespace."""
    payloads = []
    for writes in saver.writes.values():
        for _task, channel, (type_, blob), _path in writes.values():
            if channel == "evidence":
                payloads.append(decompress(type_, blob)[1])
    return payloads


def test_checkpoints_hold_no_quote_text_with_a_store(runs: tuple[Run, Run]) -> None:
    inline, stored = runs
    quotes = [e.quote.encode() for e in inline.values["evidence"] if len(e.quote) >= 40]
    assert quotes
    without = _evidence_writes(inline.saver)
    assert any(q in payload for q in quotes for payload in without), "the check can see quotes"
    payloads = _evidence_writes(stored.saver)
    assert payloads, "the researchers' and the main graph's evidence writes are checked"
    assert not any(q in payload for q in quotes for payload in payloads)
    assert sum(map(len, payloads)) < sum(map(len, without))


PAGE = "Hornsdale Power Reserve cost A$90 million. It stores 129 MWh. It opened in 2017."


def _span(start: int, end: int, document_id: str = "doc_a") -> EvidenceSpan:
    return EvidenceSpan(
        id=f"ev_{start}",
        url="https://example.org/hornsdale",
        document_id=document_id,
        step_id="s01",
        quote=PAGE[start:end],
        start=start,
        end=end,
    )


async def test_resolve_keeps_order_and_inline_spans_and_drops_what_is_not_stored() -> None:
    store = InMemoryStore()
    await put_document(
        store, Document(id="doc_a", url="https://example.org/hornsdale", title="H", text=PAGE)
    )
    first, second, gone = _span(0, 42), _span(43, 62), _span(0, 42, document_id="doc_gone")
    spans = [second.ref(), first, gone.ref()]
    assert await resolve_evidence(store, spans) == [second, first]
    assert await resolve_evidence(None, [first, second.ref()]) == [first]


def test_state_evidence_refers_only_when_there_is_a_store() -> None:
    span = _span(0, 42)
    assert state_evidence(None, [span]) == [span]
    (ref,) = state_evidence(InMemoryStore(), [span])
    assert isinstance(ref, EvidenceRef) and ref.resolve(PAGE) == span


def test_a_reference_cannot_end_before_it_starts() -> None:
    fields = _span(0, 42).ref().model_dump()
    with pytest.raises(ValidationError):
        EvidenceRef(**{**fields, "start": 42, "end": 0})
