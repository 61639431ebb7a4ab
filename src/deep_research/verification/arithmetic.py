"""Figures derived by arithmetic from the evidence's figures, checked by computing them.

A report may state what its sources imply but do not write: a growth rate from two revenues,
a share, a ratio, a sum or a difference. Such a figure is not "unstated": :func:`derivation`
computes it from two figures the evidence states (of one kind, in one currency, counts of one
thing) and, when the arithmetic gives the claim's figure within the precision it is written
with (10 % when hedged), it counts as stated. Which pairs it tries is bounded by where the
operands stand, not by words, so that it works in any language:

* **shown**: the claim states both operands itself (``from $10 million to $15 million, +50%``,
  ``比2022年的36,883元增长6.3%``): any operation. The claim shows its working, so the pair is
  the claim's own.
* **beside**: the operands are two figures of one evidence sentence aligned with the claim, on
  the same subject as the figure (a word around it is in that sentence), a sentence holding at
  most :data:`MAX_OPERANDS` figures of their kind: a percent change, a share or a ratio only,
  whose kind differs from its operands'. A sum or a difference of unshown operands is of their
  own kind, and would pass a wrong figure for one of them (``Revenue was $25 million in 2021``
  against $10 million in 2020 and $15 million in 2021).
* **said**: two figures of the evidence, any operation, when the claim says it derived a
  figure (``grew``, ``combined``, ``合计``, ``倍``: :func:`cue_words`, English and Chinese),
  each on the figure's subject and both on one subject (the caller's ``related``): a total
  cost is not a cost plus a revenue, and a ratio of a budget for events to a building's cost
  is no "times more than planned".

Whatever the path, a sum or a difference is of the claim's kind and unit (its currency, the
noun it counts), and a comparison goes the way the claim says: in ``N more than X``
(:func:`comparison`), the figure is the subject's operand less the compared one
(``LFP stores 90 Wh/kg more than NMC at 250 Wh/kg`` needs LFP at 340, not 160), its ratio or
percent change to it the same way; the caller tells which side each operand leans to
(``sides``), and a pair whose sides it cannot tell apart gives no comparison.

A plain count under :data:`MIN_COUNT` is never derived: small whole numbers equal a sum or a
difference of other figures by chance too often.

Wrong arithmetic needs the claim to say it computed: when it does and no operation on its
operands gives its figure, :func:`miscomputed` says what the operands do give, and the claim
is CONTRADICTED. Without such a word, a figure that no operation gives may be a fact of its
own (``…, and a 30% market share``), and stays unstated (PARTIAL), never contradicted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from deep_research.verification.hedges import APPROX_TOLERANCE
from deep_research.verification.quantities import Quantity

__all__ = [
    "MAX_OPERANDS",
    "MIN_COUNT",
    "Comparison",
    "Derivation",
    "comparison",
    "cue_words",
    "derivation",
    "miscomputed",
]

MAX_OPERANDS = 3
"""Figures of one kind an evidence sentence may hold for a figure the claim does not show
the operands of to be computed from it: with more, some pair gives most percentages."""

MIN_COUNT = 10
"""The smallest plain count that may be derived (see the module docstring)."""

_RATIO = re.compile(r"\s*(?:times\b|x\b|×|-?fold\b|倍)", re.I)
"""What follows a ratio's number: ``3 times``, ``2.5x``, ``three-fold``, ``3倍``."""
_CUE = re.compile(
    r"\b(?:increase[ds]?|grew|grow(?:th|s|n)?|rise[sn]?|rose|fell|fall(?:s|en)?|declined?|"
    r"declines|drop(?:ped|s)?|jump(?:ed|s)?|climb(?:ed|s)?|ratio|times|fold|share|total(?:led|ed|"
    r"ling|ing)?|combined|sum|difference|together|altogether|"
    r"(?<!\bor )(?<!\band )(?:more|less|fewer|higher|lower))\b"
    r"|增长|增加|下降|减少|上涨|下跌|同比|环比|合计|总计|共计|总共|相差|差距|倍|占",
    re.I,
)
"""Words that say a figure was worked out from others: a change, a ratio, a share, a total.

"More" or "less" after "or" or "and" bounds the figure before it ("8,000 cycles or more"),
and says nothing was computed."""
_UP = re.compile(
    r"\b(?:increase[ds]?|grew|grow(?:th|s|n)?|rise[sn]?|rose|jump(?:ed|s)?|climb(?:ed|s)?|up)\b"
    r"|增长|增加|上涨|上升|提高",
    re.I,
)
_DOWN = re.compile(
    r"\b(?:decrease[ds]?|fell|fall(?:s|en)?|declined?|declines|drop(?:ped|s)?|down|shr[au]nk)\b"
    r"|下降|减少|下跌|降低",
    re.I,
)
_NOT_OPERANDS = frozenset({"date", "decade"})
_THAN = re.compile(
    r"[^.;:\n]{0,40}?\b(?:(?P<up>more|higher|greater|larger|bigger|longer|heavier|above|over)"
    r"|(?P<down>less|lower|fewer|smaller|shorter|lighter|below|under))\s+than\b",
    re.I,
)
"""What follows a compared figure: ``Wh/kg more than``, ``times higher than``."""


@dataclass(frozen=True)
class Comparison:
    """A claim's ``N more than X`` (or ``less than``): which way, and where X begins."""

    sign: int
    """1 for more, -1 for less."""
    than: int
    """The offset in the claim just after ``than``, where the compared side begins."""


def comparison(claim: str, figure: Quantity) -> Comparison | None:
    """The comparison ``figure`` states, if the words after it make one (English)."""
    match = _THAN.match(claim, figure.end)
    if match is None:
        return None
    return Comparison(1 if match["up"] else -1, match.end())


@dataclass(frozen=True)
class Derivation:
    """A figure computed from two stated ones."""

    value: float
    operation: str
    """``sum``, ``difference``, ``change`` (percent), ``share`` (percent) or ``ratio``."""
    operands: tuple[Quantity, Quantity]

    def describe(self) -> str:
        """``50% (the change from $10 million to $15 million)``, as a reason shows it."""
        a, b = (op.text for op in self.operands)
        number = f"{self.value:,.0f}" if abs(self.value) >= 1000 else f"{self.value:.3g}"
        what = {
            "sum": f"{number} (the sum of {a} and {b})",
            "difference": f"{number} (the difference of {a} and {b})",
            "change": f"{number}% (the change from {a} to {b})",
            "share": f"{number}% ({a} of {b})",
            "ratio": f"{number} times ({a} to {b})",
        }
        return what[self.operation]


def cue_words(claim: str) -> list[str]:
    """The words of ``claim`` that say how a figure was derived (``rose``, ``combined``)."""
    return [m.group(0) for m in _CUE.finditer(claim)]


def _is_ratio(figure: Quantity, claim: str) -> bool:
    return figure.kind == "count" and bool(_RATIO.match(claim, figure.end))


def _combinable(a: Quantity, b: Quantity) -> bool:
    if a.kind != b.kind or a.kind in _NOT_OPERANDS or a.spelled or b.spelled:
        return False
    if a.kind == "count" and a.noun and b.noun and a.noun != b.noun:
        return False  # 120 engineers and 80 technicians do not make 40 of anything
    return a.currency == b.currency or not a.currency or not b.currency


def _of_its_unit(figure: Quantity, operands: tuple[Quantity, Quantity]) -> bool:
    """Whether a sum or difference of ``operands`` is in ``figure``'s currency or noun."""
    for operand in operands:
        if figure.currency and operand.currency and figure.currency != operand.currency:
            return False
        if figure.noun and operand.noun and figure.noun != operand.noun:
            return False
    return True


def _direction(claim: str) -> int:
    """1 when the claim says a figure rose, -1 when it fell, 0 when it says neither."""
    up, down = bool(_UP.search(claim)), bool(_DOWN.search(claim))
    return 0 if up == down else 1 if up else -1


Result = tuple[str, str, float, tuple[Quantity, Quantity]]
"""``(kind, operation, value, operands)``: what an operation gives, on which operands."""


def _results(a: Quantity, b: Quantity, direction: int) -> Iterator[Result]:
    """Each operation on ``a`` then ``b``.

    A change or a difference is from ``a`` to ``b``, and only in the ``direction`` the claim
    says (if any).
    """
    yield a.kind, "sum", a.value + b.value, (a, b)
    if direction * (b.value - a.value) >= 0:
        yield a.kind, "difference", abs(a.value - b.value), (a, b)
        if a.kind == "percent":
            yield "points", "difference", abs(a.value - b.value), (a, b)
    if a.value and direction * (b.value - a.value) >= 0:
        yield "percent", "change", abs(b.value - a.value) / abs(a.value) * 100, (a, b)
        yield "ratio", "ratio", b.value / a.value, (a, b)
    if b.value and abs(a.value) <= abs(b.value):
        yield "percent", "share", a.value / b.value * 100, (a, b)


def _compared(subject: Quantity, other: Quantity, sign: int) -> Iterator[Result]:
    """What ``subject`` is ``sign``-wise more than ``other``: a difference, change or ratio."""
    gap = (subject.value - other.value) * sign
    if gap <= 0:
        return
    yield subject.kind, "difference", gap, (other, subject)
    if subject.kind == "percent":
        yield "points", "difference", gap, (other, subject)
    if other.value:
        yield "percent", "change", gap / abs(other.value) * 100, (other, subject)
        if sign > 0:
            yield "ratio", "ratio", subject.value / other.value, (other, subject)


def _candidates(
    figure: Quantity,
    claim: str,
    pairs: Iterator[tuple[Quantity, Quantity]],
    sides: Mapping[Quantity, float] | None = None,
) -> Iterator[Derivation]:
    wanted = "ratio" if _is_ratio(figure, claim) else figure.kind
    direction = _direction(claim)
    compares = comparison(claim, figure)
    for a, b in pairs:
        if compares is None:
            results = _results(a, b, direction)
        elif sides is not None and a in sides and b in sides and sides[a] > sides[b]:
            results = _compared(a, b, compares.sign)
        else:
            continue  # which operand is compared with which is not known: no comparison
        for kind, operation, value, operands in results:
            if kind != wanted:
                continue
            if operation in ("sum", "difference") and not _of_its_unit(figure, operands):
                continue
            yield Derivation(value, operation, operands)


def _close(figure: Quantity, value: float, claim: str) -> bool:
    target = figure.number if _is_ratio(figure, claim) else figure.value
    if figure.bound == "approx":
        return abs(value - target) <= abs(target) * APPROX_TOLERANCE
    return figure.bound == "eq" and abs(value - target) <= figure.resolution + 1e-9


def _pairs(
    stated: Sequence[Quantity], related: Callable[[Quantity, Quantity], bool] | None = None
) -> Iterator[tuple[Quantity, Quantity]]:
    unique = list({(q.kind, q.value, q.currency): q for q in stated}.values())
    return (
        pair
        for pair in permutations(unique, 2)
        if _combinable(*pair) and (related is None or related(*pair))
    )


def _found(
    figure: Quantity,
    claim: str,
    operands: Sequence[Quantity],
    operations: frozenset[str],
    *,
    related: Callable[[Quantity, Quantity], bool] | None = None,
    sides: Mapping[Quantity, float] | None = None,
) -> Derivation | None:
    """The first of ``operations`` on two of ``operands`` that gives ``figure``."""
    return next(
        (
            d
            for d in _candidates(figure, claim, _pairs(operands, related), sides)
            if d.operation in operations and _close(figure, d.value, claim)
        ),
        None,
    )


_ANY = frozenset({"sum", "difference", "change", "share", "ratio"})
_OF_ANOTHER_KIND = frozenset({"change", "share", "ratio"})


def derivation(
    figure: Quantity,
    claim: str,
    stated: Sequence[Quantity],
    *,
    shown: Sequence[Quantity] = (),
    beside: Sequence[Sequence[Quantity]] = (),
    related: Callable[[Quantity, Quantity], bool] | None = None,
    sides: Mapping[Quantity, float] | None = None,
) -> Derivation | None:
    """How ``figure`` (of ``claim``) follows from two figures the evidence states, if it does.

    The pairs tried are bounded by where the operands stand (see the module docstring):
    ``shown`` operands, any operation; two of one sentence ``beside`` the figure, a percent
    change, share or ratio; two ``stated`` that are ``related``, only when the claim says it
    derived a figure. When the figure is compared (``N more than X``), ``sides`` tells which
    of two operands is the subject's: the one that leans further to it (a higher number);
    of two that lean alike, or one not in ``sides``, neither.

    Args:
        figure: A figure of the claim that the evidence does not state as such.
        claim: The claim's text (``figure``'s offsets point into it).
        stated: The figures the evidence states.
        shown: The claim's own figures that the evidence states.
        beside: The figures of each evidence sentence aligned with the claim that is about
            what ``figure`` is about (the caller decides which).
        related: Whether two ``stated`` figures are on ``figure``'s subject, and on one
            subject with each other; ``None``: any two are.
        sides: Each operand's side of a comparison (see above).
    """
    if figure.kind in _NOT_OPERANDS or figure.spelled:
        return None
    tries: list[tuple[Sequence[Quantity], frozenset[str]]] = []
    if not (figure.kind == "count" and figure.value < MIN_COUNT and not _is_ratio(figure, claim)):
        tries.append((shown, _ANY))
        tries += [(figures, _OF_ANOTHER_KIND) for figures in beside if _few(figures)]
    said = len(tries)
    if _CUE.search(claim):
        tries.append((stated, _ANY))
    for index, (operands, operations) in enumerate(tries):
        only = related if index == said else None
        found = _found(figure, claim, operands, operations, related=only, sides=sides)
        if found is not None:
            return found
    return None


def _few(figures: Sequence[Quantity]) -> bool:
    """Whether a sentence holds at most :data:`MAX_OPERANDS` figures of each kind."""
    kinds = Counter(q.kind for q in figures if not q.spelled and q.kind not in _NOT_OPERANDS)
    return all(count <= MAX_OPERANDS for count in kinds.values())


def miscomputed(
    figure: Quantity,
    claim: str,
    operands: Sequence[Quantity],
    sides: Mapping[Quantity, float] | None = None,
) -> Derivation | None:
    """What the operands give where the claim computed ``figure`` wrongly.

    Only when the claim says it derived a figure (a change, ratio, share or total) from
    ``operands``: the figures of the claim the evidence states, or the evidence's own when it
    states only two or three. The operation whose result is nearest the claim's figure is
    returned, for the reason to show; ``None`` when the claim derives nothing, when no
    operation on the operands gives a figure of its kind, or when one gives it.
    """
    if figure.kind in _NOT_OPERANDS or figure.spelled or not _CUE.search(claim):
        return None
    found = list(_candidates(figure, claim, _pairs(operands), sides))
    if not found or any(_close(figure, d.value, claim) for d in found):
        return None
    target = figure.number if _is_ratio(figure, claim) else figure.value
    return min(found, key=lambda d: abs(d.value - target))
