"""The report's pure functions: numbering, rendering with exact offsets, metrics, sections."""

from __future__ import annotations

from deep_research.report.build import (
    compute_metrics,
    final_citations,
    number_references,
    render_markdown,
    sections,
    verification_line,
    verification_note,
)
from deep_research.state import (
    Citation,
    Claim,
    EvidenceSpan,
    Finding,
    Source,
    TokenUsage,
    VerificationSummary,
)

A, B = "https://a.example/page", "file:///corpus/b.md"


def span(id: str, url: str, quote: str) -> EvidenceSpan:
    return EvidenceSpan(
        id=id, url=url, document_id="doc", step_id="s01", quote=quote, start=0, end=len(quote)
    )


EVIDENCE = [
    span("ev_b1", B, "B says one thing."),
    span("ev_a1", A, "A says another."),
    span("ev_a2", A, "A says more."),
    span("ev_unused", "https://c.example/", "Never cited."),
]
SOURCES = [
    Source(url=A, title="Page A", provider="tavily", cache="hit"),
    Source(url=B, title="File B", provider="local"),
    Source(url="https://c.example/", title="C", provider="tavily", cache="miss"),
]
DRAFT = (
    "## Findings\n\nFirst claim here [@ev_a2]. Second claim there [@ev_b1][@ev_a1].\n\n"
    "Third claim [@ev_unknown]."
)


def claim(text: str) -> Claim:
    start = DRAFT.index(text)
    return Claim(id=f"cl_{start}", text=text, position_start=start, position_end=start + len(text))


def test_references_are_numbered_by_first_citation_one_per_url() -> None:
    numbering = number_references(DRAFT, EVIDENCE, SOURCES)
    assert [(r.number, r.url, r.title) for r in numbering.references] == [
        (1, A, "Page A"),
        (2, B, "File B"),
    ]
    assert numbering.references[1].location == "/corpus/b.md"
    assert numbering.number_of == {"ev_b1": 2, "ev_a1": 1, "ev_a2": 1}


def test_claims_offsets_are_moved_exactly_into_the_rendered_markdown() -> None:
    claims = [claim("First claim here"), claim("Second claim there"), claim("Third claim")]
    numbering = number_references(DRAFT, EVIDENCE, SOURCES)
    rendered = render_markdown("The question?", DRAFT, claims, numbering, VerificationSummary())
    assert rendered.markdown.startswith("# The question?\n\n## Findings\n\nFirst claim here [1].")
    for original, placed in zip(claims, rendered.claims, strict=True):
        assert rendered.markdown[placed.position_start : placed.position_end] == original.text
    assert "Second claim there [1][2]." in rendered.markdown
    assert "Third claim." in rendered.markdown  # an unknown marker is dropped
    assert rendered.markdown.endswith(
        "## References\n\n1. Page A [Internet]. Available from: "
        + A
        + "\n2. File B. Available from: /corpus/b.md\n"
    )
    assert "## Verification" not in rendered.markdown  # no pass ran


def test_one_verification_line_ends_the_report_when_a_pass_ran() -> None:
    summary = VerificationSummary(supported=2, partial=1, passes=1, removed=1)
    numbering = number_references(DRAFT, EVIDENCE, SOURCES)
    rendered = render_markdown("Q", DRAFT, [], numbering, summary)
    assert rendered.markdown.endswith(f"\n*{verification_line(summary)}*\n")
    assert "2 of 3 checked claims fully supported, 1 removed" in verification_line(summary)
    assert "## Verification" not in rendered.markdown
    assert "3 claims were checked" in verification_note(summary)
    assert [s.title for s in sections(rendered.markdown)] == ["Findings"]
    chinese = render_markdown("Q", DRAFT, [], numbering, summary, "zh").markdown
    assert "## 参考文献" in chinese and "核查：" in chinese
    assert [s.title for s in sections(chinese)] == ["Findings"]


def test_metrics_count_what_the_run_did() -> None:
    numbering = number_references(DRAFT, EVIDENCE, SOURCES)
    metrics = compute_metrics(
        usage=TokenUsage(
            prompt_tokens=1_000_000, completion_tokens=500_000, calls=3, cost_usd=1.2, trimmed=4
        ),
        sources=SOURCES,
        evidence=EVIDENCE,
        findings=[
            Finding(step_id="s01", notes="", evidence_ids=[], searches=2),
            Finding(step_id="s02", notes="", evidence_ids=[], searches=3),
        ],
        references=numbering.references,
        rounds=2,
        started_at=100.0,
        now=112.5,
    )
    assert metrics.duration_seconds == 12.5
    assert metrics.cost_estimate_usd == 1.2  # priced by the engine, at the prices of each model
    assert metrics.trimmed_for_context == 4
    assert (metrics.searches, metrics.sources_consulted, metrics.sources_cited) == (5, 3, 2)
    assert (metrics.distinct_domains, metrics.evidence_spans, metrics.rounds) == (3, 4, 2)
    assert (metrics.cache_hits, metrics.cache_misses, metrics.model_calls) == (1, 1, 3)


def test_final_citations_keep_the_kept_claims_with_numbers_and_quotes() -> None:
    numbering = number_references(DRAFT, EVIDENCE, SOURCES)
    kept = [claim("First claim here")]
    citations = [
        Citation(claim_id=kept[0].id, evidence_id="ev_a2"),
        Citation(claim_id="cl_removed", evidence_id="ev_b1"),
    ]
    final = final_citations(citations, EVIDENCE, kept, numbering.number_of)
    assert [(c.claim_id, c.reference_number, c.quote) for c in final] == [
        (kept[0].id, 1, "A says more.")
    ]


def test_served_reports_show_local_paths_relative_to_the_corpus_root() -> None:
    from pathlib import Path

    from deep_research.report.build import location

    url = "file:///srv/corpora/energy/notes%20on%20grids.md"
    assert location(url) == "/srv/corpora/energy/notes on grids.md"
    assert location(url, [Path("/srv/corpora")]) == "energy/notes on grids.md"
    assert location(url, [Path("/elsewhere")]) == "notes on grids.md"
    assert location("https://a.example/x", [Path("/srv")]) == "https://a.example/x"


def test_a_report_with_nothing_checked_says_so_and_claims_no_share() -> None:
    nothing = VerificationSummary(passes=1, removed=2)
    assert nothing.supported_ratio is None
    note = verification_note(nothing)
    assert note.startswith("No claim could be checked against the evidence.")
    assert "%" not in note
    some = VerificationSummary(supported=1, unsupported=1, passes=1)
    assert "50% of the checked claims fully supported" in verification_note(some)


def test_a_chinese_report_marks_claims_and_lists_references_in_chinese() -> None:
    from deep_research.state import Verdict

    partial = claim("First claim here").model_copy(
        update={"verdict": Verdict.PARTIAL, "reasoning": "the evidence does not state it"}
    )
    numbering = number_references(DRAFT, EVIDENCE, SOURCES, language="zh")
    rendered = render_markdown(
        "问题？", DRAFT, [partial], numbering, VerificationSummary(partial=1, passes=1), "zh"
    )
    assert "First claim here [1] *(部分得到支持)*[^v1]." in rendered.markdown
    assert "2. File B. 获取地址：/corpus/b.md\n" in rendered.markdown
    assert "\n文中标记了 1 条证据未能完全支持的陈述，脚注说明了原因。\n" in rendered.markdown
    assert "Available from" not in rendered.markdown and "marked" not in rendered.markdown
