"""Lexical and numeric support checks: the offline verifier.

A claim is aligned with its evidence passages (:mod:`.alignment`): the sentences that state
most of it are its support. Then, strictly:

* every figure the claim states (numbers with units, money, percentages, dates; see
  :mod:`.quantities`) must appear in the evidence, allowing only rounding and stated hedges;
  a figure the evidence does not state makes the claim at most PARTIAL;
* a figure of the same kind that an aligned sentence states differently (``300 tokens/s``
  for the claim's ``3,000 tokens/s``, ``2021`` for ``2019``), or a negation or antonym that
  the aligned sentence has and the claim lacks, makes the claim CONTRADICTED, never SUPPORTED;
* otherwise the share of the claim the support states decides: SUPPORTED, PARTIAL or
  UNSUPPORTED.

The thresholds were tuned on the WiCE and AttributionBench dev sets (docs/verification.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deep_research.state.models import Verdict
from deep_research.verification.alignment import (
    Alignment,
    Analyses,
    Unit,
    align,
    clean_claim,
    words,
)

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
    "support_rank",
]

SUPPORTED_COVERAGE = 0.6
"""Share of the claim (content words and figures) the support must state to be SUPPORTED."""

PARTIAL_COVERAGE = 0.25
"""Share below which the evidence does not state the claim at all (UNSUPPORTED)."""

NEGATION_REACH = 2
"""Words after a negation that it governs."""

_NEGATION = re.compile(
    r"\b(?:not(?!\s+only)|no|never|none|neither|nor|cannot|can't|won't|isn't|wasn't|aren't|"
    r"weren't|doesn't|didn't|don't|hasn't|haven't|without)\b",
    re.I,
)
_ANTONYMS = (
    ("increas", "decreas"),
    ("rise", "fall"),
    ("rose", "fell"),
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
    reasoning: str
    index: int
    """Position of the passage relied on in the list checked; -1 when there is none."""
    start: int = -1
    """Start of the sentence relied on within that passage."""
    end: int = -1
    coverage: float = 0.0
    """Share of the claim's words and figures the support states."""


def _negated(text: str) -> frozenset[str]:
    """Content words within the reach of a negation (``not only`` is not one)."""
    found: set[str] = set()
    for match in _NEGATION.finditer(text):
        found |= words(" ".join(text[match.end() :].split()[:NEGATION_REACH]))
    return frozenset(found)


def _opposed(claim: str, claim_words: frozenset[str], unit: Unit) -> str | None:
    """Why the aligned sentence states the opposite of the claim, if it does.

    A negation counts only where it governs a word both sides share, so that ``never`` in
    another clause of a long sentence does not turn support into contradiction.
    """
    shared = claim_words & unit.words
    mine, theirs = _negated(claim) & shared, _negated(unit.text) & shared
    if (mine and not _NEGATION.search(unit.text)) or (theirs and not _NEGATION.search(claim)):
        return "the evidence states the opposite (negation differs)"
    for a, b in _ANTONYMS:
        for said, other in ((a, b), (b, a)):
            if not any(t.startswith(said) for t in claim_words):
                continue
            if any(t.startswith(other) for t in claim_words):
                continue
            if any(t.startswith(other) for t in unit.words):
                if not any(t.startswith(said) for t in unit.words):
                    return f"the evidence says '{other}…' where the claim says '{said}…'"
    return None


def _figure_check(alignment: Alignment, cov: float = 0.0) -> Check | None:
    """CONTRADICTED for a conflicting figure, PARTIAL for a missing one, else ``None``."""
    if alignment.conflict is not None:
        figure, stated, unit = alignment.conflict
        why = f"the evidence gives {stated.text}, not the claim's {figure.text}"
        confidence = round(min(0.95, 0.5 + cov / 2), 3) if cov else 0.8
        return Check(Verdict.CONTRADICTED, confidence, why, unit.passage, unit.start, unit.end, cov)
    if alignment.missing:
        shown = ", ".join(f.text for f in alignment.missing)
        best = alignment.support[0]
        why = f"the evidence does not state the claim's {shown}"
        return Check(Verdict.PARTIAL, 0.6, why, best.passage, best.start, best.end, cov)
    return None


def check_claim(claim: str, passages: Sequence[str], analyses: Analyses | None = None) -> Check:
    """Judge ``claim`` against evidence ``passages``; see the module docstring.

    Args:
        claim: The claim; citation markers and end punctuation are ignored.
        passages: The evidence, in order; ``Check.index`` is a position in this list.
        analyses: Keeps what is derived from each text for later checks (see
            :class:`~deep_research.verification.alignment.Analyses`).

    Returns:
        The verdict, its confidence and reasoning, and the passage and span relied on.
    """
    text = clean_claim(claim)
    if not passages:
        return Check(Verdict.UNSUPPORTED, 0.9, "there is no evidence for it", -1)
    alignment = align(text, passages, analyses)
    if alignment is None:
        return Check(Verdict.UNSUPPORTED, 0.6, "the evidence does not state it", -1)
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
    if cov >= SUPPORTED_COVERAGE:
        verdict, confidence, why = Verdict.SUPPORTED, min(0.95, 0.5 + cov / 2), "stated"
    elif cov >= PARTIAL_COVERAGE:
        verdict, confidence, why = Verdict.PARTIAL, 0.55, "only partly stated"
    else:
        verdict, confidence, why = (
            Verdict.UNSUPPORTED,
            0.6 + (PARTIAL_COVERAGE - cov) / 2,
            "not stated",
        )
    reasoning = f"{why}: the evidence states {cov:.0%} of the claim's terms and figures"
    if not cov:  # nothing was relied on
        return Check(verdict, round(confidence, 3), reasoning, -1, coverage=cov)
    return Check(verdict, round(confidence, 3), reasoning, best.passage, best.start, best.end, cov)


def check_one(claim: str, quote: str, index: int = 0, analyses: Analyses | None = None) -> Check:
    """Judge ``claim`` against a single quote, reported at position ``index``."""
    result = check_claim(claim, [quote], analyses)
    position = index if result.index >= 0 else -1
    return Check(
        result.verdict,
        result.confidence,
        result.reasoning,
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
