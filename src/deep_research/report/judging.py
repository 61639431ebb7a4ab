"""Claims judged while the report is still being written (issue #45).

The writer streams the report; each time a paragraph is complete (a blank line follows it),
its claims are judged at once, beside the writing, as verify would judge them: the draft so far
is put in its stored form (evidence-id markers, canonical sentences) and the claims that start
in the new paragraphs are judged by :func:`~deep_research.report.verify.verify_draft`, their
alternates included. Judgements of several paragraphs run concurrently, up to the run's limit.

When the writer is done, synthesize returns at once, so that its draft is checkpointed without
waiting for a judge: it keeps the verdicts that have landed, and hands the judgements still in
flight to the verify after it (:class:`InFlight`, one per graph, in this process). verify judges
the last paragraphs, which no blank line follows, while it waits for them, and keeps every
verdict of a claim it finds unchanged (the same text and citations); the verdicts and the report
are the same as if every claim had been judged after the writing, only sooner. A process killed
in between loses only the judgements in flight: its resume runs verify afresh, which judges
them again. A claim judged early that the final draft does not hold (a writer's retry) is
simply judged again.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Mapping, Sequence

from deep_research.engines import Engine, OfflineEngine
from deep_research.report.ahead import Speculation
from deep_research.report.verify import DraftVerification, Memo, verify_draft
from deep_research.state import Claim, EvidenceSpan, TokenUsage
from deep_research.verification.citations import keys_to_markers, normalize_draft

PARAGRAPH_END = "\n\n"

OnJudged = Callable[[list[Claim]], None]


class JudgeWhileWriting:
    """Judges each paragraph's claims as soon as the writer has finished the paragraph."""

    def __init__(
        self,
        engine: Engine,
        evidence: Sequence[EvidenceSpan],
        keys: Mapping[str, str],
        memo: Memo,
        *,
        limit: int,
        on_judged: OnJudged,
        ahead: Speculation | None = None,
    ) -> None:
        """Judge with ``engine`` against ``evidence`` (all the run's, as verify does).

        Args:
            engine: The run's engine.
            evidence: Every span of the run (alternates are ranked among them all).
            keys: The writer's ``[E#]`` keys and the evidence ids they stand for.
            memo: The graph's memo, shared with verify and revise.
            limit: Most judgements in flight at once.
            on_judged: Called with each paragraph's judged claims as they land, until
                :meth:`hand_over`.
            ahead: Told each claim's first verdict, to ask its rewrite ahead (see
                :mod:`deep_research.report.ahead`).
        """
        self._ahead = ahead
        self._engine = engine
        self._evidence = list(evidence)
        self._keys = dict(keys)
        self._memo = memo
        self._gate = asyncio.Semaphore(max(1, limit))
        self._on_judged: OnJudged | None = on_judged
        self._text = ""
        self._handed = 0
        """Characters of the writer's text whose paragraphs have been handed to a judge."""
        self._stored = 0
        """Length of the stored form of those paragraphs: where the next ones' claims start."""
        self._tasks: list[asyncio.Task[DraftVerification]] = []
        self._reported: set[int] = set()
        """The judgements whose claims ``on_judged`` was given (by their place in ``_tasks``)."""
        self._taken: set[int] = set()
        """The judgements already returned by :meth:`finished`."""

    @property
    def judged_up_to(self) -> int:
        """Where, in the stored draft, the claims not handed to a judge start."""
        return self._stored

    def written(self, piece: str) -> None:
        """Take the next piece of the writer's text; judge the paragraphs it completes."""
        self._text += piece
        end = self._text.rfind(PARAGRAPH_END)
        if end <= self._handed:
            return
        draft = normalize_draft(keys_to_markers(self._text[:end], self._keys))
        start, self._stored, self._handed = self._stored, len(draft), end
        self._tasks.append(asyncio.create_task(self._judge(draft, start, len(self._tasks))))

    def finish(self, draft: str) -> None:
        """The writer is done, ``draft`` is the stored report: judge its last paragraphs ahead.

        The claims no judge was handed are judged ahead of verify, their calls kept for verify
        to take (see :mod:`deep_research.report.ahead`).
        """
        if self._ahead is not None:
            self._ahead.judge_ahead(draft, self._stored)

    def holds(self, text: str) -> bool:
        """Whether the writer's final ``text`` begins with every paragraph handed to a judge.

        Not so after a retry that wrote something else.
        """
        return text.startswith(self._text[: self._handed])

    async def _judge(self, draft: str, start: int, place: int) -> DraftVerification:
        async with self._gate:
            result = await verify_draft(
                self._engine,
                draft,
                self._evidence,
                memo=self._memo,
                overlap=not isinstance(self._engine, OfflineEngine),
                judge_from=start,
                ahead=self._ahead,
            )
        if self._on_judged is not None:
            self._reported.add(place)
            self._on_judged(result.judged)
        return result

    @property
    def in_flight(self) -> bool:
        """Whether a judgement is still running."""
        return any(not task.done() for task in self._tasks)

    def finished(self) -> tuple[list[Claim], TokenUsage]:
        """The claims of the judgements that have landed, in draft order, and their cost.

        Each is returned once: :meth:`rest` gives the others.
        """
        done = [n for n, task in enumerate(self._tasks) if task.done() and n not in self._taken]
        self._taken.update(done)
        results = [self._tasks[n].result() for n in done]
        claims = [claim for result in results for claim in result.claims]
        return claims, sum((result.usage for result in results), TokenUsage())

    def hand_over(self) -> None:
        """Stop reporting verdicts: the node that started the judging has returned.

        Its events could no longer be recorded; whoever awaits :meth:`rest` reports them.
        """
        self._on_judged = None

    async def rest(self, on_judged: OnJudged | None = None) -> tuple[list[Claim], TokenUsage]:
        """The claims of the judgements :meth:`finished` did not return, and their cost.

        Waits for those in flight; ``on_judged`` is given the verdicts not yet reported, as
        they land, from the caller's own task (events emitted from another task would not be
        recorded as the caller's).
        """
        places = [n for n in range(len(self._tasks)) if n not in self._taken]
        self._taken.update(places)
        for landed in asyncio.as_completed([self._tasks[n] for n in places]):
            await landed
            for n in places:  # report in draft order what has landed
                if self._tasks[n].done() and n not in self._reported:
                    self._reported.add(n)
                    if on_judged is not None:
                        on_judged(self._tasks[n].result().judged)
        results = [self._tasks[n].result() for n in places]
        claims = [claim for result in results for claim in result.claims]
        return claims, sum((result.usage for result in results), TokenUsage())

    def cancel(self) -> None:
        """Stop the judgements in flight (the writing failed, or nobody will wait for them)."""
        for task in self._tasks:
            task.cancel()


class InFlight:
    """Judgements a synthesize left running, for the verify after it in this process.

    Keyed by the run's thread and its draft (:func:`draft_key`), so a verify takes only the
    judgements of its own draft. Bounded: past :data:`LIMIT` runs between their synthesize and
    verify (a run cancelled there never takes its own), the oldest are cancelled and dropped;
    their verify, if it comes, judges those claims itself.
    """

    LIMIT = 64

    def __init__(self) -> None:
        """Start empty."""
        self._runs: dict[str, JudgeWhileWriting] = {}

    def put(self, key: str, judging: JudgeWhileWriting) -> None:
        """Keep ``judging`` for the verify of ``key``."""
        judging.hand_over()
        old = self._runs.pop(key, None)
        if old is not None:
            old.cancel()
        self._runs[key] = judging
        while len(self._runs) > self.LIMIT:
            self._runs.pop(next(iter(self._runs))).cancel()

    def take(self, key: str) -> JudgeWhileWriting | None:
        """The judgements kept for ``key``, once."""
        return self._runs.pop(key, None)

    def drop(self, scope: str) -> None:
        """Cancel and forget the judgements kept for the runs of ``scope`` (:func:`draft_key`)."""
        for key in [k for k in self._runs if k.startswith(f"{scope}:")]:
            self._runs.pop(key).cancel()


def draft_key(scope: str, draft: str) -> str:
    """The :class:`InFlight` key of a run's stored draft (``scope``: its thread, or "")."""
    return f"{scope}:{hashlib.sha256(draft.encode()).hexdigest()}"
