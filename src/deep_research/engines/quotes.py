"""Locating the quotes an engine picked: each becomes an evidence span, or is dropped.

The engine answers :meth:`~deep_research.engines.base.Engine.pick_evidence` with quotes, each
naming the passage (``P#``) it copies; :func:`locate_quotes` finds each exactly, after whitespace
normalization, so that every span's ``quote`` is ``document.text[start:end]`` whatever the model
did to spacing, and a paraphrase never becomes evidence.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from deep_research.engines.base import passage_key
from deep_research.engines.schemas import PickedQuote
from deep_research.sources.injection import is_instruction
from deep_research.state.models import EvidenceSpan, Passage, PlanStep, evidence_id
from deep_research.text import numbers

_SPACES = re.compile(r"(\s+)")

MAX_PICK_CHARS = 1200
"""A located quote longer than this is dropped: evidence must stay short enough to check."""


@dataclass(frozen=True)
class Located:
    """The spans located for a step's quotes, and how many quotes were dropped."""

    spans: list[EvidenceSpan]
    dropped: int


def locate_quotes(
    picks: Sequence[PickedQuote], passages: Sequence[Passage], step: PlanStep
) -> Located:
    """Find each quote in the passage it names and make it an evidence span.

    A quote is matched exactly after whitespace normalization (runs of whitespace are one
    space; the quote's edges are trimmed), first in the passage its key names, then in the
    other passages. A quote found nowhere, longer than :data:`MAX_PICK_CHARS`, or addressing
    the agent from a page that was not scanned clean is dropped and counted; a quote repeating
    or inside one already located is skipped silently.
    """
    keyed = {passage_key(i): p for i, p in enumerate(passages)}
    flat = _Flattened()  # each passage flattened once, not once per quote looked for in it
    spans: list[EvidenceSpan] = []
    dropped = 0
    for pick in picks:
        named = keyed.get(pick.passage.strip("[] ").upper())
        order = [named] if named is not None else []
        order += [p for p in passages if p is not named]
        found = next(
            (hit for p in order if (hit := _find(pick.quote, p, flat(p.text))) is not None), None
        )
        if found is None:
            dropped += 1
            continue
        passage, start, end = found
        quote = passage.text[start - passage.start : end - passage.start]
        if len(quote) > MAX_PICK_CHARS or (not passage.clean and is_instruction(quote)):
            dropped += 1
            continue
        if any(
            s.document_id == passage.document_id and s.start <= start <= end <= s.end for s in spans
        ):
            continue  # a repeat, or part of a quote already taken
        spans.append(_span(passage, start, end, quote, step, pick.relevance))
    return Located(spans, dropped)


def _find(
    quote: str, passage: Passage, flattened: _Flat | None = None
) -> tuple[Passage, int, int] | None:
    """The quote's page offsets inside ``passage``, whitespace-normalized; ``None`` if absent.

    ``flattened`` is :func:`_flattened` of the passage's text, when the caller has it.
    """
    wanted = " ".join(quote.split())
    if not wanted:
        return None
    flat = flattened or _flattened(passage.text)
    at = flat.text.find(wanted)
    if at < 0:
        return None
    return (
        passage,
        passage.start + flat.offset(at),
        passage.start + flat.offset(at + len(wanted) - 1) + 1,
    )


class _Flat:
    """A text with its whitespace runs as one space, and where its words stand in the original.

    Only the text is made at once; the original's offsets are worked out when a quote is found.
    """

    def __init__(self, original: str) -> None:
        """Flatten ``original``."""
        self.text = " ".join(original.split())
        """The words, one space between each two."""
        self._original = original
        self._first = 0
        self._starts: list[int] = []

    def offset(self, at: int) -> int:
        """The original offset of the character at ``at`` in :attr:`text` (not a space)."""
        if not self._starts:
            # words and whitespace runs in turn (an empty first piece if a run opens the text),
            # and where each piece starts
            pieces = _SPACES.split(self._original)
            self._first = 2 if pieces[0] == "" else 0
            self._starts = [0, *accumulate(map(len, pieces))]
        word = self.text.count(" ", 0, at)
        return self._starts[self._first + 2 * word] + at - (self.text.rfind(" ", 0, at) + 1)


class _Flattened:
    """:func:`_flattened` of each text asked for, worked out once."""

    def __init__(self) -> None:
        self._done: dict[str, _Flat] = {}

    def __call__(self, text: str) -> _Flat:
        if text not in self._done:
            self._done[text] = _flattened(text)
        return self._done[text]


def _flattened(text: str) -> _Flat:
    """``text`` with whitespace runs as one space, and where each of its words stands."""
    return _Flat(text)


def _section(passage: Passage, offset: int) -> str | None:
    """The heading the page offset stands under: the last ``#`` line before it, in the passage."""
    headings = [
        (m.start(), m.group(1).strip())
        for m in re.finditer(r"^[ \t]*#+[ \t]*(.*)$", passage.text, re.M)
        if m.group(1).strip()
    ]
    index = bisect.bisect_right([at for at, _ in headings], offset - passage.start)
    return headings[index - 1][1] if index else passage.section


def _span(
    passage: Passage, start: int, end: int, quote: str, step: PlanStep, relevance: float
) -> EvidenceSpan:
    return EvidenceSpan(
        id=evidence_id(step.id, passage.url, start, end),
        url=passage.url,
        document_id=passage.document_id,
        step_id=step.id,
        quote=quote,
        start=start,
        end=end,
        section=_section(passage, start),
        relevance=max(0.0, min(1.0, relevance)),
        has_numbers=bool(numbers(quote)),
    )
