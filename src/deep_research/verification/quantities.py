"""Quantities in text: numbers with their scale, unit, currency, hedge and date parts.

The offline verifier compares a claim's quantities with the evidence's. Values are converted
to one base unit per kind, so ``1.2 billion`` equals ``1,200 million``, ``0.15 GW`` equals
``150 MW`` and ``$150,000/MWh`` equals ``$150/kWh``; ``MW`` (power) never matches ``MWh``
(energy). A year is a date, never a plain number: ``2019`` the year is not ``2,019`` units.
How two figures compare is :mod:`.agreement`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from deep_research.text import STOPWORDS, stem

Bound = Literal["eq", "approx", "ge", "le"]

APPROX_TOLERANCE = 0.1
"""Relative difference a hedged figure (``about 200``) allows."""

_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {
    name: number
    for number, month in enumerate(_MONTH_NAMES.split(), start=1)
    for name in (month, month[:3])
} | {"sept": 9}
_MONTH = r"(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATES = [
    re.compile(
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<y>\d{{4}})\b", re.I
    ),
    re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})\b", re.I),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(?P<y>\d{{4}})\b", re.I),
    re.compile(r"\b(?P<y>\d{4})-(?P<mm>\d{2})-(?P<d>\d{2})\b"),
    re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?:%|,\d))"),
]
_DECADE = re.compile(r"\b(?P<y>1[5-9]\d0|20[0-9]0)s\b")
_NUMBER = re.compile(r"(?<![\w.,\[])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![.,]?\d)")
_WORD_NUMBERS = dict(
    zip(
        "two three four five six seven eight nine ten eleven twelve".split(),
        range(2, 13),
        strict=True,
    )
) | {"dozen": 12}
_WORD_NUMBER = re.compile(r"\b(?:" + "|".join(_WORD_NUMBERS) + r")\b", re.I)

_CURRENCY = re.compile(
    r"(?P<cur>(?:US|A|AU|C|CA|NZ|HK|S|R)\$|\$|€|£|¥|₹|\b(?:USD|AUD|EUR|GBP|CAD|CNY|JPY|RMB|INR)"
    r"\s?)\s?$"
)
_CURRENCY_CODES = {"USD": "US$", "AUD": "A$", "AU$": "A$", "CAD": "C$", "CA$": "C$", "RMB": "CNY"}
_HEDGES: tuple[tuple[Bound, re.Pattern[str]], ...] = (
    (
        "approx",
        re.compile(
            r"(?:\babout|\baround|\bapproximately|\bapprox\.|\broughly|\bnearly|\balmost|"
            r"\bsome|\bestimated|\bcirca|\bc\.|\bclose to|~|≈)\s*$",
            re.I,
        ),
    ),
    (
        "ge",
        re.compile(
            r"(?:\bmore than|\bover|\babove|\bat least|\bexceeding|\bin excess of|"
            r"\bupwards of|\bgreater than|>|≥)\s*$",
            re.I,
        ),
    ),
    (
        "le",
        re.compile(
            r"(?:\bless than|\bunder|\bbelow|\bfewer than|\bat most|\bup to|\bno more than|"
            r"<|≤)\s*$",
            re.I,
        ),
    ),
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SCALE_ABBREVIATIONS = {"k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "b": 1e9, "bn": 1e9}
_SCALE = re.compile(r"\s?(?P<s>thousand|million|billion|trillion|bn|mln|mn|m|k|b)\b", re.I)
_PREFIX = {"": 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_WORD_PREFIX = {"": 1.0, "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12}
_HOURS = {"y": 8766.0, "mo": 730.5, "w": 168.0, "d": 24.0, "h": 1.0, "mi": 1 / 60, "s": 1 / 3600}
_UNITS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?P<p>[kMGT]?)Wh\b"), "energy"),
    (re.compile(r"(?P<p>[kMGT]?)W\b"), "power"),
    (re.compile(r"(?P<p>kilo|mega|giga|tera|)watt[- ]?hours?\b", re.I), "energy"),
    (re.compile(r"(?P<p>kilo|mega|giga|tera|)watts?\b", re.I), "power"),
    (
        re.compile(
            r"(?P<t>y)(?:ears?|rs?)\b|(?P<t2>mo)nths?\b|(?P<t3>w)eeks?\b|(?P<t4>d)ays?\b|"
            r"(?P<t5>h)(?:ours?|rs?)?\b|(?P<t6>mi)n(?:ute)?s?\b|(?P<t7>s)ec(?:ond)?s?\b",
            re.I,
        ),
        "duration",
    ),
    (
        re.compile(r"(?P<p>k|)(?:m\b|metres?\b|meters?\b)|(?P<p2>kilo)?(?:metres?|meters?)\b"),
        "length",
    ),
    (re.compile(r"(?:miles?)\b", re.I), "miles"),
    (re.compile(r"(?P<p>k|M|)(?:g|t)\b|(?P<p2>kilo|mega|)(?:grams?|tonnes?|tons?)\b"), "mass"),
    (re.compile(r"(?P<p>k|m|)Ah\b"), "charge"),
    (re.compile(r"(?P<p>k|)V\b|(?P<p2>kilo|)volts?\b"), "voltage"),
    (re.compile(r"°\s?[CF]\b|degrees\b", re.I), "temperature"),
)
_PERCENT = re.compile(r"\s?(?:%|percent\b|per\s?cent\b|pct\b)", re.I)
_PER = re.compile(r"\s?(?:/|per\s+|an?\s+)", re.I)
_RATE = re.compile(r"\s?(?P<u>[A-Za-z]+/[A-Za-z]+)\b")
_NOUN = re.compile(r"\s?-?(?P<w>[A-Za-z][A-Za-z-]*)")
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b", re.I)


@dataclass(frozen=True)
class Quantity:
    """A figure stated in a text, converted to the base unit of its kind."""

    value: float
    """The value in base units (W, Wh, hours, currency units, %), or the year of a date."""
    kind: str
    """``date``, ``decade``, ``percent``, ``money``, ``power``, ``energy``, ``count``, ... and
    ``money/energy`` for prices per unit."""
    text: str
    """The figure as written."""
    start: int
    end: int
    resolution: float = 0.5
    """Half a unit of the last digit written, in base units: how far rounding can move it."""
    bound: Bound = "eq"
    currency: str = ""
    month: int | None = None
    day: int | None = None
    noun: str = ""
    """For counts: the stemmed word that follows (``units``), compared before a conflict."""
    spelled: bool = False
    """Written in words (``three units``): it can match a figure, but is never required."""
    number: float = 0.0
    """The number as written, scale applied but no unit (``24`` in ``24 years``)."""


def quantities(text: str) -> list[Quantity]:
    """Every figure of ``text``, in order: dates, decades, then numbers with their units."""
    found: list[Quantity] = []
    masked = text
    for pattern in _DATES:
        for match in pattern.finditer(masked):
            found.append(_date(match))
            masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    for match in _DECADE.finditer(masked):
        year = int(match.group("y"))
        found.append(Quantity(year, "decade", match.group(0), match.start(), match.end(), 0))
        masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    found.extend(_numbers(masked, text))
    return sorted(found, key=lambda q: q.start)


def _date(match: re.Match[str]) -> Quantity:
    parts = match.groupdict()
    month = int(parts["mm"]) if parts.get("mm") else _MONTHS.get((parts.get("m") or "").lower())
    day = int(parts["d"]) if parts.get("d") else None
    year = int(parts["y"]) if parts.get("y") else 0
    return Quantity(
        float(year), "date", match.group(0), match.start(), match.end(), 0, month=month, day=day
    )


def _bound(before: str) -> Bound:
    for bound, pattern in _HEDGES:
        if pattern.search(before):
            return bound
    return "eq"


def _numbers(masked: str, text: str) -> Iterator[Quantity]:
    for match in _NUMBER.finditer(masked):
        start, end = match.start(), match.end()
        if start >= 2 and masked[start - 1] == "-" and masked[start - 2].isalpha():
            continue  # a name such as COVID-19 or F-35
        if _ORDINAL.match(masked, end):
            continue
        raw = match.group(0).replace(",", "")
        decimals = len(raw.partition(".")[2])
        currency_match = _CURRENCY.search(masked[max(0, start - 6) : start])
        currency = currency_match.group("cur").strip() if currency_match else ""
        lead = start - (len(currency_match.group(0)) if currency_match else 0)
        bound = _bound(masked[max(0, lead - 24) : lead])
        quantity = _read_suffix(masked, end, float(raw), decimals, currency)
        if quantity is None:
            continue
        value, kind, cur, noun, stop, resolution = quantity
        number = _written(masked, end, float(raw), currency)
        if kind == "count" and not decimals and "," not in match.group(0):
            if 1500 <= value <= 2100 and raw.isdigit():
                kind, resolution, noun = "date", 0.0, ""
        yield Quantity(
            value,
            kind,
            text[lead:stop].strip(),
            lead,
            stop,
            resolution,
            bound,
            currency=_CURRENCY_CODES.get(cur, cur),
            noun=noun,
            number=number,
        )
    for match in _WORD_NUMBER.finditer(masked):
        value = float(_WORD_NUMBERS[match.group(0).lower()])
        read = _read_suffix(masked, match.end(), value, 0, "")
        if read is not None and read[1] in ("count", "duration", "percent"):
            value, kind, _, noun, stop, resolution = read
            yield Quantity(
                value,
                kind,
                text[match.start() : stop],
                match.start(),
                stop,
                resolution,
                noun=noun,
                spelled=True,
                number=_written(masked, match.end(), value, ""),
            )


_Read = tuple[float, str, str, str, int, float]


def _scale(masked: str, end: int, currency: str) -> tuple[float, int]:
    """The factor of the scale word at ``end``, and where it ends (1 and ``end`` if none).

    ``million`` and ``bn`` always scale; ``m`` and ``k`` only for money or when attached, as in
    ``$90m`` or ``30k``.
    """
    match = _SCALE.match(masked, end)
    if not match:
        return 1.0, end
    word = match.group("s").lower()
    attached = not match.group(0).startswith(" ")
    factor = _SCALES.get(word) or (
        _SCALE_ABBREVIATIONS[word] if currency or (attached and word in ("k", "bn")) else 0.0
    )
    return (factor, match.end()) if factor else (1.0, end)


def _written(masked: str, end: int, value: float, currency: str) -> float:
    """The number with its scale word applied (``1.2 billion``), before any unit."""
    return value * _scale(masked, end, currency)[0]


def _read_suffix(masked: str, end: int, value: float, decimals: int, currency: str) -> _Read | None:
    """Read scale, unit, percent or noun after a number.

    Returns:
        ``(value, kind, currency, noun, end, resolution)``.
    """
    factor, end = _scale(masked, end, currency)
    value, resolution = value * factor, 0.5 * 10.0**-decimals * factor
    if currency:
        per = _PER.match(masked, end)
        if per:
            unit = _unit(masked, per.end())
            if unit is not None:
                kind, factor, stop = unit
                return value / factor, f"money/{kind}", currency, "", stop, resolution / factor
            per_word = _NOUN.match(masked, per.end())
            if per_word and per.group(0).strip() in ("/", "per"):
                word = stem(per_word.group("w").lower())
                return value, f"money/{word}", currency, "", per_word.end(), resolution
        return value, "money", currency, "", end, resolution
    percent = _PERCENT.match(masked, end)
    if percent:
        return value, "percent", "", "", percent.end(), resolution
    unit = _unit(masked, end)
    if unit is not None:
        kind, factor, stop = unit
        return value * factor, kind, "", "", stop, resolution * factor
    rate = _RATE.match(masked, end)
    if rate:
        return value, f"rate:{rate.group('u').lower()}", "", "", rate.end(), resolution
    following = _NOUN.match(masked, end)
    noun = ""
    if following and following.group("w").lower() not in STOPWORDS:
        noun = stem(following.group("w").lower().split("-")[0])
    return value, "count", "", noun, end, resolution


def _unit(masked: str, end: int) -> tuple[str, float, int] | None:
    """The unit at ``end`` (after optional space or hyphen): (kind, factor, end)."""
    at = end
    while at < len(masked) and masked[at] in " -" and at - end < 2:
        at += 1
    for pattern, kind in _UNITS:
        match = pattern.match(masked, at)
        if not match:
            continue
        groups = match.groupdict()
        if kind == "duration":
            letter = next(v for k, v in groups.items() if v)
            return kind, _HOURS[letter.lower()], match.end()
        prefix = groups.get("p") or groups.get("p2") or ""
        factor = _PREFIX.get(prefix) or _WORD_PREFIX.get(prefix.lower(), 1.0)
        if kind == "mass" and match.group(0)[len(prefix) :].lower().startswith("t"):
            factor *= 1e6  # tonnes, in grams
        return kind, factor, match.end()
    return None
