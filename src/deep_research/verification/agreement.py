"""When two figures agree, and when they conflict.

A claim's figure agrees with the evidence's when they measure the same kind of thing (a year,
an energy, a price per energy...) and the values match once converted, allowing the rounding
the claim is written with and the hedges either states (``about``, ``more than``). They
conflict when they are of the same kind but differ: counts only when they count the same
noun, dates only where both state the differing part.
"""

from __future__ import annotations

from deep_research.verification.hedges import APPROX_TOLERANCE
from deep_research.verification.quantities import Quantity

__all__ = ["agrees", "conflicts", "confused_units", "same_kind"]

CONFUSABLE = frozenset(
    {
        frozenset({"power", "energy"}),  # 150 MW is not 150 MWh
        frozenset({"money/energy", "money/power"}),  # $/kWh is not $/kW
        frozenset({"percent", "points"}),  # up 5% is not up 5 percentage points
    }
)
"""Kinds of figure that are often written one for the other: the same number in the other
kind states something different."""


def confused_units(claim: Quantity, evidence: Quantity) -> bool:
    """True when the evidence writes the claim's number in a kind the claim confuses it with.

    ``The battery stores 150 MWh`` against ``a 150 MW battery``: the same figure, but power
    where the claim says energy. That is a contradiction, not a figure left unstated.
    """
    if frozenset({claim.kind, evidence.kind}) not in CONFUSABLE:
        return False
    slack = max(claim.resolution, evidence.resolution, 1e-9)
    return abs(claim.value - evidence.value) <= slack  # the same magnitude, in base units


def same_kind(a: Quantity, b: Quantity) -> bool:
    """True when two figures measure the same thing (both years, both MWh, both money...)."""
    if a.kind == "decade" or b.kind == "decade":
        return {a.kind, b.kind} <= {"date", "decade"}
    return a.kind == b.kind


def _currencies_agree(a: str, b: str) -> bool:
    """Equal, or one of them ambiguous: ``$`` is any dollar, ``¥`` yen or yuan, ``¢`` any cent."""
    if a == b or not a or not b or "¢" in (a, b):
        return True
    if "$" in (a, b):
        return a.endswith("$") and b.endswith("$")
    return "¥" in (a, b) and {a, b} <= {"¥", "JPY", "CNY"}


def _bare(quantity: Quantity) -> bool:
    return quantity.kind == "count" and not quantity.noun


def agrees(claim: Quantity, evidence: Quantity) -> bool:
    """True when the evidence's figure states the claim's, allowing rounding and hedges.

    A bare number (``Beckham is 24``) agrees with the same number written with a unit or a
    noun (``24 years old``), and the other way round; never with a date.
    """
    if not same_kind(claim, evidence):
        if "date" in (claim.kind, evidence.kind) or not (_bare(claim) or _bare(evidence)):
            return False
        slack = max(claim.resolution, evidence.resolution, 1e-9)
        return claim.number != 0 and abs(claim.number - evidence.number) <= slack
    if claim.kind in ("date", "decade") or evidence.kind == "decade":
        return _dates_agree(claim, evidence)
    if claim.kind.startswith("money") and not _currencies_agree(claim.currency, evidence.currency):
        return False
    c, e = claim.value, evidence.value
    slack = claim.resolution + 1e-9 * max(abs(c), abs(e), 1.0)
    if claim.bound == "ge":
        return e >= c - slack
    if claim.bound == "le":
        return e <= c + slack
    if abs(c - e) <= slack:
        return True
    if "approx" in (claim.bound, evidence.bound) or evidence.bound in ("ge", "le"):
        return abs(c - e) <= APPROX_TOLERANCE * max(abs(c), abs(e))
    return False


def _dates_agree(claim: Quantity, evidence: Quantity) -> bool:
    if claim.kind == "decade":
        year = evidence.value
        return claim.value <= year < claim.value + 10
    if evidence.kind == "decade":
        return False  # the claim is more precise than the evidence's decade
    if claim.value and claim.value != evidence.value:
        return False
    for part in ("month", "day"):
        wanted = getattr(claim, part)
        if wanted is not None and getattr(evidence, part) != wanted:
            return False
    return True


def conflicts(claim: Quantity, evidence: Quantity) -> bool:
    """True when the evidence states a figure the claim gets wrong.

    Either a figure of the same kind with another value, or the claim's number in a kind the
    claim confuses with its own (power for energy, see :func:`confused_units`).
    """
    if confused_units(claim, evidence):
        return True
    if not same_kind(claim, evidence) or agrees(claim, evidence):
        return False
    if claim.kind == "count":
        return claim.noun == evidence.noun
    if claim.kind == "date" and evidence.kind == "date":
        if not claim.value or not evidence.value:
            return False
        if claim.value == evidence.value:  # same year: a conflict only on a stated month/day
            return any(
                getattr(claim, p) is not None
                and getattr(evidence, p) is not None
                and getattr(claim, p) != getattr(evidence, p)
                for p in ("month", "day")
            )
    return True
