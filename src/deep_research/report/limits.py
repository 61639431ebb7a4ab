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

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from deep_research.engines.base import Assessment, evidence_key
from deep_research.engines.schemas import LimitationDraft, PartAnswer, ReportAssessment
from deep_research.state import (
    Claim,
    EvidenceSpan,
    Finding,
    Limitation,
    PartJudgement,
    PlanStep,
    Reference,
    ReportConfidence,
    Verdict,
    VerificationSummary,
)
from deep_research.state.models import PartStatus
from deep_research.text.labels import LABELS, label
from deep_research.text.language import language_of
from deep_research.text.subject import (
    ASKING_VERBS,
    SUBJECT_SHARE,
    asked_of,
    part_subject,
    said_words,
    subject_share,
    title_names,
)
from deep_research.text.words import STOPWORDS, question_parts, stem, tokens
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
    # unsourced background (verdict None too) answers nothing: it was never checked
    covering = {
        c.id
        for c in claims
        if c.verdict is Verdict.SUPPORTED or (c.verdict is None and c.claim_type != "background")
    }
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
    titles: Mapping[str, str] | None = None,
) -> Assessment:
    """What the engine's ``assess`` is shown: the report with keys, its limits found so far.

    ``draft`` cites evidence with ``[@id]`` markers; ``evidence`` is what the run may cite;
    ``findings`` tell which steps ended thin. The engine sees the cited evidence, then the
    other sides of the conflicts. A step that rewords another (its intent is that step's
    title) is named by the step it rewords. ``analyses``: what the verifier already read
    from texts, for :func:`find_conflicts`. ``titles``: page titles by URL, which say what a
    quote is about when it does not name it (:func:`judge_parts`).
    """
    cited = list(dict.fromkeys(MARKER.findall(draft)))
    conflicts = find_conflicts(evidence, set(cited), analyses)
    by_id = {e.id: e for e in evidence}
    shown_ids = list(dict.fromkeys([*cited, *(evidence[j].id for _, j in conflicts)]))
    shown = [by_id[i] for i in shown_ids if i in by_id]
    position = {e.id: n for n, e in enumerate(shown)}
    key_of = {e.id: evidence_key(n) for n, e in enumerate(shown)}
    report = MARKER.sub(lambda m: f"[{key_of[m.group(1)]}]" if m.group(1) in key_of else "", draft)
    judged = judge_parts(question, claims, evidence, titles or {})
    return Assessment(
        question=question,
        report=report,
        evidence=shown,
        uncovered=[
            _as_asked(step, question)
            for step in uncovered_steps(plan, evidence, claims, draft, findings)
            # a step reflection added to search the question's words again is no part of it
            if not (step.round > 1 and step.intent == question)
        ],
        conflicts=[(position[evidence[i].id], position[evidence[j].id]) for i, j in conflicts],
        parts=[
            PartAnswer(
                part=j.part,
                status=j.status,
                evidence_keys=[key_of[i] for i in j.evidence_ids if i in key_of],
            )
            for j in judged
        ],
        supported_keys=frozenset(
            key_of[i] for c in _supported(claims) for i in _cited(c) if i in key_of
        ),
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
    parts: Sequence[PartJudgement] = (),
) -> ReportConfidence:
    """The overall confidence: verdicts, how many independent sources, the limits found.

    ``low`` when a part of the question is not covered (or, of ``parts``, not answered),
    whatever the rest; ``high`` needs every part answered, :data:`HIGH_SUPPORT` of the claims
    supported, :data:`HIGH_SOURCES` independent sources and no conflict; ``medium``
    :data:`MEDIUM_SUPPORT` and two sources. Its basis is worded in ``language``; the level
    stays ``high``, ``medium`` or ``low``.
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
    if level == "high" and any(p.status != "answered" for p in parts):
        level = "medium"  # a part partly answered is never high
    checked = (
        label(language, "basis_checked").format(
            supported=verification.supported, total=verification.total
        )
        if verification.total
        else label(language, "basis_unchecked")
    )
    statuses = Counter(p.status for p in parts)
    answers = {
        "total": len(parts),
        "answered": statuses["answered"],
        "partly": statuses["partly"],
        "unanswered": statuses["not_answered"],
    }
    if language in LABELS and language != "en":
        counted = [
            label(language, "basis_sources").format(cited=len(references), independent=independent),
            label(language, "basis_conflicts").format(conflicts=conflicts),
        ]
        # the parts judged say how each was answered; without them, how many were not covered
        if parts:
            counted.append(label(language, "basis_parts").format(**answers))
        else:
            counted.append(label(language, "basis_uncovered").format(uncovered=uncovered))
    else:  # English counts take the singular (1 conflict), which the labels' forms do not
        counted = [
            f"{len(references)} source{'' if len(references) == 1 else 's'} cited, "
            f"{independent} of them independent (distinct sites or documents)",
            f"{conflicts} conflict{'' if conflicts == 1 else 's'} between sources",
        ]
        if parts:
            counted.append(
                f"{len(parts)} part{'' if len(parts) == 1 else 's'} of the question: "
                + label("en", "basis_parts").split(": ", 1)[1].format(**answers)
            )
        else:
            counted.append(
                f"{uncovered} part{'' if uncovered == 1 else 's'} of the question not covered"
            )
    pieces = [checked, *counted]
    separator = "；" if language in ("zh", "ja") else "; "
    end = "。" if language in ("zh", "ja") else "."
    return ReportConfidence(
        level=level,
        basis=separator.join(pieces) + end,
        supported_ratio=ratio,
        claims_checked=verification.total,
        sources_cited=len(references),
        independent_sources=independent,
        conflicts=conflicts,
        uncovered=uncovered,
        parts=list(parts),
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
    parts: Sequence[PartJudgement] = (),
) -> Limits:
    """The limits of a numbered draft (from :func:`with_limitations`), confidence line added.

    ``parts``: the question's parts as judged (:func:`settle_parts`).
    """
    found = limitations(assessment, facts, number_of)
    language = language_of(facts.question)
    confidence = report_confidence(verification, references, found, language, parts)
    return Limits(
        draft=f"{draft.rstrip()}\n\n{confidence_line(confidence, language)}\n",
        limitations=found,
        summary=summary_text(assessment, facts, number_of),
        confidence=confidence,
    )


# --- each part of the question: answered, partly answered or not answered ------------------------

MIN_ANSWERING = 2
"""Claims a part needs that each answer it for it to count as answered (one: partly)."""

ANSWER_CONCENTRATION = 0.4
"""Share of a part's answering claims that the page most of them cite must hold for the part
to be answered, when the part asks for a kind of answer with no strict form
(:data:`FORMLESS_KINDS`): a source that answers it, not mentions of its subject gathered one
sentence a page from many pages (partly). Chosen on the docqa dev splits (docs/decisions.md,
"Confidence means answered")."""

FORMLESS_KINDS = frozenset({"account", "yes_no", "procedure"})
"""Kinds of answer a sentence cannot be checked to give by its form (any statement on the
subject gives an account or a yes or no; any verb of doing, a procedure): for these, where the
answering claims come from is checked (:data:`ANSWER_CONCENTRATION`). A figure, a name or a
cause is checked by its form, and several pages each giving one corroborate it."""

_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "cause",
        re.compile(r"\bwhy\b|\bwhat (?:\w+ )?(?:caus|led to|made|triggers?)|\breasons?\b", re.I),
    ),
    (
        "procedure",
        re.compile(
            r"\bhow (?:do|can|should|would|could|might|must) (?:i|you|we|one|users?)\b"
            r"(?! (?:\w+ ){0,2}(?:differ|compare|know|tell|decide)\b)|\bhow to\b"
            r"|\bhow (?:is|are) (?:\w+ ){1,4}(?:enabled|disabled|created|configured|set|done|"
            r"made|installed|added|removed|changed|turned on|turned off|used|run)\b"
            r"|\b(?:steps?|procedure|command|recipe|way) to\b|\bwhat (?:command|option|flag)",
            re.I,
        ),
    ),
    (
        "figure",
        re.compile(
            r"\bhow (?:much|many|long|often|large|big|fast|far|efficient|old|high|low)\b"
            r"|^\s*when\b|\b(?:what year|which year|what (?:is|was|are|were) the (?:[\w-]+ )?"
            r"(?:cost|price|size|number|share|percentage|rate|efficiency|capacity|limit|maximum|minimum"
            r"|default|value|length|largest|biggest|smallest|longest|shortest))\b|\bcost\b|\bprices?\b"
            r"|\bwhat (?:[\w-]+ ){0,2}(?:efficiency|capacity|percentage|rate|size|number)\b",
            re.I,
        ),
    ),
    (
        "name",
        re.compile(
            r"^\s*(?:which|who)\b|\bwhat (?:is|are) (?:\w+ )?(?:called|named)"
            r"|\bwhat (?:\w+ ){0,2}names?\b",
            re.I,
        ),
    ),
    (
        "yes_no",
        re.compile(
            r"^\s*(?:is|are|can|could|does|do|did|should|will|would|was|were|has|have|must)\b",
            re.I,
        ),
    ),
)
"""The kind of answer a part asks for, by how it asks (English; another language's parts ask
for an ``account``: any supported claim on their subject answers them)."""

_GIVES: dict[str, re.Pattern[str]] = {
    "cause": re.compile(
        r"\b(?:because|due to|caus\w*|reasons?|results? (?:in|from)|leads? to|led to|since|"
        r"so that|owing to|in order to|therefore|thus)\b",
        re.I,
    ),
    "procedure": re.compile(
        r"\b(?:use|run|set|call|create|add|enable|disable|configure|specify|pass|type|install|"
        r"execute|invoke|give|write|edit|issue|start|stop|open|put|remove|delete|select|"
        r"choose|apply|supply|provide|attach|register|define|declare|append|insert|check|"
        r"send|read|copy|move|save|store|redirect|follow|avoid|instead|must|should|need to)\b"
        r"|(?:^|\s)--?[a-z]|\w\(|\bby \w+ing\b|=",
        re.I,
    ),
    "figure": re.compile(r"\d"),
    "name": re.compile(r"(?<=\S )[A-Z][\w.+-]*|\b\w+[._]\w+|\b[A-Z]{2,}\b|\"[^\"]+\"|“[^”]+”"),
}
"""What a claim states when it gives that kind of answer (a yes or no, and an account, are
given by any statement on the subject)."""


_NEGATED = re.compile(r"\b(?:not|cannot|never)\b|n't\b", re.I)
"""A part that asks with a negation ("what can it not tell you") asks for a limit."""

_STATES_LIMIT = re.compile(
    r"\b(?:not|no|cannot|never|none|nothing|neither|nor|without|unable)\b|n't\b", re.I
)
"""What a sentence that states a limit says: a negation."""

_ASKS_TIME = re.compile(
    r"^\s*when\b|\b(?:what year|which year|what date|how long|how often)\b", re.I
)
"""A part asking for a figure that asks when or for how long: a date, a year, or the event
it is timed by is its answer ("before the commit message is asked for", "until the connection
is closed")."""

_STATES_TIME = re.compile(
    r"\d|\b(?:before|after|until|till|once|whenever|while|during|as soon as|as long as|each time|"
    r"every time|at the (?:start|end|beginning)|immediately)\b",
    re.I,
)
"""What a sentence that says when or for how long says: a number, or the event it is timed by."""

_YEAR_OR_DATE = re.compile(
    r"\b(?:1[5-9]|20)\d\d-\d\d(?:-\d\d)?\b"
    r"|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bto )(?<!\bof )(?<!= )(?<!: )\b(?:1[5-9]|20)\d\d\b"
    r"(?!,\d)(?! (?:bytes?|[KMG]i?B|columns?|rows?|tables?|pages?|characters?|entries|items|"
    r"files?|seconds?|ms|milliseconds?|connections?|requests?|threads?|processes?|times)\b)"
)
"""A year (1500 to 2099), alone or opening an ISO date; a number of that size is an amount
where it is what something is or comes to ("is 2000", "to 2000", "of 2000") or counts a
unit ("2000 columns", "1024 bytes")."""


_ENUMERATOR = re.compile(r"^\s*\(?\d{1,2}[.)]\s")
"""A list's or a FAQ's number opening a sentence ("(3) SQLite lets me insert ...")."""

_NUMBER = re.compile(r"(?<![A-Za-z_])\d")
"""A number's first digit: not one inside a name (``sqlite3``, ``sqlite_stat1``, ``E2``)."""


def states_amount(sentence: str) -> bool:
    """Whether ``sentence`` states a number that is not a year or a date.

    A part that asks how much, how many or what it cost is not answered by "completed in 2020",
    nor by the digits of a name ("The sqlite_stat1 table ...") or a list's numbering.
    """
    return bool(_NUMBER.search(_YEAR_OR_DATE.sub(" ", _ENUMERATOR.sub(" ", sentence))))


def asked_kind(part: str) -> str:
    """The kind of answer ``part`` asks for: figure, name, procedure, yes_no, cause, account."""
    return next((kind for kind, pattern in _ASKS if pattern.search(part)), "account")


def gives_kind(kind: str, sentence: str) -> bool:
    """Whether ``sentence`` gives the kind of answer ``kind`` names."""
    pattern = _GIVES.get(kind)
    return pattern is None or bool(pattern.search(sentence))


def _title_words(title: str) -> list[str]:
    """A title's words in order, stemmed, numbers left out.

    ``11.8. Partial Indexes`` gives ``partial index``; ``git-describe(1)``, ``git describ``.
    """
    return [stem(t) for t in tokens(title) if not any(c.isdigit() for c in t)]


_FUNCTION_WORDS = frozenset(stem(w) for w in STOPWORDS - ASKING_VERBS)
"""Stop words that name nothing (an asking verb in a title names a command: ``describe``)."""


def named_pages(part: str, titles: Collection[str]) -> list[set[str]]:
    """The words (stemmed) of each page title that ``part`` writes, function words left out.

    A part writes a title when it has the title's words in order, one after another: "What
    name does git describe give a commit?" writes ``git-describe(1)``, not ``git-commit(1)``;
    "What is a partial index in PostgreSQL" writes ``11.8. Partial Indexes``. A title written
    only inside a longer one is not written on its own: the "git" of "git describe" names
    git-describe(1), not git(1), as a reader reads the longest name.
    """
    written = _title_words(part)
    spans: list[tuple[int, int, set[str]]] = []
    for title in dict.fromkeys(titles):
        words = _title_words(title)
        naming = set(words) - _FUNCTION_WORDS
        n = len(words)
        if naming:
            spans += [
                (i, i + n, naming)
                for i in range(len(written) - n + 1)
                if written[i : i + n] == words
            ]
    found: list[set[str]] = []
    for start, end, naming in spans:
        inside = any(s <= start and end <= e and e - s > end - start for s, e, _ in spans)
        if not inside and naming not in found:
            found.append(naming)
    return found


def _meets_name(named: Sequence[set[str]], said: str) -> bool:
    """Whether ``said`` states every word of one of the ``named`` pages' titles.

    ``said``: a claim and its page's title. True when the part names no page.
    """
    words = set(_title_words(said))
    return not named or any(subject_share(name, words) == 1 for name in named)


def _supported(claims: Sequence[Claim]) -> list[Claim]:
    """The claims that count as stated: supported ones (every claim when none was verified)."""
    verified = any(c.verdict is not None for c in claims)
    return [c for c in claims if (c.verdict is Verdict.SUPPORTED if verified else True)]


def _cited(claim: Claim) -> list[str]:
    return list(dict.fromkeys(i for i in [*claim.citation_keys, claim.evidence_id or ""] if i))


@dataclass(frozen=True)
class _Asked:
    """What a part of the question asks, as each claim is read against it."""

    kind: str
    """The kind of answer it asks for (:func:`asked_kind`)."""
    subject: frozenset[str]
    """The words (stemmed) of what it asks about (:func:`part_subject`)."""
    named: list[set[str]]
    """The words of each page title it writes (:func:`named_pages`)."""
    own: frozenset[str] = frozenset()
    """What a yes-or-no part asks of a subject it borrows from the question's first part
    (:func:`asked_of`: "is it needed": ``need``), which an answer states in its own words."""
    negated: bool = False
    """Whether it asks with a negation ("what can it not tell you"): an answer states a limit."""
    time: bool = False
    """Whether it asks for a figure that says when or for how long (:data:`_ASKS_TIME`)."""


def _asked(
    part: str, question: str, sections: Mapping[str, str], titles: Mapping[str, str]
) -> _Asked:
    """What ``part`` asks, its names read from the evidence's ``sections`` and page ``titles``."""
    names = title_names(sections.values())
    kind = asked_kind(part)
    return _Asked(
        kind=kind,
        subject=frozenset(part_subject(part, question, names)),
        named=named_pages(part, titles.values()),
        own=frozenset(asked_of(part, question, names) if kind == "yes_no" else ()),
        negated=bool(_NEGATED.search(part)),
        time=bool(_ASKS_TIME.search(part)),
    )


def _gives(asked: _Asked, text: str) -> bool:
    """Whether ``text`` gives the answer ``asked`` asks for, by its form.

    The kind asked (:func:`gives_kind`), a figure being a number that is not a year, or, when
    the part asks when or for how long, a number or the event it is timed by; a limit when the
    part asks with a negation; and the words a yes-or-no part that borrows its subject asks of
    it (:attr:`_Asked.own`).
    """
    if asked.kind == "figure":
        gives = bool(_STATES_TIME.search(text)) if asked.time else states_amount(text)
    else:
        gives = gives_kind(asked.kind, text)
    return (
        gives
        and (not asked.negated or bool(_STATES_LIMIT.search(text)))
        and (not asked.own or subject_share(asked.own, said_words(text)) == 1)
    )


def _shares(asked: _Asked, claim: Claim, sections: Mapping[str, str]) -> tuple[float, float]:
    """The share of the part's subject that ``claim`` states: itself, and under its heading.

    The heading is its page's title and its section's heading (``sections``, by evidence id).
    """
    own = said_words(claim.text)
    heading = said_words(" ".join(sections.get(i, "") for i in _cited(claim)))
    return subject_share(asked.subject, own), subject_share(asked.subject, own | heading)


def _bearing(
    asked: _Asked, claim: Claim, sections: Mapping[str, str], titles: Mapping[str, str]
) -> Literal["answers", "bears"] | None:
    """How ``claim`` bears on the part ``asked`` reads: it answers it, bears on it, or neither.

    It answers the part when it states :data:`SUBJECT_SHARE` of the part's subject in its own
    words (a yes-or-no part that names its subject by a pronoun: read under its headings), gives
    the answer asked by its form (:func:`_gives`) and, when the part writes a page's title,
    states that title's words, itself or by its page's title. It bears on it when it is on the
    subject read under its page's title and section heading (``sections``), or gives the answer
    asked stating half as many of the subject's words.
    """
    own, read = _shares(asked, claim, sections)
    gives = _gives(asked, claim.text)
    page_title = " ".join(titles.get(i, "") for i in _cited(claim))
    named_ok = _meets_name(asked.named, f"{claim.text} {page_title}")
    # on the subject in its own words; its page's heading counts for "partly" only, but for a
    # yes-or-no part that names its subject by a pronoun ("is it needed"), whose answer may too
    # ("it is usually not needed"): that answer states what the part asks in its own words
    on_subject = own >= SUBJECT_SHARE or (bool(asked.own) and read >= SUBJECT_SHARE)
    if on_subject and gives and named_ok:
        return "answers"
    if read >= SUBJECT_SHARE or (gives and read >= SUBJECT_SHARE / 2):
        return "bears"
    return None


def judge_part(
    part: str,
    question: str,
    claims: Sequence[Claim],
    sections: Mapping[str, str],
    pages: Mapping[str, str] | None = None,
    titles: Mapping[str, str] | None = None,
) -> PartJudgement:
    """How far the supported ``claims`` answer ``part``.

    ``sections``: evidence id to the title of its page and the heading of its section;
    ``pages``: evidence id to its page's URL (an id not in it is a page of its own);
    ``titles``: evidence id to its page's title alone.

    Answered: :data:`MIN_ANSWERING` claims on the part's subject (stating :data:`SUBJECT_SHARE`
    of its words themselves) give the answer the part asks for by its form (:func:`_gives`: its
    kind; a figure not a year; a limit when it asks with a negation; what a yes-or-no part asks
    of a subject named by a pronoun, "is it needed"); when the part writes a
    page's title (:func:`named_pages`: ``git describe``), each of them states that title's
    words, itself or by its page's title; and, for a kind with no strict form
    (:data:`FORMLESS_KINDS`), the page most of them cite holds :data:`ANSWER_CONCENTRATION` of
    them. Partly: fewer do, or they are mentions spread over many pages, or claims are on its
    subject (their page's title and section heading counted) without giving it or without the
    page it names, or give it stating half as many of the subject's words. Not answered: none of
    these. Each claim is read by :func:`_bearing`.
    """
    pages = pages or {}
    titles = titles or {}
    asked = _asked(part, question, sections, titles)
    answering: list[str] = []
    bearing: list[str] = []
    count = 0
    per_page: dict[str, int] = {}
    for claim in _supported(claims):
        how = _bearing(asked, claim, sections, titles)
        if how == "answers":
            answering += _cited(claim)
            count += 1
            for page in dict.fromkeys(pages.get(i, i) for i in _cited(claim)):
                per_page[page] = per_page.get(page, 0) + 1
        elif how == "bears":
            bearing += _cited(claim)
    spread = asked.kind in FORMLESS_KINDS and max(per_page.values(), default=0) < (
        ANSWER_CONCENTRATION * count
    )
    if count < MIN_ANSWERING or spread:
        answering, bearing = [], [*answering, *bearing]
    status: PartStatus = "answered" if answering else "partly" if bearing else "not_answered"
    return PartJudgement(
        part=part,
        status=status,
        asks=asked.kind,
        evidence_ids=list(dict.fromkeys(answering or bearing)),
    )


def _placed(
    evidence: Sequence[EvidenceSpan], titles: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Evidence id to its page's title and section heading, to its page, to its page's title."""
    sections = {e.id: f"{titles.get(e.url, '')} {e.section or ''}" for e in evidence}
    pages = {e.id: e.url for e in evidence}
    page_titles = {e.id: titles.get(e.url, "") for e in evidence}
    return sections, pages, page_titles


def judge_parts(
    question: str,
    claims: Sequence[Claim],
    evidence: Sequence[EvidenceSpan],
    titles: Mapping[str, str] | None = None,
) -> list[PartJudgement]:
    """Each part of ``question``, judged by what the report's supported ``claims`` state.

    The parts are :func:`~deep_research.text.question_parts`, those of function words only
    ("..., and what must it have?") included, each judged by :func:`judge_part`
    (``titles``: page titles by URL, which with a quote's section heading say what it is about).
    """
    sections, pages, page_titles = _placed(evidence, titles or {})
    return [
        judge_part(p, question, claims, sections, pages, page_titles)
        for p in question_parts(question, bare=True)
    ]


def off_subject(
    question: str,
    claims: Sequence[Claim],
    evidence: Sequence[EvidenceSpan],
    titles: Mapping[str, str] | None = None,
) -> list[Claim]:
    """The ``claims`` on no part's subject, as :func:`judge_parts` reads claims against parts.

    A claim is on a part's subject when, read under its page's title and section heading, it
    states :data:`SUBJECT_SHARE` of the words of what the part asks about (with the names the
    pages' titles give, :func:`part_subject`): what the judgement calls on the subject
    (:func:`_bearing`). Supported or not, every claim given is read.
    """
    sections, _, page_titles = _placed(evidence, titles or {})
    asked = [_asked(p, question, sections, page_titles) for p in question_parts(question)]
    return [
        claim
        for claim in claims
        if all(_shares(a, claim, sections)[1] < SUBJECT_SHARE for a in asked)
    ]


def _part_key(text: str) -> str:
    return " ".join(text.casefold().strip(" ?？.,;").split())


def settle_parts(
    facts: Assessment, assessment: ReportAssessment, *, by_model: bool
) -> list[PartJudgement]:
    """The parts' final judgements: the model's when it names claims that bear them out.

    ``facts.parts`` are the lexical judgements (:func:`judge_parts`). With ``by_model``, the
    model's judgement of a part stands when it says the part is not answered, or when a
    supported claim cites one of the keys it names; otherwise (a part it skipped, or an
    "answered" no supported claim bears out) the lexical judgement stands.
    """
    ids = {evidence_key(n): e.id for n, e in enumerate(facts.evidence)}
    said = {_part_key(p.part): p for p in assessment.parts} if by_model else {}
    settled: list[PartJudgement] = []
    for offline in facts.parts:
        mine = PartJudgement(
            part=offline.part,
            status=offline.status,
            asks=asked_kind(offline.part),
            evidence_ids=[ids[k] for k in offline.evidence_keys if k in ids],
        )
        model = said.get(_part_key(offline.part))
        keys = [] if model is None else [_normal(k) for k in model.evidence_keys]
        backed = [k for k in keys if k in facts.supported_keys]
        if model is not None and (model.status == "not_answered" or backed):
            mine = mine.model_copy(
                update={
                    "status": model.status,
                    "evidence_ids": [ids[k] for k in backed if k in ids],
                    "judged_by": "model",
                }
            )
        settled.append(mine)
    return settled


def _normal(key: str) -> str:
    return key.strip("[] ").upper()


def with_part_limits(
    assessment: ReportAssessment, parts: Sequence[PartJudgement], language: str
) -> ReportAssessment:
    """``assessment`` with a limitation for every part not answered or partly answered.

    A part not answered is ``uncovered`` (the confidence is then low); one partly answered is
    another caveat (the confidence is then not high). A part an "uncovered" item of the engine
    already names is not named twice.
    """
    named = " ".join(d.text.casefold() for d in assessment.limitations if d.kind == "uncovered")
    added = [
        LimitationDraft(
            kind="uncovered" if p.status == "not_answered" else "other",
            text=label(language, "not_answered" if p.status == "not_answered" else "partly").format(
                part=p.part.strip()
            ),
        )
        for p in parts
        if p.status != "answered" and _part_key(p.part) not in named
    ]
    return assessment.model_copy(update={"limitations": [*added, *assessment.limitations]})


def with_basis_limits(
    assessment: ReportAssessment,
    facts: Assessment,
    verification: VerificationSummary,
    language: str,
) -> ReportAssessment:
    """``assessment`` with a limitation for each shortfall that alone makes the confidence low.

    Fewer than two independent sources cited (``one_source``: a report whose every part is
    answered from one page is still low, and its Limitations say why, not that nothing is
    missing), and fewer than :data:`MEDIUM_SUPPORT` of the checked claims supported
    (``weak_support``). Counted as :func:`report_confidence` counts them: the sites or
    documents of the evidence the report cites (``facts.report``'s ``[E#]`` keys).
    """
    cited = [e for n, e in enumerate(facts.evidence) if f"[{evidence_key(n)}]" in facts.report]
    added: list[LimitationDraft] = []
    if cited and len({domain_of(e.url) for e in cited}) < 2:
        added.append(LimitationDraft(kind="other", text=label(language, "one_source")))
    ratio = verification.supported_ratio
    if ratio is not None and ratio < MEDIUM_SUPPORT:
        text = label(language, "weak_support").format(
            supported=verification.supported, total=verification.total
        )
        added.append(LimitationDraft(kind="other", text=text))
    if not added:
        return assessment
    return assessment.model_copy(update={"limitations": [*assessment.limitations, *added]})
