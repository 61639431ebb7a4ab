"""What each node's work becomes in the domain store: its rows, from its update and its events.

Nodes do not record. The recording wrapper (:func:`deep_research.services.recording`) runs a
node, then hands its name, the state it read, the update it returned and the events it
emitted to :func:`project`, which returns the node's :class:`~.recorder.Batch`; the recorder
upserts it on natural keys, so a node retried or resumed rewrites its rows. A node stopped by
``interrupt()`` is projected with ``update=None`` (the session waits for an answer).

One exception, so that a question's first event already names its session: clarify opens the
session itself (:meth:`~deep_research.services.Services.start_question`), before it emits
``research_started``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from deep_research.events import RecordedEvent
from deep_research.persistence.recorder import Batch
from deep_research.persistence.records import (
    IterationRecord,
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
    answered_step,
    planned_step,
    searched_step,
)
from deep_research.state.identity import on_kept_sources
from deep_research.state.models import (
    POOL_PROVIDER,
    Citation,
    Claim,
    EvidenceSpan,
    Report,
    citations_of,
)

__all__ = ["project", "tool_calls"]

Projector = Callable[[Any, dict[str, Any], Sequence[RecordedEvent]], Batch | None]


def project(
    node: str,
    state: Any,
    update: dict[str, Any] | None,
    events: Sequence[RecordedEvent],
    *,
    has_store: bool = False,
) -> Batch | None:
    """The rows of what ``node`` did: ``None`` when it did nothing the store keeps.

    ``has_store``: the run has a content store, so its researchers search the chat's earlier
    sources too (:meth:`~deep_research.services.Services.chat_pool`).
    """
    if update is None:
        return _interrupted(node)
    if node == "search_sources":
        return _search_sources(state, has_store=has_store)
    projector = _PROJECTORS.get(node)
    return projector(state, update, events) if projector is not None else None


def _interrupted(node: str) -> Batch | None:
    """A node paused for an answer: its session waits (the question was recorded before)."""
    if node in ("review_plan", "ask_clarification"):
        return Batch(session=SessionUpdate(status=SessionStatus.INTERRUPTED))
    return None


def _event(events: Sequence[RecordedEvent], type_: str) -> dict[str, Any] | None:
    """The data of the last event of ``type_`` the node emitted."""
    found = [e.payload["data"] for e in events if e.payload.get("type") == type_]
    return found[-1] if found else None


def _clarify(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch | None:
    if update.get("clarification"):  # a message answered the pending question
        return _ask_clarification(state, update, events)
    asked = update.get("clarifying_question")
    if not asked:
        return None
    return Batch(
        session=SessionUpdate(status=SessionStatus.INTERRUPTED),
        messages=[MessageRecord(MessageKind.CLARIFYING_QUESTION, asked)],
    )


def _ask_clarification(
    state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]
) -> Batch:
    answer = update.get("clarification", "")
    answered = [MessageRecord(MessageKind.CLARIFICATION_ANSWER, answer)] if answer else []
    return Batch(session=SessionUpdate(status=SessionStatus.IN_PROGRESS), messages=answered)


def _title_chat(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    return Batch(title=update.get("title", ""))


def _plan(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    config = update["config"]
    created = _event(events, "plan_created") or {}
    classification = {
        "mode": config.mode,
        "depth": config.depth,
        "complexity": created.get("complexity"),
        "engine": config.engine,
    }
    session = SessionUpdate(
        depth=config.depth,
        brief=update["brief"],
        plan=update["plan"],
        classification=classification,
    )
    return Batch(session=session)


def _review_plan(
    state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]
) -> Batch | None:
    if _event(events, "plan_reviewed") is None:
        return None  # no review was asked for
    reviewed = SessionUpdate(plan=update.get("plan", state.plan), status=SessionStatus.IN_PROGRESS)
    return Batch(session=reviewed)


def _dispatch(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    round_ = update["round"]
    sent = set(update["active"])
    return Batch(
        iterations=[IterationRecord(round_, steps=[s.id for s in state.plan if s.round == round_])],
        sub_steps=[planned_step(s) for s in state.plan if s.id in sent],
    )


def _reflect(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch | None:
    decided = _event(events, "reflection_decision")
    if decided is None:
        return None  # the round is still open
    record = IterationRecord(
        state.round, decision=decided["decision"], reasoning=decided["reasoning"]
    )
    return Batch(iterations=[record])


def _search_sources(state: Any, *, has_store: bool) -> Batch:
    pool = [POOL_PROVIDER] if state.pool and has_store else []
    providers = [*state.config.sources, *pool]
    return Batch(sub_steps=[searched_step(state.step, providers)])


def _read_sources(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    return Batch(sources=update.get("sources", []), evidence=update.get("evidence", []))


def _take_notes(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    (finding,) = update["findings"]
    cited = [e for e in state.evidence if e.id in finding.notes]
    return Batch(sub_steps=[answered_step(state.step, finding, cited)])


def _cited(
    citations: Sequence[Citation], evidence: Sequence[EvidenceSpan]
) -> tuple[list[Citation], list[EvidenceSpan]]:
    """The citations whose evidence the run holds, and that evidence, in citation order."""
    by_id = {e.id: e for e in evidence}
    recorded = [c for c in citations if c.evidence_id in by_id]
    return recorded, [by_id[c.evidence_id] for c in recorded]


def _verify(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    claims: list[Claim] = update.get("claims", state.claims)
    citations = [citation for claim in claims for citation in citations_of(claim)]
    recorded, evidence = _cited(citations, state.evidence)
    return Batch(
        session=SessionUpdate(verification=update["verification"]),
        claims=claims,
        evidence=evidence,
        citations=recorded,
    )


def tool_calls(state: Any) -> list[dict[str, Any]]:
    """What the answer used: each step's searches (providers and queries), and verification."""
    providers = sorted({s.provider for s in state.sources})
    calls: list[dict[str, Any]] = [
        {"name": "search", "step_id": f.step_id, "providers": providers, "queries": f.queries}
        for f in state.findings
    ]
    if state.verification.passes:
        calls.append({"name": "verify", "passes": state.verification.passes})
    return calls


def _finalize(state: Any, update: dict[str, Any], events: Sequence[RecordedEvent]) -> Batch:
    report: Report = update["report"]
    recorded, cited = _cited(report.citations, on_kept_sources(state.evidence, state.sources))
    return Batch(
        session=SessionUpdate(status=SessionStatus.COMPLETED, report=report),
        messages=[
            MessageRecord(
                MessageKind.REPORT,
                report.markdown,
                query_mode=report.config.mode,
                tool_calls=tool_calls(state),
            )
        ],
        sources=state.sources,
        evidence=cited,
        claims=report.claims,
        final_claims=True,
        citations=recorded,
        cited_urls=[r.url for r in report.references],
    )


_PROJECTORS: dict[str, Projector] = {
    "clarify": _clarify,
    "ask_clarification": _ask_clarification,
    "title_chat": _title_chat,
    "plan": _plan,
    "review_plan": _review_plan,
    "dispatch": _dispatch,
    "reflect": _reflect,
    "read_sources": _read_sources,
    "take_notes": _take_notes,
    "verify": _verify,
    "finalize": _finalize,
}
"""Each recorded node's projector; nodes not named here record no rows (only events)."""
