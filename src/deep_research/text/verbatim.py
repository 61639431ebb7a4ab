"""Finding a quote in the text it was copied from, forgiving what copying changes.

A model that copies a sentence may change its spacing, its case, its quote marks (straight
or curly) or leave out a middle part with an ellipsis; and it copies the data as its prompt
showed it, with the fence markers broken up (:func:`break_fences`). :func:`find_quote` finds
such a quote in its text and returns where it stands there, so that the evidence made of it
is the text's own words (``text[start:end]``). The engine's check of a quote
(:func:`deep_research.engines.llm.validation.verbatim`) and the location of a picked quote in its
page (:func:`deep_research.engines.quotes.locate_quotes`) both use it, so that a quote the
check accepts is never lost when it is located.
"""

from __future__ import annotations

import re

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'"})
_ELLIPSIS = re.compile(r"\s*(?:\[\.\.\.\]|\.\.\.|…)\s*")
_WORD = re.compile(r"\S+")
EDGES = "\"' .,;:"
"""Characters trimmed from each end of a quote's parts: a model adds or drops them."""

ENDINGS = ".!?。！？\"'”’)」』）"
"""Characters that may close a sentence; a located quote takes those that follow it."""


FENCE_BREAKS = (("<<<", "< < <"), (">>>", "> > >"))
"""How data shown to a model is kept from forging the untrusted-data fence's markers: each
run of three angle brackets is spaced out (a merge conflict's ``<<<<<<<`` is shown as
``< < << < <<``)."""


def break_fences(text: str) -> str:
    """``text`` with its fence-like runs of angle brackets broken up (:data:`FENCE_BREAKS`)."""
    for run, broken in FENCE_BREAKS:
        text = text.replace(run, broken)
    return text


def _mended(quote: str) -> str:
    """``quote`` with the runs :func:`break_fences` broke up joined again."""
    for run, broken in FENCE_BREAKS:
        quote = quote.replace(broken, run)
    return quote


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


class Folded:
    """A text folded (:func:`fold`), its whitespace runs as one space, with their origins.

    Only the folded text is made at once (plain string operations); where its characters
    stand in the original is worked out when a match needs it (:meth:`origin`).
    """

    def __init__(self, original: str) -> None:
        """Fold ``original``."""
        self.text = " ".join(fold(original).split())
        """The folded words, one space between each two."""
        self._original = original
        self._origins: list[int] = []  # each word's start in the original

    @classmethod
    def of(cls, original: str) -> Folded:
        """Fold ``original``."""
        return cls(original)

    def origin(self, at: int) -> int:
        """The original offset of the character at ``at`` of :attr:`text`.

        A space stands for a run of whitespace: its offset is the run's first character's.
        """
        if not self._origins:
            self._origins = [match.start() for match in _WORD.finditer(self._original)]
        word = self.text.count(" ", 0, at)  # the word ``at`` is in, or the space after
        return self._origins[word] + at - (self.text.rfind(" ", 0, at) + 1)


def quote_parts(quote: str) -> list[str]:
    """The parts of a quote an ellipsis separates, folded, edges trimmed, empty ones left out."""
    parts = (" ".join(fold(p).split()).strip(EDGES) for p in _ELLIPSIS.split(quote))
    return [part for part in parts if part]


def find_quote(quote: str, text: str | Folded) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``text``: its start and end offsets, or ``None``.

    Case, spacing and quote marks are ignored, and an ellipsis in the quote stands for any
    text: each part must appear, in order, and the span runs from the first part's start to
    the last part's end. Sentence-closing characters that follow the match in ``text`` (a
    final period the quote left out) are taken in. A quote copied from a prompt where the text
    was shown with its fence-like runs broken up (:func:`break_fences`) is found as well.
    """
    folded = text if isinstance(text, Folded) else Folded.of(text)
    found = _find(quote, folded)
    mended = _mended(quote)
    if found is None and mended != quote:
        found = _find(mended, folded)
    return found


def _find(quote: str, folded: Folded) -> tuple[int, int] | None:
    """:func:`find_quote` of ``quote`` as it is."""
    parts = quote_parts(quote)
    if not parts:
        return None
    at = first = folded.text.find(parts[0])
    if at < 0:
        return None
    at += len(parts[0])
    for part in parts[1:]:
        found = folded.text.find(part, at)
        if found < 0:
            return None
        at = found + len(part)
    start, end = folded.origin(first), folded.origin(at - 1) + 1
    # take in a closing period or quote mark right after the match
    while at < len(folded.text) and folded.text[at] in ENDINGS:
        end = folded.origin(at) + 1
        at += 1
    return start, end
