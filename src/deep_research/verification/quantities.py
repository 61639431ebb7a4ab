"""Quantities in text: numbers with their scale, unit, currency, hedge and date parts.

The offline verifier compares a claim's quantities with the evidence's. Values are converted
to one base unit per kind, so ``1.2 billion`` equals ``1,200 million``, ``0.15 GW`` equals
``150 MW`` and ``$150,000/MWh`` equals ``$150/kWh``; ``MW`` (power) never matches ``MWh``
(energy), a percentage is not a change in percentage points (``5%`` is not ``5 pp``), and
currencies differ (``A$`` is not ``US$``; ``EUR 5`` is ``€5``, ``12 cents`` is ``$0.12``).
A year is a date, never a plain number: ``2019`` the year is not ``2,019`` units.
Other languages' notations read as the same figures: ``48,6 %`` is 48.6%, ``1 200 MW`` in
French text 1,200 MW, ``1.234,5 Mio. Euro`` €1,234.5 million, ``deux millions d'euros`` €2
million and ``le 3 mars 2021`` 2021-03-03 (French, Spanish and German month names and numbers
in words), and Chinese, numbers written in characters included. How two figures compare is
:mod:`.agreement`'s job.

This module finds the figures and builds each :class:`Quantity`; the parts are read by

* :mod:`.dates`: dates and decades;
* :mod:`.digits` and :mod:`.number_words`: numbers in digits (grouping, decimal commas)
  and in words;
* :mod:`.units`: what follows a number (scale, unit, percent, counted noun);
* :mod:`.currencies`: currencies before and after a number;
* :mod:`.hedges`: ``about``, ``more than``, ``up to`` before a number;
* :mod:`.chinese_figures`: what is particular to Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from deep_research.text.language import Language, french_spanish_or_german
from deep_research.verification import chinese_figures as zh
from deep_research.verification.currencies import canonical, currency_before
from deep_research.verification.dates import DECADE, date_parts, date_patterns
from deep_research.verification.digits import AMBIGUOUS, NUMBER, NUMBER_SPACED, digits
from deep_research.verification.hedges import Bound, hedge_bound
from deep_research.verification.number_words import WORD_NUMBER, WORD_NUMBERS, foreign_numbers
from deep_research.verification.units import Reading, read_suffix, scale

__all__ = ["Quantity", "quantities"]

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
    """Every figure of ``text``, in order: dates, decades, then numbers with their units.

    In text that reads as French, Spanish or German, their month names and numbers in words
    are read too, and a plain space groups thousands (``1 200 MW``).
    """
    found: list[Quantity] = []
    masked = text.translate(zh.FULL_WIDTH)
    languages = french_spanish_or_german(text)
    for pattern in date_patterns(languages):
        for match in pattern.finditer(masked):
            found.append(_date(match))
            masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    for match in DECADE.finditer(masked):
        year = int(match.group("y"))
        found.append(Quantity(year, "decade", match.group(0), match.start(), match.end(), 0))
        masked = masked[: match.start()] + " " * len(match.group(0)) + masked[match.end() :]
    comma_decimal = bool(languages) and bool(AMBIGUOUS.search(masked))
    found.extend(_numbers(masked, text, comma_decimal))
    found.extend(_chinese_numbers(masked, text))
    taken = {at for q in found for at in range(q.start, q.end)}
    found.extend(_words(masked, text, languages, taken))
    return sorted(found, key=lambda q: q.start)


def _date(match: re.Match[str]) -> Quantity:
    year, month, day = date_parts(match)
    return Quantity(
        float(year), "date", match.group(0), match.start(), match.end(), 0, month=month, day=day
    )


def _numbers(masked: str, text: str, comma_decimal: bool = False) -> Iterator[Quantity]:
    pattern = NUMBER_SPACED if comma_decimal else NUMBER
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
        whole, fraction, grouped = digits(match, comma_decimal)
        raw = f"{whole}.{fraction}" if fraction else whole
        decimals = len(raw.partition(".")[2])
        currency, lead = _prefix(masked, start)
        bound = hedge_bound(masked[max(0, lead - 24) : lead])
        if currency == "%":  # 百分之5: five percent
            currency = ""
            quantity: Reading | None = Reading(
                float(raw), "percent", "", "", end, 0.5 * 10.0**-decimals
            )
        else:
            quantity = read_suffix(masked, end, float(raw), decimals, currency)
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
            currency=canonical(cur),
            noun=noun,
            number=number,
        )


_SPELLED_KINDS = ("count", "duration", "percent")
"""What a number in words is read as without a scale word: ``three units``, ``two years``,
``vingt pour cent``; ``three dollars`` or ``a two-MW plant`` are not read."""


def _words(
    masked: str, text: str, languages: frozenset[Language], taken: set[int]
) -> Iterator[Quantity]:
    """Numbers written in words (see :mod:`.number_words`), outside the figures ``taken``.

    Those followed by a scale word are figures like digits (``deux millions d'euros``,
    ``two million dollars``); the others are spelled out: they can match a figure, but are
    never required and never contradict one.
    """
    taken, covered = set(taken), set[int]()
    for word in foreign_numbers(masked, languages):
        covered.update(range(word.start, word.end))
        if word.start in taken:
            continue  # the cent of 20 pour cent, or of vingt pour cent
        factor = scale(masked, word.end, "")[0]
        if word.article and factor == 1.0:
            continue  # un, una, ein: an article
        read = read_suffix(masked, word.end, float(word.value), 0, "")
        if read is None:
            continue
        taken.update(range(word.start, read.end))  # the cents of vingt cents is no hundred
        if factor == 1.0 and read.kind not in _SPELLED_KINDS:
            continue
        yield Quantity(
            read.value,
            read.kind,
            text[word.start : read.end],
            word.start,
            read.end,
            read.resolution,
            hedge_bound(masked[max(0, word.start - 24) : word.start]),
            currency=canonical(read.currency),
            noun=read.noun,
            spelled=factor == 1.0,
            number=word.value * factor,
        )
    for match in WORD_NUMBER.finditer(masked):
        if match.start() in covered:
            continue  # French six, read above
        value = float(WORD_NUMBERS.get(match.group(0).lower(), 1))  # one, a, an: 1
        factor, scaled = scale(masked, match.end(), "")
        if factor != 1.0 and masked.startswith("-", scaled):
            continue  # a million-dollar grant: an adjective, not a million of something
        read = read_suffix(masked, match.end(), value, 0, "")
        if read is None or (factor == 1.0 and read.kind not in _SPELLED_KINDS):
            continue
        yield Quantity(
            read.value,
            read.kind,
            text[match.start() : read.end],
            match.start(),
            read.end,
            read.resolution,
            hedge_bound(masked[max(0, match.start() - 24) : match.start()]),
            currency=canonical(read.currency),
            noun=read.noun,
            spelled=factor == 1.0,
            number=_written(masked, match.end(), value, ""),
        )


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
        bound = hedge_bound(masked[max(0, lead - 24) : lead])
        after = end
        if after < len(masked) and masked[after] in zh.MORE:
            bound, after = "ge", after + 1  # 五十多家: more than fifty
        if currency == "%":
            currency = ""
            quantity: Reading | None = Reading(number, "percent", "", "", end, 0.5)
        else:
            quantity = read_suffix(masked, after, number, 0, currency)
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
            currency=canonical(cur),
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
    named = currency_before(before)
    if named:
        return named[0], start - named[1]
    return "", start


def _written(masked: str, end: int, value: float, currency: str) -> float:
    """The number with its scale word applied (``1.2 billion``), before any unit."""
    return value * scale(masked, end, currency)[0]
