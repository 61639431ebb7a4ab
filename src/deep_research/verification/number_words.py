"""Numbers written in words: ``three units``, ``a dozen``.

A number in words can match a figure, but it is never required (see
:attr:`.quantities.Quantity.spelled`).
"""

from __future__ import annotations

import re

__all__ = ["WORD_NUMBER", "WORD_NUMBERS"]

WORD_NUMBERS = dict(
    zip(
        "two three four five six seven eight nine ten eleven twelve".split(),
        range(2, 13),
        strict=True,
    )
) | {"dozen": 12}
"""English numbers in words (``one`` is left out: it is a pronoun as often as a number)."""
WORD_NUMBER = re.compile(r"\b(?:" + "|".join(WORD_NUMBERS) + r")\b", re.I)
