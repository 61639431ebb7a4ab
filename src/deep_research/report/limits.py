"""The report's limits and overall confidence, from the data of the run.

Pure functions that finalize calls around the engine's ``assess`` task:

1. :func:`uncovered_steps`: plan steps that no supported claim answers, or whose research
   ended thin (the researcher found too little evidence to answer them);
2. :func:`find_conflicts`: evidence from different sources that disagrees on a figure or a
   fact (:func:`~deep_research.verification.conflicts.disagreement`);
3. :func:`assessment_input`: what the engine is shown (the report with ``[E#]`` keys);
4. :func:`limitations_markdown` and :func:`limitations`: the engine's answer as the report's
   ``## Limitations`` section (evidence-id markers, numbered with the report's references)
   and as :class:`~deep_research.state.Limitation` records;
5. :func:`report_confidence` and :func:`confidence_line`: the overall confidence and its basis.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from deep_research.engines.base import Assessment, evidence_key
from deep_research.engines.schemas import LimitationDraft, ReportAssessment
from deep_research.state import (
    Claim,
    EvidenceSpan,
    Finding,
    Limitation,
    PlanStep,
    Reference,
    ReportConfidence,
    Verdict,
    VerificationSummary,
)
from deep_research.text.labels import LABELS, label
from deep_research.text.language import language_of
from deep_research.urls import domain_of
from deep_research.verification.checks import Analyses
from deep_research.verification.citations import MARKER, keys_to_markers, render_numbers
from deep_research.verification.conflicts import Comparisons, disagreement

LIMITATIONS_TITLE = label("en", "limitations")
"""Heading of the section that states the report's limits and its confidence (in English;
:func:`limitations_markdown` writes it in the question's language)."""

MAX_CONFLICTS = 6
"""Most conflicts stated in one report."""

HIGH_SUPPORT = 0.9
"""Share of checked claims supported that ``high`` confidence needs (``medium``: 0.7)."""

MEDIUM_SUPPORT = 0.7

HIGH_SOURCES = 3
"""Independent sources cited that ``high`` confidence needs (``medium``: 2)."""

NO_LIMITS = label("en", "no_limits")
"""The Limitations section's text when the engine states no limit."""


def _covering(claims: Sequence[Claim]) -> set[str]:
    """Evidence ids that supported claims cite (every cited id when nothing was verified)."""
    verified = any(c.verdict is not None for c in claims)
    return {
        evidence_id
        for claim in claims
        if not verified or claim.verdict is Verdict.SUPPORTED
        for evidence_id in [*claim.citation_keys, claim.evidence_id or ""]
        if evidence_id
    }


def _answered_headings(draft: str, claims: Sequence[Claim]) -> set[str]:
    """The ``##`` headings of ``draft`` under which a supported claim stands (case-folded)."""
    covering = {c.id for c in claims if c.verdict in (Verdict.SUPPORTED, None)}
    headings: set[str] = set()
    for claim in claims:
        if claim.id in covering:
            start = draft.rfind("\n## ", 0, claim.position_start)
            if start >= 0:
                headings.add(draft[start + 4 :].split("\n", 1)[0].strip().casefold())
    return headings


def uncovered_steps(
    plan: Sequence[PlanStep],
    evidence: Sequence[EvidenceSpan],
    claims: Sequence[Claim],
    draft: str = "",
    findings: Sequence[Finding] = (),
) -> list[PlanStep]:
    """The plan steps that no supported claim answers, or whose research ended thin.

    A claim answers a step when it cites evidence found for the step, or when it stands in
    ``draft`` (whose offsets the claims' are) under a heading that is the step's title. A step
    whose last finding says the evidence does not answer it (``sufficient`` false: the
    progress shows it as thin) is not covered either, whatever was quoted under it, so that
    the Limitations never contradict the run's own step states.
    """
    covering = _covering(claims)
    answered = {e.step_id for e in evidence if e.id in covering}
    headings = _answered_headings(draft, claims)
    answered |= {s.id for s in plan if s.title.casefold() in headings}
    last = {f.step_id: f for f in findings}
    answered -= {step_id for step_id, finding in last.items() if not finding.sufficient}
    # a step that reflection replaced is judged by its replacement (whose intent names it)
    found: dict[str, PlanStep] = {}
    for step in plan:
        title = step.title.casefold()
        replaced = any(o.round > step.round and o.intent.casefold() == title for o in plan)
        if step.id not in answered and not replaced:
            found.setdefault(title, step)
    return list(found.values())


def _disagree(a: EvidenceSpan, b: EvidenceSpan, comparisons: Comparisons | None = None) -> bool:
    """Whether quotes of two sources have sentences that disagree (:func:`disagreement`)."""
    return a.url != b.url and disagreement(a.quote, b.quote, comparisons) is not None


def find_conflicts(
    evidence: Sequence[EvidenceSpan],
    cited: Collection[str],
    analyses: Analyses | None = None,
) -> list[tuple[int, int]]:
    """Pairs of positions in ``evidence`` from different sources that disagree.

    One side of each pair is evidence the report cites (``cited``: evidence ids); a quote
    belongs to one conflict at most, and at most :data:`MAX_CONFLICTS` are returned.
    ``analyses``: what the verifier already read from texts (their figures), reused.
    """
    pairs: list[tuple[int, int]] = []
    taken: set[str] = set()
    comparisons = Comparisons(analyses)  # each quote split, each sentence pair compared, once
    for i, a in enumerate(evidence):
        if a.id not in cited or a.quote in taken:
            continue
        for j, b in enumerate(evidence):
            if i == j or b.quote in taken or not _disagree(a, b, comparisons):
                continue
            pairs.append((i, j))
            taken.update({a.quote, b.quote})
            break
        if len(pairs) == MAX_CONFLICTS:
            break
    return pairs


def assessment_input(
    question: str,
    draft: str,
    evidence: Sequence[EvidenceSpan],
    claims: Sequence[Claim],
    plan: Sequence[PlanStep],
    findings: Sequence[Finding] = (),
    analyses: Analyses | None = None,
) -> Assessment:
    """What the engine's ``assess`` is shown: the report with keys, its limits found so far.

    ``draft`` cites evidence with ``[@id]`` markers; ``evidence`` is what the run may cite;
    ``findings`` tell which steps ended thin. The engine sees the cited evidence, then the
    other sides of the conflicts. A step that rewords another (its intent is that step's
    title) is named by the step it rewords. ``analyses``: what the verifier already read
    from texts, for :func:`find_conflicts`.
    """
    cited = list(dict.fromkeys(MARKER.findall(draft)))
    conflicts = find_conflicts(evidence, set(cited), analyses)
    by_id = {e.id: e for e in evidence}
    shown_ids = list(dict.fromkeys([*cited, *(evidence[j].id for _, j in conflicts)]))
    shown = [by_id[i] for i in shown_ids if i in by_id]
    position = {e.id: n for n, e in enumerate(shown)}
    key_of = {e.id: evidence_key(n) for n, e in enumerate(shown)}
    report = MARKER.sub(lambda m: f"[{key_of[m.group(1)]}]" if m.group(1) in key_of else "", draft)
    return Assessment(
        question=question,
        report=report,
        evidence=shown,
        uncovered=[
            _as_asked(step, question)
            for step in uncovered_steps(plan, evidence, claims, draft, findings)
        ],
        conflicts=[(position[evidence[i].id], position[evidence[j].id]) for i, j in conflicts],
    )


def _as_asked(step: PlanStep, question: str) -> PlanStep:
    """``step`` under the title it was asked by: a rewording's is the step it rewords."""
    if step.round > 1 and step.intent and step.intent != question:
        return step.model_copy(update={"title": step.intent})
    return step


def _with_markers(text: str, facts: Assessment) -> tuple[str, list[str]]:
    """``text`` with its ``[E#]`` keys as evidence-id markers, and the ids it cites."""
    keys = {evidence_key(n): e.id for n, e in enumerate(facts.evidence)}
    marked = keys_to_markers(text, keys)
    return marked, list(dict.fromkeys(MARKER.findall(marked)))


def _kind(draft: LimitationDraft, cited: Sequence[str], facts: Assessment) -> str:
    """A conflict must cite two sources; otherwise it is stated as another caveat."""
    urls = {e.url for e in facts.evidence if e.id in cited}
    return "other" if draft.kind == "conflict" and len(urls) < 2 else draft.kind


def limitations_markdown(assessment: ReportAssessment, facts: Assessment) -> str:
    """The ``## Limitations`` section (without the confidence line), citing with markers.

    Its heading and fixed text are in the question's language (:mod:`deep_research.text.language`).
    """
    language = language_of(facts.question)
    items = [_with_markers(d.text.strip(), facts)[0] for d in assessment.limitations]
    body = "\n".join(f"- {item}" for item in items if item) or label(language, "no_limits")
    return f"## {label(language, 'limitations')}\n\n{body}"


def _step_named(text: str, steps: Sequence[PlanStep]) -> str | None:
    lowered = text.casefold()
    return next((s.id for s in steps if s.title.casefold() in lowered), None)


def limitations(
    assessment: ReportAssessment, facts: Assessment, number_of: Mapping[str, int]
) -> list[Limitation]:
    """The limitations as records, their citations numbered as in the report."""
    found: list[Limitation] = []
    for draft in assessment.limitations:
        marked, cited = _with_markers(draft.text.strip(), facts)
        if not marked:
            continue
        kind = _kind(draft, cited, facts)
        found.append(
            Limitation.model_validate(
                {
                    "kind": kind,
                    "text": render_numbers(marked, number_of),
                    "step_id": _step_named(marked, facts.uncovered)
                    if kind == "uncovered"
                    else None,
                    "evidence_ids": cited,
                    "references": list(
                        dict.fromkeys(number_of[i] for i in cited if i in number_of)
                    ),
                }
            )
        )
    return found


def summary_text(
    assessment: ReportAssessment, facts: Assessment, number_of: Mapping[str, int]
) -> str:
    """The engine's summary with the report's reference numbers."""
    return render_numbers(_with_markers(assessment.summary.strip(), facts)[0], number_of)


def report_confidence(
    verification: VerificationSummary,
    references: Sequence[Reference],
    found: Sequence[Limitation],
    language: str = "en",
) -> ReportConfidence:
    """The overall confidence: verdicts, how many independent sources, the limits found.

    ``low`` when a part of the question is not covered, whatever the rest; ``high`` needs
    :data:`HIGH_SUPPORT` of the claims supported, :data:`HIGH_SOURCES` independent sources and
    no conflict; ``medium`` :data:`MEDIUM_SUPPORT` and two sources. Its basis is worded in
    ``language``; the level stays ``high``, ``medium`` or ``low``.
    """
    ratio = verification.supported_ratio
    independent = len({domain_of(r.url) for r in references})
    conflicts = sum(1 for item in found if item.kind == "conflict")
    uncovered = sum(1 for item in found if item.kind == "uncovered")
    if uncovered or ratio is None or ratio < MEDIUM_SUPPORT or independent < 2:
        level = "low"  # a part of the question unanswered is never medium
    elif ratio >= HIGH_SUPPORT and independent >= HIGH_SOURCES and not conflicts:
        level = "high"
    else:
        level = "medium"
    checked = (
        label(language, "basis_checked").format(
            supported=verification.supported, total=verification.total
        )
        if verification.total
        else label(language, "basis_unchecked")
    )
    if language in LABELS and language != "en":
        counted = [
            label(language, "basis_sources").format(cited=len(references), independent=independent),
            label(language, "basis_conflicts").format(conflicts=conflicts),
            label(language, "basis_uncovered").format(uncovered=uncovered),
        ]
    else:  # English counts take the singular (1 conflict), which the labels' forms do not
        counted = [
            f"{len(references)} source{'' if len(references) == 1 else 's'} cited, "
            f"{independent} of them independent (distinct sites or documents)",
            f"{conflicts} conflict{'' if conflicts == 1 else 's'} between sources",
            f"{uncovered} part{'' if uncovered == 1 else 's'} of the question not covered",
        ]
    parts = [checked, *counted]
    separator = "；" if language in ("zh", "ja") else "; "
    end = "。" if language in ("zh", "ja") else "."
    return ReportConfidence(
        level=level,
        basis=separator.join(parts) + end,
        supported_ratio=ratio,
        claims_checked=verification.total,
        sources_cited=len(references),
        independent_sources=independent,
        conflicts=conflicts,
        uncovered=uncovered,
    )


def confidence_line(confidence: ReportConfidence, language: str = "en") -> str:
    """The report's confidence line: ``**Confidence: medium.** basis``, in ``language``."""
    name, level = label(language, "confidence"), label(language, confidence.level)
    wide = language in ("zh", "ja")
    colon, stop = ("：", "。") if wide else (": ", ".")
    basis = f"{confidence.basis[:1].upper()}{confidence.basis[1:]}"
    return f"**{name}{colon}{level}{stop}** {basis}"


@dataclass(frozen=True)
class Limits:
    """A report's limits, ready for the final report."""

    draft: str
    """The draft with its ``## Limitations`` section and confidence line."""
    limitations: list[Limitation]
    summary: str
    confidence: ReportConfidence


def with_limitations(draft: str, facts: Assessment, assessment: ReportAssessment) -> str:
    """``draft`` followed by its Limitations section, so that numbering sees its citations."""
    return f"{draft.rstrip()}\n\n{limitations_markdown(assessment, facts)}\n"


def limits(
    draft: str,
    facts: Assessment,
    assessment: ReportAssessment,
    *,
    number_of: Mapping[str, int],
    references: Sequence[Reference],
    verification: VerificationSummary,
) -> Limits:
    """The limits of a numbered draft (from :func:`with_limitations`), confidence line added."""
    found = limitations(assessment, facts, number_of)
    language = language_of(facts.question)
    confidence = report_confidence(verification, references, found, language)
    return Limits(
        draft=f"{draft.rstrip()}\n\n{confidence_line(confidence, language)}\n",
        limitations=found,
        summary=summary_text(assessment, facts, number_of),
        confidence=confidence,
    )
