"""Dates and decades in text: ``1 December 2017``, ``December 1, 2017``, ``2017-12-01``.

A date keeps the parts it states, so ``March 2017`` can match ``17 March 2017`` and a day and
month without a year (``On 12 July``) can match the full date. A day and month alone need a
capitalized month name: ``5 may be`` is no date. In text that reads as French, Spanish or
German, their month names are read too (:func:`date_patterns`): ``le 1er mars 2021``,
``3 de marzo de 2021``, ``3. März 2021``, ``mars 2021``. Chinese dates (``2019年3月5日``) come
from :func:`.chinese_figures.date_pattern`.
"""

from __future__ import annotations

import re
from functools import cache

from deep_research.text.language import Language
from deep_research.verification import chinese_figures as zh

__all__ = ["DATES", "DECADE", "MONTHS", "date_parts", "date_patterns"]

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {
    name: number
    for number, month in enumerate(_MONTH_NAMES.split(), start=1)
    for name in (month, month[:3])
} | {"sept": 9}
_MONTH = r"(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_MONTH_NAME = (
    r"(?P<m>" + "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True)) + r")\.?"
)
"""A capitalized month name: without a year, ``5 may be`` must not read as a date."""

MONTHS: dict[Language, tuple[str, ...]] = {
    "fr": tuple(
        "janvier février|fevrier mars avril mai juin juillet août|aout septembre octobre "
        "novembre décembre|decembre".split()
    ),
    "es": tuple(
        "enero febrero marzo abril mayo junio julio agosto septiembre|setiembre octubre "
        "noviembre diciembre".split()
    ),
    "de": tuple(
        "januar|jänner februar märz|maerz april mai juni juli august september oktober "
        "november dezember".split()
    ),
}
"""The months of French, Spanish and German, in full (``a|b``: two spellings of one month)."""
_FOREIGN_MONTHS = {
    name: number
    for months in MONTHS.values()
    for number, month in enumerate(months, start=1)
    for name in month.split("|")
}

DATES = [
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<y>\d{{4}})\b", re.I
    ),
    re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})\b", re.I),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(?P<y>\d{{4}})\b", re.I),
    re.compile(r"\b(?P<y>\d{4})-(?P<mm>\d{2})-(?P<d>\d{2})\b"),
    re.compile(rf"\b{_MONTH_NAME}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:%|,\d))"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_NAME}(?!\w)"),
    zh.date_pattern(),
]
"""Date patterns, most precise first, each with groups ``y`` (year), ``m`` (month name) or
``mm`` (month number), and ``d`` (day), any of them optional."""
DECADE = re.compile(r"\b(?P<y>1[5-9]\d0|20[0-9]0)s\b")
"""A decade: ``the 1990s``."""


@cache
def date_patterns(languages: frozenset[Language]) -> tuple[re.Pattern[str], ...]:
    """:data:`DATES`, after the dates written in the month names of ``languages``.

    ``le 1er mars 2021``, ``3 de marzo de 2021``, ``3. März 2021``, ``marzo de 2021``,
    ``le 3 mars``: the day before the month, with ``er``, ``º`` or a stop, and ``de`` in
    Spanish. Their month names are not English words, so no capital is needed without a year.
    """
    names = {name for lang in languages for month in MONTHS[lang] for name in month.split("|")}
    if not names:
        return tuple(DATES)
    month = r"(?P<m>" + "|".join(sorted(names, key=len, reverse=True)) + r")"
    day = r"(?P<d>\d{1,2})(?:er|º)?(?:\.\s*|\s+)(?:de\s+)?"
    year = r"(?:del?\s+)?(?P<y>\d{4})\b"
    foreign = [
        re.compile(rf"\b{day}{month}\s+{year}", re.I),
        re.compile(rf"\b{month}\s+{year}", re.I),
        re.compile(rf"\b{day}{month}(?!\w)", re.I),
    ]
    return (*foreign, *DATES)


def date_parts(match: re.Match[str]) -> tuple[int, int | None, int | None]:
    """The year (0 if unstated), month and day of a match of one of :func:`date_patterns`."""
    parts = match.groupdict()
    mm, m = parts.get("mm"), (parts.get("m") or "").lower()
    month = zh.read_numeral(mm) if mm else _MONTHS.get(m) or _FOREIGN_MONTHS.get(m)
    day = zh.read_numeral(parts["d"]) if parts.get("d") else None
    year = zh.read_numeral(parts["y"]) if parts.get("y") else 0
    return year, month, day
