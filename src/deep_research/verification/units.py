"""What follows a number: its scale, currency, unit, percent sign or counted noun.

Values are converted to one base unit per kind, so ``0.15 GW`` is ``150 MW`` and
``$150,000/MWh`` is ``$150/kWh``: watts for ``power``, watt-hours for ``energy``, hours for
``duration``, metres, grams, volts, and currency units for ``money`` (``money/energy`` for a
price per energy). ``MW`` (power) is never ``MWh`` (energy), and a percentage is not a change
in percentage points (``5%`` is not ``5 pp``). Scale words, units in words, percentages and
points are read in English, French, German and Spanish (``1,5 milliard``, ``2 Mio.``,
``48,6 térawattheures``, ``5 Megawatt``, ``points de pourcentage``); :mod:`.chinese_figures`
reads the Chinese ones.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from deep_research.text.words import STOPWORDS, stem
from deep_research.verification import chinese_figures as zh
from deep_research.verification.currencies import currency_after

__all__ = ["Reading", "read_suffix", "scale"]

_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SCALES |= {"millions": 1e6, "millionen": 1e6, "millón": 1e6, "millones": 1e6, "mio": 1e6}
_SCALES |= {"milliard": 1e9, "milliards": 1e9, "milliarde": 1e9, "milliarden": 1e9, "mrd": 1e9}
"""Scale words in English, French (``1,5 milliard``), German (``2 Mio.``) and Spanish
(``un millón``)."""
_SCALE_ABBREVIATIONS = {"k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "b": 1e9, "bn": 1e9}
_SCALE = re.compile(
    r"\s?(?P<s>milliarden|milliarde|milliards?|millionen|millones|millón|millions?|mrd|mio|thousand|"
    r"billion|trillion|bn|mln|mn|m|k|b)\b(?:(?<=mrd|mio)\.)?",
    re.I,
)
_PREFIX = {"": 1.0, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_WORD_PREFIX = {"": 1.0, "kilo": 1e3, "mega": 1e6, "giga": 1e9, "tera": 1e12}
_WORD_PREFIX |= {"méga": 1e6, "téra": 1e12}
_HOURS = {"y": 8766.0, "mo": 730.5, "w": 168.0, "d": 24.0, "h": 1.0, "mi": 1 / 60, "s": 1 / 3600}
_UNITS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?P<p>[kMGT]?)Wh\b"), "energy"),
    (re.compile(r"(?P<p>[kMGT]?)W\b"), "power"),
    (
        re.compile(
            r"(?P<p>kilo|m[eé]ga|giga|t[eé]ra|)watt[- ]?(?:hours?|heures?|stunden?)\b", re.I
        ),
        "energy",
    ),
    (re.compile(r"(?P<p>kilo|m[eé]ga|giga|t[eé]ra|)watts?\b", re.I), "power"),
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
_PERCENT = re.compile(r"\s?(?:%|percent\b|per\s?cent\b|pct\b|pour\s?cent\b|prozent\b)", re.I)
_POINTS = re.compile(
    r"\s?(?:(?:percentage|percent|pct\.?)[- ]points?\b|pp\b|p\.p\."
    r"|points? de pourcentage\b|prozentpunkte?n?\b|puntos? porcentuales?\b"
    r"|(?P<b>basis[- ]points?\b|bps?\b|points? de base\b))",
    re.I,
)
"""Percentage points (``5 percentage points``, ``5 pp``, ``5 points de pourcentage``) and basis
points (0.01 point each)."""
_PER = re.compile(r"\s?(?:/|per\s+|an?\s+)", re.I)
_RATE = re.compile(r"\s?(?P<u>[A-Za-z]+/[A-Za-z]+)\b")
_NOUN = re.compile(r"\s?-?(?P<w>[A-Za-z][A-Za-z-]*)")


class Reading(NamedTuple):
    """What :func:`read_suffix` read after a number."""

    value: float
    """The value in base units."""
    kind: str
    """``money``, ``money/energy``, ``percent``, ``points``, ``power``, ``count``, ..."""
    currency: str
    noun: str
    """For counts: the stemmed word that follows."""
    end: int
    """Where the figure ends."""
    resolution: float
    """Half a unit of the last digit written, in base units."""


def scale(masked: str, end: int, currency: str) -> tuple[float, int]:
    """The factor of the scale word at ``end``, and where it ends (1 and ``end`` if none).

    ``million`` and ``bn`` always scale; ``m`` and ``k`` only for money or when attached, as in
    ``$90m`` or ``30k``.
    """
    match = _SCALE.match(masked, end)
    if not match:
        return zh.scale(masked, end)
    word = match.group("s").lower()
    attached = not match.group(0).startswith(" ")
    factor = _SCALES.get(word) or (
        _SCALE_ABBREVIATIONS[word] if currency or (attached and word in ("k", "bn")) else 0.0
    )
    return (factor, match.end()) if factor else (1.0, end)


def read_suffix(
    masked: str, end: int, value: float, decimals: int, currency: str
) -> Reading | None:
    """Read the scale, currency, unit, percent or noun after the number ending at ``end``.

    Args:
        masked: the text, its dates blanked out.
        end: where the number ends.
        value: the number.
        decimals: how many decimals it is written with.
        currency: the currency written before it, if any.
    """
    factor, end = scale(masked, end, currency)
    value, resolution = value * factor, 0.5 * 10.0**-decimals * factor
    if not currency:
        named = currency_after(masked, end)
        if named is not None:
            currency, fraction, end = named
            value, resolution = value * fraction, resolution * fraction
    chinese = zh.currency_after(masked, end)
    if chinese is not None:  # 5亿元, 5亿美元, and 元 after 人民币5亿
        currency, end = currency or chinese[0], chinese[1]
    if currency:
        per = _PER.match(masked, end)
        if per:
            unit = _unit(masked, per.end())
            if unit is not None:
                kind, factor, stop = unit
                return Reading(
                    value / factor, f"money/{kind}", currency, "", stop, resolution / factor
                )
            per_word = _NOUN.match(masked, per.end())
            if per_word and per.group(0).strip() in ("/", "per"):
                word = stem(per_word.group("w").lower())
                return Reading(value, f"money/{word}", currency, "", per_word.end(), resolution)
        return Reading(value, "money", currency, "", end, resolution)
    points = _POINTS.match(masked, end) or zh.POINTS.match(masked, end)
    if points:
        fraction = 0.01 if points.groupdict().get("b") else 1.0
        return Reading(value * fraction, "points", "", "", points.end(), resolution * fraction)
    percent = _PERCENT.match(masked, end)
    if percent:
        return Reading(value, "percent", "", "", percent.end(), resolution)
    unit = _unit(masked, end)
    if unit is not None:
        kind, factor, stop = unit
        return Reading(value * factor, kind, "", "", stop, resolution * factor)
    rate = _RATE.match(masked, end)
    if rate:
        return Reading(value, f"rate:{rate.group('u').lower()}", "", "", rate.end(), resolution)
    following = _NOUN.match(masked, end)
    noun = ""
    if following and following.group("w").lower() not in STOPWORDS:
        noun = stem(following.group("w").lower().split("-")[0])
    return Reading(value, "count", "", noun, end, resolution)


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
    return zh.unit(masked, at)
