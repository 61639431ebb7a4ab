"""revise: re-cite, correct or remove what verify did not support; verify runs again after.

For each claim that needs it (:func:`deep_research.state.revision.needs_revision`):

* supported only by an uncited alternate: re-cited to that alternate;
* partial, unsupported or contradicted: the engine rewrites it from its cited evidence and
  the best alternates (a correction, or the claim narrowed or hedged to what the evidence
  states), or removes it (empty text); a claim with no evidence at all is removed.

A table cell is revised in its cell: rewritten, or emptied to a dash when removed, its row
keeping its other cells, its keys and its column count; a row left with nothing it states goes
whole.

The budget is ``max_revisions`` such passes. When it is spent and claims still need revision,
one last pass re-cites what an alternate supports and removes what is unsupported or
contradicted without asking the engine, so the loop always ends. A claim still PARTIAL then
stays, and the report marks it with a footnote giving the reason
(:mod:`deep_research.report.flags`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, MutableSet, Sequence
from dataclasses import asdict
from typing import Any, Literal

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import ClaimCheck, Engine, Reply
from deep_research.report.ahead import taken
from deep_research.report.verify import (
    GOOD,
    Memo,
    key_index,
    rank_alternates,
)
from deep_research.services import Services, ahead_scope, context_of
from deep_research.state import Claim, EvidenceSpan, State, TokenUsage, Verdict
from deep_research.state.revision import needs_final_revision, needs_revision
from deep_research.verification.blocks import cells
from deep_research.verification.checks import clean_claim
from deep_research.verification.citations import (
    CitedSentence,
    Located,
    TableCell,
    drop_empty,
    locate_sentences,
    normalize_draft,
    remove_sentence,
    rewrite_row,
)

Outcome = Literal["recited", "corrected", "removed", "unchanged"]

__all__ = ["needs_revision", "revise", "revise_claim", "rewritten_cell"]


async def revise_claim(
    engine: Engine,
    claim: Claim,
    evidence: Sequence[EvidenceSpan],
    *,
    final: bool,
    memo: Memo | None = None,
    cell: TableCell | None = None,
    spans: Mapping[str, EvidenceSpan] | None = None,
    kept: MutableSet[str] | None = None,
    ahead: Callable[[str], asyncio.Task[Reply[Any]] | None] | None = None,
) -> tuple[CitedSentence | None, Outcome, TokenUsage]:
    """The sentence that replaces ``claim`` (``None`` removes it), what was done, and its cost.

    A rewrite from the claim's own evidence (a correction, a narrowing) keeps every key the
    claim cited that names known evidence. A rewrite the engine bases on another span (an
    alternate) cites that span, and so does an answer that keeps the words and names one span.

    Args:
        engine: Rewrites unsupported claims.
        claim: A claim that needs revision, with its verdict.
        evidence: All the session's evidence.
        final: The budget is spent: re-cite or remove, never rewrite.
        memo: Shared by the claims of a pass and kept between passes, so that each span is
            analysed, and each claim ranked against it, once.
        cell: Where the claim stands when it is a table cell (shown to the engine): a
            rewrite must be one cell's content (:func:`rewritten_cell`).
        spans: ``evidence`` by id (the last span of an id), when the caller has it: a pass
            revising many claims builds it once rather than once per claim.
        kept: The run's requests the engine answered by leaving the claim as it was
            (:func:`request_key`). A request among them is not sent again: the claim stays,
            unchanged, at no cost. One the engine leaves unchanged now joins them.
        ahead: The rewrite already asked for by a request's key, if any (see
            :mod:`deep_research.report.ahead`): its answer is taken instead of asking again.
    """
    alternate = claim.evidence_id
    if claim.verdict in GOOD and alternate and alternate not in claim.citation_keys:
        return CitedSentence(claim.text, (alternate,), "."), "recited", TokenUsage()
    if final:
        return None, "removed", TokenUsage()
    every = spans if spans is not None else {e.id: e for e in evidence}  # an id's last span
    check = rewrite_check(claim, evidence, memo=memo, cell=cell, spans=every)
    if check is None:
        return None, "removed", TokenUsage()
    key = request_key(claim, check.evidence, cell) if kept is not None or ahead else ""
    if kept is not None and key in kept:
        return CitedSentence(claim.text, tuple(claim.citation_keys), "."), "unchanged", TokenUsage()
    early = ahead(key) if ahead is not None else None
    reply = (await taken(early) if early is not None else None) or await engine.rewrite(check)
    by_id = {k: every[k] for k in claim.citation_keys if k in every}
    answer = reply.value
    found = rewritten_sentence(claim, check.evidence, cell, answer.text, answer.evidence_key, by_id)
    if kept is not None and found[1] == "unchanged" and not reply.fallback:
        kept.add(key)
    return found[0], found[1], reply.usage


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
    shown = [spans[k] for k in claim.citation_keys if k in spans]
    shown += rank_alternates(claim, evidence, memo=memo)
    return ClaimCheck(claim, shown, cell) if shown else None


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


async def revise(state: State, runtime: Runtime[Context], *, services: Services) -> dict[str, Any]:
    """Edit the draft claim by claim, from the last to the first so offsets stay valid."""
    engine = services.engine_for(context_of(runtime))
    budget = state.run_config.budget.max_revisions
    final = state.revisions >= budget
    wanted = needs_final_revision if final else needs_revision
    targets = {c.position_start: c for c in state.claims if wanted(c)}
    located = [s for s in locate_sentences(state.draft) if s.start in targets]
    evidence = state.evidence if located else []
    spans = {e.id: e for e in evidence}  # the last span of an id
    # a claim the engine left as it was, asked the same again, is left as it was (no call)
    kept = set(state.unchanged_rewrites)
    ahead = services.ahead
    scope = ahead_scope(runtime)
    # every rewrite is an independent request: send them together, then edit last to first
    results = await asyncio.gather(
        *(
            revise_claim(
                engine,
                targets[s.start],
                evidence,
                final=final,
                memo=services.memo,
                cell=s.cell,
                spans=spans,
                kept=kept,
                ahead=lambda key: ahead.take(scope, key),
            )
            for s in located
        )
    )
    stated = {c.text for c in state.claims if c.position_start not in targets}
    revisions = list(zip(located, results, strict=True))
    draft, usage, outcomes = apply_revisions(state.draft, revisions, stated)
    summary = state.verification.model_copy(
        update={
            "removed": state.verification.removed + outcomes["removed"],
            "corrected": state.verification.corrected + outcomes["corrected"],
            "recited": state.verification.recited + outcomes["recited"],
        }
    )
    update: dict[str, Any] = {
        "revisions": state.revisions + 1,
        "verification": summary,
        "usage": usage,
    }
    if kept != set(state.unchanged_rewrites):
        update["unchanged_rewrites"] = sorted(kept)
    draft = normalize_draft(drop_empty(draft))
    if draft != state.draft:  # written only when changed, as verify writes claims
        update["draft"] = draft
    return update


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
