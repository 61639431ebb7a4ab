"""synthesize: write the report from the evidence, streamed as it is written.

While the writer streams, each finished paragraph's claims are judged beside the writing
(:class:`~deep_research.report.judging.JudgeWhileWriting`), each verdict a ``claim_verified``
event as it lands. When the writer is done, synthesize returns the draft with the verdicts that
have landed and leaves the judgements still in flight to verify, which waits for them while it
judges the last paragraph; verify keeps those verdicts and judges only what is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import WritingInputs, evidence_key
from deep_research.events import emit, emit_verdict
from deep_research.nodes._ahead import rewrites_ahead
from deep_research.report.build import kept_findings, report_evidence, report_plan, shown_title
from deep_research.report.judging import JudgeWhileWriting, draft_key
from deep_research.services import Services, ahead_scope, context_of
from deep_research.state import Claim, State
from deep_research.verification.citations import keys_to_markers, normalize_draft

PROGRESS_EVERY_CHARS = 400
"""A ``synthesis_progress`` event is emitted each time this many more characters are written."""

JUDGE_WHILE_WRITING = True
"""Judge each paragraph's claims as soon as it is written (False: verify judges them all after
the writing, as before issue #45; the verdicts and the report are the same either way)."""

PROGRESS_TEXT_CHARS = 2000
"""The most new text one ``synthesis_progress`` event carries (a longer piece is split)."""


class DraftProgress:
    """The ``synthesis_progress`` events of a report being written, each with its new text.

    Each event carries ``characters`` (written so far) and ``text``, what was written since
    the event before (at most :data:`PROGRESS_TEXT_CHARS`), so a client can show the draft as it
    grows. The text is streamed only: the domain store's copy of the event leaves it out (the
    report itself is stored once it is written).
    """

    def __init__(self, runtime: Runtime[Context]) -> None:
        """Emit on ``runtime``'s stream."""
        self.runtime = runtime
        self.written = 0
        self.unsent = ""

    def take(self, piece: str) -> None:
        """Count ``piece``; send the text not yet sent once it is long enough."""
        self.written += len(piece)
        self.unsent += piece
        if len(self.unsent) >= PROGRESS_EVERY_CHARS:
            self._send()

    def finish(self, characters: int) -> None:
        """Send what is left, the last event with ``done`` and the report's length."""
        self._send(done_at=characters)

    def _send(self, done_at: int | None = None) -> None:
        text, self.unsent = self.unsent, ""
        pieces = [
            text[i : i + PROGRESS_TEXT_CHARS] for i in range(0, len(text), PROGRESS_TEXT_CHARS)
        ]
        at = self.written - len(text)
        for n, piece in enumerate(pieces or [""]):
            at += len(piece)
            if done_at is not None and n == max(len(pieces) - 1, 0):
                emit(
                    self.runtime,
                    "synthesis_progress",
                    characters=done_at,
                    done=True,
                    live_only={"text": piece},
                )
            else:
                emit(self.runtime, "synthesis_progress", characters=at, live_only={"text": piece})


async def synthesize(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Write the draft with ``[E#]`` keys, then store it with evidence-id markers."""
    context = context_of(runtime)
    engine = services.engine_for(context)
    if context.mode == "simple":
        reply = await engine.answer(state.research_question, state.turns)
        return {"draft": normalize_draft(reply.value), "usage": reply.usage}
    evidence = report_evidence(state)
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    draft = DraftProgress(runtime)
    judging = (
        JudgeWhileWriting(
            engine,
            state.evidence,
            keys,
            services.memo,
            limit=state.run_config.budget.max_parallel_researchers,
            on_judged=_verdicts_emitter(runtime, state.verification.passes + 1),
            ahead=rewrites_ahead(state, runtime, engine, services),
        )
        if JUDGE_WHILE_WRITING and state.run_config.verify
        else None
    )

    def progress(piece: str) -> None:
        draft.take(piece)
        if judging is not None:
            judging.written(piece)

    inputs = WritingInputs(
        findings=kept_findings(state),
        titles={s.url: shown_title(s.title, s.url) for s in state.sources if s.title},
        depth=state.run_config.depth,
        requirements=state.requirements,
        unmet=state.unmet,
    )
    plan = report_plan(state.plan)
    written = False
    try:
        reply = await engine.write_report(
            state.research_question,
            state.brief,
            plan,
            evidence,
            on_progress=progress,
            inputs=inputs,
        )
        written = True
    finally:
        if judging is not None and not written:  # a failure or an interrupt: stop judging
            judging.cancel()
    draft.finish(len(reply.value))
    stored = normalize_draft(keys_to_markers(reply.value, keys))
    update: dict[str, Any] = {"draft": stored, "usage": reply.usage}
    if judging is not None:
        claims, usage = judging.finished()
        update["usage"] = reply.usage + usage
        if claims:  # verify keeps these verdicts and judges the rest
            update["claims"] = claims
        if not judging.holds(reply.value):  # a retry wrote another report: verify judges it all
            judging.cancel()
        else:
            judging.finish(stored)  # the last paragraphs, judged ahead: verify takes the calls
            if judging.in_flight:  # verify waits for them while it judges the rest
                services.in_flight.put(draft_key(ahead_scope(runtime), stored), judging)
    return update


def _verdicts_emitter(runtime: Runtime[Context], passes: int) -> Callable[[list[Claim]], None]:
    """What reports the verdicts judged while writing: a ``claim_verified`` event each."""
    landed = 0

    def verdicts(claims: list[Claim]) -> None:
        nonlocal landed
        landed += len(claims)
        for claim in claims:
            emit_verdict(runtime, claim, passes=passes, total=landed)

    return verdicts
