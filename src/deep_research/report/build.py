"""The final report, from the verified draft: pure functions that finalize calls in order.

1. :func:`number_references`: references numbered by first citation in the draft, one per URL,
   each with its bibliographic record and Vancouver citation
   (:mod:`deep_research.report.bibliography`);
2. :func:`render_markdown`: the title, the numbered body (claims' offsets moved into it
   exactly, claims not fully supported marked by :mod:`deep_research.report.flags`), the
   reference list, the markers' footnotes and a one-line verification note, in the report's
   language;
3. :func:`compute_metrics`: duration, tokens, cost estimate, sources, domains, cache use;
4. :func:`build_report`: the v1 :class:`~deep_research.state.Report`.

:func:`article_markdown` derives the clean article (``report.article.md``) from a report.

Nothing here reads the clock but :func:`compute_metrics`, through its ``now`` argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from deep_research.report.bibliography import vancouver
from deep_research.report.flags import flag_claims, footnotes
from deep_research.state import (
    Budget,
    Citation,
    Claim,
    Config,
    EvidenceSpan,
    Finding,
    Limitation,
    Metrics,
    PlanStep,
    Reference,
    Report,
    ReportConfidence,
    ReportSection,
    Source,
    State,
    TokenUsage,
    VerificationSummary,
)
from deep_research.state.identity import on_kept_sources
from deep_research.state.models import BudgetLimit
from deep_research.text.inert import escaped_name
from deep_research.text.labels import LABELS, label
from deep_research.text.language import language_of
from deep_research.urls import domain_of
from deep_research.verification.blocks import layout
from deep_research.verification.citations import cited_ids_in_order, render_with_offsets

APPENDICES = (
    "Limitations",
    "References",
    "Verification",
    *(labels[name] for labels in LABELS.values() for name in ("references", "limitations")),
)
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
    root that holds it, so a report does not show the server's folders. Control characters
    of a path (a newline in a file name) are escaped.
    """
    if url.startswith("corpus:///"):  # a served corpus's document: already relative
        return escaped_name(unquote(url.removeprefix("corpus:///")))
    if not url.startswith("file://"):
        return url
    path = Path(unquote(url.removeprefix("file://")))
    for root in roots:
        if path.is_relative_to(root):
            return escaped_name(str(path.relative_to(root)))
    return escaped_name(str(path) if not roots else path.name)


def number_references(
    draft: str,
    evidence: Sequence[EvidenceSpan],
    sources: Sequence[Source],
    roots: Sequence[Path] = (),
    language: str = "en",
) -> Numbering:
    """Number the cited URLs by first citation in ``draft`` (``roots``: see :func:`location`).

    The references' fixed words (``Available from:``) are in ``language``.
    """
    by_id = {e.id: e for e in evidence}
    by_url = {s.url: s for s in sources}
    number_of_url: dict[str, int] = {}
    pages: dict[str, dict[str, tuple[str, int]]] = {}  # url -> the cited pages, once each
    for evidence_id in cited_ids_in_order(draft):
        if evidence_id in by_id:
            span = by_id[evidence_id]
            number_of_url.setdefault(span.url, len(number_of_url) + 1)
            if span.locator is not None and span.page is not None:
                pages.setdefault(span.url, {})[span.locator] = (span.page_kind or "", span.page)
    references = [
        reference(n, url, by_url.get(url), location(url, roots), language).model_copy(
            update={"locators": sorted(pages.get(url, {}), key=lambda k: pages[url][k])}
        )
        for url, n in number_of_url.items()
    ]
    number_of = {i: number_of_url[e.url] for i, e in by_id.items() if e.url in number_of_url}
    return Numbering(references=references, number_of=number_of)


def shown_title(title: str | None, url: str) -> str:
    """A source's title fit to print: its own when it has a letter or a digit, else its URL.

    A page whose first line is markup (an ``.rst.txt`` source's ``=====`` underline) has no
    title worth the name.
    """
    if title and any(c.isalnum() for c in title):
        return title
    return url


def reference(
    number: int, url: str, source: Source | None, where: str, language: str = "en"
) -> Reference:
    """Reference ``number`` to ``url``, with its bibliographic record and Vancouver citation.

    The citation's fixed words are in ``language`` (see
    :func:`~deep_research.report.bibliography.vancouver`).
    """
    title = shown_title(source.title if source is not None else "", url)
    bib = source.bib if source is not None else None
    return Reference(
        number=number,
        url=url,
        title=title,
        location=where,
        bib=bib,
        citation=vancouver(title, where, bib, language),
    )


def listed_reference(ref: Reference) -> str:
    """A line of the references list: ``3. <citation>``, then the pages it is cited at.

    Example:
        >>> ref = Reference(number=2, url="file:///m.pdf", title="M", location="m.pdf",
        ...                 citation="M. m.pdf", locators=["p. 3", "p. 12"])
        >>> listed_reference(ref)
        '2. M. m.pdf (pp. 3, 12)'
    """
    return f"{ref.number}. {ref.citation}" + (
        f" ({cited_at(ref.locators)})" if ref.locators else ""
    )


def cited_at(locators: Sequence[str]) -> str:
    """The pages or slides cited, in one phrase: ``p. 3``, ``pp. 3, 12``, ``slides 2, 5``."""
    if len(locators) > 1 and all(w.startswith("p. ") for w in locators):
        return "pp. " + ", ".join(w.removeprefix("p. ") for w in locators)
    if len(locators) > 1 and all(w.startswith("slide ") for w in locators):
        return "slides " + ", ".join(w.removeprefix("slide ") for w in locators)
    return ", ".join(locators)


def verification_note(summary: VerificationSummary) -> str:
    """One paragraph stating what verification found and what revision changed."""
    passes = f"{summary.passes} verification pass{'' if summary.passes == 1 else 'es'}"
    if summary.recited or summary.corrected or summary.removed:
        revision = (
            f"Revision re-cited {summary.recited}, corrected {summary.corrected} and removed "
            f"{summary.removed} claims ({passes})."
        )
    elif summary.passes > 1:  # revision ran, and could not improve what it was given
        revision = f"Revision changed no claim ({passes})."
    else:
        revision = f"No claim needed revision ({passes})."
    if summary.supported_ratio is None:
        return f"No claim could be checked against the evidence. {revision}"
    return (
        f"{summary.total} claims were checked against the evidence they cite: "
        f"{summary.supported} supported, {summary.partial} partially supported, "
        f"{summary.unsupported} unsupported, {summary.contradicted} contradicted "
        f"({summary.supported_ratio:.0%} of the checked claims fully supported). {revision}"
        f"{_fallback_note(summary.fallback)}"
    )


def _fallback_note(fallback: int) -> str:
    """Says how many verdicts came from the offline checker standing in for the model."""
    if not fallback:
        return ""
    claims = "claim was" if fallback == 1 else "claims were"
    return (
        f" {fallback} {claims} judged by the offline checker because the model gave no usable"
        " verdict; such claims were left as written."
    )


def budget_notice(reached: BudgetLimit | None, budget: Budget) -> str:
    """The report's notice that research stopped at a spending limit (empty when it did not)."""
    if reached is None:
        return ""
    limit = (
        f"{budget.max_tokens:,} model tokens"
        if reached == "tokens"
        else f"an estimated ${budget.max_cost_usd:g}"
    )
    return (
        f"Research stopped early: the run's budget of {limit} was reached, so this report is "
        "written from what was found by then."
    )


def verification_line(summary: VerificationSummary, language: str = "en") -> str:
    """The one line that ends a report: how many claims verification found supported.

    The details (each claim's verdict, evidence and reasoning) are in report.json and
    report.html; :func:`verification_note` words them for people.
    """
    if summary.supported_ratio is None:
        return label(language, "unchecked")
    return label(language, "verified").format(
        supported=summary.supported,
        total=summary.total,
        removed=summary.removed + summary.corrected,
    )


def render_markdown(
    title: str,
    draft: str,
    claims: Sequence[Claim],
    numbering: Numbering,
    verification: VerificationSummary,
    language: str = "en",
    *,
    notice: str = "",
    checked: bool = True,
) -> Rendered:
    """The report's Markdown, and the claims with their offsets moved into it exactly.

    ``title`` is the H1 (the chat's title, see :func:`deep_research.nodes.finalize.report_title`);
    a ``notice`` (a paragraph) goes under the title, before the body; the reference list and
    the verification line are in ``language``. A report whose run did not verify (``checked``
    false: the ``verify`` setting was off) ends with a line saying no claim was checked.
    """
    rendered, moved = render_with_offsets(draft, numbering.number_of)
    body = rendered.strip()
    heading = f"# {title}\n\n" + (f"> {notice}\n\n" if notice else "")
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
    notes = ""
    if verification.passes:  # what is not fully supported is marked, with the reason
        flagged = flag_claims(markdown, placed, language)
        markdown, placed = flagged.markdown, flagged.claims
        notes = footnotes(flagged.flags, language)
    if numbering.references:
        listed = "\n".join(listed_reference(r) for r in numbering.references)
        markdown += f"\n## {label(language, 'references')}\n\n{listed}\n"
    if notes:
        markdown += f"\n{notes}"
    if verification.passes:
        markdown += f"\n*{verification_line(verification, language)}*\n"
    elif not checked:
        markdown += f"\n*{label(language, 'verification_off')}*\n"
    return Rendered(markdown=markdown, claims=placed)


def sections(markdown: str) -> list[ReportSection]:
    """The report's ``##`` sections, the appendices left out (a ``## `` line in code is none)."""
    lines = markdown.split("\n")
    verbatim = layout(lines).verbatim
    starts = [i for i, line in enumerate(lines) if line.startswith("## ") and i not in verbatim]
    found: list[ReportSection] = []
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=False):
        title, body = lines[start][3:].strip(), "\n".join(lines[start + 1 : end]).strip()
        if title not in APPENDICES:
            found.append(ReportSection(title=title, markdown=body))
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
                "locator": by_id[c.evidence_id].locator if c.evidence_id in by_id else None,
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
    return Metrics(
        duration_seconds=round(now - started_at, 3) if started_at else 0.0,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        model_calls=usage.calls,
        estimated_calls=usage.estimated_calls,
        cost_estimate_usd=round(usage.cost_usd, 6),
        fallbacks=usage.fallbacks,
        trimmed_for_context=usage.trimmed,
        picks_dropped=usage.picks_dropped,
        evidence_left_out=usage.evidence_left_out,
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
    summary: str = "",
    limitations: Sequence[Limitation] = (),
    confidence: ReportConfidence | None = None,
) -> Report:
    """The v1 report (``summary``, ``limitations``, ``confidence``: see :mod:`.assessment`)."""
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
        summary=summary,
        limitations=list(limitations),
        confidence=confidence,
    )


_FLAG_MARK = re.compile(r" ?\*\([^()*\n]+\)\*\[\^v\d+\]")
"""A claim's verification marker and footnote reference, `` *(partly supported)*[^v1]``."""
_CITED = re.compile(r"\[(\d+)\]")


def article_markdown(report: Report) -> str:
    """The report as an article: title, body and numbered references, nothing about checking.

    What a reader pastes into a document, and what a benchmark's judge reads: report.md
    without its verification markers and their notes, the Limitations section (and its
    confidence line) that finalize appends, and the verification line. The references are
    those the article cites, numbered as in report.md (the body cites them first, so they are
    1 to N), each with its URL or file path.
    """
    language = language_of(report.question)
    body = report.markdown
    if report.references:  # the list, the markers' notes and the verification line follow
        body = body.rsplit(f"\n## {label(language, 'references')}\n", 1)[0]
    elif report.verification.passes or not report.config.verify:
        body = body.rstrip().rsplit("\n", 1)[0]  # the verification line ends the report
        notes = body.find("\n[^v1]: ")
        if notes >= 0:  # the markers' notes, and the paragraph announcing them
            body = body[:notes].rstrip().rsplit("\n\n", 1)[0]
    if report.confidence is not None:  # finalize appended the Limitations section last
        limits = body.rfind(f"\n## {label(language, 'limitations')}\n")
        body = body[:limits] if limits >= 0 else body
    body = _FLAG_MARK.sub("", body).rstrip() + "\n"
    cited = {int(n) for n in _CITED.findall(body)}
    listed = [listed_reference(r) for r in report.references if r.number in cited]
    if not listed:
        return body
    return f"{body}\n## {label(language, 'references')}\n\n" + "\n".join(listed) + "\n"


def successors(plan: Sequence[PlanStep]) -> dict[str, str]:
    """The kept step that answers for each replaced step (a chain of rewordings followed).

    A step's successor is the one reflection recorded (``replaced_by``), else the later step
    whose intent is its title (how a rewording names the step it rewords). A replaced step
    with neither has none: its evidence is still offered, under no step.
    """
    by_id = {s.id: s for s in plan}
    by_intent: dict[str, str] = {}
    for step in plan:
        by_intent.setdefault(step.intent.casefold(), step.id)
    found: dict[str, str] = {}
    for step in plan:
        current, seen = step, {step.id}
        while current.replaced:
            nxt = current.replaced_by or by_intent.get(current.title.casefold())
            if nxt is None or nxt in seen or nxt not in by_id:
                break
            seen.add(nxt)
            current = by_id[nxt]
        if step.replaced and not current.replaced:
            found[step.id] = current.id
    return found


def _places(plan: Sequence[PlanStep]) -> dict[str, int]:
    """Each step's place in the report: a rewording takes the place of the step it rewords."""
    place = {s.id: n for n, s in enumerate(plan)}
    for replaced, home in successors(plan).items():
        place[home] = min(place[home], place[replaced])
    return place


def report_plan(plan: Sequence[PlanStep]) -> list[PlanStep]:
    """The steps the report is written for: the kept ones, a rewording where its step stood."""
    place = _places(plan)
    return sorted((s for s in plan if not s.replaced), key=lambda s: place[s.id])


def kept_findings(state: State) -> list[Finding]:
    """The findings of the kept steps, each with what the steps it replaced found.

    A rewording adds to what the step it replaces found: that step's notes follow the
    rewording's own, and its evidence joins the rewording's (nothing found is lost to a
    step's fate). A replaced step that no kept step answers for keeps its own finding.
    """
    after = successors(state.plan)
    replaced = {s.id for s in state.plan if s.replaced}
    merged: dict[str, Finding] = {}
    for finding in state.findings:
        if finding.step_id not in replaced:
            merged[finding.step_id] = finding
    for finding in state.findings:
        home = after.get(finding.step_id)
        if finding.step_id not in replaced:
            continue
        if home is None:
            merged.setdefault(finding.step_id, finding)
            continue
        own = merged.get(home, Finding(step_id=home, notes=""))
        merged[home] = own.model_copy(
            update={
                "notes": "\n".join(n for n in (own.notes, finding.notes) if n.strip()),
                "evidence_ids": list(dict.fromkeys([*own.evidence_ids, *finding.evidence_ids])),
            }
        )
    order = _places(state.plan)
    return sorted(merged.values(), key=lambda f: order.get(f.step_id, len(order)))


def report_evidence(state: State) -> list[EvidenceSpan]:
    """The evidence any step selected, in state order (what the writer may cite).

    A replaced step's evidence is placed under the step that replaced it (its ``step_id``
    is that step's), so that the writer finds it under a step of the plan it is shown; words
    that a step and its rewording both quoted are offered once. A span
    quoted under a link of a work that another step found by another link names the work's
    one source (:func:`~deep_research.state.identity.on_kept_sources`).
    """
    chosen = {i for f in state.findings for i in f.evidence_ids}
    after = successors(state.plan)
    placed: dict[tuple[str, str, int, int], EvidenceSpan] = {}
    for e in state.evidence:
        if e.id in chosen:  # a step and its rewording that found the same words: offered once
            home = after.get(e.step_id, e.step_id)
            key = (home, e.url, e.start, e.end)
            placed.setdefault(key, e.model_copy(update={"step_id": home}))
    return on_kept_sources(list(placed.values()), state.sources)
