"""finalize: number references by first appearance and assemble the v1 report.

The work is the pure functions of :mod:`deep_research.report.build`; the node feeds them the state,
announces the result and records it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import Assessment, Reply, chat_title
from deep_research.engines.schemas import LimitationDraft, ReportAssessment
from deep_research.events import emit
from deep_research.report.build import (
    budget_notice,
    build_report,
    compute_metrics,
    final_citations,
    number_references,
    render_markdown,
    report_evidence,
    report_plan,
)
from deep_research.report.chat import chat_markdown
from deep_research.report.inert import inert_report
from deep_research.report.limits import (
    assessment_input,
    limits,
    settle_parts,
    with_basis_limits,
    with_limitations,
    with_part_limits,
)
from deep_research.services import Services, ahead_scope, context_of
from deep_research.settings import get_settings
from deep_research.sources import corpus_roots
from deep_research.state import PartJudgement, State, TokenUsage
from deep_research.state.identity import on_kept_sources
from deep_research.text.labels import label
from deep_research.text.language import language_of
from deep_research.verification.citations import extract_claims


async def assess(
    state: State, runtime: Runtime[Context], services: Services
) -> tuple[Assessment, Reply[ReportAssessment], list[PartJudgement]] | None:
    """Ask the engine for the report's summary and limits (none for ``simple`` answers).

    The engine is shown the evidence the writer was offered (:func:`report_evidence`). Each
    part of the question is judged answered, partly answered or not answered
    (:func:`~deep_research.assessment.settle_parts`), and every part not answered is a limit.
    """
    if state.run_config.mode == "simple" or not state.draft.strip():
        return None
    plan = report_plan(state.plan)  # replaced: not the report's
    facts = assessment_input(
        state.research_question,
        state.draft,
        report_evidence(state),  # a replaced step's evidence under the step replacing it
        state.claims,
        plan,
        state.findings,
        services.memo.analyses,  # the verify passes read most of these quotes' figures
        titles={s.url: s.title for s in state.sources if s.title},
    )
    engine = services.engine_for(context_of(runtime))
    reply = await engine.assess(facts)
    by_model = not engine.extractive and not reply.fallback
    parts = settle_parts(facts, reply.value, by_model=by_model)
    language = language_of(state.question)
    settled = with_part_limits(reply.value, parts, language)
    settled = with_basis_limits(settled, facts, state.verification, language)
    return facts, replace(reply, value=settled), parts


def with_other_limits(assessment: ReportAssessment, texts: list[str]) -> ReportAssessment:
    """The assessment with one more limitation of kind ``other`` for each of ``texts``."""
    if not texts:
        return assessment
    drafts = [LimitationDraft(kind="other", text=text) for text in texts]
    return assessment.model_copy(update={"limitations": [*assessment.limitations, *drafts]})


STOOD_IN = ("plan", "queries", "pick_evidence", "notes", "reflect", "write_report", "assess")
"""The tasks whose unusable answers the offline engine's method replaced: a limitation says
how many. (A verdict's fallback is in the verification line, a title's, a clarification's and a
rewrite's leave the report as it would be without them.)"""


def fallback_limits(fallbacks: dict[str, int], language: str) -> list[str]:
    """The limitation saying how many of the model's answers were replaced (none: empty)."""
    count = sum(fallbacks.get(task, 0) for task in STOOD_IN)
    return [label(language, "fallbacks").format(count=count)] if count else []


def report_title(state: State) -> str:
    """The report's H1: the chat's title for its first question, else the question, shortened."""
    if state.question_nr <= 1 and state.title:
        return state.title
    return chat_title(state.question)


async def finalize(
    state: State, runtime: Runtime[Context], *, services: Services
) -> dict[str, Any]:
    """Render the final Markdown (references numbered, limits stated) and build the report."""
    # resolving the roots touches the disk: off the event loop
    roots = await asyncio.to_thread(corpus_roots, get_settings()) if services.served else []
    if not state.run_config.verify and not state.claims:
        # unchecked (the verify setting was off): the draft's claims, with no verdict
        state = replace(state, claims=extract_claims(state.draft))
    # one work, one reference
    evidence = on_kept_sources(state.evidence, state.sources)
    assessed = await assess(state, runtime, services)
    draft, found, usage = state.draft, None, TokenUsage()
    language = language_of(state.question)
    if assessed is not None:
        facts, reply, parts = assessed
        unread = await services.unread_files(context_of(runtime))  # corpus files not read
        fallbacks = fallback_limits((state.usage + reply.usage).fallbacks, language)
        reply = replace(reply, value=with_other_limits(reply.value, [*unread, *fallbacks]))
        assessed = facts, reply, parts
        draft, usage = with_limitations(draft, facts, reply.value), reply.usage
    usage += services.ahead.drain(ahead_scope(runtime))  # asked ahead, never used: spent
    numbering = number_references(draft, evidence, state.sources, roots, language)
    if assessed is not None:
        found = limits(
            draft,
            assessed[0],
            assessed[1].value,
            number_of=numbering.number_of,
            references=numbering.references,
            verification=state.verification,
            parts=assessed[2],
        )
        draft = found.draft
    rendered = render_markdown(
        report_title(state),
        draft,
        state.claims,
        numbering,
        state.verification,
        language,
        notice=budget_notice(state.budget_reached, state.run_config.budget),
        checked=state.run_config.verify,
    )
    metrics = compute_metrics(
        usage=state.usage + usage,
        sources=state.sources,
        evidence=evidence,
        findings=state.findings,
        references=numbering.references,
        rounds=state.round,
        started_at=state.started_at,
        now=time.time(),
    ).model_copy(update={"budget_reached": state.budget_reached})
    citations = final_citations(state.citations, evidence, rendered.claims, numbering.number_of)
    report = build_report(
        question=state.question,
        brief=state.brief,
        rendered=rendered,
        numbering=numbering,
        citations=citations,
        sources=state.sources,
        verification=state.verification,
        metrics=metrics,
        config=state.run_config,
        summary=found.summary if found else "",
        limitations=found.limitations if found else [],
        confidence=found.confidence if found else None,
    )
    report = inert_report(report)  # what the model or a page wrote: no active content
    emit(
        runtime,
        "research_completed",
        references=len(report.references),
        claims=len(report.claims),
        supported_ratio=state.verification.supported_ratio,
        verification=state.verification.model_dump(),
    )
    # the chat's copy escapes what chat clients' Markdown extensions misread ($ as math)
    return {
        "report": report,
        "messages": [AIMessage(chat_markdown(report.markdown))],
        "usage": usage,
    }
