"""search_sources: a researcher searches every provider with its new queries."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.errors import SourceError
from deep_research.events import emit
from deep_research.services import Services, context_of
from deep_research.sources.base import SourceProvider
from deep_research.sources.reading import interleave
from deep_research.state import (
    ResearcherState,
    SearchResult,
)
from deep_research.state.scholarly import merge_works, work_tags
from deep_research.urls import domain_of


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
    providers = [
        *await services.sources_for(context_of(runtime)),
        *services.chat_pool(state, runtime),
    ]
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
