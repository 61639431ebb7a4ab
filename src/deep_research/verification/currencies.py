"""Currencies written before or after a figure, each mapped to one spelling.

Before: ``$``, ``A$``, ``US$``, ``€``, ``EUR``, ``人民币``. After: ``90 million euros``,
``5 US dollars``, ``12 cents`` (hundredths), and in French or German ``1,5 milliard d'euros``,
``12 €``. ``EUR 5`` is ``€5`` and ``AUD`` is ``A$``; a bare ``$`` is any dollar (see
:mod:`.agreement`).
"""

from __future__ import annotations

import re

from deep_research.verification import chinese_figures as zh

__all__ = ["canonical", "currency_after", "currency_before"]

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


def canonical(currency: str) -> str:
    """The one spelling of ``currency``: ``USD`` is ``US$``, ``EUR`` is ``€``."""
    return _CURRENCY_CODES.get(currency, currency)


def currency_before(before: str) -> tuple[str, int] | None:
    """The currency that ``before`` ends with (``A$``, ``EUR``, ``人民币``): (currency, length)."""
    symbol = _CURRENCY.search(before)
    if symbol:
        return symbol.group("cur").strip(), len(symbol.group(0))
    return zh.currency_before(before)


def currency_after(masked: str, end: int) -> tuple[str, float, int] | None:
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
