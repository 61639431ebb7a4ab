"""Finding a quote in the text it was copied from, forgiving what copying changes.

A model that copies a sentence may change its spacing, its case, its quote marks (straight
or curly) or leave out a middle part with an ellipsis. :func:`find_quote` finds such a quote
in its text and returns where it stands there, so that the evidence made of it is the text's
own words (``text[start:end]``). The engine's check of a quote
(:func:`deep_research.engines.validation.verbatim`) and the location of a picked quote in its
page (:func:`deep_research.engines.quotes.locate_quotes`) both use it, so that a quote the
check accepts is never lost when it is located.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'"})
_ELLIPSIS = re.compile(r"\s*(?:\[\.\.\.\]|\.\.\.|…)\s*")
_WORD = re.compile(r"\S+")
EDGES = "\"' .,;:"
"""Characters trimmed from each end of a quote's parts: a model adds or drops them."""

ENDINGS = ".!?。！？\"'”’)」』）"
"""Characters that may close a sentence; a located quote takes those that follow it."""


def fold(text: str) -> str:
    """``text`` in lower case with curly quotes straightened, one character for each.

    A character whose lower case is longer (``İ``) is kept as it is, so that positions in the
    folded text are positions in ``text``.
    """
    straight = text.translate(_QUOTES)
    lowered = straight.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(low if len(low := c.lower()) == 1 else c for c in straight)


@dataclass(frozen=True)
class Folded:
    """A text folded (:func:`fold`), its whitespace runs as one space, with their origins.

    Each character's offset in the original is kept, so that a match in the folded text is
    a span of the original.
    """

    text: str
    origin: list[int]
    """The original offset of each character of :attr:`text` (a space: the last character of
    the whitespace it stands for)."""

    @classmethod
    def of(cls, original: str) -> Folded:
        """Fold ``original``."""
        pieces: list[str] = []
        origin: list[int] = []
        for match in _WORD.finditer(original):
            if pieces:
                pieces.append(" ")
                origin.append(match.start() - 1)
            pieces.append(fold(match.group()))
            origin.extend(range(match.start(), match.end()))
        return cls("".join(pieces), origin)


def quote_parts(quote: str) -> list[str]:
    """The parts of a quote an ellipsis separates, folded, edges trimmed, empty ones left out."""
    parts = (" ".join(fold(p).split()).strip(EDGES) for p in _ELLIPSIS.split(quote))
    return [part for part in parts if part]


def find_quote(quote: str, text: str | Folded) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``text``: its start and end offsets, or ``None``.

    Case, spacing and quote marks are ignored, and an ellipsis in the quote stands for any
    text: each part must appear, in order, and the span runs from the first part's start to
    the last part's end. Sentence-closing characters that follow the match in ``text`` (a
    final period the quote left out) are taken in.
    """
    parts = quote_parts(quote)
    if not parts:
        return None
    folded = text if isinstance(text, Folded) else Folded.of(text)
    at = first = folded.text.find(parts[0])
    if at < 0:
        return None
    at += len(parts[0])
    for part in parts[1:]:
        found = folded.text.find(part, at)
        if found < 0:
            return None
        at = found + len(part)
    start, end = folded.origin[first], folded.origin[at - 1] + 1
    # take in a closing period or quote mark right after the match
    while at < len(folded.text) and folded.text[at] in ENDINGS:
        end = folded.origin[at] + 1
        at += 1
    return start, end
