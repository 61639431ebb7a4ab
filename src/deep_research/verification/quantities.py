"""Quantities in text: numbers with their scale, unit, currency, hedge and date parts.

The offline verifier compares a claim's quantities with the evidence's. Values are converted
to one base unit per kind, so ``1.2 billion`` equals ``1,200 million``, ``0.15 GW`` equals
``150 MW`` and ``$150,000/MWh`` equals ``$150/kWh``; ``MW`` (power) never matches ``MWh``
(energy), a percentage is not a change in percentage points (``5%`` is not ``5 pp``), and
currencies differ (``A$`` is not ``US$``; ``EUR 5`` is ``€5``, ``12 cents`` is ``$0.12``).
A year is a date, never a plain number: ``2019`` the year is not ``2,019`` units.
Other languages' notations read as the same figures: ``48,6 %`` is 48.6%, ``1 200 MW`` in
French text 1,200 MW, ``1.234,5 Mio. Euro`` €1,234.5 million (see :func:`_value`), and
:mod:`.chinese_figures` reads Chinese, numbers written in characters included.
How two figures compare is :mod:`.agreement`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from deep_research.language import writes_decimal_comma
from deep_research.text import STOPWORDS, stem
from deep_research.verification import chinese_figures as zh

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
_MONTH_NAME = (
    r"(?P<m>" + "|".join(sorted((m.capitalize() for m in _MONTHS), key=len, reverse=True)) + r")\.?"
)
"""A capitalized month name: without a year, ``5 may be`` must not read as a date."""
_DATES = [
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
_DECADE = re.compile(r"\b(?P<y>1[5-9]\d0|20[0-9]0)s\b")
_GLUE = r"(?<![.,\[])(?<![^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff])"
_SHAPES = (
    r"(?P<dots>\d{1,3}(?:\.\d{3})+),(?P<dots_dec>\d+)"  # 1.234,5 (German, Spanish)
    r"|(?P<dotted>\d{1,3}(?:\.\d{3}){2,})"  # 1.234.567
    r"|(?P<commas>\d{1,3}(?:,\d{3})+)(?:\.(?P<commas_dec>\d+))?"  # 1,234 and 1,234.5
    r"|(?P<spaced>\d{1,3}(?:{space}\d{3})+)(?:[.,](?P<spaced_dec>\d+))?"  # 1 234,5
    r"|(?P<plain>\d+)(?:[.,](?P<plain_dec>\d+))?"  # 48.6 and 48,6
)
_THIN_SPACES = "[\u00a0\u2009\u202f]"
"""No-break, thin and narrow no-break spaces: they group digits in any language."""
_NUMBER = re.compile(_GLUE + "(?:" + _SHAPES.replace("{space}", _THIN_SPACES) + r")(?![.,]?\d)")
"""A number not glued to a word or another number; Chinese, Japanese and Korean characters
may touch it (``投资5亿元``). Its shape says how it is grouped (see :func:`_value`)."""
_NUMBER_SPACED = re.compile(
    _GLUE + "(?:" + _SHAPES.replace("{space}", "[ \u00a0\u2009\u202f]") + r")(?![.,]?\d)"
)
""":data:`_NUMBER` where a plain space also groups digits (``1 200 MW``), as in French."""
_AMBIGUOUS = re.compile(r"\d[ ,.]\d")
"""A text without this needs no language to read its numbers."""
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
_CURRENCY_CODES = {
    "USD": "US$",
    "AUD": "A$",
    "AU$": "A$",
    "CAD": "C$",
    "CA$": "C$",
    "RMB": "CNY",
    "EUR": "€",
    "GBP": "£",
    "INR": "₹",
}
"""Currency codes and symbols written several ways, mapped to one spelling."""
_CURRENCY_WORD = re.compile(
    r"\s?(?:d['’]\s?|de\s)?"
    r"(?:(?P<a>US|U\.S\.|American|Australian|Canadian|New Zealand|Hong Kong|Singapore)\s)?"
    r"(?P<w>dollars?|euros?|(?:British )?pounds? sterling|British pounds?|yen|yuan|renminbi|"
    r"rupees?|cents?|¢|€)(?![A-Za-z])",
    re.I,
)
"""A currency written after the figure: ``90 million euros``, ``12 cents``, ``5 US dollars``,
and in French or German ``1,5 milliard d'euros``, ``12 €``."""
_DOLLARS = {
    "": "$",
    "us": "US$",
    "u.s.": "US$",
    "american": "US$",
    "australian": "A$",
    "canadian": "C$",
    "new zealand": "NZ$",
    "hong kong": "HK$",
    "singapore": "S$",
}
_CURRENCY_NAMES = {"euro": "€", "pound": "£", "yen": "JPY", "yuan": "CNY", "renminbi": "CNY"}
_CURRENCY_NAMES |= {"rupee": "₹", "cent": "¢", "¢": "¢", "€": "€"}
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
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SCALES |= {"millions": 1e6, "millionen": 1e6, "millones": 1e6, "mio": 1e6}
_SCALES |= {"milliard": 1e9, "milliards": 1e9, "milliarde": 1e9, "milliarden": 1e9, "mrd": 1e9}
"""Scale words in English, French (``1,5 milliard``), German (``2 Mio.``) and Spanish."""
_SCALE_ABBREVIATIONS = {"k": 1e3, "m": 1e6, "mn": 1e6, "mln": 1e6, "b": 1e9, "bn": 1e9}
_SCALE = re.compile(
    r"\s?(?P<s>milliarden|milliarde|milliards?|millionen|millones|millions?|mrd|mio|thousand|"
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
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b", re.I)
_YEAR_RANGE = re.compile(r"\b(?:1[5-9]|20)\d\d\s?[-–]\s?$")
_LIST_NUMBER = re.compile(r"[.)]\s")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*$")


@dataclass(frozen=True)
class Quantity:
    """A figure stated in a text, converted to the base unit of its kind."""

    value: float
    """The value in base units (W, Wh, hours, currency units, %), or the year of a date."""
    kind: str
    """``date``, ``decade``, ``percent``, ``points`` (percentage points), ``money``, ``power``,
    ``energy``, ``count``, ... and ``money/energy`` for prices per unit."""
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
    masked = text.translate(zh.FULL_WIDTH)
    for pattern in _DATES:
        for match in pattern.finditer(masked):
            found.append(_date(match))
            masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    for match in _DECADE.finditer(masked):
        year = int(match.group("y"))
        found.append(Quantity(year, "decade", match.group(0), match.start(), match.end(), 0))
        masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    comma_decimal = bool(_AMBIGUOUS.search(masked)) and writes_decimal_comma(text)
    found.extend(_numbers(masked, text, comma_decimal))
    return sorted(found, key=lambda q: q.start)


def _date(match: re.Match[str]) -> Quantity:
    parts = match.groupdict()
    mm, m = parts.get("mm"), (parts.get("m") or "").lower()
    month = zh.read_numeral(mm) if mm else _MONTHS.get(m)
    day = zh.read_numeral(parts["d"]) if parts.get("d") else None
    year = zh.read_numeral(parts["y"]) if parts.get("y") else 0
    return Quantity(
        float(year), "date", match.group(0), match.start(), match.end(), 0, month=month, day=day
    )


def _bound(before: str) -> Bound:
    for bound, pattern in _HEDGES:
        if pattern.search(before):
            return bound
    return zh.hedge(before) or "eq"


def _value(match: re.Match[str], comma_decimal: bool) -> tuple[str, str, bool]:
    """The integer and decimal digits of a number, and whether its thousands were grouped.

    The shape decides where it can: ``1,234.5`` and ``1.234,5`` are one number each way, a
    comma before one, two or four digits is decimal (``48,6``), and so is a decimal stop
    before other than three. ``1,234`` and ``1.234`` alone are read as the text's language
    writes them: 1234 and 1.234 in English, 1.234 and 1234 in French, Spanish or German.
    """
    groups = match.groupdict()
    if groups["dots"]:
        return groups["dots"].replace(".", ""), groups["dots_dec"], True
    if groups["dotted"]:
        return groups["dotted"].replace(".", ""), "", True
    if groups["commas"]:
        whole, decimals = groups["commas"], groups["commas_dec"] or ""
        if comma_decimal and not decimals and whole.count(",") == 1:
            head, _, tail = whole.partition(",")
            return head, tail, False  # 1,234 is 1.234 in French
        return whole.replace(",", ""), decimals, True
    if groups["spaced"]:
        whole = "".join(c for c in groups["spaced"] if c.isdigit())
        return whole, groups["spaced_dec"] or "", True
    whole, decimals = groups["plain"], groups["plain_dec"] or ""
    stop = match.group(0)[len(whole) : len(whole) + 1]
    if stop == "." and comma_decimal and len(decimals) == 3:
        return whole + decimals, "", True  # 1.234 is 1234 in German
    return whole, decimals, False


def _numbers(masked: str, text: str, comma_decimal: bool = False) -> Iterator[Quantity]:
    pattern = _NUMBER_SPACED if comma_decimal else _NUMBER
    for match in pattern.finditer(masked):
        start, end = match.start(), match.end()
        if start >= 2 and masked[start - 1] == "-" and masked[start - 2].isalpha():
            continue  # a name such as COVID-19 or F-35
        if _ORDINAL.match(masked, end):
            continue
        if _YEAR_RANGE.search(masked, 0, start) and end - start <= 2:
            continue  # the second year of a range such as 2018-19
        if _LIST_NUMBER.match(masked, end) and _LINE_START.search(masked, 0, start):
            continue  # the number of a list item: "1. Choose a location"
        whole, fraction, grouped = _value(match, comma_decimal)
        raw = f"{whole}.{fraction}" if fraction else whole
        decimals = len(raw.partition(".")[2])
        currency, lead = _prefix(masked, start)
        bound = _bound(masked[max(0, lead - 24) : lead])
        if currency == "%":  # 百分之5: five percent
            currency = ""
            quantity: _Read | None = (float(raw), "percent", "", "", end, 0.5 * 10.0**-decimals)
        else:
            quantity = _read_suffix(masked, end, float(raw), decimals, currency)
        if quantity is None:
            continue
        value, kind, cur, noun, stop, resolution = quantity
        number = _written(masked, end, float(raw), currency)
        if kind == "count" and not decimals and not grouped:
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
    yield from _chinese_numbers(masked, text)
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


def _chinese_numbers(masked: str, text: str) -> Iterator[Quantity]:
    """Numbers written in Chinese characters (``一百五十兆瓦时``, ``两亿元``, ``百分之五十``).

    One character alone is a word as often as a number (``一些``, ``统一``, ``三元锂电池``):
    it is read only with a unit (``五兆瓦``, ``五个百分点``), and ``一`` (often ``a``) and
    money (``三元`` is also *ternary*) are then as if spelled out, like English ``three``:
    they can match a figure, but are never required and never contradict one. So is a longer
    number that counts nothing named (no unit, currency or measure word such as ``名``).
    """
    read_up_to = 0  # the decimals of 三点五 are not a number of their own
    for match in zh.NUMERAL.finditer(masked):
        start = match.start()
        if start < read_up_to or zh.NOT_NUMERAL_BEFORE.search(masked, max(0, start - 2), start):
            continue
        read = zh.numeral(match.group(0))
        if read is None:
            continue
        number, length, place = read
        end = start + length
        if any(c not in zh.SCALE_CHARS for c in masked[end : match.end()]):
            continue  # not one number: 十二五, 一五一十
        decimals = zh.DECIMAL.match(masked, end) if place == 1 else None
        if decimals is not None:
            read_up_to = decimals.end()
            if decimals.group("time"):
                continue  # 三点五分: five past three
            fraction = "".join(str(zh.read_numeral(c)) for c in decimals.group("f"))
            number, place = number + float(f"0.{fraction}"), 10.0 ** -len(fraction)
            length, end = decimals.end() - start, decimals.end()
        elif end < len(masked) and masked[end] in zh.NOT_NUMERAL_AFTER:
            continue  # a month, a day, an hour or a vague number: 三月, 五日, 三点, 十几
        currency, lead = _prefix(masked, start)
        bound = _bound(masked[max(0, lead - 24) : lead])
        after = end
        if after < len(masked) and masked[after] in zh.MORE:
            bound, after = "ge", after + 1  # 五十多家: more than fifty
        if currency == "%":
            currency = ""
            quantity: _Read | None = (number, "percent", "", "", end, 0.5)
        else:
            quantity = _read_suffix(masked, after, number, 0, currency)
        if quantity is None:
            continue
        value, kind, cur, _, stop, resolution = quantity
        resolution *= place
        if kind == "count":
            if length == 1:
                continue  # 一些, 统一, 一般: a word, not a figure
            counted = stop < len(masked) and masked[stop] in zh.CLASSIFIERS
        else:
            counted = True
        yield Quantity(
            value,
            kind,
            text[lead:stop].strip(),
            lead,
            stop,
            resolution,
            bound,
            currency=_CURRENCY_CODES.get(cur, cur),
            spelled=not counted or (length == 1 and (number <= 1 or kind == "money")),
            number=_written(masked, after, number, currency),
        )


def _prefix(masked: str, start: int) -> tuple[str, int]:
    """The currency written before the number at ``start``, and where the figure begins.

    The currency is ``%`` for Chinese ``百分之`` (per cent), which comes before the number.
    """
    before = masked[max(0, start - 6) : start]
    if before.endswith(zh.PERCENT_PREFIX):
        return "%", start - len(zh.PERCENT_PREFIX)
    symbol = _CURRENCY.search(before)
    if symbol:
        return symbol.group("cur").strip(), start - len(symbol.group(0))
    named = zh.currency_before(before)
    if named:
        return named[0], start - named[1]
    return "", start


def _scale(masked: str, end: int, currency: str) -> tuple[float, int]:
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
    if not currency:
        named = _currency_word(masked, end)
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
                return value / factor, f"money/{kind}", currency, "", stop, resolution / factor
            per_word = _NOUN.match(masked, per.end())
            if per_word and per.group(0).strip() in ("/", "per"):
                word = stem(per_word.group("w").lower())
                return value, f"money/{word}", currency, "", per_word.end(), resolution
        return value, "money", currency, "", end, resolution
    points = _POINTS.match(masked, end) or zh.POINTS.match(masked, end)
    if points:
        fraction = 0.01 if points.groupdict().get("b") else 1.0
        return value * fraction, "points", "", "", points.end(), resolution * fraction
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


def _currency_word(masked: str, end: int) -> tuple[str, float, int] | None:
    """The currency named after a figure at ``end``: (currency, factor, end), or ``None``.

    ``cents`` are hundredths of an unnamed currency (``¢``, which agrees with any).
    """
    match = _CURRENCY_WORD.match(masked, end)
    if not match:
        return None
    word = match.group("w").lower()
    adjective = (match.group("a") or "").lower()
    if word.startswith("dollar"):
        return _DOLLARS[adjective], 1.0, match.end()
    if adjective:
        return None  # "US cents", "American pounds": not a currency this reads
    name = next((v for k, v in _CURRENCY_NAMES.items() if k in word), "")
    return name, 0.01 if name == "¢" else 1.0, match.end()


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
