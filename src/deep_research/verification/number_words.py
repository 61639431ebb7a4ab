"""Numbers written in words: ``three units``, ``deux millions``, ``treinta y dos``, ``zwei``.

English reads single words (:data:`WORD_NUMBERS`, ``two`` to ``twelve`` and ``dozen``, and
``one``, ``a`` or ``an`` before a scale word).
French, Spanish and German read whole numbers from one table per language (:data:`WORDS`):
``vingt-deux``, ``trois cents``, ``deux mille``, ``quatre-vingt-dix``, ``treinta y dos``,
``doscientos``, ``mil`` (so ``mil millones`` is 10⁹), ``zwanzig``; German compounds written as
one word (``zweihundert``, ``dreiundzwanzig``) are not read. ``un``, ``une``, ``uno``, ``una``,
``ein`` and ``eine`` are articles as often as numbers: alone, they count only before a scale
word (``un milliard``, see :func:`foreign_numbers`).

A number in words can match a figure, but is never required (see
:attr:`.quantities.Quantity.spelled`), unless a scale word follows it: ``deux millions
d'euros`` is a figure like ``2 millions d'euros``, and ``two million dollars`` like
``$2 million``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from deep_research.text.language import Language

__all__ = ["WORDS", "WORD_NUMBER", "WORD_NUMBERS", "WordNumber", "foreign_numbers"]

WORD_NUMBERS = dict(
    zip(
        "two three four five six seven eight nine ten eleven twelve".split(),
        range(2, 13),
        strict=True,
    )
) | {"dozen": 12}
"""English numbers in words (``one`` is left out: it is a pronoun as often as a number)."""
WORD_NUMBER = re.compile(
    r"\b(?:"
    + "|".join(WORD_NUMBERS)
    + r"|(?:one|an?)(?=\s(?:thousand|million|billion|trillion)\b))\b",
    re.I,
)
"""An English number in words; ``one``, ``a`` and ``an`` only before a scale word
(``a million people``, ``one billion dollars``)."""


def _table(words: str, start: int = 1, step: int = 1) -> dict[str, int]:
    """``{"deux": 2, "trois": 3}`` from ``"deux trois"``; ``a|b`` spells one number two ways."""
    return {
        spelling: start + index * step
        for index, number in enumerate(words.split())
        for spelling in number.split("|")
    }


WORDS: dict[Language, dict[str, int]] = {
    "fr": _table("un|une deux trois quatre cinq six sept huit neuf dix onze douze treize")
    | _table("quatorze quinze seize dix-sept dix-huit dix-neuf", start=14)
    | _table("vingt trente quarante cinquante soixante", start=20, step=10)
    | {"quatre-vingt": 80, "quatre-vingts": 80, "cent": 100, "cents": 100, "mille": 1000},
    "es": _table("un|uno|una dos tres cuatro cinco seis siete ocho nueve diez once doce trece")
    | _table("catorce quince dieciséis diecisiete dieciocho diecinueve veinte", start=14)
    | _table("veintiuno|veintiún|veintiuna veintidós veintitrés veinticuatro", start=21)
    | _table("veinticinco veintiséis veintisiete veintiocho veintinueve", start=25)
    | _table("treinta cuarenta cincuenta sesenta setenta ochenta noventa", start=30, step=10)
    | _table("cien|ciento doscientos|doscientas trescientos|trescientas", start=100, step=100)
    | _table("cuatrocientos|cuatrocientas quinientos|quinientas", start=400, step=100)
    | _table("seiscientos|seiscientas setecientos|setecientas", start=600, step=100)
    | _table("ochocientos|ochocientas novecientos|novecientas", start=800, step=100)
    | {"mil": 1000},
    "de": _table("ein|eine zwei drei vier fünf sechs sieben acht neun zehn elf zwölf")
    | _table("dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn", start=13)
    | _table("zwanzig dreißig|dreissig vierzig fünfzig", start=20, step=10)
    | _table("sechzig siebzig achtzig neunzig", start=60, step=10)
    | {"hundert": 100, "tausend": 1000},
}
"""Numbers in words, in French, Spanish and German: units, teens, tens, hundreds, thousand.

Written together they add up (``vingt-deux``, ``ciento veinte``), multiply before ``cent``,
``hundert`` and ``mille``, ``mil``, ``tausend`` (``trois cents``, ``dos mil``), and French
``soixante-dix`` and ``quatre-vingt-dix`` are 60 + 10 and 80 + 10."""
_ARTICLES = frozenset({"un", "une", "uno", "una", "ein", "eine"})
_HUNDRED = frozenset({"cent", "cents", "hundert"})
"""Hundred, which multiplies the units before it (``trois cents``); Spanish ``cien`` adds."""
_THOUSAND = frozenset({"mille", "mil", "tausend"})


class WordNumber(NamedTuple):
    """A number written in words, found by :func:`foreign_numbers`."""

    start: int
    end: int
    value: int
    article: bool
    """Only ``un``, ``une``, ``uno``, ``una``, ``ein`` or ``eine``: a number before a scale
    word (``un milliard``), an article anywhere else."""


def foreign_numbers(text: str, languages: frozenset[Language]) -> Iterator[WordNumber]:
    """The numbers written in words in ``text``, in the ``languages`` of :data:`WORDS`."""
    if not languages:
        return
    first, following, values = _patterns(languages)
    at = 0
    while match := first.search(text, at):
        word = match.group(0).lower()
        state, end = _start(word, values[word]), match.end()
        while more := following.match(text, end):
            word = more.group("w").lower()
            added = _add(state, word, values[word], joined=bool(more.group("and")))
            if added is None:
                break
            state, end = added, more.end()
        article = end == match.end() and match.group(0).lower() in _ARTICLES
        yield WordNumber(match.start(), end, state[0] + state[1], article)
        at = end


_State = tuple[int, int, int]
"""A number being read: the thousands so far, the number below a thousand read since, and
the value of the last word."""


@cache
def _patterns(
    languages: frozenset[Language],
) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, int]]:
    """The first word of a number, each word after it, and the value of each word."""
    values = {word: value for language in languages for word, value in WORDS[language].items()}
    words = "|".join(re.escape(w) for w in sorted(values, key=len, reverse=True))
    first = re.compile(rf"(?<![\w-])(?:{words})(?!\w)", re.I)
    following = re.compile(rf"(?:[ -]+|(?P<and>\s+(?:et|y)\s+))(?P<w>{words})(?!\w)", re.I)
    return first, following, values


def _start(word: str, value: int) -> _State:
    """The number that ``word`` starts: ``mille`` is a thousand, ``cent`` a hundred."""
    if word in _THOUSAND:
        return 1000, 0, 0
    return 0, value, value


def _add(state: _State, word: str, value: int, joined: bool) -> _State | None:
    """``state`` with one more word; ``None`` when the word does not continue the number.

    ``deux trois`` is two numbers, ``vingt cents`` twenty cents; ``et`` and ``y`` (``joined``)
    only join tens and units (``vingt et un``, ``treinta y dos``, not ``dos y tres``).
    """
    total, group, last = state
    after_tens = 20 <= last < 100 and last % 10 == 0
    if word in _THOUSAND:
        return None if joined or total else (max(group, 1) * 1000, 0, 0)
    if word in _HUNDRED:
        return None if joined or group >= 10 else (total, max(group, 1) * 100, 100)
    if joined:
        return (total, group + value, value) if after_tens and (value < 10 or value == 11) else None
    if group % 100 == 0 and (value < 100 or group == 0):
        return total, group + value, value  # a new number, or after a hundred or thousand
    if after_tens and (value < 10 or last in (60, 80) and value < 20):
        return total, group + value, value  # vingt-deux, soixante-dix, quatre-vingt-douze
    return None
