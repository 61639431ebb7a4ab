"""synthesize: write the report from the evidence, streamed as it is written."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import WritingInputs, evidence_key
from deep_research.events import emit
from deep_research.report.build import kept_findings, report_evidence, report_plan, shown_title
from deep_research.services import Services, context_of
from deep_research.state import State
from deep_research.verification.citations import keys_to_markers, normalize_draft

PROGRESS_EVERY_CHARS = 400
"""A ``synthesis_progress`` event is emitted each time this many more characters are written."""

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
    draft = DraftProgress(runtime)
    inputs = WritingInputs(
        findings=kept_findings(state),
        titles={s.url: shown_title(s.title, s.url) for s in state.sources if s.title},
        depth=state.run_config.depth,
        requirements=state.requirements,
        unmet=state.unmet,
    )
    plan = report_plan(state.plan)
    reply = await engine.write_report(
        state.research_question, state.brief, plan, evidence, on_progress=draft.take, inputs=inputs
    )
    draft.finish(len(reply.value))
    keys = {evidence_key(i): e.id for i, e in enumerate(evidence)}
    return {"draft": normalize_draft(keys_to_markers(reply.value, keys)), "usage": reply.usage}
