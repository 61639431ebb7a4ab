"""read_sources: a researcher reads its results' pages and picks evidence from them."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research import worker
from deep_research.context import Context
from deep_research.engines import Engine, Windowed
from deep_research.engines.quotes import locate_quotes
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.sources.documents import with_pages
from deep_research.sources.evidence import step_terms
from deep_research.sources.passages import PASSAGE_BUDGET, rank_passages
from deep_research.sources.reading import read_results, source_of
from deep_research.state import (
    Document,
    Passage,
    ResearcherState,
    SearchResult,
    Source,
    TokenUsage,
)


async def read_sources(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Read each new result, keep its text, and have the engine pick evidence from it.

    The pages' passages are ranked for the step within the engine's reading budget (sized by
    its window and the depth, :func:`passage_words`); the engine reads them and quotes what
    answers the step, and each quote is located in its page (a quote that is not there is
    dropped and counted by reason, in the ``evidence_picked`` event and the run's usage).
    """
    providers = {
        p.name: p
        for p in [
            *await services.sources_for(context_of(runtime)),
            *services.chat_pool(state, runtime),
        ]
    }
    outcomes = await read_results(state.results, providers, timeout=state.config.fetch_timeout)
    pages = [
        (hit, document)
        for hit, document in zip(state.results, outcomes, strict=True)
        if isinstance(document, Document)  # else blocked, skipped or failed, with the reason
    ]
    await services.keep_documents(runtime, [document for _, document in pages])
    engine = services.engine_for(context_of(runtime))
    words = passage_words(engine, state.config.depth)
    # pure computing: off the event loop, in turn with the other researchers' (worker.py)
    scanned, passages = await worker.in_turn(_scan_and_rank, state, pages, words)
    reply = await engine.pick_evidence(state.question, state.step, state.queries, passages)
    located = locate_quotes(reply.value, passages, state.step)
    evidence = with_pages(located.spans, [document for _, document in pages])  # "p. 12"
    read = iter(scanned)
    sources = [next(read) if isinstance(o, Document) else o for o in outcomes]
    for _, document in pages:
        emit(
            runtime,
            "source_found",
            step_id=state.step.id,
            url=document.url,
            title=document.title,
            evidence=sum(1 for e in evidence if e.document_id == document.id),
        )
    emit(
        runtime,
        "evidence_picked",
        step_id=state.step.id,
        passages=len(passages),
        tokens=sum(p.tokens for p in passages),
        quotes=len(reply.value),
        located=len(evidence),
        dropped=located.dropped,
        drops=located.drops,
    )
    usage = reply.usage + TokenUsage(picks_dropped=located.drops)
    return {"sources": sources, "evidence": evidence, "usage": usage}


def passage_words(engine: Engine, depth: str) -> int:
    """Words of passages a pick is shown: the engine's window-sized budget, or the depth's."""
    return engine.passage_words(depth) if isinstance(engine, Windowed) else PASSAGE_BUDGET[depth]


def _scan_and_rank(
    state: ResearcherState, pages: list[tuple[SearchResult, Document]], words: int
) -> tuple[list[Source], list[Passage]]:
    """The pages' source records (their texts scanned for injection), and their best passages.

    Each passage carries its page's date, when the page's record has one.
    """
    documents = [document for _, document in pages]
    scanned = [source_of(hit, document) for hit, document in pages]
    passages = rank_passages(
        documents,
        step_terms(state.step, state.queries),
        budget=words,
        clean={d.id for d, s in zip(documents, scanned, strict=True) if not s.flags},
        dates={
            d.id: s.bib.date
            for d, s in zip(documents, scanned, strict=True)
            if s.bib and s.bib.date
        },
    )
    return scanned, passages
