"""Lexical and numeric support checks: the offline verifier.

A claim is aligned with its evidence passages (:mod:`.alignment`): the sentences that state
most of it are its support. Then, strictly:

* every figure the claim states (numbers with units, money, percentages, dates; see
  :mod:`.quantities`) must appear in the evidence, allowing only rounding and stated hedges;
  a figure the evidence does not state makes the claim at most PARTIAL;
* a figure of the same kind that an aligned sentence states differently (``300 tokens/s``
  for the claim's ``3,000 tokens/s``, ``2021`` for ``2019``), or a negation or antonym that
  the aligned sentence has and the claim lacks, makes the claim CONTRADICTED, never SUPPORTED;
* otherwise how much of the claim the evidence states decides SUPPORTED, PARTIAL or
  UNSUPPORTED: a small logistic regression over lexical, alignment and numeric features
  (:mod:`.learned`), fitted on WiCE and measured with cross-validation against a
  token-recall baseline (docs/verification.md). It never says SUPPORTED while a figure of
  the claim is missing.

The two thresholds below bound the rules and were tuned on the WiCE and AttributionBench dev
sets (docs/verification.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deep_research.state.models import Reason, ReasonCode, Verdict
from deep_research.verification.alignment import (
    Alignment,
    Analyses,
    Unit,
    align,
    clean_claim,
    words,
)
from deep_research.verification.learned import Classifier, claim_features, default_classifier
from deep_research.verification.reasons import reason, render

__all__ = [
    "PARTIAL_COVERAGE",
    "SUPPORTED_COVERAGE",
    "Analyses",
    "Check",
    "check_claim",
    "check_one",
    "clean_claim",
    "coverage",
    "figure_problem",
    "negations",
    "support_rank",
]

SUPPORTED_COVERAGE = 0.6
"""Share of the claim's words the best sentence must state before a negation or antonym it
has and the claim lacks makes the claim CONTRADICTED."""

PARTIAL_COVERAGE = 0.25
"""Share of the claim the support must state before a missing figure makes it PARTIAL (below
it, the classifier decides, and never says SUPPORTED)."""

_STATED: dict[Verdict, ReasonCode] = {
    Verdict.SUPPORTED: "stated",
    Verdict.PARTIAL: "partly_stated",
    Verdict.UNSUPPORTED: "not_stated",
}

NEGATION_REACH = 2
"""Words after a negation that it governs."""

_NEGATION = re.compile(
    r"\b(?:not(?!\s+only)|no|never|none|neither|nor|cannot|can't|won't|isn't|wasn't|aren't|"
    r"weren't|doesn't|didn't|don't|hasn't|haven't|without)\b",
    re.I,
)
_ANTONYMS = (
    ("increas", "decreas"),
    ("ris", "fall"),  # rise, rises, rising; a stem of three letters matches whole ("risk" not)
    ("ros", "fell"),
    ("grew", "shrank"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("cheaper", "costlier"),
    ("gain", "loss"),
    ("success", "fail"),
    ("approv", "reject"),
    ("won", "lost"),
)


@dataclass(frozen=True)
class Check:
    """The outcome of checking a claim against its evidence."""

    verdict: Verdict
    confidence: float
    reason: Reason
    index: int
    """Position of the passage relied on in the list checked; -1 when there is none."""
    start: int = -1
    """Start of the sentence relied on within that passage."""
    end: int = -1
    coverage: float = 0.0
    """Share of the claim's words and figures the support states."""

    @property
    def reasoning(self) -> str:
        """The reason in English."""
        return render(self.reason)


def negations(text: str) -> list[tuple[int, frozenset[str]]]:
    """Where each negation of ``text`` begins, with the content words within its reach.

    ``not only`` is not a negation.
    """
    return [
        (match.start(), words(" ".join(text[match.end() :].split()[:NEGATION_REACH])))
        for match in _NEGATION.finditer(text)
    ]


def _negated(text: str) -> frozenset[str]:
    """Content words within the reach of a negation."""
    return frozenset(word for _, governed in negations(text) for word in governed)


def _opposed(claim: str, claim_words: frozenset[str], unit: Unit) -> Reason | None:
    """Why the aligned sentence states the opposite of the claim, if it does.

    A negation counts only where it governs a word both sides share, so that ``never`` in
    another clause of a long sentence does not turn support into contradiction.
    """
    shared = claim_words & unit.words
    mine, theirs = _negated(claim) & shared, _negated(unit.text) & shared
    if (mine and not _NEGATION.search(unit.text)) or (theirs and not _NEGATION.search(claim)):
        return reason("negation")
    for a, b in _ANTONYMS:
        for said, other in ((a, b), (b, a)):
            if not _says(claim_words, said):
                continue
            if _says(claim_words, other):
                continue
            if _says(unit.words, other):
                if not _says(unit.words, said):
                    return reason("antonym", other=other, said=said)
    return None


def _says(words: frozenset[str], stem: str) -> bool:
    """Whether ``words`` hold a word of ``stem``: one it begins (the stem whole if that short)."""
    return any(t == stem or len(stem) > 3 and t.startswith(stem) for t in words)


def _figure_check(alignment: Alignment, cov: float = 0.0) -> Check | None:
    """CONTRADICTED for a conflicting figure, PARTIAL for a missing one, else ``None``."""
    if alignment.conflict is not None:
        figure, stated, unit = alignment.conflict
        why = reason("conflict", stated=stated.text, figure=figure.text)
        confidence = round(min(0.95, 0.5 + cov / 2), 3) if cov else 0.8
        return Check(Verdict.CONTRADICTED, confidence, why, unit.passage, unit.start, unit.end, cov)
    if alignment.missing:
        shown = ", ".join(f.text for f in alignment.missing)
        best = alignment.support[0]
        why = reason("missing", figures=shown)
        return Check(Verdict.PARTIAL, 0.6, why, best.passage, best.start, best.end, cov)
    return None


def check_claim(
    claim: str,
    passages: Sequence[str],
    analyses: Analyses | None = None,
    classifier: Classifier | None = None,
) -> Check:
    """Judge ``claim`` against evidence ``passages``; see the module docstring.

    Args:
        claim: The claim; citation markers and end punctuation are ignored.
        passages: The evidence, in order; ``Check.index`` is a position in this list.
        analyses: Keeps what is derived from each text for later checks (see
            :class:`~deep_research.verification.alignment.Analyses`).
        classifier: Decides how much is stated once the strict rules have passed; the
            shipped one (:func:`~deep_research.verification.learned.default_classifier`)
            unless given (the benchmark passes the one fitted on the other folds).

    Returns:
        The verdict, its confidence and reasoning, and the passage and span relied on.
    """
    text = clean_claim(claim)
    if not passages:
        return Check(Verdict.UNSUPPORTED, 0.9, reason("no_evidence"), -1)
    alignment = align(text, passages, analyses)
    if alignment is None:
        return Check(Verdict.UNSUPPORTED, 0.6, reason("not_aligned"), -1)
    best = alignment.support[0]
    cov = round(alignment.coverage, 3)
    figures = _figure_check(alignment, cov)
    if figures is not None and figures.verdict is Verdict.CONTRADICTED:
        return figures
    if alignment.aligned(best) >= SUPPORTED_COVERAGE:
        opposed = _opposed(text, alignment.claim_words, best)
        if opposed:
            confidence = round(min(0.9, alignment.aligned(best)), 3)
            return Check(
                Verdict.CONTRADICTED, confidence, opposed, best.passage, best.start, best.end, cov
            )
    if figures is not None and cov >= PARTIAL_COVERAGE:
        return figures
    found = claim_features(text, passages, alignment, analyses)
    verdict, confidence = (classifier or default_classifier()).classify(found)
    if verdict is Verdict.SUPPORTED and (alignment.missing or cov < SUPPORTED_COVERAGE):
        # never supported: a figure the evidence does not state, or most of the claim unstated
        verdict = Verdict.PARTIAL
    elif alignment.derived and not alignment.missing and cov >= SUPPORTED_COVERAGE:
        # the classifier reads a computed figure as digits the evidence lacks; it checks out
        verdict = Verdict.SUPPORTED
    why = reason(_STATED[verdict], share=f"{cov:.0%}")
    if not cov:  # nothing was relied on
        return Check(verdict, round(confidence, 3), why, -1, coverage=cov)
    return Check(verdict, round(confidence, 3), why, best.passage, best.start, best.end, cov)


def check_one(claim: str, quote: str, index: int = 0, analyses: Analyses | None = None) -> Check:
    """Judge ``claim`` against a single quote, reported at position ``index``."""
    result = check_claim(claim, [quote], analyses)
    position = index if result.index >= 0 else -1
    return Check(
        result.verdict,
        result.confidence,
        result.reason,
        position,
        result.start,
        result.end,
        result.coverage,
    )


def coverage(claim: str, quote: str) -> float:
    """Share of the claim's content words (numbers aside) that the quote contains."""
    claim_words = words(clean_claim(claim))
    if not claim_words:
        return 0.0
    return len(claim_words & words(quote)) / len(claim_words)


def support_rank(claim: str, quote: str, analyses: Analyses | None = None) -> tuple[int, float]:
    """A sort key (higher is better) for how well one quote supports a claim."""
    result = check_one(claim, quote, analyses=analyses)
    rank = {Verdict.SUPPORTED: 2, Verdict.PARTIAL: 1}.get(result.verdict, 0)
    return rank, result.coverage


def figure_problem(
    claim: str, passages: Sequence[str], analyses: Analyses | None = None
) -> Check | None:
    """The strict figure check alone: a CONTRADICTED or PARTIAL check, or ``None`` if fine.

    Used to hold a model's SUPPORTED verdict to the rule the offline verifier keeps: a figure
    the evidence does not state cannot be fully supported, and one it states differently is
    contradicted.
    """
    alignment = align(clean_claim(claim), passages, analyses)
    if alignment is None or not alignment.figures:
        return None
    return _figure_check(alignment)
