"""Figures derived by arithmetic from the evidence's figures, checked by computing them.

A report may state what its sources imply but do not write: a growth rate from two revenues,
a share, a ratio, a sum or a difference. Such a figure is not "unstated": :func:`derivation`
computes it from two figures the evidence states (of one kind, in one currency) and, when the
arithmetic gives the claim's figure within the precision it is written with (10 % when
hedged), it counts as stated. When the claim itself states both operands and says how it
derived the third (``rose from $10 million to $15 million, a 40% increase``, ``合计``, ``3倍``)
but no operation gives its figure, :func:`miscomputed` says what the operands do give, and the
claim is CONTRADICTED.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations

from deep_research.verification.hedges import APPROX_TOLERANCE
from deep_research.verification.quantities import Quantity

__all__ = ["Derivation", "cue_words", "derivation", "miscomputed"]

_RATIO = re.compile(r"\s*(?:times\b|x\b|×|-?fold\b|倍)", re.I)
"""What follows a ratio's number: ``3 times``, ``2.5x``, ``three-fold``, ``3倍``."""
_CUE = re.compile(
    r"\b(?:increase[ds]?|grew|grow(?:th|s|n)?|rise[sn]?|rose|fell|fall(?:s|en)?|declined?|"
    r"declines|drop(?:ped|s)?|jump(?:ed|s)?|climb(?:ed|s)?|ratio|times|fold|share|total(?:led|ed|"
    r"ling|ing)?|combined|sum|difference|together|altogether|more|less|fewer|higher|lower)\b"
    r"|增长|增加|下降|减少|上涨|下跌|同比|环比|合计|总计|共计|总共|相差|差距|倍|占",
    re.I,
)
"""Words that say a figure was worked out from others: a change, a ratio, a share, a total."""
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
    return a.currency == b.currency or not a.currency or not b.currency


def _direction(claim: str) -> int:
    """1 when the claim says a figure rose, -1 when it fell, 0 when it says neither."""
    up, down = bool(_UP.search(claim)), bool(_DOWN.search(claim))
    return 0 if up == down else 1 if up else -1


def _results(a: Quantity, b: Quantity, direction: int) -> Iterator[tuple[str, str, float]]:
    """``(kind, operation, value)`` of each operation on ``a`` then ``b``.

    A change is from ``a`` to ``b``, and only in the ``direction`` the claim says (if any).
    """
    yield a.kind, "sum", a.value + b.value
    yield a.kind, "difference", abs(a.value - b.value)
    if a.kind == "percent":
        yield "points", "difference", abs(a.value - b.value)
    if a.value and direction * (b.value - a.value) >= 0:
        yield "percent", "change", abs(b.value - a.value) / abs(a.value) * 100
        yield "ratio", "ratio", b.value / a.value
    if b.value and abs(a.value) <= abs(b.value):
        yield "percent", "share", a.value / b.value * 100


def _candidates(
    figure: Quantity, claim: str, pairs: Iterator[tuple[Quantity, Quantity]]
) -> Iterator[Derivation]:
    wanted = "ratio" if _is_ratio(figure, claim) else figure.kind
    direction = _direction(claim)
    for a, b in pairs:
        for kind, operation, value in _results(a, b, direction):
            if kind == wanted:
                yield Derivation(value, operation, (a, b))


def _close(figure: Quantity, value: float, claim: str) -> bool:
    target = figure.number if _is_ratio(figure, claim) else figure.value
    if figure.bound == "approx":
        return abs(value - target) <= abs(target) * APPROX_TOLERANCE
    return figure.bound == "eq" and abs(value - target) <= figure.resolution + 1e-9


def _pairs(stated: Sequence[Quantity]) -> Iterator[tuple[Quantity, Quantity]]:
    unique = list({(q.kind, q.value, q.currency): q for q in stated}.values())
    return (pair for pair in permutations(unique, 2) if _combinable(*pair))


def derivation(figure: Quantity, claim: str, stated: Sequence[Quantity]) -> Derivation | None:
    """How ``figure`` (of ``claim``) follows from two figures of ``stated``, if one op gives it.

    Only a claim that says it derived a figure (a change, ratio, share or total: ``grew``,
    ``times``, ``combined``, ``增长``, ``合计``...) is read this way, so that two unrelated
    figures of the evidence cannot happen to "state" a figure.

    Args:
        figure: A figure of the claim that the evidence does not state as such.
        claim: The claim's text (``figure``'s offsets point into it).
        stated: The figures the evidence states.
    """
    if figure.kind in _NOT_OPERANDS or figure.spelled or not _CUE.search(claim):
        return None
    return next(
        (d for d in _candidates(figure, claim, _pairs(stated)) if _close(figure, d.value, claim)),
        None,
    )


def miscomputed(figure: Quantity, claim: str, operands: Sequence[Quantity]) -> Derivation | None:
    """What the operands give where the claim computed ``figure`` wrongly.

    Only when the claim says it derived a figure (a change, ratio, share or total) from
    ``operands``: the figures of the claim the evidence states, or the evidence's own when it
    states only two or three. The operation whose result is nearest the claim's figure is
    returned, for the reason to show; ``None`` when the claim derives nothing, when no
    operation on the operands gives a figure of its kind, or when one gives it.
    """
    if figure.kind in _NOT_OPERANDS or figure.spelled or not _CUE.search(claim):
        return None
    found = list(_candidates(figure, claim, _pairs(operands)))
    if not found or any(_close(figure, d.value, claim) for d in found):
        return None
    target = figure.number if _is_ratio(figure, claim) else figure.value
    return min(found, key=lambda d: abs(d.value - target))
