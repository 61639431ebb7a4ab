"""A small learned classifier for the offline verifier's last step: how much is stated.

The strict rules of :mod:`.checks` come first (a conflicting figure or an opposed negation is
CONTRADICTED, a figure the evidence does not state makes the claim at most PARTIAL). What is
left, deciding SUPPORTED, PARTIAL or UNSUPPORTED from how much of the claim the evidence
states, was two coverage thresholds; it is now a multinomial logistic regression over lexical,
alignment and numeric features (:data:`FEATURES`), evaluated in pure Python.

The coefficients ship as ``verifier_model.json`` beside this module. They were fitted by
``python -m bench.verifier --fit`` on the WiCE dev set only (claims from Wikipedia with their
cited web pages; the annotations are ODC-BY, which allows this use with attribution: Kamoi et
al., 2023, "WiCE: Real-World Entailment for Claims in Wikipedia"). AttributionBench is for
research use, so nothing fitted on it ships; it is only used to measure. How well the model
does, with cross-validation and against a token-recall baseline: docs/verification.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from deep_research.state.models import Verdict
from deep_research.text.words import content_tokens
from deep_research.verification.alignment import Alignment, Analyses, Unit, words

__all__ = ["FEATURES", "Classifier", "claim_features", "default_classifier"]

MODEL_FILE = "verifier_model.json"
"""The shipped coefficients, a package resource of :mod:`deep_research.verification`."""

FEATURES = (
    "coverage",
    "best_sentence",
    "word_recall",
    "bigram_recall",
    "name_recall",
    "has_figures",
    "figures_stated",
    "support_sentences",
    "log_claim_words",
    "best_sentence_precision",
    "token_recall",
    "top1_recall",
    "top2_recall",
    "top3_recall",
    "top5_recall",
    "log_missing_words",
    "missing_share",
    "clauses",
    "log_sentences",
    "weighted_top3_recall",
    "clause_min_best",
    "clause_mean_best",
    "clause_min_anywhere",
    "window3_recall",
    "missing_names",
    "numbers_literal",
    "negation_mismatch",
    "log_long_missing",
    "clause_count",
)
"""What the classifier sees of a claim and its evidence, in this order:

* ``coverage``: weighted share of the claim's words and figures its support states;
* ``best_sentence``: share of the claim's words in the best-aligned sentence;
* ``word_recall``: share of the claim's words (numbers aside) anywhere in the evidence;
* ``bigram_recall``: share of the claim's consecutive content-word pairs in the evidence;
* ``name_recall``: share of the claim's names (capitalized mid-sentence) in the evidence;
* ``has_figures``: 1 when the claim states a figure;
* ``figures_stated``: share of the claim's figures the evidence states (1 when none);
* ``support_sentences``: sentences in the support (1 or 2);
* ``log_claim_words``: log of 1 + the claim's content words;
* ``best_sentence_precision``: share of the best sentence's words that are the claim's;
* ``token_recall``: share of the claim's content tokens (figures blanked, as they are
  compared by value above) found in the evidence's text;
* ``topK_recall``: share of the claim's words in the K sentences sharing most of them;
* ``log_missing_words``, ``missing_share``: the claim's words found nowhere in the evidence;
* ``clauses``: commas, ``and``, ``which``, ``who``, ``while`` and semicolons in the claim
  (a claim of several facts is more often only partly supported);
* ``log_sentences``: log of 1 + the evidence's sentences;
* ``weighted_top3_recall``: weighted share (names count more) of the claim's words in the
  three sentences sharing most of them;
* ``clause_min_best``, ``clause_mean_best``: the claim split at commas, semicolons and
  ``and``/``but``/``which``/``who``/``while``/``including`` into clauses of two words or more;
  for each, the share of its words in the one sentence stating most of them; the weakest and
  the mean (a partly supported claim often has one clause stated nowhere);
* ``clause_min_anywhere``: the weakest clause's share of words found anywhere;
* ``window3_recall``: share of the claim's words in the best three consecutive sentences;
* ``missing_names``: the claim's names found nowhere in the evidence;
* ``numbers_literal``: share of the claim's digit strings found verbatim in the evidence
  (1 when none);
* ``negation_mismatch``: 1 when exactly one of the claim and its best sentence has a negation;
* ``log_long_missing``: log of 1 + the missing words of six letters or more;
* ``clause_count``: the clauses above.
"""

_CLAUSE = re.compile(r",|;|\b(?:and|which|who|while)\b")
_SPLIT = re.compile(r",|;|\b(?:and|which|who|while|but|including)\b")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|without|neither|cannot|failed)\b|n't", re.I)
_DIGITS = re.compile(r"\d+")


def token_recall(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's distinct content tokens that occur anywhere in the passages.

    This alone, with thresholds, is the baseline the classifier is measured against.
    """
    claim_tokens = set(content_tokens(claim))
    evidence = set(content_tokens(" ".join(passages)))
    return len(claim_tokens & evidence) / len(claim_tokens) if claim_tokens else 0.0


@dataclass(frozen=True)
class Classifier:
    """Multinomial logistic regression on standardized features, with decision cuts.

    The classes' probabilities give an expected support, P(SUPPORTED) + P(PARTIAL) / 2 (the
    first class plus half the second); the cuts, chosen on the training data, turn it into a
    verdict: at least ``cuts[0]`` is the first class, at least ``cuts[1]`` the second, below
    the last class.
    """

    classes: tuple[Verdict, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    """One row per class, one column per feature."""
    bias: tuple[float, ...]
    cuts: tuple[float, ...] = (0.5, 0.25)

    def probabilities(self, features: Sequence[float]) -> dict[Verdict, float]:
        """The probability of each class for one feature vector."""
        z = [(x - m) / s for x, m, s in zip(features, self.mean, self.scale, strict=True)]
        scores = [
            b + sum(w * x for w, x in zip(row, z, strict=True))
            for row, b in zip(self.weights, self.bias, strict=True)
        ]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {c: e / total for c, e in zip(self.classes, exps, strict=True)}

    def support(self, features: Sequence[float]) -> float:
        """The expected support: P(first class) + P(second class) / 2 when there are three."""
        p = list(self.probabilities(features).values())
        return p[0] + (p[1] / 2 if len(p) == 3 else 0.0)

    def classify(self, features: Sequence[float]) -> tuple[Verdict, float]:
        """The verdict the cuts give, and a confidence in it.

        The confidence is the expected support for the first class, one minus it for the
        last, and the middle class's probability for the middle class.
        """
        support = self.support(features)
        for position, (cut, verdict) in enumerate(zip(self.cuts, self.classes, strict=False)):
            if support >= cut:
                if position == 0:
                    return verdict, support
                return verdict, self.probabilities(features)[verdict]
        return self.classes[-1], 1.0 - support

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Classifier:
        """Read the shape :meth:`as_json` writes."""
        if list(data["features"]) != list(FEATURES):  # type: ignore[call-overload]
            raise ValueError(f"the model's features are not {FEATURES}")

        def floats(key: str) -> tuple[float, ...]:
            return tuple(float(v) for v in data[key])  # type: ignore[attr-defined]

        return cls(
            classes=tuple(Verdict(c) for c in data["classes"]),  # type: ignore[attr-defined]
            mean=floats("mean"),
            scale=floats("scale"),
            weights=tuple(
                tuple(float(v) for v in row)
                for row in data["weights"]  # type: ignore[attr-defined]
            ),
            bias=floats("bias"),
            cuts=floats("cuts"),
        )

    def as_json(self) -> dict[str, object]:
        """The coefficients as JSON-ready data."""
        return {
            "features": list(FEATURES),
            "classes": [c.value for c in self.classes],
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": [list(row) for row in self.weights],
            "bias": list(self.bias),
            "cuts": list(self.cuts),
        }


@cache
def default_classifier() -> Classifier:
    """The shipped classifier (read once)."""
    text = resources.files("deep_research.verification").joinpath(MODEL_FILE).read_text("utf-8")
    return Classifier.from_json(json.loads(text))


def _bigrams(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(tokens, tokens[1:], strict=False))


def _share(part: int, whole: int, empty: float = 0.0) -> float:
    return part / whole if whole else empty


def claim_features(
    claim: str,
    passages: Sequence[str],
    alignment: Alignment,
    analyses: Analyses | None = None,
) -> list[float]:
    """The :data:`FEATURES` of ``claim`` (cleaned), its ``passages`` and their alignment."""
    analyses = analyses or Analyses()
    units = analyses.units(passages)
    claim_words = alignment.claim_words
    evidence_words: set[str] = set().union(*(u.words for u in units)) if units else set()
    claim_tokens = content_tokens(alignment.claim)
    evidence_pairs: set[tuple[str, str]] = set()
    for unit in units:
        evidence_pairs |= _bigrams(content_tokens(unit.text))
    pairs = _bigrams(claim_tokens)
    names = {w for w, weight in alignment.weights.items() if weight > 1.0}
    figures = [f for f in alignment.figures if not f.spelled]
    best = alignment.support[0]
    ranked = sorted(units, key=lambda u: -len(u.words & claim_words))
    missing = len(claim_words - evidence_words)
    return [
        alignment.coverage,
        alignment.aligned(best),
        _share(len(claim_words & evidence_words), len(claim_words)),
        _share(len(pairs & evidence_pairs), len(pairs), empty=1.0),
        _share(len(names & evidence_words), len(names), empty=1.0),
        1.0 if figures else 0.0,
        _share(len(figures) - len(alignment.missing), len(figures), empty=1.0),
        float(len(alignment.support)),
        math.log1p(len(claim_words)),
        _share(len(best.words & claim_words), len(best.words)),
        token_recall(alignment.claim, passages),  # figures blanked: they are compared above
        *(_top_recall(ranked, claim_words, k) for k in (1, 2, 3, 5)),
        math.log1p(missing),
        _share(missing, len(claim_words)),
        float(len(_CLAUSE.findall(claim))),
        math.log1p(len(units)),
        *_context_features(claim, passages, alignment, units, ranked, evidence_words),
    ]


def _context_features(
    claim: str,
    passages: Sequence[str],
    alignment: Alignment,
    units: Sequence[Unit],
    ranked: Sequence[Unit],
    evidence_words: set[str],
) -> list[float]:
    """The features from ``weighted_top3_recall`` on (see :data:`FEATURES`)."""
    claim_words, weights = alignment.claim_words, alignment.weights
    total = sum(weights.get(w, 1.0) for w in claim_words)
    top3: set[str] = set()
    for unit in ranked[:3]:
        top3 |= unit.words & claim_words
    clauses = [c for c in (words(p) for p in _SPLIT.split(alignment.claim)) if len(c) >= 2]
    best = [max((len(u.words & c) for u in units), default=0) / len(c) for c in clauses]
    anywhere = [len(c & evidence_words) / len(c) for c in clauses]
    window = max(
        (
            _share(len(_union(units[i : i + 3]) & claim_words), len(claim_words))
            for i in range(len(units))
        ),
        default=0.0,
    )
    names = {w for w, weight in weights.items() if weight > 1.0}
    numbers = set(_DIGITS.findall(claim))
    text = " ".join(passages)
    stated = {n for n in numbers if re.search(rf"(?<!\d){n}(?!\d)", text)}
    missing = claim_words - evidence_words
    lead = ranked[0].text if ranked else ""
    return [
        sum(weights.get(w, 1.0) for w in top3) / total if total else 0.0,
        min(best, default=1.0),
        sum(best) / len(best) if best else 1.0,
        min(anywhere, default=1.0),
        window,
        float(len(names - evidence_words)),
        _share(len(stated), len(numbers), empty=1.0),
        float(bool(_NEGATION.search(claim)) != bool(_NEGATION.search(lead))),
        math.log1p(len([w for w in missing if len(w) >= 6])),
        float(len(clauses)),
    ]


def _union(units: Sequence[Unit]) -> frozenset[str]:
    found: frozenset[str] = frozenset()
    for unit in units:
        found |= unit.words
    return found


def _top_recall(ranked: Sequence[Unit], claim_words: frozenset[str], k: int) -> float:
    covered: set[str] = set()
    for unit in ranked[:k]:
        covered |= unit.words & claim_words
    return _share(len(covered), len(claim_words))
