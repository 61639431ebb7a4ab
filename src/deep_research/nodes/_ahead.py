"""Rewrites and verdicts asked for before revise and the next verify ask them (issue #45).

:class:`RewritesAhead` is told each claim's first verdict by the judging (see
:mod:`deep_research.report.ahead`). A claim that revise will rewrite (it needs revision, the
budget allows rewriting, it cites evidence, and its best alternate is not likely to support it)
has its rewrite request built exactly as revise builds it, and sent. When the rewrite is back,
the claim's paragraph is edited as revise would edit it and the rewritten claim judged as the
next verify will judge it (:func:`~deep_research.report.verify.verify_draft` on that paragraph,
for that claim only), each of its model calls asked ahead in turn: its verdict, its look at
alternates and, while the budget allows, its next rewrite. A claim an alternate supports is
judged as revise will re-cite it, and the last paragraphs of a report as soon as the writer is
done (:meth:`RewritesAhead.judge_ahead`). revise and verify take these calls by the keys of their
own requests; when theirs differ (another edit changed the sentence), they find nothing and ask
as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from deep_research.engines import ClaimCheck, Engine, OfflineEngine, Reply
from deep_research.report.ahead import Ahead, judge_key, one_of
from deep_research.report.revision import (
    Outcome,
    apply_revisions,
    request_key,
    rewrite_check,
    rewritten_sentence,
)
from deep_research.report.verify import GOOD, Memo, verify_draft
from deep_research.services import Services, ahead_scope
from deep_research.state import Claim, EvidenceSpan, State, TokenUsage, Verdict
from deep_research.state.revision import needs_revision
from deep_research.verification.citations import (
    CitedSentence,
    Located,
    drop_empty,
    extract_claims,
    locate_sentences,
    normalize_draft,
)

ASK_AHEAD = True
"""Ask rewrites and their verdicts as soon as their requests are known (False: only when
revise and verify ask; the verdicts, rewrites and report are the same either way)."""


def rewrites_ahead(
    state: State, runtime: Runtime[Any], engine: Engine, services: Services
) -> RewritesAhead | None:
    """What asks the rewrites and their verdicts of ``state``'s run ahead.

    ``None`` on the offline engine, which answers at once: nothing is gained by asking early.
    """
    if isinstance(engine, OfflineEngine) or not ASK_AHEAD:
        return None
    scope = ahead_scope(runtime)
    services.ahead.open(scope)  # the run's, even where an earlier run on the thread stopped it
    return RewritesAhead(
        engine,
        state.evidence,
        services.memo,
        services.ahead,
        scope,
        rewrites=state.run_config.budget.max_revisions - state.revisions,
    )


class RewritesAhead:
    """Starts a failed claim's rewrite, then the judging of the rewrite, for one run."""

    def __init__(
        self,
        engine: Engine,
        evidence: list[EvidenceSpan],
        memo: Memo,
        ahead: Ahead,
        scope: str,
        *,
        rewrites: int,
        asking: bool = False,
    ) -> None:
        """Ask ``engine`` ahead, keeping its calls in ``ahead`` under ``scope``.

        Args:
            engine: The run's engine.
            evidence: Every span of the run (as revise ranks alternates among them).
            memo: The graph's memo.
            ahead: The graph's calls made ahead.
            scope: The run's thread.
            rewrites: The revise passes left that may rewrite the claims judged now.
            asking: This judging is itself ahead of verify: the verdicts it needs are asked
                (and kept for verify) rather than taken.
        """
        self._engine = engine
        self._evidence = evidence
        self._spans = {e.id: e for e in evidence}  # an id's last span, as revise has it
        self._memo = memo
        self._ahead = ahead
        self._scope = scope
        self._rewrites = rewrites
        self._asking = asking
        self._located: tuple[str, dict[int, Located]] = ("", {})
        """The sentences of the draft last asked about, by where they start."""

    def _sentences(self, draft: str) -> dict[int, Located]:
        """The sentences of ``draft`` by where they start, found once per draft."""
        if self._located[0] != draft or not self._located[1]:
            self._located = (draft, {s.start: s for s in locate_sentences(draft)})
        return self._located[1]

    def judged(self, claim: Claim, draft: str) -> None:
        """Start what revise and the next verify will ask for ``claim`` of ``draft``.

        A claim an uncited alternate supports is re-cited to it by revise, and judged again
        by the next verify: that judging starts now. A claim revise will rewrite has its
        rewrite asked now, and the rewrite judged as soon as it is back.
        """
        if not (claim.citation_keys and needs_revision(claim)):
            return
        located = self._sentences(draft).get(claim.position_start)
        if located is None:
            return
        alternate = claim.evidence_id
        if claim.verdict in GOOD and alternate and alternate not in claim.citation_keys:
            recited = CitedSentence(claim.text, (alternate,), ".")
            self._judge_edit(draft, located, recited, "recited")
            return
        if self._rewrites <= 0:
            return
        check = rewrite_check(
            claim, self._evidence, memo=self._memo, cell=located.cell, spans=self._spans
        )
        if check is None or self._likely_recited(claim, check):
            return
        key = request_key(check.claim, check.evidence, located.cell)
        task = self._ahead.start(self._scope, key, self._engine.rewrite(check))
        if task is not None:
            task.add_done_callback(lambda done: self._judge_rewrite(done, check, located, draft))

    def _likely_recited(self, claim: Claim, check: ClaimCheck) -> bool:
        """Whether an alternate is likely to support ``claim``, so revise would re-cite it.

        So the offline checks find of the best alternate; a rewrite asked then would be wasted.
        """
        if claim.verdict not in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED):
            return False  # a partial claim is not tried against alternates
        alternates = check.evidence[sum(1 for k in claim.citation_keys if k in self._spans) :]
        return bool(alternates) and self._memo.support_rank(claim.text, alternates[0].quote)[0] == 2

    def verdicts(self, checks: Sequence[ClaimCheck]) -> list[asyncio.Task[Reply[Any]] | None]:
        """The calls for a verdict on exactly each of ``checks``.

        Taken from those asked ahead, each once; or, when this judging is itself ahead, asked
        now (the checks not asked yet, in one judging, which the engine splits into requests as
        it splits verify's) and kept for verify.
        """
        keys = [judge_key(check) for check in checks]
        if not self._asking:
            return [self._ahead.take(self._scope, key) for key in keys]
        found = [self._ahead.peek(self._scope, key) for key in keys]
        unasked = [n for n, task in enumerate(found) if task is None]
        if unasked:
            judging = asyncio.create_task(self._engine.judge([checks[n] for n in unasked]))
            self._ahead.keep(self._scope, judging)  # stopped with the calls that wait for it
            for index, n in enumerate(unasked):
                found[n] = self._ahead.start(self._scope, keys[n], one_of(judging, index))
        return found

    def judge_ahead(self, draft: str, judge_from: int, judge_to: int | None = None) -> None:
        """Judge the claims of ``draft`` from ``judge_from`` (to ``judge_to``) as verify will.

        Every model call is asked ahead and kept for verify (and the rewrites, for revise).
        """
        asking = RewritesAhead(
            self._engine,
            self._evidence,
            self._memo,
            self._ahead,
            self._scope,
            rewrites=self._rewrites,
            asking=True,
        )
        judging = verify_draft(
            self._engine,
            draft,
            self._evidence,
            memo=self._memo,
            overlap=True,
            judge_from=judge_from,
            judge_to=judge_to,
            ahead=asking,
        )
        self._ahead.keep(self._scope, asyncio.create_task(judging))

    def _judge_rewrite(
        self, done: asyncio.Task[Reply[Any]], check: ClaimCheck, located: Located, draft: str
    ) -> None:
        """Judge, ahead, the rewrite that ``done`` holds, as the next verify will judge it."""
        if done.cancelled() or done.exception() is not None or done.result().fallback:
            return
        claim, answer = check.claim, done.result().value
        by_id = {k: self._spans[k] for k in claim.citation_keys if k in self._spans}
        sentence, outcome = rewritten_sentence(
            claim, check.evidence, check.cell, answer.text, answer.evidence_key, by_id
        )
        if sentence is not None and outcome == "corrected":
            self._judge_edit(draft, located, sentence, outcome)

    def _judge_edit(
        self, draft: str, located: Located, sentence: CitedSentence, outcome: Outcome
    ) -> None:
        """Judge, ahead, the claim ``located`` becomes once revise puts ``sentence`` there.

        Only the claim's paragraph is edited and judged: a claim, its verdict and its rewrite
        depend on its own sentence (and, in a table, its row and header), so the whole draft
        need not be worked out again for each claim.
        """
        start = draft.rfind("\n\n", 0, located.start)
        start = 0 if start < 0 else start + 2
        end = draft.find("\n\n", located.full_end)
        paragraph = draft[start : len(draft) if end < 0 else end] + "\n"
        shifted = replace(
            located,
            start=located.start - start,
            end=located.end - start,
            full_end=located.full_end - start,
        )
        revision = (shifted, (sentence, outcome, TokenUsage()))
        edited = normalize_draft(drop_empty(apply_revisions(paragraph, [revision], set())[0]))
        claim = next((c for c in extract_claims(edited) if c.position_start == shifted.start), None)
        if claim is None:
            return
        # the next verify judges it; the pass after it may rewrite it again
        then = RewritesAhead(
            self._engine,
            self._evidence,
            self._memo,
            self._ahead,
            self._scope,
            rewrites=self._rewrites - 1,
        )
        then.judge_ahead(edited, claim.position_start, claim.position_end)
