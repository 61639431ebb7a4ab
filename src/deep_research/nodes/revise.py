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
from collections.abc import Callable, Mapping, MutableSet, Sequence
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import Engine, Reply
from deep_research.report.ahead import taken
from deep_research.report.revision import (
    Outcome,
    apply_revisions,
    request_key,
    rewrite_check,
    rewritten_cell,
    rewritten_sentence,
)
from deep_research.report.verify import (
    GOOD,
    Memo,
)
from deep_research.services import Services, ahead_scope, context_of
from deep_research.state import Claim, EvidenceSpan, State, TokenUsage
from deep_research.state.revision import needs_final_revision, needs_revision
from deep_research.verification.citations import (
    CitedSentence,
    TableCell,
    drop_empty,
    locate_sentences,
    normalize_draft,
)

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
    key = request_key(check.claim, check.evidence, cell) if kept is not None or ahead else ""
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
