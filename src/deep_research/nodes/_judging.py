"""Claims judged while the report is still being written (issue #45).

The writer streams the report; each time a paragraph is complete (a blank line follows it),
its claims are judged at once, beside the writing, as verify would judge them: the draft so far
is put in its stored form (evidence-id markers, canonical sentences) and the claims that start
in the new paragraphs are judged by :func:`~deep_research.report.verify.verify_draft`, their
alternates included. Judgements of several paragraphs run concurrently, up to the run's limit.

The last paragraphs, which no blank line follows, are left to verify, which judges what no
judgement here holds (it keeps the verdicts of the claims judged here, which it finds unchanged:
the same text and citations); the verdicts and the report are the same as if every claim had
been judged after the writing, only sooner. They are not judged here once the writer is done
(it was tried, issue #45): synthesize's update, the draft, is checkpointed only when the node
returns, so a process killed while they were judged lost the finished draft, and its resume
asked the writer again (tests/integration_tests/test_crash_resume.py). A claim judged early that
the final draft does not hold (a writer's retry) is simply judged again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from deep_research.engines import Engine, OfflineEngine
from deep_research.report.verify import DraftVerification, Memo, verify_draft
from deep_research.state import Claim, EvidenceSpan, TokenUsage
from deep_research.verification.citations import keys_to_markers, normalize_draft

PARAGRAPH_END = "\n\n"


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
        on_judged: Callable[[list[Claim]], None],
    ) -> None:
        """Judge with ``engine`` against ``evidence`` (all the run's, as verify does).

        Args:
            engine: The run's engine.
            evidence: Every span of the run (alternates are ranked among them all).
            keys: The writer's ``[E#]`` keys and the evidence ids they stand for.
            memo: The graph's memo, shared with verify and revise.
            limit: Most judgements in flight at once.
            on_judged: Called with each paragraph's judged claims as they land.
        """
        self._engine = engine
        self._evidence = list(evidence)
        self._keys = dict(keys)
        self._memo = memo
        self._gate = asyncio.Semaphore(max(1, limit))
        self._on_judged = on_judged
        self._text = ""
        self._handed = 0
        """Characters of the writer's text whose paragraphs have been handed to a judge."""
        self._stored = 0
        """Length of the stored form of those paragraphs: where the next ones' claims start."""
        self._tasks: list[asyncio.Task[DraftVerification]] = []

    def written(self, piece: str) -> None:
        """Take the next piece of the writer's text; judge the paragraphs it completes."""
        self._text += piece
        end = self._text.rfind(PARAGRAPH_END)
        if end <= self._handed:
            return
        draft = normalize_draft(keys_to_markers(self._text[:end], self._keys))
        start, self._stored, self._handed = self._stored, len(draft), end
        self._tasks.append(asyncio.create_task(self._judge(draft, start)))

    async def _judge(self, draft: str, start: int) -> DraftVerification:
        async with self._gate:
            result = await verify_draft(
                self._engine,
                draft,
                self._evidence,
                memo=self._memo,
                overlap=not isinstance(self._engine, OfflineEngine),
                judge_from=start,
            )
        self._on_judged(result.judged)
        return result

    async def judged(self) -> tuple[list[Claim], TokenUsage]:
        """Every claim judged so far, in draft order, and what judging them cost.

        Waits for the judgements in flight.
        """
        done = await asyncio.gather(*self._tasks)
        claims = [claim for result in done for claim in result.claims]
        return claims, sum((result.usage for result in done), TokenUsage())

    def cancel(self) -> None:
        """Stop the judgements in flight (the writing failed)."""
        for task in self._tasks:
            task.cancel()
