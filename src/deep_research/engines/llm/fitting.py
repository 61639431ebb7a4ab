"""Fitting a prompt's data into a model's window: what is kept, what is cut, and how many.

Each function takes the tokens the data may take (the prompt budget less the fixed text) and
returns what fits and how many items were left out or cut (recorded in the run's metrics as
``trimmed_for_context``). Evidence is kept by relevance, keeping its keys; earlier turns of a
chat, newest first; claims' quotes and researchers' notes are cut to an equal share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deep_research.engines.base import ClaimCheck, Turn
from deep_research.engines.llm.catalog import clip, estimate_tokens, fit
from deep_research.state.models import EvidenceSpan, Finding, Passage

ITEM_OVERHEAD = 40
"""Tokens of an item's header and quoting (key, section, source URL)."""


def span_tokens(span: EvidenceSpan) -> int:
    """Tokens an evidence span takes in a prompt, header included."""
    return estimate_tokens(span.quote) + estimate_tokens(span.url) + ITEM_OVERHEAD


def fit_evidence(evidence: Sequence[EvidenceSpan], budget: int | None) -> tuple[list[int], int]:
    """The positions of the spans that fit, the most relevant first, and how many were left out."""
    if budget is None:
        return list(range(len(evidence))), 0
    kept = fit([span_tokens(s) for s in evidence], budget, lambda i: evidence[i].relevance)
    return kept, len(evidence) - len(kept)


def fit_passages(passages: Sequence[Passage], budget: int | None) -> tuple[int, int]:
    """How many of the ranked passages fit, and how many were left out.

    The best-ranked come first, so a prefix is kept: their keys stay ``P1``, ``P2``...
    """
    if budget is None:
        return len(passages), 0
    spent = 0
    for count, passage in enumerate(passages):
        spent += estimate_tokens(passage.text) + estimate_tokens(passage.url) + ITEM_OVERHEAD
        if spent > budget:
            return count, len(passages) - count
    return len(passages), 0


def fit_history(history: Sequence[Turn], budget: int | None) -> tuple[list[Turn], int]:
    """The latest turns that fit, oldest first, and how many earlier ones were left out."""
    if budget is None:
        return list(history), 0
    costs = [estimate_tokens(text) + 4 for _, text in history]
    kept = fit(costs, budget, lambda i: float(i))
    # only a run of the latest turns: a gap would misrepresent the conversation
    start = len(history)
    while start > 0 and start - 1 in kept:
        start -= 1
    return list(history[start:]), start


def check_tokens(check: ClaimCheck) -> int:
    """Tokens a claim and its evidence take in a judging prompt."""
    return estimate_tokens(check.claim.text) + ITEM_OVERHEAD + sum(map(span_tokens, check.evidence))


def pack_checks(checks: Sequence[ClaimCheck], budget: int | None) -> list[list[int]]:
    """Positions of ``checks`` in consecutive groups that each fit ``budget`` (one per request).

    A check too large for any group is a group of its own (its quotes are cut when it is asked).
    """
    if budget is None:
        return [list(range(len(checks)))] if checks else []
    groups: list[list[int]] = []
    spent = budget + 1
    for position, check in enumerate(checks):
        cost = check_tokens(check)
        if spent + cost > budget:
            groups.append([])
            spent = 0
        groups[-1].append(position)
        spent += cost
    return groups


def fit_checks(checks: Sequence[ClaimCheck], budget: int | None) -> tuple[list[ClaimCheck], int]:
    """``checks`` with their quotes cut to an equal share of ``budget``, and how many were cut.

    No span is dropped: verdicts name evidence by position.
    """
    if budget is None or sum(map(check_tokens, checks)) <= budget:
        return list(checks), 0
    fixed = sum(estimate_tokens(c.claim.text) + ITEM_OVERHEAD for c in checks)
    spans = sum(len(c.evidence) for c in checks) or 1
    share = max(20, (budget - fixed) // spans - ITEM_OVERHEAD)
    cut = 0
    fitted = []
    for check in checks:
        clipped = []
        for span in check.evidence:
            quote = clip(span.quote, share)
            cut += quote != span.quote
            clipped.append(
                span.model_copy(update={"quote": quote}) if quote != span.quote else span
            )
        fitted.append(replace(check, evidence=clipped))
    return fitted, cut


def fit_findings(findings: Sequence[Finding], budget: int | None) -> tuple[list[Finding], int]:
    """``findings`` with their notes cut to an equal share of ``budget``, and how many were cut."""
    costs = [estimate_tokens(f.notes) + ITEM_OVERHEAD for f in findings]
    if budget is None or sum(costs) <= budget:
        return list(findings), 0
    share = max(20, budget // max(1, len(findings)) - ITEM_OVERHEAD)
    fitted = [f.model_copy(update={"notes": clip(f.notes, share)}) for f in findings]
    return fitted, sum(1 for a, b in zip(findings, fitted, strict=True) if a.notes != b.notes)
