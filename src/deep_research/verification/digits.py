"""Numbers written in digits, grouped and decimal-marked the ways languages write them.

``1,234.5`` in English, ``1.234,5`` in German or Spanish, ``1 234,5`` in French. The shape of
a number decides where it can, and the text's language where it cannot (see :func:`digits`).
Numbers in words are :mod:`.number_words`'s, Chinese numerals :mod:`.chinese_figures`'.
"""

from __future__ import annotations

import re

__all__ = ["AMBIGUOUS", "NUMBER", "NUMBER_SPACED", "digits"]

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
NUMBER = re.compile(_GLUE + "(?:" + _SHAPES.replace("{space}", _THIN_SPACES) + r")(?![.,]?\d)")
"""A number not glued to a word or another number; Chinese, Japanese and Korean characters
may touch it (``投资5亿元``). Its shape says how it is grouped (see :func:`digits`)."""
NUMBER_SPACED = re.compile(
    _GLUE + "(?:" + _SHAPES.replace("{space}", "[ \u00a0\u2009\u202f]") + r")(?![.,]?\d)"
)
""":data:`NUMBER` where a plain space also groups digits (``1 200 MW``), as in French."""
AMBIGUOUS = re.compile(r"\d[ ,.]\d")
"""A text without this needs no language to read its numbers."""


def digits(match: re.Match[str], comma_decimal: bool) -> tuple[str, str, bool]:
    """The integer and decimal digits of a :data:`NUMBER`, and whether its thousands were grouped.

    The shape decides where it can: ``1,234.5`` and ``1.234,5`` are one number each way, a
    comma before one, two or four digits is decimal (``48,6``), and so is a decimal stop
    before other than three. ``1,234`` and ``1.234`` alone are read as the text's language
    writes them (``comma_decimal`` for French, Spanish or German): 1234 and 1.234 in English,
    1.234 and 1234 in French, Spanish or German.
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
