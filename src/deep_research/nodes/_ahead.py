"""Rewrites and their verdicts asked for before revise and the next verify ask (issue #45).

:class:`RewritesAhead` is what a run's judging tells of each claim's first verdict (see
:mod:`deep_research.report.ahead`). A claim that revise will rewrite (it needs revision, the
budget allows rewriting, it cites evidence, no alternate is likely to support it) has its
rewrite request built exactly as revise builds it, and sent. When the rewrite is back, the
draft is edited as revise would edit it for that claim alone and the rewritten claim is judged
as the next verify will judge it (:func:`~deep_research.report.verify.verify_draft` on the
edited draft, for that claim only), each of its model calls asked ahead in turn: its verdict,
its alternates' look, and, while the budget allows, its next rewrite. revise and verify take
these calls by the keys of their own requests; when theirs differ (the alternates supported
the claim, so revise re-cites it; another edit changed the sentence), they find nothing and ask
as before.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from deep_research.engines import ClaimCheck, Engine, OfflineEngine, Reply
from deep_research.report.ahead import Ahead, judge_key
from deep_research.report.revision import (
    apply_revisions,
    request_key,
    rewrite_check,
    rewritten_sentence,
)
from deep_research.report.verify import Memo, verify_draft
from deep_research.services import Services, ahead_scope
from deep_research.state import Claim, EvidenceSpan, State, TokenUsage, Verdict
from deep_research.state.revision import needs_revision
from deep_research.verification.citations import (
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
    return RewritesAhead(
        engine,
        state.evidence,
        services.memo,
        services.ahead,
        ahead_scope(runtime),
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

    def judged(self, claim: Claim, draft: str) -> None:
        """Start the rewrite revise will ask for ``claim`` of ``draft``, if it will ask one."""
        if not (self._rewrites > 0 and claim.citation_keys and needs_revision(claim)):
            return
        located = next(
            (s for s in locate_sentences(draft) if s.start == claim.position_start), None
        )
        if located is None:
            return
        check = rewrite_check(
            claim, self._evidence, memo=self._memo, cell=located.cell, spans=self._spans
        )
        if check is None or self._likely_recited(claim, check):
            return
        key = request_key(claim, check.evidence, located.cell)
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

    def rewrite(self, key: str) -> asyncio.Task[Reply[Any]] | None:
        """The rewrite asked ahead for revise's request ``key``, once."""
        return self._ahead.take(self._scope, key)

    def verdict(self, check: ClaimCheck) -> asyncio.Task[Reply[Any]] | None:
        """The call for a verdict on exactly ``check``.

        Taken from those asked ahead, once; or, when this judging is itself ahead, asked now
        and kept for verify.
        """
        key = judge_key(check)
        if self._asking:
            return self._ahead.get_or_start(self._scope, key, lambda: self._engine.judge([check]))
        return self._ahead.take(self._scope, key)

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
        if sentence is None or outcome != "corrected":
            return
        edited, _, _ = apply_revisions(draft, [(located, (sentence, outcome, TokenUsage()))], set())
        edited = normalize_draft(drop_empty(edited))
        rewritten = next(
            (c for c in extract_claims(edited) if c.position_start == located.start), None
        )
        if rewritten is None:
            return
        then = RewritesAhead(
            self._engine,
            self._evidence,
            self._memo,
            self._ahead,
            self._scope,
            rewrites=self._rewrites - 1,
            asking=True,
        )
        judging = verify_draft(
            self._engine,
            edited,
            self._evidence,
            memo=self._memo,
            overlap=True,
            judge_from=rewritten.position_start,
            judge_to=rewritten.position_end,
            ahead=then,
        )
        self._ahead.keep(asyncio.create_task(judging))
