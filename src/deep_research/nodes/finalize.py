"""finalize: number references by first appearance and assemble the v1 report."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.events import emit
from deep_research.persistence import message_row
from deep_research.services import DEFAULT_SERVICES, Services
from deep_research.state import (
    Citation,
    Claim,
    Metrics,
    Reference,
    Report,
    ReportSection,
    State,
    VerificationSummary,
)
from deep_research.urls import domain_of
from deep_research.verification.citations import cited_ids_in_order, render_with_offsets

PRICE_PER_MILLION = (0.40, 1.60)
"""USD per million prompt and completion tokens used for the cost estimate (gpt-4.1-mini)."""


def _location(url: str) -> str:
    return url.removeprefix("file://") if url.startswith("file://") else url


APPENDICES = ("References", "Verification")
"""Sections finalize adds; they are not part of the report's outline."""


def _sections(markdown: str) -> list[ReportSection]:
    sections: list[ReportSection] = []
    for block in markdown.split("\n## ")[1:]:
        title, _, body = block.partition("\n")
        if title.strip() not in APPENDICES:
            sections.append(ReportSection(title=title.strip(), markdown=body.strip()))
    return sections


def _body(state: State, number_of: dict[str, int]) -> tuple[str, list[Claim]]:
    """The numbered body, and the claims with their offsets moved into it exactly."""
    rendered, moved = render_with_offsets(state.draft, number_of)
    body = rendered.strip()
    lead = len(rendered) - len(rendered.lstrip())
    offset = len(f"# {state.question}\n\n") - lead
    claims = [
        claim.model_copy(
            update={
                "position_start": moved(claim.position_start) + offset,
                "position_end": moved(claim.position_end) + offset,
            }
        )
        for claim in state.claims
    ]
    return body, claims


def verification_note(summary: VerificationSummary) -> str:
    """One paragraph stating what verification found and what revision changed."""
    passes = f"{summary.passes} verification pass{'' if summary.passes == 1 else 'es'}"
    if summary.recited or summary.corrected or summary.removed:
        revision = (
            f"Revision re-cited {summary.recited}, corrected {summary.corrected} and removed "
            f"{summary.removed} claims ({passes})."
        )
    else:
        revision = f"No claim needed revision ({passes})."
    return (
        f"{summary.total} claims were checked against the evidence they cite: "
        f"{summary.supported} supported, {summary.partial} partially supported, "
        f"{summary.unsupported} unsupported, {summary.contradicted} contradicted "
        f"({summary.supported_ratio:.0%} fully supported). {revision}"
    )


def _citations(state: State, kept: set[str], number_of: dict[str, int]) -> list[Citation]:
    by_id = {e.id: e for e in state.evidence}
    return [
        c.model_copy(
            update={
                "reference_number": number_of.get(c.evidence_id),
                "quote": by_id[c.evidence_id].quote if c.evidence_id in by_id else None,
            }
        )
        for c in state.citations
        if c.claim_id in kept
    ]


async def finalize(
    state: State, runtime: Runtime[Context], *, services: Services = DEFAULT_SERVICES
) -> dict[str, Any]:
    """Render the final Markdown with numbered references and build the report."""
    assert state.config is not None, "plan runs before finalize"
    by_id = {e.id: e for e in state.evidence}
    titles = {s.url: s.title for s in state.sources}
    number_of_url: dict[str, int] = {}
    for evidence_id in cited_ids_in_order(state.draft):
        if evidence_id in by_id:
            number_of_url.setdefault(by_id[evidence_id].url, len(number_of_url) + 1)
    number_of = {i: number_of_url[e.url] for i, e in by_id.items() if e.url in number_of_url}
    references = [
        Reference(number=n, url=url, title=titles.get(url, url), location=_location(url))
        for url, n in number_of_url.items()
    ]
    body, claims = _body(state, number_of)
    reference_list = "\n".join(f"{r.number}. {r.title} — {r.location}" for r in references)
    markdown = f"# {state.question}\n\n{body}\n"
    if state.verification.passes:
        markdown += f"\n## Verification\n\n{verification_note(state.verification)}\n"
    if references:
        markdown += f"\n## References\n\n{reference_list}\n"
    usage = state.usage
    metrics = Metrics(
        duration_seconds=round(time.time() - state.started_at, 3) if state.started_at else 0.0,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        model_calls=usage.calls,
        cost_estimate_usd=round(
            (
                usage.prompt_tokens * PRICE_PER_MILLION[0]
                + usage.completion_tokens * PRICE_PER_MILLION[1]
            )
            / 1e6,
            6,
        ),
        searches=sum(f.searches for f in state.findings),
        sources_consulted=len(state.sources),
        sources_cited=len(references),
        distinct_domains=len({domain_of(s.url) for s in state.sources}),
        evidence_spans=len(state.evidence),
        rounds=state.round,
        cache_hits=sum(1 for s in state.sources if s.cache == "hit"),
        cache_misses=sum(1 for s in state.sources if s.cache == "miss"),
    )
    kept = {c.id for c in claims}
    report = Report(
        question=state.question,
        topic=state.brief or state.question,
        outline=[s.title for s in _sections(markdown)],
        sections=_sections(markdown),
        markdown=markdown,
        claims=claims,
        citations=_citations(state, kept, number_of),
        references=references,
        sources=state.sources,
        verification=state.verification,
        metrics=metrics,
        config=state.config,
        extractive=state.config.extractive,
    )
    emit(
        runtime,
        "research_completed",
        references=len(references),
        claims=len(claims),
        supported_ratio=state.verification.supported_ratio,
        verification=state.verification.model_dump(),
    )
    recorded = [c for c in report.citations if c.evidence_id in by_id]
    await services.record(
        runtime,
        state.question_nr,
        session={"status": "completed", "report": report.model_dump(mode="json", by_alias=True)},
        messages=[
            message_row(state.question_nr, 3, "assistant", markdown, query_mode=report.config.mode)
        ],
        sources=state.sources,
        evidence=[by_id[c.evidence_id] for c in recorded],
        claims=report.claims,
        final_claims=True,
        citations=recorded,
        cited_urls=[r.url for r in references],
    )
    return {"report": report, "messages": [AIMessage(markdown)]}
