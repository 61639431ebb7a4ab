"""Search-result snippets cut in Python around the first word that matches the query.

FTS5's ``snippet()`` costs more than the ranking itself when it runs on every hit; the corpus
ranks first, then cuts a snippet from each of the few texts it returns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SNIPPET_WORDS = 30
"""Length of a search result's snippet, in words."""

SNIPPET_LEAD = 5
"""Words of a snippet before the first word that matches the query."""

_HEADING_MARK = re.compile(r"(?<!\S)#{1,6}(?=\s)")


def term_stems(terms: Sequence[str]) -> list[str]:
    """The beginnings of ``terms`` that a word of a text must start with to match, roughly.

    FTS5 matches Porter stems; a word here matches a term when it starts with the term's first
    letters (all but the last three, at least four), which covers most inflections ("battery",
    "batteries").
    """
    return sorted({term[: max(4, len(term) - 3)] for term in terms})


def make_snippet(text: str, stems: Sequence[str]) -> str:
    """Cut :data:`SNIPPET_WORDS` words of ``text`` around its first word matching the query.

    The snippet starts :data:`SNIPPET_LEAD` words before the first word that starts with one of
    ``stems`` (see :func:`term_stems`), or at the start of the text when no word does (the
    query matched the title only). ``…`` marks a cut end; the snippet is on one line, without
    heading marks.
    """
    start = _first_match(text, stems)
    before = text[:start].rsplit(maxsplit=SNIPPET_LEAD)
    lead = before[-SNIPPET_LEAD:]
    after = text[start:].split(maxsplit=SNIPPET_WORDS - len(lead))
    words = after[: SNIPPET_WORDS - len(lead)]
    cut_before, cut_after = len(before) > len(lead), len(after) > len(words)
    return clean_snippet(
        ("…" if cut_before else "") + " ".join(lead + words) + ("…" if cut_after else "")
    )


def _first_match(text: str, stems: Sequence[str]) -> int:
    """Offset of the whitespace-separated word holding the first match of ``stems``, else 0."""
    lower = text.lower()  # str.find is many times faster than a case-insensitive regex
    if len(lower) != len(text):  # a character became two (İ): match lower-case words only
        lower = text
    first = len(text)
    for stem in stems:
        at = lower.find(stem, 0, first + len(stem))
        while at > 0 and lower[at - 1].isalnum():  # inside a word, not at its start
            at = lower.find(stem, at + 1, first + len(stem))
        if at >= 0:
            first = min(first, at)
    if first == len(text):
        return 0
    while first > 0 and not text[first - 1].isspace():
        first -= 1
    return first


def clean_snippet(snippet: str) -> str:
    """Put a snippet on one line, without the ``#`` marks of the headings it crosses."""
    if "#" in snippet:  # most snippets cross no heading: skip the regex
        snippet = _HEADING_MARK.sub(" ", snippet)
    return " ".join(snippet.split())
