"""The final report, from the verified draft: pure functions that finalize calls in order.

1. :func:`number_references`: references numbered by first citation in the draft, one per URL;
2. :func:`render_markdown`: the title, the numbered body (claims' offsets moved into it
   exactly), the verification note and the reference list;
3. :func:`compute_metrics`: duration, tokens, cost estimate, sources, domains, cache use;
4. :func:`build_report`: the v1 :class:`~deep_research.state.Report`.

Nothing here reads the clock but :func:`compute_metrics`, through its ``now`` argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from deep_research.state import (
    Citation,
    Claim,
    Config,
    EvidenceSpan,
    Finding,
    Metrics,
    Reference,
    Report,
    ReportSection,
    Source,
    TokenUsage,
    VerificationSummary,
)
from deep_research.urls import domain_of
from deep_research.verification.citations import cited_ids_in_order, render_with_offsets

PRICE_PER_MILLION = (0.40, 1.60)
"""USD per million prompt and completion tokens used for the cost estimate (gpt-4.1-mini)."""

APPENDICES = ("References", "Verification")
"""Sections the report adds after the body; they are not part of its outline."""


@dataclass(frozen=True)
class Numbering:
    """The references, and the reference number of every evidence span that has one."""

    references: list[Reference]
    number_of: dict[str, int]
    """Evidence id -> reference number (spans of one URL share it)."""


@dataclass(frozen=True)
class Rendered:
    """The report's Markdown and its claims, with offsets into that Markdown."""

    markdown: str
    claims: list[Claim]


def location(url: str, roots: Sequence[Path] = ()) -> str:
    """Where a reference is: the file path of a local document, else its URL.

    With ``roots`` (a served run's corpus roots), a local document's path is relative to the
    root that holds it, so a report does not show the server's folders.
    """
    if not url.startswith("file://"):
        return url
    path = Path(unquote(url.removeprefix("file://")))
    for root in roots:
        if path.is_relative_to(root):
            return str(path.relative_to(root))
    return str(path) if not roots else path.name


def number_references(
    draft: str,
    evidence: Sequence[EvidenceSpan],
    sources: Sequence[Source],
    roots: Sequence[Path] = (),
) -> Numbering:
    """Number the cited URLs by first citation in ``draft`` (``roots``: see :func:`location`)."""
    by_id = {e.id: e for e in evidence}
    titles = {s.url: s.title for s in sources}
    number_of_url: dict[str, int] = {}
    for evidence_id in cited_ids_in_order(draft):
        if evidence_id in by_id:
            number_of_url.setdefault(by_id[evidence_id].url, len(number_of_url) + 1)
    references = [
        Reference(number=n, url=url, title=titles.get(url, url), location=location(url, roots))
        for url, n in number_of_url.items()
    ]
    number_of = {i: number_of_url[e.url] for i, e in by_id.items() if e.url in number_of_url}
    return Numbering(references=references, number_of=number_of)


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
    if summary.supported_ratio is None:
        return f"No claim could be checked against the evidence. {revision}"
    return (
        f"{summary.total} claims were checked against the evidence they cite: "
        f"{summary.supported} supported, {summary.partial} partially supported, "
        f"{summary.unsupported} unsupported, {summary.contradicted} contradicted "
        f"({summary.supported_ratio:.0%} of the checked claims fully supported). {revision}"
    )


def render_markdown(
    title: str,
    draft: str,
    claims: Sequence[Claim],
    numbering: Numbering,
    verification: VerificationSummary,
) -> Rendered:
    """The report's Markdown, and the claims with their offsets moved into it exactly."""
    rendered, moved = render_with_offsets(draft, numbering.number_of)
    body = rendered.strip()
    heading = f"# {title}\n\n"
    offset = len(heading) - (len(rendered) - len(rendered.lstrip()))
    placed = [
        claim.model_copy(
            update={
                "position_start": moved(claim.position_start) + offset,
                "position_end": moved(claim.position_end) + offset,
            }
        )
        for claim in claims
    ]
    markdown = f"{heading}{body}\n"
    if verification.passes:
        markdown += f"\n## Verification\n\n{verification_note(verification)}\n"
    if numbering.references:
        listed = "\n".join(f"{r.number}. {r.title} — {r.location}" for r in numbering.references)
        markdown += f"\n## References\n\n{listed}\n"
    return Rendered(markdown=markdown, claims=placed)


def sections(markdown: str) -> list[ReportSection]:
    """The report's ``##`` sections, the appendices left out."""
    found: list[ReportSection] = []
    for block in markdown.split("\n## ")[1:]:
        title, _, body = block.partition("\n")
        if title.strip() not in APPENDICES:
            found.append(ReportSection(title=title.strip(), markdown=body.strip()))
    return found


def final_citations(
    citations: Sequence[Citation],
    evidence: Sequence[EvidenceSpan],
    claims: Sequence[Claim],
    number_of: Mapping[str, int],
) -> list[Citation]:
    """The kept claims' citations, with their reference numbers and quotes filled in."""
    by_id = {e.id: e for e in evidence}
    kept = {c.id for c in claims}
    return [
        c.model_copy(
            update={
                "reference_number": number_of.get(c.evidence_id),
                "quote": by_id[c.evidence_id].quote if c.evidence_id in by_id else None,
            }
        )
        for c in citations
        if c.claim_id in kept
    ]


def compute_metrics(
    *,
    usage: TokenUsage,
    sources: Sequence[Source],
    evidence: Sequence[EvidenceSpan],
    findings: Sequence[Finding],
    references: Sequence[Reference],
    rounds: int,
    started_at: float,
    now: float,
) -> Metrics:
    """The run's metrics (``started_at`` 0 means unknown: the duration is then 0)."""
    cost = usage.prompt_tokens * PRICE_PER_MILLION[0]
    cost += usage.completion_tokens * PRICE_PER_MILLION[1]
    return Metrics(
        duration_seconds=round(now - started_at, 3) if started_at else 0.0,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        model_calls=usage.calls,
        cost_estimate_usd=round(cost / 1e6, 6),
        searches=sum(f.searches for f in findings),
        sources_consulted=len(sources),
        sources_cited=len(references),
        distinct_domains=len({domain_of(s.url) for s in sources}),
        evidence_spans=len(evidence),
        rounds=rounds,
        cache_hits=sum(1 for s in sources if s.cache == "hit"),
        cache_misses=sum(1 for s in sources if s.cache == "miss"),
    )


def build_report(
    *,
    question: str,
    brief: str,
    rendered: Rendered,
    numbering: Numbering,
    citations: list[Citation],
    sources: list[Source],
    verification: VerificationSummary,
    metrics: Metrics,
    config: Config,
) -> Report:
    """The v1 report."""
    found = sections(rendered.markdown)
    return Report(
        question=question,
        topic=brief or question,
        outline=[s.title for s in found],
        sections=found,
        markdown=rendered.markdown,
        claims=rendered.claims,
        citations=citations,
        references=numbering.references,
        sources=sources,
        verification=verification,
        metrics=metrics,
        config=config,
        extractive=config.extractive,
    )
