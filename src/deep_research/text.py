"""Small text utilities shared by the offline engine, evidence selection and the verifier."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my no nor not of off on once only or other our ours out over own same she should
    so some such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours also may might must shall via per vs versus tell give explain describe show compare
    much many one two""".split()
)

_WORD = re.compile(r"[A-Za-z0-9]+(?:[.,'][A-Za-z0-9]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])")
_SENTENCE_END_OR_MARKERS = re.compile(r"(?<=[.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9]|\[@)")
"""Also before a run of citation markers ``[@id]`` that a draft wrote after a period."""
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?![\d])")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens (numbers keep their inner separators: ``1,200``, ``3.5``)."""
    return [t.lower() for t in _WORD.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Tokens minus stopwords, lightly stemmed so that plurals match singulars."""
    return [stem(t) for t in tokens(text) if t not in STOPWORDS]


@lru_cache(maxsize=1 << 16)
def stem(token: str) -> str:
    """A deliberately small stemmer: strips common English plural and verb endings."""
    if token.isdigit() or len(token) <= 3:
        return token
    for suffix, keep in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: -len(suffix)] + keep
    return token


@dataclass(frozen=True)
class Sentence:
    """A sentence of a document with its exact character offsets."""

    text: str
    start: int
    end: int
    section: str | None


def sentences(text: str) -> Iterator[Sentence]:
    """Split a document into sentences with offsets; headings name the section that follows.

    Lines starting with ``#`` are headings, not sentences. Each sentence is a verbatim slice:
    ``text[s.start:s.end] == s.text``.
    """
    section: str | None = None
    offset = 0
    for line in text.split("\n"):
        stripped = line.strip()
        line_start = offset + (len(line) - len(line.lstrip()))
        offset += len(line) + 1
        if not stripped:
            continue
        if stripped.startswith("#"):
            section = stripped.lstrip("#").strip() or section
            continue
        body = stripped.lstrip("-*+> ").lstrip()
        cursor = line_start + (len(stripped) - len(body))
        for piece in split_line(body):
            at = text.find(piece, cursor)
            if at < 0:  # pragma: no cover - pieces come from the same line
                continue
            cursor = at + len(piece)
            yield Sentence(piece, at, at + len(piece), section)


_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Inc|Ltd|Co|Corp|vs|approx|est|No|Fig|e\.g|i\.e|U\.S|U\.K)"
    r"|\b[A-Z])\.$"
)


def split_line(line: str, *, markers: bool = False) -> Iterator[str]:
    """The sentences of one line of prose, stripped, in order.

    A sentence ends at ``.``, ``!`` or ``?`` (closing quotes or brackets may follow) before
    whitespace and a capital or a digit, but not after a known abbreviation or an initial.
    With ``markers``, a run of citation markers ``[@id]`` after the whitespace also starts a
    new piece (a draft's markers written after a period; see
    :func:`deep_research.verification.citations.split_sentences`).
    """
    boundary = _SENTENCE_END_OR_MARKERS if markers else _SENTENCE_END
    last = 0
    for match in boundary.finditer(line):
        if _ABBREVIATION.search(line[last : match.start()]):
            continue
        piece = line[last : match.end(1)].strip()  # closing quotes stay with their sentence
        if piece:
            yield piece
        last = match.end()
    tail = line[last:].strip()
    if tail:
        yield tail


def numbers(text: str) -> list[float]:
    """Numbers mentioned in the text (``1,200`` → 1200.0); years are numbers too."""
    found = []
    for raw in _NUMBER.findall(text):
        cleaned = raw.replace(",", "")
        try:
            found.append(float(cleaned))
        except ValueError:  # pragma: no cover - the regex admits only numerals
            continue
    return found


class BM25:
    """Okapi BM25 over a small in-memory collection (sentences, chunks)."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        self._docs = [Counter(doc) for doc in documents]
        self._lengths = [len(doc) for doc in documents]
        self._avg = (sum(self._lengths) / len(self._lengths)) if self._lengths else 0.0
        df: Counter[str] = Counter()
        for doc in self._docs:
            df.update(doc.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._k1 = k1
        self._b = b

    def score(self, query: Sequence[str], index: int) -> float:
        """BM25 score of document ``index`` for the query tokens."""
        doc = self._docs[index]
        norm = self._k1 * (1 - self._b + self._b * self._lengths[index] / (self._avg or 1.0))
        total = 0.0
        for term in dict.fromkeys(query):  # in query order: float sums must not depend on hashing
            tf = doc.get(term, 0)
            if tf:
                total += self._idf.get(term, 0.0) * tf * (self._k1 + 1) / (tf + norm)
        return total


def jaccard(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two token sets (0 when both are empty)."""
    return len(a & b) / len(a | b) if a | b else 0.0
