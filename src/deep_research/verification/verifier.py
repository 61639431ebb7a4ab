"""The verifier: claims judged against evidence, the same way in the graph, the CLI and the bench.

:func:`judge` sends claims to an engine in batches and holds every verdict to the figure rule:
a SUPPORTED verdict on a claim whose numbers, units or dates the evidence does not state
becomes PARTIAL, or CONTRADICTED when the aligned evidence states them differently (the offline
engine already keeps this rule; a model is held to it here). :func:`verify_claims` is the API
for plain text (``deep-research verify``, bench/verifier); :func:`verify_draft` is what the
graph's verify node runs on a draft.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deep_research.engines import ClaimCheck, Engine, Reply
from deep_research.engines.schemas import ClaimVerdict
from deep_research.state.models import Citation, Claim, EvidenceSpan, TokenUsage, Verdict
from deep_research.text import content_tokens
from deep_research.verification.checks import Analyses, clean_claim, figure_problem, support_rank
from deep_research.verification.citations import extract_claims

BATCH = 20
"""Claims judged per engine call."""

ALTERNATES = 3
"""Other evidence spans tried for a claim its citations do not support."""

SHORTLIST = 12
"""Spans, by shared words, that the full checks rank for an alternate."""

GOOD = (Verdict.SUPPORTED, Verdict.PARTIAL)
"""Verdicts that keep a claim as it is."""


def key_index(key: str | None, count: int) -> int | None:
    """The 0-based position an engine's key (``E3``, ``[E3]``) names, if it is in range."""
    match = re.fullmatch(r"\[?\s*E(\d+)\s*\]?", (key or "").strip(), re.I)
    index = int(match.group(1)) - 1 if match else -1
    return index if 0 <= index < count else None


def _hold_to_figures(check: ClaimCheck, verdict: ClaimVerdict, analyses: Analyses) -> ClaimVerdict:
    if verdict.verdict is not Verdict.SUPPORTED:
        return verdict
    problem = figure_problem(check.claim.text, [e.quote for e in check.evidence], analyses)
    if problem is None:
        return verdict
    quote = check.evidence[problem.index].quote[problem.start : problem.end]
    return verdict.model_copy(
        update={
            "verdict": problem.verdict,
            "confidence": problem.confidence,
            "reasoning": f"{problem.reasoning} (figure check; the engine said SUPPORTED)",
            "evidence_key": f"E{problem.index + 1}",
            "quote": quote,
        }
    )


async def judge(
    engine: Engine, checks: Sequence[ClaimCheck], analyses: Analyses | None = None
) -> Reply[list[ClaimVerdict]]:
    """One verdict per check, in order, held to the figure rule.

    Claims with evidence go to the engine in batches of :data:`BATCH`; a claim with none is
    UNSUPPORTED without asking it. ``analyses`` is shared with the caller's other checks of
    the same evidence (see :class:`~deep_research.verification.alignment.Analyses`).
    """
    analyses = analyses or Analyses()
    verdicts = {
        i: ClaimVerdict(
            claim_id=c.claim.id,
            verdict=Verdict.UNSUPPORTED,
            confidence=0.9,
            reasoning="there is no evidence for it",
        )
        for i, c in enumerate(checks)
        if not c.evidence
    }
    pending = [i for i in range(len(checks)) if i not in verdicts]
    batches = [pending[start : start + BATCH] for start in range(0, len(pending), BATCH)]
    # the batches are independent requests: send them together, not one after another
    replies = await asyncio.gather(*(engine.judge([checks[i] for i in b]) for b in batches))
    usage = TokenUsage()
    for positions, reply in zip(batches, replies, strict=True):
        for i, verdict in zip(positions, reply.value, strict=True):
            verdicts[i] = _hold_to_figures(checks[i], verdict, analyses)
        usage = usage + reply.usage
    return Reply([verdicts[i] for i in range(len(checks))], usage)


@dataclass(frozen=True)
class Judgement:
    """A verdict on one claim and where in its evidence the verdict comes from."""

    verdict: Verdict
    confidence: float
    reasoning: str
    evidence_index: int | None
    """0-based position of the passage relied on, or ``None``."""
    start: int | None
    """Start of the span relied on within that passage."""
    end: int | None

    def as_json(self) -> dict[str, Any]:
        """The JSON object ``deep-research verify`` prints."""
        return {
            "verdict": self.verdict.value,
            "confidence": self.confidence,
            "evidence_index": self.evidence_index,
            "start": self.start,
            "end": self.end,
            "reasoning": self.reasoning,
        }


def locate(quote: str | None, passage: str) -> tuple[int, int]:
    """The span of ``quote`` in ``passage`` (exact, then ignoring case and spacing).

    Falls back to the whole passage when the quote is missing or not found.
    """
    quote = (quote or "").strip()
    if quote:
        at = passage.find(quote)
        if at >= 0:
            return at, at + len(quote)
        pattern = r"\s+".join(re.escape(part) for part in quote.split())
        match = re.search(pattern, passage, re.I)
        if match:
            return match.start(), match.end()
    return 0, len(passage)


def _passage_span(index: int, text: str) -> EvidenceSpan:
    return EvidenceSpan(
        id=f"passage_{index + 1}",
        url=f"file:///input/passage-{index + 1}",
        document_id="input",
        step_id="input",
        quote=text,
        start=0,
        end=len(text),
    )


async def verify_claims(
    engine: Engine, items: Sequence[tuple[str, Sequence[str]]]
) -> Reply[list[Judgement]]:
    """Judge plain-text claims, each against its own evidence passages.

    Args:
        engine: The engine that judges (offline or a model).
        items: ``(claim, passages)`` pairs.

    Returns:
        One judgement per item, in order, and the tokens spent.
    """
    checks = []
    for number, (claim, passages) in enumerate(items):
        text = clean_claim(claim) or claim.strip()
        claim_model = Claim(id=f"claim_{number + 1}", text=text, position_start=0, position_end=0)
        evidence = [_passage_span(i, p) for i, p in enumerate(passages) if p]
        checks.append(ClaimCheck(claim_model, evidence))
    reply = await judge(engine, checks)
    judgements = []
    for check, verdict in zip(checks, reply.value, strict=True):
        position = key_index(verdict.evidence_key, len(check.evidence))
        if position is None:
            judgements.append(
                Judgement(verdict.verdict, verdict.confidence, verdict.reasoning, None, None, None)
            )
            continue
        span = check.evidence[position]
        start, end = locate(verdict.quote, span.quote)
        index = int(span.id.removeprefix("passage_")) - 1
        judgements.append(
            Judgement(verdict.verdict, verdict.confidence, verdict.reasoning, index, start, end)
        )
    return Reply(judgements, reply.usage)


def rank_alternates(
    claim: Claim,
    evidence: Sequence[EvidenceSpan],
    limit: int = ALTERNATES,
    analyses: Analyses | None = None,
) -> list[EvidenceSpan]:
    """The uncited spans that best support ``claim`` by the offline checks, best first.

    The full checks are costly, so they run only on the :data:`SHORTLIST` spans sharing the
    most words with the claim; a span sharing none cannot support it anyway. Pass the same
    ``analyses`` when ranking for several claims, so that each span is analysed once.
    """
    analyses = analyses or Analyses()
    words = set(content_tokens(claim.text))
    overlap = [
        (len(words.intersection(analyses.tokens(e.quote))), e.id, e)
        for e in evidence
        if e.id not in claim.citation_keys
    ]
    shortlist = [e for n, _, e in sorted(overlap, key=lambda t: (-t[0], t[1])) if n][:SHORTLIST]
    scored = sorted(
        ((support_rank(claim.text, e.quote, analyses), e.id, e) for e in shortlist), reverse=True
    )
    return [e for (rank, _, e) in scored[:limit] if rank[1] > 0]


def needs_revision(claim: Claim) -> bool:
    """Unsupported or contradicted, or supported only by an uncited alternate."""
    if claim.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED):
        return True
    return claim.evidence_id is not None and claim.evidence_id not in claim.citation_keys


def revision_due(claims: Sequence[Claim], revisions: int, max_revisions: int) -> bool:
    """True while a claim needs revision and the budget allows another revise pass.

    The budget is ``max_revisions`` rewriting passes plus one last pass that only re-cites or
    removes (see :mod:`deep_research.nodes.revise`), so the loop always ends.
    """
    return 0 < max_revisions and revisions <= max_revisions and any(map(needs_revision, claims))


def citations_of(claim: Claim) -> list[Citation]:
    """The claim's citations: its cited spans, and the alternate its verdict relied on."""
    citations = [Citation(claim_id=claim.id, evidence_id=key) for key in claim.citation_keys]
    if claim.evidence_id and claim.evidence_id not in claim.citation_keys:
        citations.append(
            Citation(claim_id=claim.id, evidence_id=claim.evidence_id, is_primary=False)
        )
    return citations


def _apply(claim: Claim, verdict: ClaimVerdict, evidence: Sequence[EvidenceSpan]) -> Claim:
    position = key_index(verdict.evidence_key, len(evidence))
    return claim.model_copy(
        update={
            "verdict": verdict.verdict,
            "confidence": verdict.confidence,
            "reasoning": verdict.reasoning,
            "evidence_id": evidence[position].id if position is not None else None,
        }
    )


@dataclass(frozen=True)
class DraftVerification:
    """The claims of a draft with their verdicts, and what judging them cost."""

    claims: list[Claim]
    judged: list[Claim]
    """The claims judged in this pass (the others kept an earlier verdict)."""
    citations: list[Citation]
    usage: TokenUsage


async def verify_draft(
    engine: Engine,
    draft: str,
    evidence: Sequence[EvidenceSpan],
    previous: Sequence[Claim] = (),
) -> DraftVerification:
    """Extract the draft's claims and judge each against the evidence it cites.

    A claim whose text and citations are unchanged since ``previous`` keeps its verdict. A
    claim its citations do not support is judged again against the best uncited spans
    (:func:`rank_alternates`); one that fully supports it is recorded as its ``evidence_id``
    and a non-primary citation, and revise re-cites the claim to it. A merely partial
    alternate changes nothing: it must not hide that the cited evidence contradicts a claim.
    """
    by_id = {e.id: e for e in evidence}
    known = {(c.text, tuple(c.citation_keys)): c for c in previous if c.verdict is not None}
    fields = ("verdict", "confidence", "reasoning", "evidence_id")
    claims, fresh = [], []
    for claim in extract_claims(draft):
        earlier = known.get((claim.text, tuple(claim.citation_keys)))
        if earlier is None:
            fresh.append(claim)
        else:
            claim = claim.model_copy(update={f: getattr(earlier, f) for f in fields})
        claims.append(claim)
    checks = [ClaimCheck(c, [by_id[k] for k in c.citation_keys if k in by_id]) for c in fresh]
    analyses = Analyses()  # every check of this pass reads the same evidence
    primary = await judge(engine, checks, analyses)
    judged = {
        c.claim.id: _apply(c.claim, v, c.evidence)
        for c, v in zip(checks, primary.value, strict=True)
    }
    retry = [
        ClaimCheck(c, rank_alternates(c, evidence, analyses=analyses))
        for c in judged.values()
        if c.verdict not in GOOD
    ]
    retry = [check for check in retry if check.evidence]
    second = await judge(engine, retry, analyses)
    for check, verdict in zip(retry, second.value, strict=True):
        if verdict.verdict is Verdict.SUPPORTED:  # a partial alternate must not mask a problem
            judged[check.claim.id] = _apply(check.claim, verdict, check.evidence)
    claims = [judged.get(c.id, c) for c in claims]
    return DraftVerification(
        claims=claims,
        judged=[c for c in claims if c.id in judged],
        citations=[citation for claim in claims for citation in citations_of(claim)],
        usage=primary.usage + second.usage,
    )
