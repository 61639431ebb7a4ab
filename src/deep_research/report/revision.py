"""What revise does to a claim and to the draft, without asking the engine.

The request a rewrite sends (:func:`rewrite_check`) and its digest (:func:`request_key`), the
sentence the engine's answer makes of a claim (:func:`rewritten_sentence`), and the draft with
the revisions put in place (:func:`apply_revisions`). Used by
:mod:`deep_research.nodes.revise`, and by :mod:`deep_research.nodes._ahead`, which asks a
rewrite and judges it before revise runs, exactly as revise and the next verify will.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Literal

from deep_research.engines import ClaimCheck
from deep_research.report.verify import (
    Memo,
    apply_verdict,
    figure_verdict,
    key_index,
    rank_alternates,
)
from deep_research.state import Claim, EvidenceSpan, TokenUsage, Verdict
from deep_research.verification.blocks import cells
from deep_research.verification.checks import Analyses, clean_claim
from deep_research.verification.citations import (
    CitedSentence,
    Located,
    TableCell,
    remove_sentence,
    rewrite_row,
)

Outcome = Literal["recited", "corrected", "removed", "unchanged"]


def rewrite_check(
    claim: Claim,
    evidence: Sequence[EvidenceSpan],
    *,
    memo: Memo | None,
    cell: TableCell | None,
    spans: Mapping[str, EvidenceSpan],
) -> ClaimCheck | None:
    """What the engine is shown to rewrite ``claim``: its cited spans, then its best alternates.

    ``None``: there is no evidence to rewrite it from. ``spans``: ``evidence`` by id (an id's
    last span).
    """
    cited = [spans[k] for k in claim.citation_keys if k in spans]
    shown = cited + rank_alternates(claim, evidence, memo=memo)
    return ClaimCheck(as_asked(claim, cited, memo), shown, cell) if shown else None


def as_asked(claim: Claim, cited: Sequence[EvidenceSpan], memo: Memo | None) -> Claim:
    """``claim`` as its rewrite shows it: held to the figure rule by the rule's verdict and reason.

    A claim whose figure its evidence does not state, or states otherwise, is shown with the
    rule's verdict and reason ("the quote says 15, the claim 51"), whatever a model said of it:
    the rule's are known before any model answers, so the rewrite can be asked as soon as the
    claim is written (:mod:`deep_research.nodes._ahead`), in either order alike. Any other
    claim is shown with its own verdict and reasoning.
    """
    held = figure_verdict(ClaimCheck(claim, list(cited)), memo.analyses if memo else Analyses())
    return claim if held is None else apply_verdict(claim, held, cited)


def request_key(claim: Claim, shown: Sequence[EvidenceSpan], cell: TableCell | None) -> str:
    """A digest of a rewrite request: the claim as judged, the evidence shown, its cell.

    Everything the engine is shown (and more: the claim's id and place are left out, since a
    claim keeps its words and verdict when an edit elsewhere moves it), so that two requests
    with one key ask the engine the same thing.
    """
    asked = {
        "claim": claim.model_dump(mode="json", exclude={"id", "position_start", "position_end"}),
        "shown": [span.model_dump(mode="json") for span in shown],
        "cell": asdict(cell) if cell is not None else None,
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def rewritten_sentence(
    claim: Claim,
    shown: Sequence[EvidenceSpan],
    cell: TableCell | None,
    answer: str,
    evidence_key: str | None,
    by_id: Mapping[str, EvidenceSpan],
) -> tuple[CitedSentence | None, Outcome]:
    """The sentence the engine's ``answer`` makes of ``claim`` and what was done."""
    text = clean_claim(" ".join(answer.split()))
    if cell is not None and text:
        as_cell = rewritten_cell(text)
        if as_cell is None:  # the engine wrote several cells: a partial cell stays as it is
            if claim.verdict is not Verdict.PARTIAL:
                return None, "removed"
            return CitedSentence(claim.text, tuple(claim.citation_keys), ""), "unchanged"
        text = as_cell
    if not text:
        return None, "removed"
    position = key_index(evidence_key, len(shown))
    named: tuple[str, ...] = (shown[position].id,) if position is not None else ()
    valid = tuple(k for k in claim.citation_keys if k in by_id)
    ids: tuple[str, ...]
    if named and (named[0] not in valid or text == claim.text):
        ids = named  # rebuilt on another span, or the same words re-cited to one span
    else:  # corrected or narrowed from its own evidence: every key it cited stays
        ids = tuple(dict.fromkeys(valid + named)) or tuple(claim.citation_keys)
    unchanged = text == claim.text and ids == tuple(claim.citation_keys)
    return CitedSentence(text, ids, "."), "unchanged" if unchanged else "corrected"


def rewritten_cell(rewrite: str) -> str | None:
    """A table cell's rewrite as the cell's new content, or ``None`` if it is no one cell.

    A rewrite holding a cell separator (a row given back, ``LFP | 165 Wh/kg``) would add
    columns to the row: it is not taken. A sentence is taken as the cell's text.
    """
    found = cells(rewrite)
    return found[0] if len(found) == 1 and found[0] else None


Revision = tuple[Located, tuple[CitedSentence | None, Outcome, TokenUsage]]


def apply_revisions(
    draft: str, revisions: list[Revision], stated: set[str]
) -> tuple[str, TokenUsage, Counter[Outcome]]:
    """Apply the revisions from the last to the first, so that offsets stay valid.

    A sentence is replaced or removed where it stands. A rewrite that repeats a sentence the
    draft already states (a partial claim narrowed to what another claim says) removes the
    claim instead of saying it twice. The cells of a table row are edited together, in
    their row (:func:`_edit_row`).
    """
    usage, outcomes = TokenUsage(), Counter[Outcome]()
    for _, (_, outcome, spent) in revisions:
        usage, outcomes[outcome] = usage + spent, outcomes[outcome] + 1
    for group in reversed(_by_row(draft, revisions)):
        located, (sentence, outcome, _) = group[0]
        if located.cell is not None:
            draft = _edit_row(draft, group)
            continue
        if sentence is not None and outcome == "corrected" and sentence.body in stated:
            sentence = None
            outcomes["corrected"] -= 1
            outcomes["removed"] += 1
        if sentence is None:  # the next sentence loses a linking word that pointed back
            draft = remove_sentence(draft, located.start, located.full_end)
            continue
        stated.add(sentence.body)
        rendered = CitedSentence(sentence.body, sentence.ids, located.sentence.punct).render()
        draft = draft[: located.start] + rendered + draft[located.full_end :]
    return draft, usage, outcomes


def _by_row(draft: str, revisions: list[Revision]) -> list[list[Revision]]:
    """The revisions in draft order, each on its own but the cells of one row together."""
    groups: list[list[Revision]] = []
    for revision in revisions:
        located = revision[0]
        previous = groups[-1][0][0] if groups else None
        if (
            located.cell is not None
            and previous is not None
            and previous.cell is not None
            and _line_start(draft, previous.start) == _line_start(draft, located.start)
        ):
            groups[-1].append(revision)
        else:
            groups.append([revision])
    return groups


def _line_start(draft: str, position: int) -> int:
    return draft.rfind("\n", 0, position) + 1


def _edit_row(draft: str, group: list[Revision]) -> str:
    """``draft`` with the revised cells of one table row put in place, cell by cell.

    A removed cell's content becomes :data:`~deep_research.verification.citations.EMPTY_CELL`;
    a rewritten cell holds its new text; the keys a revision cites join the row's. A row left
    with nothing it states goes whole (:func:`~deep_research.verification.citations.rewrite_row`).
    """
    start = _line_start(draft, group[0][0].start)
    end = draft.find("\n", start)
    end = len(draft) if end < 0 else end
    changes: dict[int, str | None] = {}
    ids: list[str] = []
    for located, (sentence, _, _) in group:
        if located.cell is not None:
            changes[located.cell.column] = sentence.body if sentence is not None else None
            ids += sentence.ids if sentence is not None else ()
    return draft[:start] + rewrite_row(draft[start:end], changes, ids) + draft[end:]
