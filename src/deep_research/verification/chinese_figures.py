"""How Chinese text writes figures: number units, currencies, units, hedges and dates.

:mod:`.quantities` reads figures in any language; this module holds what is particular to
Chinese, so that ``5亿元`` is 500,000,000 yuan, ``150兆瓦`` is 150 MW (power) and never
``150兆瓦时`` (150 MWh, energy), ``百分之5`` is 5% and ``5个百分点`` five percentage points.
Full-width digits and signs (``５０％``) read as their ASCII forms, and numbers written in
characters as the figures they are: ``一百五十兆瓦时`` is 150 MWh, ``两亿元`` 200,000,000 yuan,
``百分之五十`` 50%, ``二〇一九年`` the year 2019 (see :func:`numeral`).
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "CLASSIFIERS",
    "DECIMAL",
    "FULL_WIDTH",
    "MORE",
    "NOT_NUMERAL_AFTER",
    "NOT_NUMERAL_BEFORE",
    "NUMERAL",
    "PERCENT_PREFIX",
    "SCALE_CHARS",
    "currency_before",
    "currency_after",
    "date_pattern",
    "hedge",
    "numeral",
    "read_numeral",
    "scale",
    "unit",
]

FULL_WIDTH = str.maketrans("０１２３４５６７８９％￥＄", "0123456789%¥$")
"""Full-width digits and signs mapped to ASCII, one character for one (offsets are kept).

Not the full-width comma and stop: they end clauses and sentences, never group digits."""

PERCENT_PREFIX = "百分之"
"""Written before the number: ``百分之5`` is 5%."""

_DIGITS = {"十": 1e1, "百": 1e2, "千": 1e3, "万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8}
"""Number units, simplified and traditional; written together they multiply: ``十亿`` 10^9,
``千万`` 10^7, ``万亿`` 10^12."""
_SCALE = re.compile(r"\s?(?P<s>[十百千万萬亿億]+)")

_CURRENCIES = {
    "美元": "US$",
    "欧元": "€",
    "英镑": "£",
    "日元": "JPY",
    "港元": "HK$",
    "港币": "HK$",
    "港幣": "HK$",
    "澳元": "A$",
    "加元": "C$",
    "人民币": "CNY",
    "人民幣": "CNY",
    "元": "CNY",
}
_CURRENCY_AFTER = re.compile(
    r"\s?(?P<w>" + "|".join(sorted(_CURRENCIES, key=len, reverse=True)) + r")(?:人民币)?"
)
_CURRENCY_BEFORE = re.compile(r"(?P<w>人民币|人民幣|美元|欧元)\s?$")

_PREFIXES = {"": 1.0, "千": 1e3, "兆": 1e6, "吉": 1e9, "太": 1e12}
"""Metric prefixes before 瓦 (watt): 千瓦 kW, 兆瓦 MW, 吉瓦 GW, 太瓦 TW."""
_WATTS = re.compile(r"(?P<p>[千兆吉太]?)瓦(?:特)?(?P<h>时|小时|時|小時)?")
_MEASURES = {"公里": ("length", 1e3), "米": ("length", 1.0), "公斤": ("mass", 1e3)}
_MEASURES |= {"克": ("mass", 1.0), "吨": ("mass", 1e6), "斤": ("mass", 500.0)}
"""Lengths in metres and masses in grams (a ``斤`` is half a kilogram); ``千米`` and ``千克``
read ``千`` as a number unit."""
_MEASURE = re.compile(r"公里|公斤|米|克|吨|斤")
_DURATIONS = {"年": 8766.0, "个月": 730.5, "個月": 730.5, "周": 168.0, "天": 24.0}
_DURATIONS |= {"小时": 1.0, "小時": 1.0, "分钟": 1 / 60, "分鐘": 1 / 60}
_DURATION = re.compile(r"(?P<u>" + "|".join(sorted(_DURATIONS, key=len, reverse=True)) + ")")
POINTS = re.compile(r"\s?[个個]?百分[点點]")
"""Percentage points: ``5个百分点``."""

_HEDGES: tuple[tuple[Literal["approx", "ge", "le"], re.Pattern[str]], ...] = (
    ("le", re.compile(r"(?:不到|不足|少于|低于|不超过|至多|最多)(?:[为是有达了])?\s*$")),
    ("ge", re.compile(r"(?:(?<!不)超过|逾|多于|高于|至少|超)(?:[为是有达了])?\s*$")),
    ("approx", re.compile(r"(?:约|大约|大概|接近|将近|(?<!最)近)(?:[为是有达了])?\s*$")),
)
"""Hedges before a figure, with the verb that may follow them (``约为``, ``超过了``)."""


_NUMERAL_DIGITS = dict(
    zip("〇零一二两兩三四五六七八九", (0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)
)
_PLACES = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
NUMERAL = re.compile(r"[〇零一二两兩三四五六七八九十][〇零一二两兩三四五六七八九十百千万萬亿億]*")
"""A run of number characters that may start a number (``百`` or ``万`` alone does not)."""
NOT_NUMERAL_BEFORE = re.compile(r"(?:[第初周週数數几幾\d.]|星期|礼拜|禮拜)$")
"""Before a number character, what makes it an ordinal, a weekday, a vague number or part of
another number: ``第一``, ``初五``, ``周一``, ``星期三``, ``数十万`` (hundreds of thousands),
``3一``."""
NOT_NUMERAL_AFTER = frozenset("月日号號点點几幾")
"""After a number character, what makes it a month, a day, an hour or a vague number:
``三月``, ``五日``, ``三点``, ``十几``."""
DECIMAL = re.compile(r"[点點](?P<f>[〇零一二三四五六七八九]+)(?P<time>分)?")
"""The decimals of a number written in characters: ``三点五亿`` is 3.5×10⁸ (``三点五分``,
five past three, is a time)."""
MORE = frozenset("多余餘")
"""After a number, ``more than``: ``五十多家``."""
SCALE_CHARS = frozenset("十百千万萬亿億")
"""Number units, which :func:`scale` reads after a number."""
CLASSIFIERS = frozenset(
    "个個名人家座台臺项項次位件种種所辆輛架艘条條张張块塊份户戶套栋棟间間篇本册冊部只头頭匹批例起"
    "倍届屆支款颗顆枚期场場轮輪"
)
"""Measure words after a count: ``三千五百名员工``, ``五十家企业``."""
_YEAR_DIGITS = "〇零一二三四五六七八九"
_MONTH_WORD = "十[一二]?|[一二三四五六七八九]"
_DAY_WORD = "[二三]?十[一二三四五六七八九]?|[一二三四五六七八九]"


def date_pattern() -> re.Pattern[str]:
    """``2019年``, ``2019年3月``, ``2019年3月5日``: groups ``y``, ``mm`` and ``d``.

    Written in characters too: ``二〇一九年三月五日``.
    """
    year = rf"(?<![\d{_YEAR_DIGITS}])(?P<y>\d{{4}}|[{_YEAR_DIGITS}]{{4}})"
    month, day = rf"(?P<mm>\d{{1,2}}|{_MONTH_WORD})", rf"(?P<d>\d{{1,2}}|{_DAY_WORD})"
    return re.compile(rf"{year}\s?年(?:\s?{month}\s?月(?:\s?{day}\s?[日号])?)?")


def read_numeral(text: str) -> int:
    """The integer a date part is written as: ``2019``, ``二〇一九`` (digit by digit), ``十二``."""
    if text.isdigit():
        return int(text)
    if len(text) == 4 and all(c in _YEAR_DIGITS for c in text):
        return int("".join(str(_NUMERAL_DIGITS[c]) for c in text))
    found = numeral(text)
    return int(found[0]) if found else 0


def numeral(text: str) -> tuple[float, int, float] | None:
    """The number written in characters at the start of ``text``, or ``None``.

    ``五十`` is 50, ``三千五百`` 3,500, ``一百二十万`` 1,200,000, ``两亿`` 200,000,000, ``十二`` 12,
    ``一千零五`` 1,005 and ``三千五`` (the last place left out) 3,500. Reading stops where
    the characters stop making one number: ``二〇`` and ``一五一十`` are read as ``二`` and ``一``,
    and number units that follow without a digit (the ``亿`` of ``五十万亿``) are left to
    :func:`scale`, which multiplies.

    Returns:
        ``(value, length, unit)``: the value, how many characters it takes, and the place of
        its last digit that rounding can move (``1e8`` for ``两亿``, ``1`` for ``三千五百``).
    """
    total, section = 0, 0
    digit: int | None = None
    place, big = 10**5, 10**13  # places and big units must fall from left to right
    zero = False  # a 零 since the last place: the digit after it is a unit
    last = 1  # the place of the last unit read, for 三千五 (the last place left out)
    best: tuple[float, int, float] | None = None
    for index, char in enumerate(text):
        if char in "〇零":
            if digit is not None or index == 0 and len(text) > 1 and text[1] not in _PLACES:
                break
            zero = True
            if index == 0:
                best = (0.0, 1, 1.0)
            continue
        if char in _NUMERAL_DIGITS:
            if digit is not None:
                break
            digit = _NUMERAL_DIGITS[char]
            tail = 1 if zero or last <= 10 else last // 10
            value, unit = total + section + digit * tail, tail if last > 1 and not zero else 1
        elif char in _PLACES:
            step = _PLACES[char]
            if step >= place or (digit is None and (char != "十" or section or total)):
                break
            section += (1 if digit is None else digit) * step
            digit, place, zero, last = None, step, False, step
            value, unit = total + section, 1
        elif char in _BIG:
            step = _BIG[char]
            if step >= big or not (section or digit):
                break
            total += (section + (digit or 0)) * step
            section, digit, place, big, zero, last = 0, None, 10**5, step, False, step
            value, unit = total, step
        else:
            break
        best = (float(value), index + 1, float(unit))
    return best


def scale(text: str, end: int) -> tuple[float, int]:
    """The factor of the number units at ``end`` and where they end (1 and ``end`` if none)."""
    match = _SCALE.match(text, end)
    if not match:
        return 1.0, end
    factor = 1.0
    for char in match.group("s"):
        factor *= _DIGITS[char]
    return factor, match.end()


def currency_after(text: str, end: int) -> tuple[str, int] | None:
    """The currency named after a figure (``5亿美元``, ``5亿元人民币``): (currency, end)."""
    match = _CURRENCY_AFTER.match(text, end)
    return (_CURRENCIES[match.group("w")], match.end()) if match else None


def currency_before(before: str) -> tuple[str, int] | None:
    """The currency named just before a figure (``人民币5亿``): (currency, its length)."""
    match = _CURRENCY_BEFORE.search(before)
    return (_CURRENCIES[match.group("w")], len(match.group(0))) if match else None


def unit(text: str, at: int) -> tuple[str, float, int] | None:
    """The Chinese unit at ``at``: (kind, factor to base units, end), or ``None``."""
    watts = _WATTS.match(text, at)
    if watts:
        kind = "energy" if watts.group("h") else "power"
        return kind, _PREFIXES[watts.group("p")], watts.end()
    measure = _MEASURE.match(text, at)
    if measure:
        kind, factor = _MEASURES[measure.group(0)]
        return kind, factor, measure.end()
    duration = _DURATION.match(text, at)
    if duration:
        return "duration", _DURATIONS[duration.group("u")], duration.end()
    return None


def hedge(before: str) -> Literal["approx", "ge", "le"] | None:
    """The bound a Chinese hedge just before a figure states (``约``, ``超过``), if any."""
    for bound, pattern in _HEDGES:
        if pattern.search(before):
            return bound
    return None
