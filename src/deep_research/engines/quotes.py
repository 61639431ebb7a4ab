"""Locating the quotes an engine picked: each becomes an evidence span, or is dropped.

The engine answers :meth:`~deep_research.engines.base.Engine.pick_evidence` with quotes, each
naming the passage (``P#``) it copies; :func:`locate_quotes` finds each with the match the
engine's own check accepts (:func:`~deep_research.text.verbatim.find_quote`: case, spacing, quote
marks and an ellipsis forgiven), so that every span's ``quote`` is ``document.text[start:end]``
whatever the model did to them, and a paraphrase never becomes evidence. Every pick that does
not become a span is counted with its reason (:data:`DropReason`).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from deep_research.engines.base import passage_key
from deep_research.engines.schemas import PickedQuote
from deep_research.sources.injection import is_instruction
from deep_research.state.models import EvidenceSpan, Passage, PlanStep, evidence_id
from deep_research.text.verbatim import Folded, find_quote
from deep_research.text.words import numbers

MAX_PICK_CHARS = 1200
"""A located quote longer than this is dropped: evidence must stay short enough to check."""

DropReason = Literal["not_found", "too_long", "instruction", "repeat"]
"""Why a pick does not become evidence: its quote is in none of the passages shown; it is
longer than :data:`MAX_PICK_CHARS`; it addresses the agent from a page not scanned clean; it
repeats, or lies inside, a quote already located."""


@dataclass(frozen=True)
class Located:
    """The spans located for a step's quotes, and the picks dropped, by reason."""

    spans: list[EvidenceSpan]
    drops: dict[str, int] = field(default_factory=dict)
    """Picks dropped, by :data:`DropReason` (reasons with none left out)."""

    @property
    def dropped(self) -> int:
        """Picks dropped, whatever the reason."""
        return sum(self.drops.values())


def locate_quotes(
    picks: Sequence[PickedQuote], passages: Sequence[Passage], step: PlanStep
) -> Located:
    """Find each quote in the passage it names and make it an evidence span.

    A quote is looked for first in the passage its key names, then in the other passages
    shown (a model may name the wrong one). See :data:`DropReason` for what is dropped.
    """
    keyed = {passage_key(i): p for i, p in enumerate(passages)}
    folded: dict[str, Folded] = {}  # each passage folded once, not once per quote

    def fold(passage: Passage) -> Folded:
        if passage.id not in folded:
            folded[passage.id] = Folded.of(passage.text)
        return folded[passage.id]

    spans: list[EvidenceSpan] = []
    drops: Counter[str] = Counter()
    for pick in picks:
        named = keyed.get(pick.passage.strip("[] ").upper())
        order = [named] if named is not None else []
        order += [p for p in passages if p is not named]
        found = next(
            ((p, at) for p in order if (at := find_quote(pick.quote, fold(p)))),
            None,
        )
        if found is None:
            drops["not_found"] += 1
            continue
        passage, (first, last) = found
        quote = passage.text[first:last]
        start, end = passage.start + first, passage.start + last
        if len(quote) > MAX_PICK_CHARS:
            drops["too_long"] += 1
        elif not passage.clean and is_instruction(quote):
            drops["instruction"] += 1
        elif any(
            s.document_id == passage.document_id and s.start <= start <= end <= s.end for s in spans
        ):
            drops["repeat"] += 1
        else:
            spans.append(_span(passage, start, end, quote, step, pick.relevance))
    return Located(spans, dict(drops))


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
