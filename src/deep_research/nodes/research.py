"""The researcher subgraph's steps: queries → search → read → notes, within a budget."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from deep_research import worker
from deep_research.context import Context
from deep_research.engines import Engine, Windowed, evidence_key
from deep_research.engines.quotes import locate_quotes
from deep_research.errors import SourceError
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.sources.base import SourceProvider
from deep_research.sources.evidence import step_terms
from deep_research.sources.passages import PASSAGE_BUDGET, rank_passages
from deep_research.sources.pool import chat_pool
from deep_research.sources.reading import interleave, read_results, source_of
from deep_research.state import (
    Document,
    Finding,
    Passage,
    ResearcherState,
    SearchResult,
    Source,
    TokenUsage,
)
from deep_research.state.scholarly import merge_works, work_tags
from deep_research.urls import domain_of
from deep_research.verification.citations import keys_to_markers


async def generate_queries(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Ask the engine for new queries (fewer on a second pass)."""
    engine = services.engine_for(context_of(runtime))
    n = state.config.budget.queries_per_step if state.iteration == 0 else 2
    finding = state.findings[-1] if state.findings else None  # a second pass: aim at the gaps
    reply = await engine.queries(state.question, state.step, state.queries, n, finding=finding)
    for query in reply.value:
        emit(runtime, "query_issued", step_id=state.step.id, query=query)
    return {
        "new_queries": reply.value,
        "queries": [*state.queries, *reply.value],
        "iteration": state.iteration + 1,
        "usage": reply.usage,
    }


async def search_sources(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Search every provider with the new queries; dedupe and cap results per domain."""
    k = state.config.budget.results_per_query
    seen = {url for s in state.sources for url in (s.url, *s.aliases)}
    known = {tag for s in state.sources for tag in work_tags(s.bib)}
    per_domain: dict[str, int] = {}
    for source in state.sources:
        per_domain[domain_of(source.url)] = per_domain.get(domain_of(source.url), 0) + 1
    providers = [*await services.sources_for(context_of(runtime)), *chat_pool(state, runtime)]
    pairs = [(query, provider) for query in state.new_queries for provider in providers]
    # the searches are independent requests: send them together, then merge in query order
    outcomes = await asyncio.gather(*(_search(p, q, k) for q, p in pairs))
    results: list[SearchResult] = []
    for query in state.new_queries:
        ranked: list[list[SearchResult]] = []
        for (asked, provider), outcome in zip(pairs, outcomes, strict=True):
            if asked != query:
                continue
            if isinstance(outcome, SourceError):  # a failed query: reported, the others go on
                emit(
                    runtime,
                    "error",
                    step_id=state.step.id,
                    provider=provider.name,
                    query=query,
                    error=str(outcome),
                )
            else:
                ranked.append(outcome)
        # one work found by several scholarly APIs is one result
        for hit in merge_works(interleave(ranked)):
            tags = work_tags(hit.bib)
            domain = domain_of(hit.url)
            capped = not tags and per_domain.get(domain, 0) >= state.config.per_domain_cap
            if hit.url in seen or tags & known or capped:
                continue
            seen.add(hit.url)
            known |= tags
            if not tags:  # a work's link (doi.org) is not a site: no domain cap
                per_domain[domain] = per_domain.get(domain, 0) + 1
            results.append(hit)
    return {"results": results}


async def _search(provider: SourceProvider, query: str, k: int) -> list[SearchResult] | SourceError:
    try:
        return await provider.search(query, k)
    except SourceError as exc:
        return exc


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
        for p in [*await services.sources_for(context_of(runtime)), *chat_pool(state, runtime)]
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
    evidence = located.spans
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


async def take_notes(
    state: ResearcherState, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Summarize the step's evidence and judge whether it is enough.

    An engine sized by its window takes every located quote of the step (the notes prompt
    fits what its window holds, the most relevant first); the offline engine its best
    ``spans_per_step * 2``. The finding keeps them all, for the writer.
    """
    engine = services.engine_for(context_of(runtime))
    evidence = sorted(state.evidence, key=lambda e: -e.relevance)
    if not isinstance(engine, Windowed):
        evidence = evidence[: state.config.budget.spans_per_step * 2]
    reply = await engine.notes(state.question, state.step, evidence)
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    finding = Finding(
        step_id=state.step.id,
        notes=keys_to_markers(reply.value.notes, keys),
        evidence_ids=[e.id for e in evidence],
        queries=state.queries,
        searches=len(state.queries),
        sufficient=reply.value.sufficient,
        missing=reply.value.missing.strip(),
    )
    emit(
        runtime,
        "step_completed",
        step_id=state.step.id,
        sources=len(state.sources),
        evidence=len(evidence),
        sufficient=finding.sufficient,
    )
    return {"findings": [finding], "usage": reply.usage}
