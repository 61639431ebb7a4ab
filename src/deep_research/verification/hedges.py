"""Hedges before a figure: ``about 200 MW``, ``more than 250,000``, ``up to 5%``.

A hedge states a bound rather than a value: ``approx`` (within :data:`APPROX_TOLERANCE`),
``ge`` (at least) or ``le`` (at most). Read in English, French, German and Spanish
(``environ``, ``plus de``, ``bis zu``, ``menos de``), and in Chinese by
:func:`.chinese_figures.hedge`.
"""

from __future__ import annotations

import re
from typing import Literal

from deep_research.verification import chinese_figures as zh

__all__ = ["APPROX_TOLERANCE", "Bound", "hedge_bound"]

Bound = Literal["eq", "approx", "ge", "le"]

APPROX_TOLERANCE = 0.1
"""Relative difference a hedged figure (``about 200``) allows."""

_HEDGES: tuple[tuple[Bound, re.Pattern[str]], ...] = (
    (
        "approx",
        re.compile(
            r"(?:\babout|\baround|\bapproximately|\bapprox\.|\broughly|\bnearly|\balmost|"
            r"\bsome|\bestimated|\bcirca|\bc\.|\bclose to|~|≈|"
            r"\benviron|\bprès de|\bquelque|\betwa|\brund|\bungefähr|\bcerca de|"
            r"\balrededor de|\baproximadamente)\s*$",
            re.I,
        ),
    ),
    (
        "ge",
        re.compile(
            r"(?:\bmore than|\bover|\babove|\bat least|\bexceeding|\bin excess of|"
            r"\bupwards of|\bgreater than|>|≥|"
            r"\bplus de|\bau moins|\bmehr als|\büber|\bmindestens|\bmás de|\bal menos)\s*$",
            re.I,
        ),
    ),
    (
        "le",
        re.compile(
            r"(?:\bless than|\bunder|\bbelow|\bfewer than|\bat most|\bup to|\bno more than|"
            r"<|≤|\bmoins de|\bjusqu['’]à|\bau plus|\bweniger als|\bbis zu|\bhöchstens|"
            r"\bmenos de|\bhasta)\s*$",
            re.I,
        ),
    ),
)
"""The hedges of each bound."""


def hedge_bound(before: str) -> Bound:
    """The bound stated by the hedge that ``before`` ends with; ``eq`` if none."""
    for stated, pattern in _HEDGES:
        if pattern.search(before):
            return stated
    return zh.hedge(before) or "eq"
