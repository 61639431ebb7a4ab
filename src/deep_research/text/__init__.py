"""Text helpers every layer shares: words, languages, labels, verbatim quotes, inert text.

``words.py`` splits text into tokens, words and sentences and ranks passages (BM25);
``language.py`` tells a text's language; ``subject.py`` reads what a part of a question asks about
and whether a sentence is on it; ``labels.py`` holds the report's fixed words in each
language; ``verbatim.py`` finds a quote in a text despite spacing and typography; ``inert.py``
makes untrusted text inert in Markdown and HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.text.inert import inert_markdown, inert_text
    from deep_research.text.labels import label
    from deep_research.text.language import language_of
    from deep_research.text.verbatim import find_quote
    from deep_research.text.words import (
        BM25,
        SENTENCE_PUNCT,
        content_tokens,
        ends_sentence,
        is_cjk,
        question_parts,
        sentences,
        split_line,
        tokens,
        word_count,
    )

__all__ = [
    "SENTENCE_PUNCT",
    "ends_sentence",
    "is_cjk",
    "split_line",
    "word_count",
    "BM25",
    "content_tokens",
    "find_quote",
    "inert_markdown",
    "inert_text",
    "label",
    "language_of",
    "question_parts",
    "sentences",
    "tokens",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "tokens": "deep_research.text.words",
        "content_tokens": "deep_research.text.words",
        "sentences": "deep_research.text.words",
        "BM25": "deep_research.text.words",
        "SENTENCE_PUNCT": "deep_research.text.words",
        "ends_sentence": "deep_research.text.words",
        "is_cjk": "deep_research.text.words",
        "split_line": "deep_research.text.words",
        "word_count": "deep_research.text.words",
        "question_parts": "deep_research.text.words",
        "language_of": "deep_research.text.language",
        "label": "deep_research.text.labels",
        "find_quote": "deep_research.text.verbatim",
        "inert_markdown": "deep_research.text.inert",
        "inert_text": "deep_research.text.inert",
    },
)
