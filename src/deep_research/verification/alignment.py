"""Aligning a claim with its evidence: which sentences state it, and what of it they state.

The evidence passages are split into sentences. The sentence sharing most of the claim's
content words leads the claim's support; up to :data:`MAX_SUPPORT_SENTENCES` join it when each
adds :data:`MIN_GAIN` of the claim. The claim's figures (see :mod:`.quantities`) are looked up
in the whole evidence (the support first), and a figure of the same kind stated differently by a
well aligned sentence is recorded as a conflict. :mod:`.checks` turns an :class:`Alignment`
into a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deep_research.text.words import content_tokens, sentences
from deep_research.verification.agreement import agrees, conflicts
from deep_research.verification.arithmetic import (
    Comparison,
    comparison,
    cue_words,
    derivation,
    miscomputed,
)
from deep_research.verification.quantities import Quantity, quantities

CONFLICT_COVERAGE = 0.5
"""Share of the claim a sentence must state before a figure it gives differently conflicts."""

CONTEXT_WORDS = 3
"""Content words either side of a figure that say what it is about."""

MAX_SUPPORT_SENTENCES = 2
"""Sentences that may together support one claim."""

MIN_GAIN = 0.15
"""Share of the claim a further sentence must add to join the support."""

NAME_WEIGHT = 1.5
"""Weight of a name (a word capitalized mid-sentence) against 1 for other words."""

FIGURE_WEIGHT = 1.0
"""Weight of each figure of the claim in its coverage."""


_CITATION = re.compile(r"\s*\[(?:@[\w]+|E?\d+(?:\s*,\s*E?\d+)*)\]")
_CONTEXTUAL = ("date", "decade", "percent", "count")
"""Kinds of figure that conflict only when the words around both figures overlap."""


def words(text: str) -> frozenset[str]:
    """Content words of ``text``, numbers aside, stemmed for matching."""
    return frozenset(
        t for t in content_tokens(text) if not t.replace(",", "").replace(".", "").isdigit()
    )


def clean_claim(claim: str) -> str:
    """Drop citation markers (``[3]``, ``[E1]``, ``[@ev_x]``) and end punctuation."""
    return _CITATION.sub("", claim).strip().rstrip(".!?").strip()


def weights(claim: str) -> dict[str, float]:
    """Weight of each content word of the claim: names (capitalized mid-sentence) count more."""
    found: dict[str, float] = {}
    for position, raw in enumerate(re.findall(r"[A-Za-z0-9]+(?:[.,'][A-Za-z0-9]+)*", claim)):
        for word in words(raw):
            name = position > 0 and raw[:1].isupper()
            found[word] = max(found.get(word, 0.0), NAME_WEIGHT if name else 1.0)
    return found


@dataclass(frozen=True)
class Unit:
    """A sentence of an evidence passage, with its offsets in that passage."""

    passage: int
    start: int
    end: int
    text: str
    words: frozenset[str]


def units(passages: Sequence[str]) -> list[Unit]:
    """The sentences of every passage (a passage with none is one unit)."""
    return [unit for index, passage in enumerate(passages) for unit in _units(index, passage)]


def _units(index: int, passage: str) -> list[Unit]:
    """The sentences of one passage, at position ``index``."""
    pieces = list(sentences(passage)) if passage.strip() else []
    if not pieces and passage.strip():
        stripped = passage.strip()
        at = passage.index(stripped)
        return [Unit(index, at, at + len(stripped), stripped, words(stripped))]
    return [Unit(index, p.start, p.end, p.text, words(p.text)) for p in pieces]


class Analyses:
    """What :func:`align` derives from a text alone, worked out once per text.

    Ranking alternates checks many claims against the same spans, and each claim against
    many spans; one instance, kept for such a pass, splits each span into sentences and
    reads each text's figures once. The results are shared: callers must not modify them.
    """

    def __init__(self) -> None:
        """Start with nothing worked out."""
        self._units: dict[tuple[int, str], list[Unit]] = {}
        self._quantities: dict[str, list[Quantity]] = {}
        self._tokens: dict[str, frozenset[str]] = {}
        self._claims: dict[str, _Claim] = {}

    def units(self, passages: Sequence[str]) -> list[Unit]:
        """:func:`units` of ``passages``."""
        found: list[Unit] = []
        for index, passage in enumerate(passages):
            key = (index, passage)
            if key not in self._units:
                self._units[key] = _units(index, passage)
            found.extend(self._units[key])
        return found

    def quantities(self, text: str) -> list[Quantity]:
        """:func:`~deep_research.verification.quantities.quantities` of ``text``."""
        if text not in self._quantities:
            self._quantities[text] = quantities(text)
        return self._quantities[text]

    def tokens(self, text: str) -> frozenset[str]:
        """The distinct :func:`~deep_research.text.words.content_tokens` of ``text``."""
        if text not in self._tokens:
            self._tokens[text] = frozenset(content_tokens(text))
        return self._tokens[text]

    def claim(self, claim: str) -> _Claim:
        """The claim side of an alignment: its figures, and its words with figures blanked."""
        if claim not in self._claims:
            figures = self.quantities(claim)
            blanked = _blank(claim, figures)  # units such as MWh belong to figures, not words
            self._claims[claim] = _Claim(blanked, words(blanked), weights(blanked), figures)
        return self._claims[claim]


@dataclass(frozen=True)
class _Claim:
    blanked: str
    words: frozenset[str]
    weights: dict[str, float]
    figures: list[Quantity]


@dataclass
class Alignment:
    """What the evidence states of a claim."""

    claim: str
    """The claim with its figures blanked out."""
    claim_words: frozenset[str]
    weights: dict[str, float]
    figures: list[Quantity]
    support: list[Unit]
    """The sentences that state the claim, best first."""
    covered: set[str]
    matched: list[Quantity] = field(default_factory=list)
    conflict: tuple[Quantity, Quantity, Unit] | None = None
    """A figure of the claim, the figure the evidence gives instead, and where."""
    derived: list[Quantity] = field(default_factory=list)
    """Figures of the claim the evidence does not write but gives by arithmetic (among
    ``matched``; see :mod:`.arithmetic`)."""

    @property
    def coverage(self) -> float:
        """Weighted share of the claim's words and figures that the support states."""
        total = sum(self.weights.get(w, 1.0) for w in self.claim_words)
        total += len([f for f in self.figures if not f.spelled]) * FIGURE_WEIGHT
        hits = sum(self.weights.get(w, 1.0) for w in self.covered)
        hits += len([f for f in self.matched if not f.spelled]) * FIGURE_WEIGHT
        return hits / total if total else 0.0

    @property
    def missing(self) -> list[Quantity]:
        """Figures of the claim (spelled-out ones aside) that the evidence does not state."""
        return [f for f in self.figures if f not in self.matched and not f.spelled]

    def aligned(self, unit: Unit) -> float:
        """Share of the claim's words that one sentence states."""
        return len(unit.words & self.claim_words) / max(1, len(self.claim_words))


def _blank(text: str, figures: Sequence[Quantity]) -> str:
    for figure in figures:
        text = text[: figure.start] + " " * (figure.end - figure.start) + text[figure.end :]
    return text


def align(
    claim: str, passages: Sequence[str], analyses: Analyses | None = None
) -> Alignment | None:
    """Align ``claim`` with ``passages``; ``None`` when either has nothing to compare.

    ``analyses`` keeps what is derived from each text for later calls (see :class:`Analyses`).
    """
    analyses = analyses or Analyses()
    side = analyses.claim(claim)
    figures, claim_words = side.figures, side.words
    found = analyses.units(passages)
    if not found or not (claim_words or figures):
        return None
    ranked = sorted(found, key=lambda u: -len(u.words & claim_words))
    support, covered = [ranked[0]], set(ranked[0].words & claim_words)
    for unit in ranked[1:8]:
        if len(support) == MAX_SUPPORT_SENTENCES:
            break
        gain = len((unit.words & claim_words) - covered)
        if claim_words and gain / len(claim_words) >= MIN_GAIN:
            support.append(unit)
            covered |= unit.words & claim_words
    alignment = Alignment(
        side.blanked, claim_words, dict(side.weights), list(figures), support, covered
    )
    if figures:
        _match_figures(alignment, ranked, analyses)
    return alignment


def _match_figures(alignment: Alignment, ranked: list[Unit], analyses: Analyses) -> None:
    """Match the claim's figures in the evidence; record one a support sentence contradicts.

    A figure stated anywhere in the evidence is stated (support sentences are searched
    first); only a support sentence can contradict one.
    """
    pool = list(dict.fromkeys([*alignment.support, *ranked]))
    stated = [(unit, q) for unit in pool for q in analyses.quantities(unit.text)]
    used: set[int] = set()
    for figure in alignment.figures:
        for position, (_, q) in enumerate(stated):
            if agrees(figure, q):
                alignment.matched.append(figure)
                used.add(position)
                break
    direct = [q for q in alignment.matched if q.kind not in ("date", "decade")]
    context = {q: _around(unit.text, q) for unit, q in reversed(stated)}
    units = {q: unit.text for unit, q in reversed(stated)}
    for figure in alignment.missing:  # a growth rate, share, ratio, sum or difference
        about = _around(alignment.claim, figure)  # the sentences on the figure's subject

        def related(a: Quantity, b: Quantity, about: frozenset[str] = about) -> bool:
            on_subject = bool(context[a] & about) and bool(context[b] & about)
            return on_subject and (units[a] == units[b] or bool(context[a] & context[b]))

        beside = [analyses.quantities(u.text) for u in alignment.support if about & u.words]
        sides = _comparison_sides(alignment.claim, figure, stated, direct)
        found = derivation(
            figure,
            alignment.claim,
            [q for _, q in stated],
            shown=direct,
            beside=beside,
            related=related,
            sides=sides,
        )
        if found is not None:
            alignment.matched.append(figure)
            alignment.derived.append(figure)
            # the words saying how it was computed ("rose", "combined") are stated by the sum
            cues = set(content_tokens(" ".join(cue_words(alignment.claim))))
            alignment.covered |= cues & alignment.claim_words
    for figure in alignment.missing:
        for position, (unit, q) in enumerate(stated):
            if position in used or q.spelled or unit not in alignment.support:
                continue
            if alignment.aligned(unit) < CONFLICT_COVERAGE or not conflicts(figure, q):
                continue
            if _same_context(figure, alignment.claim, q, unit.text):
                alignment.conflict = (figure, q, unit)
                return
    figures = [q for _, q in stated if not q.spelled and q.kind not in ("date", "decade")]
    operands = direct if len(direct) >= 2 else figures if len(figures) <= 3 else []
    for figure in alignment.missing:  # derived from the operands, wrongly
        sides = _comparison_sides(alignment.claim, figure, stated, direct)
        wrong = miscomputed(figure, alignment.claim, operands, sides)
        if wrong is not None:
            computed = Quantity(wrong.value, figure.kind, wrong.describe(), 0, 0)
            alignment.conflict = (figure, computed, alignment.support[0])
            return


def _comparison_sides(
    claim: str, figure: Quantity, stated: Sequence[tuple[Unit, Quantity]], shown: list[Quantity]
) -> dict[Quantity, float] | None:
    """The side each operand leans to if ``figure`` is compared (``N more than X``)."""
    compares = comparison(claim, figure)
    if compares is None:
        return None
    sides = _sides(claim, figure, compares, stated)
    return sides | {q: _shown_side(figure, compares, q) for q in shown}


def _sides(
    claim: str, figure: Quantity, compares: Comparison, stated: Sequence[tuple[Unit, Quantity]]
) -> dict[Quantity, float]:
    """How far each evidence figure leans to the subject of ``claim``'s comparison.

    The subject is what the claim names before ``figure``, the compared side what it names
    after ``than``; a figure leans by the words of either side alone in the stretch of its
    sentence before it (after the previous figure), or else after it.
    """
    subject = set(content_tokens(claim[: figure.start]))
    compared = set(content_tokens(claim[compares.than :]))
    subject, compared = subject - compared, compared - subject
    figures: dict[int, list[Quantity]] = {}  # by sentence
    for unit, q in stated:
        figures.setdefault(id(unit), []).append(q)
    leaning: dict[Quantity, float] = {}
    for unit, q in stated:
        others = figures[id(unit)]
        start = max((o.end for o in others if o.end <= q.start), default=0)
        end = min((o.start for o in others if o.start >= q.end), default=len(unit.text))
        before = set(content_tokens(unit.text[start : q.start]))
        after = set(content_tokens(unit.text[q.end : end]))
        words = before if before & (subject | compared) else after
        leaning.setdefault(q, len(words & subject) - len(words & compared))
    return leaning


def _shown_side(figure: Quantity, compares: Comparison, shown: Quantity) -> float:
    """The side of a figure the claim shows: before the compared figure, or after ``than``."""
    if shown.start >= compares.than:
        return -1.0
    return 1.0 if shown.end <= figure.start else 0.0


def _around(text: str, figure: Quantity) -> frozenset[str]:
    before = [t for t in content_tokens(text[: figure.start]) if not t[0].isdigit()]
    after = [t for t in content_tokens(text[figure.end :]) if not t[0].isdigit()]
    return frozenset(before[-CONTEXT_WORDS:] + after[:CONTEXT_WORDS])


def _same_context(figure: Quantity, claim: str, stated: Quantity, sentence: str) -> bool:
    """True when both figures are about the same thing (always, for units such as MWh)."""
    if figure.kind not in _CONTEXTUAL:
        return True
    return bool(_around(claim, figure) & _around(sentence, stated))
