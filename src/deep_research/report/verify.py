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
import heapq
import re
import threading
from collections import Counter
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deep_research.engines import ClaimCheck, Engine, Reply
from deep_research.engines.schemas import ClaimVerdict
from deep_research.report.ahead import Speculation, taken
from deep_research.state.models import (
    Citation,
    Claim,
    EvidenceSpan,
    TokenUsage,
    Verdict,
    citations_of,
)
from deep_research.text.words import content_tokens
from deep_research.verification.checks import Analyses, clean_claim, figure_problem, support_rank
from deep_research.verification.citations import extract_claims, table_cells
from deep_research.verification.claim_types import names
from deep_research.verification.reasons import figure_check, reason, render

BATCH = 20
"""Claims judged per engine call."""

ALTERNATES = 3
"""Other evidence spans tried for a claim its citations do not support."""

SHORTLIST = 12
"""Spans, by shared words, that the full checks rank for an alternate."""

GOOD = (Verdict.SUPPORTED, Verdict.PARTIAL)
"""Verdicts that keep a claim as it is."""

MEMO_LIMIT = 20_000
"""Support ranks a :class:`Memo` keeps before it forgets everything and starts again."""

INDEX_LIMIT = 4
"""Evidence lists a :class:`Memo` keeps indexed before it forgets them and starts again (the
passes of a run read one list; a graph serving several runs at once reads one per run)."""


class SpanIndex:
    """The spans of one evidence list by content word: which share words with a claim.

    Built once per evidence list (see :meth:`Memo.index`), so that shortlisting the spans for
    each claim reads the postings of the claim's few words, not every span.
    """

    def __init__(self, evidence: Sequence[EvidenceSpan], analyses: Analyses) -> None:
        """Index the distinct content words of each span's quote."""
        self.spans = list(evidence)
        self.alternates: dict[tuple[str, tuple[str, ...], int], list[EvidenceSpan]] = {}
        """:func:`rank_alternates` of these spans, by claim text, citations and limit: a
        revise pass asks for the alternates the verify pass before it ranked."""
        self._postings: dict[str, list[int]] = {}
        for position, span in enumerate(self.spans):
            for word in analyses.tokens(span.quote):
                self._postings.setdefault(word, []).append(position)

    def sharing(self, words: Iterable[str]) -> Counter[int]:
        """How many of ``words`` (distinct) each span shares, by position (none: left out)."""
        shared: Counter[int] = Counter()
        for word in words:
            shared.update(self._postings.get(word, ()))
        return shared


class Memo:
    """What the checks work out from texts alone, kept from one verify or revise pass to the next.

    A revise pass ranks alternates for the very claims the verify pass before it ranked, against
    the same evidence, and each later pass reads the same spans again; a graph keeps one memo
    (see :class:`~deep_research.services.Services`) so that this is worked out once; finalize's
    search for conflicting evidence reads the figures of those spans' sentences from it too.
    Every entry is a pure function of its texts, so a memo changes no result. It is bounded:
    past :data:`MEMO_LIMIT` ranks it starts afresh.
    """

    def __init__(self, limit: int = MEMO_LIMIT) -> None:
        """Start empty; ``limit`` bounds the ranks kept."""
        self.analyses = Analyses()
        self._ranks: dict[tuple[str, str], tuple[int, float]] = {}
        self._limit = limit
        self._indexes: dict[tuple[tuple[str, ...], tuple[str, ...]], SpanIndex] = {}
        self._last: tuple[Sequence[EvidenceSpan], SpanIndex] | None = None
        """The list last indexed and its index: a pass ranks many claims against one list."""

    def support_rank(self, claim: str, quote: str) -> tuple[int, float]:
        """:func:`~deep_research.verification.checks.support_rank` of ``claim`` and ``quote``."""
        key = (claim, quote)
        rank = self._ranks.get(key)
        if rank is None:
            if len(self._ranks) >= self._limit:
                self.analyses, self._ranks = Analyses(), {}
            rank = self._ranks[key] = support_rank(claim, quote, self.analyses)
        return rank

    def index(self, evidence: Sequence[EvidenceSpan]) -> SpanIndex:
        """The :class:`SpanIndex` of ``evidence``, built once per list of ids and quotes.

        Keyed by every span's id and quote, so a list that changed in any way is indexed
        afresh; past :data:`INDEX_LIMIT` lists the memo forgets the indexes it has. The very
        list last asked about (the same object: a pass asks once per claim, and the state's
        lists are never changed in place) is answered without building its key, which costs
        a pass of the whole evidence each time.
        """
        if self._last is not None and self._last[0] is evidence:
            return self._last[1]
        key = (tuple([e.id for e in evidence]), tuple([e.quote for e in evidence]))
        found = self._indexes.get(key)
        if found is None:
            if len(self._indexes) >= INDEX_LIMIT:
                self._indexes = {}
            found = self._indexes[key] = SpanIndex(evidence, self.analyses)
        self._last = (evidence, found)
        return found


def key_index(key: str | None, count: int) -> int | None:
    """The 0-based position an engine's key (``E3``, ``[E3]``) names, if it is in range."""
    match = re.fullmatch(r"\[?\s*E(\d+)\s*\]?", (key or "").strip(), re.I)
    index = int(match.group(1)) - 1 if match else -1
    return index if 0 <= index < count else None


def figure_verdict(check: ClaimCheck, analyses: Analyses) -> ClaimVerdict | None:
    """The figure rule's verdict on ``check``'s claim, or ``None`` if the rule does not hold it.

    A figure its evidence does not state (PARTIAL) or states otherwise (CONTRADICTED). Known
    without the engine: the claim's verdict will be no better than this, whatever a model says
    (:func:`_hold_to_figures`), so what follows from it can be asked before the model answers.
    """
    if not check.evidence:
        return None
    problem = figure_problem(check.claim.text, [e.quote for e in check.evidence], analyses)
    if problem is None:
        return None
    return ClaimVerdict(
        claim_id=check.claim.id,
        verdict=problem.verdict,
        confidence=problem.confidence,
        reasoning=render(problem.reason),
        reason=problem.reason,
        evidence_key=f"E{problem.index + 1}",
        quote=check.evidence[problem.index].quote[problem.start : problem.end],
    )


_RULED = ("verdict", "confidence", "evidence_key", "quote")
"""What the figure rule's verdict replaces of a model's SUPPORTED, besides the reason."""


def _hold_to_figures(check: ClaimCheck, verdict: ClaimVerdict, analyses: Analyses) -> ClaimVerdict:
    if verdict.verdict is not Verdict.SUPPORTED:
        return verdict
    held = figure_verdict(check, analyses)
    if held is None:
        return verdict
    assert held.reason is not None  # the rule always gives its reason
    why = figure_check(held.reason)  # the rule overruling the engine
    ruled = {field: getattr(held, field) for field in _RULED}
    return verdict.model_copy(update=ruled | {"reasoning": render(why), "reason": why})


def ruled_out(check: ClaimCheck, analyses: Analyses) -> bool:
    """Whether the figure rule keeps ``check`` from being SUPPORTED, whatever the engine says.

    A look at alternates that can only matter when they support the claim need not be asked
    then: its answer would change nothing.
    """
    return figure_verdict(check, analyses) is not None


async def judge(
    engine: Engine,
    checks: Sequence[ClaimCheck],
    analyses: Analyses | None = None,
    ahead: Speculation | None = None,
) -> Reply[list[ClaimVerdict]]:
    """One verdict per check, in order, held to the figure rule.

    Claims with evidence go to the engine in batches of :data:`BATCH`; a claim with none is
    UNSUPPORTED without asking it. ``analyses`` is shared with the caller's other checks of
    the same evidence (see :class:`~deep_research.verification.alignment.Analyses`). A check
    whose verdict ``ahead`` has already asked for is answered by that call.
    """
    analyses = analyses or Analyses()
    verdicts = {
        i: ClaimVerdict(
            claim_id=c.claim.id,
            verdict=Verdict.UNSUPPORTED,
            confidence=0.9,
            reasoning=render(reason("no_evidence")),
            reason=reason("no_evidence"),
        )
        for i, c in enumerate(checks)
        if not c.evidence
    }
    pending = [i for i in range(len(checks)) if i not in verdicts]
    waiting = [checks[i] for i in pending]
    found = ahead.verdicts(waiting) if ahead is not None else [None] * len(pending)
    early = {i: task for i, task in zip(pending, found, strict=True) if task is not None}
    usage = TokenUsage()

    async def asked(positions: list[int]) -> None:
        nonlocal usage
        batches = [positions[start : start + BATCH] for start in range(0, len(positions), BATCH)]
        # the batches are independent requests: send them together, not one after another
        replies = await asyncio.gather(*(engine.judge([checks[i] for i in b]) for b in batches))
        for batch, reply in zip(batches, replies, strict=True):
            for i, verdict in zip(batch, reply.value, strict=True):
                verdicts[i] = _hold_to_figures(checks[i], verdict, analyses)
            usage = usage + reply.usage

    async def asked_early() -> None:
        nonlocal usage
        replies = await asyncio.gather(*(taken(task) for task in early.values()))
        missed = []
        for i, reply in zip(early, replies, strict=True):
            if reply is None or len(reply.value) != 1:
                missed.append(i)  # failed or cancelled: asked now
                continue
            verdict = reply.value[0].model_copy(update={"claim_id": checks[i].claim.id})
            verdicts[i] = _hold_to_figures(checks[i], verdict, analyses)
            usage = usage + reply.usage
        await asked(missed)

    await asyncio.gather(asked([i for i in pending if i not in early]), asked_early())
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

    Example:
        What ``deep-research verify`` does for each claim, with the offline engine:

        >>> import asyncio
        >>> from deep_research.engines import OfflineEngine
        >>> page = "The Hornsdale Power Reserve cost about 90 million Australian dollars to build."
        >>> claims = [("Hornsdale cost 90 million dollars.", [page]),
        ...           ("Hornsdale cost 50 million dollars.", [page])]
        >>> reply = asyncio.run(verify_claims(OfflineEngine(), claims))
        >>> [judgement.verdict.value for judgement in reply.value]
        ['SUPPORTED', 'CONTRADICTED']
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
    memo: Memo | None = None,
) -> list[EvidenceSpan]:
    """The uncited spans that best support ``claim`` by the offline checks, best first.

    The full checks are costly, so they run only on the :data:`SHORTLIST` spans sharing the
    most words with the claim (ties in id order, then in evidence order); a span sharing none
    cannot support it anyway. Pass the same ``analyses`` when ranking for several claims, so
    that each span is analysed once, or a ``memo`` (which brings its own analyses and indexes
    the evidence by word) to keep the ranks for later passes too: the memo's index of the
    evidence keeps each claim's alternates, which depend on its text and citations only.
    """
    memo = memo or Memo()
    analyses = analyses or memo.analyses
    index = memo.index(evidence)
    key = (claim.text, tuple(claim.citation_keys), limit)
    known = index.alternates.get(key)
    if known is None:
        known = index.alternates[key] = _alternates(claim, index, limit, analyses, memo)
    return list(known)


def _alternates(
    claim: Claim, index: SpanIndex, limit: int, analyses: Analyses, memo: Memo
) -> list[EvidenceSpan]:
    """:func:`rank_alternates` worked out (see there)."""
    shared = index.sharing(set(content_tokens(claim.text)))
    uncited = {p: n for p, n in shared.items() if index.spans[p].id not in claim.citation_keys}
    # only spans sharing at least as many words as the SHORTLIST-th most can make the list
    least = min(heapq.nlargest(SHORTLIST, uncited.values()), default=0)
    contenders = [p for p in sorted(uncited) if uncited[p] >= least]
    contenders.sort(key=lambda p: (-uncited[p], index.spans[p].id))
    shortlist = [index.spans[p] for p in contenders[:SHORTLIST]]
    scored = sorted(
        ((_rank(memo, analyses, claim.text, e.quote), e.id, e) for e in shortlist), reverse=True
    )
    return [e for (rank, _, e) in scored[:limit] if rank[1] > 0]


def _rank(memo: Memo, analyses: Analyses, claim: str, quote: str) -> tuple[int, float]:
    if analyses is memo.analyses:
        return memo.support_rank(claim, quote)
    return support_rank(claim, quote, analyses)


def apply_verdict(claim: Claim, verdict: ClaimVerdict, evidence: Sequence[EvidenceSpan]) -> Claim:
    """``claim`` with ``verdict``, its evidence key read as a span of ``evidence``."""
    position = key_index(verdict.evidence_key, len(evidence))
    return claim.model_copy(
        update={
            "verdict": verdict.verdict,
            "confidence": verdict.confidence,
            "reasoning": verdict.reasoning,
            "reason": verdict.reason,
            "evidence_id": evidence[position].id if position is not None else None,
            "checked_by": verdict.checked_by,
        }
    )


def check_synthesis(claim: Claim, evidence: Sequence[EvidenceSpan]) -> Claim:
    """A synthesis claim checked for names: kept unjudged, or a fact to judge if it names more.

    Analysis states no figure (:func:`~deep_research.verification.claim_types.is_analysis`); it
    may name only what the evidence names. A synthesis claim that names something no evidence
    span mentions is a factual claim after all, and is returned as a ``fact`` to be judged.
    """
    if claim.claim_type != "synthesis":
        return claim
    corpus = " ".join(e.quote for e in evidence).casefold()
    new = [name for name in names(claim.text) if name.casefold() not in corpus]
    if new:
        return claim.model_copy(update={"claim_type": "fact"})
    return claim.model_copy(
        update={
            "verdict": None,
            "reasoning": render(reason("analysis")),
            "reason": reason("analysis"),
        }
    )


BACKGROUND_OVERLAP = 0.25
"""Share of an uncited sentence's content words the evidence must use for it to be background."""


def on_topic(text: str, evidence: Sequence[EvidenceSpan]) -> bool:
    """Whether the evidence uses at least :data:`BACKGROUND_OVERLAP` of ``text``'s content words.

    A run with no evidence has no topic to hold a sentence to: nothing is on topic then.
    """
    said = set(content_tokens(text))
    if not said or not evidence:
        return False
    used = {token for span in evidence for token in content_tokens(span.quote)}
    return len(said & used) >= max(1.0, BACKGROUND_OVERLAP * len(said))


def as_background(claim: Claim, evidence: Sequence[EvidenceSpan]) -> Claim | None:
    """An uncited claim no evidence supports, kept as unsourced background if it may be.

    Common background a writer adds without a key (``Lithium-ion cells age with use``) is
    not removed for want of a citation: when it states no figure and names nothing that no
    evidence span mentions, it stays in the report as ``background``, with no verdict and
    the reason saying it is unsourced (report.json; report.html shows it as unsourced, never
    as verified), provided it is about what the evidence is about (:func:`on_topic`): with no
    evidence, or beside it, a sentence is judged like any other (chatbot filler such as
    "Please go ahead and upload the draft" is then marked or removed, never kept unchecked).
    Anything else (a figure, a new name, a cited claim) is ``None``: judged.
    """
    if claim.citation_keys or claim.numeric or claim.verdict in GOOD:
        return None
    corpus = " ".join(e.quote for e in evidence).casefold()
    if any(name.casefold() not in corpus for name in names(claim.text)):
        return None
    if not on_topic(claim.text, evidence):
        return None  # no evidence, or a sentence about something else: filler is judged
    return claim.model_copy(
        update={
            "claim_type": "background",
            "verdict": None,
            "confidence": None,
            "reasoning": render(reason("background")),
            "reason": reason("background"),
            "evidence_id": None,
            "checked_by": None,
        }
    )


def _alternates_of(
    claims: Sequence[Claim],
    evidence: Sequence[EvidenceSpan],
    memo: Memo,
    stop: threading.Event,
) -> dict[str, list[EvidenceSpan]]:
    """:func:`rank_alternates` of each claim, by claim id, in order until ``stop`` is set.

    The ranks depend on a claim's text and citations only, so they hold for its verdict too.
    """
    ranked: dict[str, list[EvidenceSpan]] = {}
    for claim in claims:
        if stop.is_set():
            break
        ranked[claim.id] = rank_alternates(claim, evidence, memo=memo)
    return ranked


@dataclass(frozen=True)
class DraftVerification:
    """The claims of a draft with their verdicts, and what judging them cost."""

    claims: list[Claim]
    judged: list[Claim]
    """The claims judged in this pass (the others kept an earlier verdict)."""
    citations: list[Citation]
    usage: TokenUsage


_KEPT = ("claim_type", "verdict", "confidence", "reasoning", "reason", "evidence_id", "checked_by")
"""What a claim unchanged since the last pass keeps of its judgement."""


def _claims_to_judge(
    draft: str,
    evidence: Sequence[EvidenceSpan],
    previous: Sequence[Claim],
    judge_from: int,
    judge_to: int | None,
) -> tuple[list[Claim], list[Claim]]:
    """The claims of ``draft`` in range (see :func:`verify_draft`), and those to judge now.

    A claim whose text and citations are unchanged since ``previous`` keeps its judgement; a
    synthesis claim is not judged against a quote.
    """
    known = {
        (c.text, tuple(c.citation_keys)): c
        for c in previous
        if c.verdict is not None or c.claim_type == "background"
    }
    claims, fresh = [], []
    for claim in extract_claims(draft):
        if claim.position_start < judge_from:
            continue
        if judge_to is not None and claim.position_start >= judge_to:
            break
        claim = check_synthesis(claim, evidence)
        earlier = known.get((claim.text, tuple(claim.citation_keys)))
        if claim.claim_type == "synthesis":
            pass  # analysis is not judged against a quote
        elif earlier is None:
            fresh.append(claim)
        else:
            claim = claim.model_copy(update={f: getattr(earlier, f) for f in _KEPT})
        claims.append(claim)
    return claims, fresh


async def verify_draft(
    engine: Engine,
    draft: str,
    evidence: Sequence[EvidenceSpan],
    previous: Sequence[Claim] = (),
    memo: Memo | None = None,
    *,
    overlap: bool = False,
    judge_from: int = 0,
    judge_to: int | None = None,
    ahead: Speculation | None = None,
) -> DraftVerification:
    """Extract the draft's claims and judge each against the evidence it cites.

    A claim whose text and citations are unchanged since ``previous`` keeps its verdict; a
    synthesis claim is checked for names only (:func:`check_synthesis`). A claim its
    citations do not support is judged again against the best uncited spans
    (:func:`rank_alternates`); one that fully supports it is recorded as its ``evidence_id``
    and a non-primary citation, and revise re-cites the claim to it. A merely partial
    alternate changes nothing: it must not hide that the cited evidence contradicts a claim.
    ``memo`` keeps what the checks work out for later passes (see :class:`Memo`).

    With ``overlap`` (an engine whose judging takes a model's round trip), the judged claims'
    alternates are ranked in a worker thread while the engine judges, until it answers: the
    ranks of the claims it does not support are then mostly ready, and those of the claims
    revise takes up are in the memo. The verdicts are the same.

    ``judge_from``: only the claims that start at or after this offset of ``draft`` are
    extracted and judged (the paragraphs a writer has just finished, the draft so far before
    them giving their headings and context); the others are left out of the result. With
    ``judge_to``, so are those that start at or after that offset.

    ``ahead``: told each claim's first verdict (so that its rewrite can start beside the look at
    its alternates), and asked for verdicts already requested (see
    :mod:`deep_research.report.ahead`). The verdicts are the same.
    """
    by_id = {e.id: e for e in evidence}
    claims, fresh = _claims_to_judge(draft, evidence, previous, judge_from, judge_to)
    cells = table_cells(draft)  # a cell is judged alone, knowing its column and row
    checks = [
        ClaimCheck(
            c,
            [by_id[k] for k in c.citation_keys if k in by_id],
            cells.get(c.position_start),
        )
        for c in fresh
    ]
    memo = memo or Memo()  # every check of this pass reads the same evidence
    analyses = memo.analyses
    held: dict[str, ClaimVerdict] = {}  # with a model: verdicts the figure rule caps
    if overlap:
        held = {c.claim.id: v for c in checks if (v := figure_verdict(c, analyses)) is not None}
    early = _early_looks(checks, held, evidence, memo)
    if ahead is not None:  # a claim the figure rule holds is rewritten: start it now
        for c in checks:
            if c.claim.id in held:
                ahead.judged(apply_verdict(c.claim, held[c.claim.id], c.evidence), draft)
    looking = asyncio.create_task(_look(engine, early, analyses, ahead, draft)) if early else None
    stop = threading.Event()  # set when the verdicts are in: the rest is ranked as needed
    ranking = (
        asyncio.create_task(asyncio.to_thread(_alternates_of, fresh, evidence, memo, stop))
        if overlap and fresh
        else None
    )
    answered = False
    try:
        primary = await judge(engine, checks, analyses, ahead)
        answered = True
    finally:
        if not answered and looking is not None:
            looking.cancel()  # the pass failed: its looks are not left running
        stop.set()
        ranked = await ranking if ranking is not None else {}
    judged = {
        c.claim.id: apply_verdict(c.claim, v, c.evidence)
        for c, v in zip(checks, primary.value, strict=True)
    }
    if ahead is not None:  # a claim's rewrite may start now, beside its alternates' look
        for claim in judged.values():
            ahead.judged(claim, draft)
    looked = {c.claim.id for c in early}
    retry = [
        ClaimCheck(
            c,
            ranked[c.id] if c.id in ranked else rank_alternates(c, evidence, memo=memo),
            cells.get(c.position_start),
        )
        for c in judged.values()
        if c.verdict not in GOOD and c.id not in looked
    ]
    # a look whose answer the figure rule would overrule is not asked: it could change nothing
    retry = [check for check in retry if check.evidence and not ruled_out(check, analyses)]
    second, first_looks = await _beside(judge(engine, retry, analyses, ahead), looking)
    answers = {check.claim.id: (check, v) for check, v in zip(retry, second.value, strict=True)}
    for check, verdict in zip(early, first_looks.value, strict=True):
        if judged[check.claim.id].verdict not in GOOD:  # looked at as the plain order would
            answers[check.claim.id] = (check, verdict)
    for claim_id in [i for i in judged if i in answers]:
        check, verdict = answers[claim_id]
        if verdict.verdict is Verdict.SUPPORTED:  # a partial alternate must not mask a problem
            judged[claim_id] = apply_verdict(judged[claim_id], verdict, check.evidence)
            if ahead is not None:  # revise will re-cite it to the alternate: judge that now
                ahead.judged(judged[claim_id], draft)
    kept = {i: as_background(c, evidence) for i, c in judged.items()}
    kept = {i: c for i, c in kept.items() if c is not None}  # uncited background, unsourced
    claims = [kept.get(c.id) or judged.get(c.id, c) for c in claims]
    return DraftVerification(
        claims=claims,
        judged=[c for c in claims if c.id in judged and c.id not in kept],
        citations=[citation for claim in claims for citation in citations_of(claim)],
        usage=primary.usage + second.usage + first_looks.usage,
    )


async def _beside(
    judging: Awaitable[Reply[list[ClaimVerdict]]],
    looking: asyncio.Task[Reply[list[ClaimVerdict]]] | None,
) -> tuple[Reply[list[ClaimVerdict]], Reply[list[ClaimVerdict]]]:
    """The replies of ``judging`` and of the early looks (none without), awaited together.

    Should the judging fail, the looks are cancelled rather than left running.
    """
    if looking is None:
        return await judging, Reply([], TokenUsage())
    try:
        return await asyncio.gather(judging, looking)
    finally:
        if not looking.done():  # the judging failed: the looks are not left running
            looking.cancel()


async def _look(
    engine: Engine,
    looks: Sequence[ClaimCheck],
    analyses: Analyses,
    ahead: Speculation | None,
    draft: str,
) -> Reply[list[ClaimVerdict]]:
    """Judge ``looks`` (:func:`_early_looks`); tell ``ahead`` at once of an alternate that holds.

    Revise will re-cite such a claim to it (unless its first verdict turns out PARTIAL): the
    re-cited claim's judging need not wait for the first verdict.
    """
    reply = await judge(engine, looks, analyses, ahead)
    for check, verdict in zip(looks, reply.value, strict=True):
        if ahead is not None and verdict.verdict is Verdict.SUPPORTED:
            ahead.judged(apply_verdict(check.claim, verdict, check.evidence), draft)
    return reply


def _early_looks(
    checks: Sequence[ClaimCheck],
    held: dict[str, ClaimVerdict],
    evidence: Sequence[EvidenceSpan],
    memo: Memo,
) -> list[ClaimCheck]:
    """The looks at alternates asked beside the first verdicts, not after them.

    Those of the claims the figure rule finds CONTRADICTED by their own evidence: their verdict
    can only be CONTRADICTED, UNSUPPORTED or (if the model says so) PARTIAL, so their
    alternates are almost always looked at; asking now saves a round trip. Should the model
    call one PARTIAL, its look's answer is not used (as the plain order would not have asked).
    """
    looks = []
    for check in checks:
        verdict = held.get(check.claim.id)
        if verdict is None or verdict.verdict is not Verdict.CONTRADICTED:
            continue
        alternates = rank_alternates(check.claim, evidence, memo=memo)
        look = ClaimCheck(check.claim, alternates, check.cell)
        if alternates and not ruled_out(look, memo.analyses):
            looks.append(look)
    return looks
