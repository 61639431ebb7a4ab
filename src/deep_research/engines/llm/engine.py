"""The LLM engine: each research task is one chat-model call, structured by function calling.

Any chat model works: ``provider:model`` names or OpenAI-compatible endpoints
(:func:`~deep_research.engines.llm.providers.build_chat_model`); tests drive :class:`LLMEngine`
with a scripted chat model instead. Provider errors are translated here, once.

A model's failure never deletes work. Every structured answer is checked against what was
asked (:mod:`.validation`) and re-asked with the problem; what the model still cannot answer
is answered by the offline engine (plan, queries, notes, reflection, verdicts labelled
``checked_by="fallback"``) or by a safe default (no clarifying question, the claim left as it
is), and the reply says so (:attr:`~deep_research.engines.base.Reply.fallback`).
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import partial
from typing import TypeVar

from langchain_core.language_models import BaseChatModel

from deep_research.engines.base import (
    Assessment,
    ClaimCheck,
    ProgressCallback,
    Reply,
    Turn,
    WritingInputs,
    chat_title,
    evidence_key,
    fell_back,
)
from deep_research.engines.llm import budgets, fitting, prompts, replies, validation
from deep_research.engines.llm.catalog import ModelLimits, estimate_tokens
from deep_research.engines.llm.model_calls import ModelCalls, Prompt, Role, data_budget
from deep_research.engines.llm.outline import REPORT_WORDS, report_outline
from deep_research.engines.llm.providers import REQUEST_TIMEOUT_SECONDS, build_chat_model
from deep_research.engines.llm.structured import StructuredMode, provider_errors
from deep_research.engines.offline.engine import OfflineEngine
from deep_research.engines.schemas import (
    ChatTitle,
    ClaimVerdict,
    ClarifyDecision,
    EvidencePicks,
    PickedQuote,
    Reflection,
    ReportAssessment,
    ResearchPlan,
    Rewrite,
    SearchQueries,
    StepNotes,
    VerdictBatch,
)
from deep_research.errors import EngineError
from deep_research.state.models import EvidenceSpan, Finding, Passage, PlanStep, TokenUsage
from deep_research.text.language import LANGUAGE_NAMES, language_of

__all__ = ["REQUEST_TIMEOUT_SECONDS", "LLMEngine", "Role", "build_chat_model"]

_Keyed = TypeVar("_Keyed", ClaimVerdict, Rewrite)

_TITLE_EDGES = "\"'`*_“”‘’„«»‹› "
"""Quotes, emphasis and spaces a model may wrap a title in."""

EMPTY_REPORT_ATTEMPTS = 2
"""Times the report is asked for while the model answers with no text at all."""

JUDGE_BATCH = 2
"""Most claims judged in one request. A request's verdicts come at the model's decode rate, so
small batches judged side by side give them sooner than one long batch (issue #45: a verdict is
about 70 tokens; two a request rather than four took 0.15 s off each round trip after the draft
in the benchmark, for the judge's instructions repeated); each claim is judged alone either way,
so the verdicts are the same."""


class LLMEngine(ModelCalls):
    """The :class:`~deep_research.engines.base.Engine` backed by chat models."""

    extractive = False

    def __init__(
        self,
        model: BaseChatModel,
        name: str,
        *,
        roles: Mapping[Role, BaseChatModel] | None = None,
        structured: StructuredMode = "auto",
        limits: Mapping[Role, ModelLimits] | None = None,
        today: date | None = None,
        instructions: str = "",
    ) -> None:
        """Wrap ``model``.

        Args:
            model: The writer's chat model, and every role's that ``roles`` does not name.
            name: The model name, recorded in reports.
            roles: Cheaper models for the ``judge`` and ``notes`` roles (see :data:`Role`).
            structured: How structured answers are asked for (``tools``, ``json``, ``auto``).
            limits: Each role's context window and prices; a role not named has the
                writer's, and a writer not named has no window limit and no price.
            today: The date the prompts state; ``None`` uses the current date at each call.
            instructions: The user's standing instructions (see :meth:`with_instructions`).
        """
        super().__init__(model, roles=roles, structured=structured, limits=limits)
        self.name = name
        self._today = today
        self.instructions = instructions.strip()
        self._offline = OfflineEngine()

    def with_instructions(self, instructions: str) -> LLMEngine:
        """This engine with the user's standing instructions added to its writing prompts.

        They reach clarify, plan, queries, reflect, the report and direct answers; notes,
        verdicts and rewrites keep to the evidence alone, and chat titles to the question.
        """
        engine = copy.copy(self)  # the same models: their runnables serve both
        engine.instructions = instructions.strip()
        return engine

    def passage_words(self, depth: str) -> int:
        """Words of passages one pick is shown: sized by the picker's window and the depth."""
        return budgets.passage_words(self.limits_of("notes"), depth)

    def _system(self, prompt: str) -> str:
        if not self.instructions:
            return prompt
        return prompt + prompts.INSTRUCTIONS_BLOCK.format(instructions=self.instructions)

    def _date(self) -> str:
        return (self._today or date.today()).isoformat()

    async def title(self, question: str) -> Reply[str]:
        """Write a short title for a chat from its first question, in the question's language.

        The title is cleaned (one line, no quotes or final period) and cut to
        :data:`~deep_research.engines.schemas.TITLE_CHARS`. When the endpoint fails or the model
        gives no usable title, the title is :func:`chat_title` of the question: a title is not
        worth failing the research for.

        Raises:
            ConfigurationError: the endpoint refused the API key.
        """
        messages = self.messages(prompts.TITLE_PROMPT, f"First question: {question}")
        try:
            named = await self.ask("notes", ChatTitle, messages)
        except EngineError:  # ConfigurationError is not one
            return fell_back("title", chat_title(question))
        if named.value is None:
            return fell_back("title", chat_title(question), named.usage)
        return Reply(_clean_title(named.value.title) or chat_title(question), named.usage)

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """Decide whether to ask a clarifying question; without a usable answer, ask none."""
        system = self._system(prompts.CLARIFY_PROMPT.format(today=self._date()))
        build = self.with_history(system, history, f"Request: {question}")
        decision = await self.ask_fitted(
            "writer", ClarifyDecision, build, validation.clarify_problems
        )
        if decision.value is None:
            return fell_back("clarify", ClarifyDecision(needs_clarification=False), decision.usage)
        return Reply(decision.value, decision.usage)

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """Write a brief and at most ``max_steps`` research steps (the offline plan if none)."""
        system = self._system(prompts.PLAN_PROMPT.format(today=self._date(), max_steps=max_steps))
        build = self.with_history(system, history, f"Question: {question}")
        plan = await self.ask_fitted("writer", ResearchPlan, build, validation.plan_problems)
        # a plan still not split by item or dimension is kept: it is usable, only coarser
        value = plan.value or _usable_plan(plan.draft)
        if value is None:
            offline = await self._offline.plan(question, history, max_steps)
            return fell_back("plan", offline.value, plan.usage)
        return Reply(value.model_copy(update={"steps": value.steps[:max_steps]}), plan.usage)

    async def queries(
        self,
        question: str,
        step: PlanStep,
        previous: Sequence[str],
        n: int,
        *,
        finding: Finding | None = None,
    ) -> Reply[list[str]]:
        """Propose at most ``n`` new search queries for a step (the offline ones if none).

        Queries are asked in the question's language (plus one in English where it helps);
        on a second pass, ``finding`` shows the notes so far and what they say is missing.
        """
        issued = "\n".join(f"- {query}" for query in previous) or "(none)"
        language = LANGUAGE_NAMES[language_of(question)]
        parts = [
            f"Question: {question}",
            f"Research step:\n{prompts.render_step(step)}",
            f"Queries already issued:\n{issued}",
        ]
        if finding is not None:
            parts.append(prompts.render_findings([finding]))
        messages = self.messages(
            self._system(prompts.QUERIES_PROMPT.format(today=self._date(), n=n, language=language)),
            *parts,
        )
        proposed = await self.ask("notes", SearchQueries, messages, validation.queries_problems)
        if proposed.value is None:
            offline = await self._offline.queries(question, step, previous, n, finding=finding)
            return fell_back("queries", offline.value, proposed.usage)
        seen = {query.strip().casefold() for query in previous}
        fresh: list[str] = []
        for query in (q.strip() for q in proposed.value.queries):
            if not validation.searchable(query):
                continue  # "1", "who": nothing of the step to search for
            if query.casefold() not in seen and len(fresh) < n:
                seen.add(query.casefold())
                fresh.append(query)
        return Reply(fresh, proposed.usage)

    async def pick_evidence(
        self,
        question: str,
        step: PlanStep,
        queries: Sequence[str],
        passages: Sequence[Passage],
    ) -> Reply[list[PickedQuote]]:
        """Show the model the ranked passages and return the quotes it picks, best first.

        The passages' sentences are numbered and the model names the ones it picks by number
        (a short reply); the quote is their text, taken from the passage
        (:func:`~deep_research.engines.llm.validation.picked_text`). A quote the model copied
        instead is accepted. No passages, no request. Picks naming a passage or sentences not
        shown, or a quote not copied from its passage, are dropped (and re-asked when no pick
        is left); without usable picks, the offline engine's sentence windows stand in. The
        caller locates each quote in its page.
        """
        if not passages:
            return Reply([])
        system = prompts.PICK_PROMPT.format(data_rule=prompts.DATA_RULE)
        parts = (f"Question: {question}", f"Research step:\n{prompts.render_step(step)}")

        def build(budget: int | None) -> Prompt:
            shown, left_out = fitting.fit_passages(passages, data_budget(budget, system, *parts))
            rendered = prompts.render_passages(passages[:shown])
            return Prompt(self.messages(system, *parts, rendered), left_out)

        check = partial(validation.pick_problems, passages=passages)
        picks = await self.ask_fitted("notes", EvidencePicks, build, check)
        value = validation.usable_picks(picks.value or picks.draft, passages)
        if value is None and picks.value is not None:  # it picked nothing
            return Reply([], picks.usage)
        if value is None:
            offline = await self._offline.pick_evidence(question, step, queries, passages)
            return fell_back("pick_evidence", offline.value, picks.usage)
        return Reply(sorted(value.quotes, key=lambda q: -q.relevance), picks.usage)

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        """Summarize what the evidence establishes for a step, citing ``[E#]`` keys.

        Notes that cite evidence not shown are re-asked; without usable notes, the offline
        engine's extract stands in.
        """
        build = self.with_evidence(
            prompts.NOTES_PROMPT.format(data_rule=prompts.DATA_RULE),
            evidence,
            f"Question: {question}",
            f"Research step:\n{prompts.render_step(step)}",
        )
        check = partial(validation.notes_problems, evidence=evidence)
        notes = await self.ask_fitted("notes", StepNotes, build, check)
        if notes.value is None:
            offline = await self._offline.notes(question, step, evidence)
            return fell_back("notes", offline.value, notes.usage)
        return Reply(notes.value, notes.usage)

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
        *,
        brief: str = "",
    ) -> Reply[Reflection]:
        """Decide whether to continue, adjust or complete (the offline decision if no answer).

        The model checks the question's explicit requirements against the brief and findings.
        """
        system = self._system(
            prompts.REFLECT_PROMPT.format(
                today=self._date(), max_new_steps=max_new_steps, data_rule=prompts.DATA_RULE
            )
        )
        fixed = (
            f"Question: {question}",
            f"Brief: {brief or '(none)'}",
            f"Plan steps (id, title):\n{prompts.render_plan(plan)}",
        )

        def build(budget: int | None) -> Prompt:
            fitted, cut = fitting.fit_findings(findings, data_budget(budget, system, *fixed))
            messages = self.messages(system, *fixed, prompts.render_findings(fitted))
            return Prompt(messages, cut)

        known = {step.id for step in plan}
        check = partial(validation.reflection_problems, step_ids=known)
        reflection = await self.ask_fitted("writer", Reflection, build, check)
        value = reflection.value or _known_replaces(reflection.draft, known)
        if value is None:
            offline = await self._offline.reflect(
                question, plan, findings, max_new_steps, brief=brief
            )
            return fell_back("reflect", offline.value, reflection.usage)
        cleaned = value.model_copy(update={"new_steps": value.new_steps[:max_new_steps]})
        return Reply(cleaned, reflection.usage)

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
        *,
        inputs: WritingInputs | None = None,
    ) -> Reply[str]:
        """Write the report in Markdown, ``##`` per section, citing evidence as ``[E#]``.

        The writer sees the step notes and the evidence grouped by step, with page titles
        (``inputs``), as much of the evidence as its share of the window holds, the most
        relevant first; it follows an outline planned from the question's requirements
        (:func:`~deep_research.engines.llm.outline.report_outline`), at a length set by the
        depth. The reply is streamed:
        ``on_progress`` receives each piece of text as it arrives. An empty reply is asked
        again; a second one leaves the report to the offline engine (an extract, which says so).
        """
        inputs = inputs or WritingInputs()
        system = self._system(
            prompts.REPORT_PROMPT.format(
                today=self._date(),
                length=REPORT_WORDS.get(inputs.depth, REPORT_WORDS["medium"]),
                language=LANGUAGE_NAMES[language_of(question)],
                data_rule=prompts.DATA_RULE,
            )
        )
        outline = report_outline(inputs.requirements, plan, inputs.unmet)
        fixed = (
            f"Question: {question}",
            f"Brief: {brief}",
            f"Research plan:\n{prompts.render_plan(plan)}",
            f"Outline of the report:\n{outline}",
        )
        notes = "\n".join(f.notes + f.missing for f in inputs.findings)
        # the research the writer is shown is a share of its window, by depth
        share = budgets.writer_tokens(self.limits_of("writer"), inputs.depth)
        share -= estimate_tokens(notes)

        def build(budget: int | None) -> Prompt:
            room = data_budget(budget, system, *fixed, notes)
            positions, left_out = fitting.fit_evidence(
                evidence, share if room is None else min(room, share)
            )
            research = prompts.render_research(
                plan, inputs.findings, evidence, inputs.titles, positions
            )
            return Prompt(self.messages(system, *fixed, research), left_out)

        async def stream(prompt: Prompt) -> Reply[str]:
            with provider_errors():
                text, usage = await replies.stream_text(self.model, prompt.messages, on_progress)
            usage += TokenUsage(trimmed=prompt.trimmed, evidence_left_out=prompt.trimmed)
            return Reply(text, self.priced("writer", usage))

        usage = TokenUsage()
        for _ in range(EMPTY_REPORT_ATTEMPTS):
            reply = await self.fitted("writer", build, stream)
            if reply.value.strip():
                return Reply(reply.value, usage + reply.usage)
            # what the empty reply was not shown is counted by the reply that is kept
            usage += reply.usage.model_copy(update={"evidence_left_out": 0})
        # the model wrote nothing, twice: the research is not lost, the report is an extract
        offline = await self._offline.write_report(
            question, brief, plan, evidence, on_progress, inputs=inputs
        )
        return fell_back("write_report", offline.value, usage)

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """Answer directly, without research (``simple`` mode)."""
        system = self._system(prompts.ANSWER_PROMPT.format(today=self._date()))

        async def ask(prompt: Prompt) -> Reply[str]:
            with provider_errors():
                reply = await replies.complete(self.model, prompt.messages)
            usage = replies.counted(reply, prompt.messages) + TokenUsage(trimmed=prompt.trimmed)
            return Reply(reply.text.strip(), self.priced("writer", usage))

        return await self.fitted(
            "writer", self.with_history(system, history, f"Question: {question}"), ask
        )

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """Return one verdict per claim, in the order given, from requests sent side by side.

        Claims are sent together as far as the judge's window allows (quotes are cut when one
        claim alone does not fit), at most :data:`JUDGE_BATCH` to a request. Each answer is
        checked (one verdict per claim given, no other ids, keys in range, quotes verbatim) and
        re-asked. Claims the model still gave
        no usable verdict for are judged by the offline checker, labelled
        ``checked_by="fallback"``: a model's failure to answer never counts against a claim.
        """
        system = prompts.JUDGE_PROMPT.format(data_rule=prompts.DATA_RULE)
        budget = data_budget(self.limits_of("judge").prompt_budget, system, "Judge these claims.")
        groups = [
            group[start : start + JUDGE_BATCH]
            for group in fitting.pack_checks(checks, budget)
            for start in range(0, len(group), JUDGE_BATCH)
        ]
        replies = await asyncio.gather(*(self._judge([checks[i] for i in g]) for g in groups))
        verdicts = [verdict for reply in replies for verdict in reply.value]
        usage = sum((reply.usage for reply in replies), TokenUsage())
        return Reply(verdicts, usage, fallback=any(reply.fallback for reply in replies))

    async def _judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """:meth:`judge` for claims that fit one request."""
        system = prompts.JUDGE_PROMPT.format(data_rule=prompts.DATA_RULE)
        header = f"Judge these {len(checks)} claims."

        def build(budget: int | None) -> Prompt:
            fitted, cut = fitting.fit_checks(checks, data_budget(budget, system, header))
            return Prompt(self.messages(system, header, prompts.render_claim_checks(fitted)), cut)

        collector = validation.VerdictCollector(checks)
        batch = await self.ask_fitted("judge", VerdictBatch, build, collector)
        missing = collector.missing
        fallback = (await self._offline.judge(missing)).value if missing else []
        by_id = {
            **{
                claim_id: _normal_key(verdict).model_copy(update={"checked_by": "model"})
                for claim_id, verdict in collector.kept.items()
            },
            **{v.claim_id: v.model_copy(update={"checked_by": "fallback"}) for v in fallback},
        }
        verdicts = [by_id[c.claim.id] for c in checks]
        if missing:  # one answer per claim the model gave no usable verdict for
            return fell_back("judge", verdicts, batch.usage, len(missing))
        return Reply(verdicts, batch.usage)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """Correct, narrow or hedge a claim from its evidence, or remove it (empty text).

        Without a usable rewrite, the claim is returned as it is: a model's failure never
        removes a claim.
        """
        system = prompts.REWRITE_PROMPT.format(data_rule=prompts.DATA_RULE)

        def build(budget: int | None) -> Prompt:
            (fitted,), cut = fitting.fit_checks([check], data_budget(budget, system))
            return Prompt(self.messages(system, prompts.render_rewrite_check(fitted)), cut)

        problems = partial(validation.rewrite_problems, check=check)
        rewrite = await self.ask_fitted("writer", Rewrite, build, problems)
        if rewrite.value is None:
            return fell_back("rewrite", Rewrite(text=check.claim.text), rewrite.usage)
        return Reply(_normal_key(rewrite.value), rewrite.usage)

    async def assess(self, facts: Assessment) -> Reply[ReportAssessment]:
        """Summarize a verified report and state its limits, citing ``[E#]`` keys.

        Citations of evidence not shown are re-asked, then dropped; without a usable answer,
        the offline engine's assessment stands in.
        """
        system = self._system(prompts.ASSESS_PROMPT.format(data_rule=prompts.DATA_RULE))
        shown = len(facts.evidence)

        def build(budget: int | None) -> Prompt:
            return Prompt(self.messages(system, prompts.render_assessment(facts)))

        check = partial(validation.assessment_problems, shown=shown)
        assessed = await self.ask_fitted("writer", ReportAssessment, build, check)
        value = assessed.value or assessed.draft
        offline = await self._offline.assess(facts)  # the limits the run found, stated plainly
        if value is None:
            return fell_back("assess", offline.value, assessed.usage)
        return Reply(
            _with_run_limits(_known_keys(value, shown), facts, offline.value), assessed.usage
        )


def _with_run_limits(
    assessed: ReportAssessment, facts: Assessment, found: ReportAssessment
) -> ReportAssessment:
    """The model's limitations, with each limit the run found that they leave out added.

    ``found`` states every uncovered step and conflict of ``facts`` (the offline engine's
    assessment, in the same order). A step is stated when a limitation names its title; a
    conflict when one cites both of its sides. The model's list, however confident, never
    hides what the run found: an empty list under a report with no supported claim would
    otherwise read "every step of the research plan has a supported claim".
    """
    said = [item.text.casefold() for item in assessed.limitations]
    cites = [set(re.findall(r"E\d+", item.text.upper())) for item in assessed.limitations]
    titles = [step.title.casefold() for step in facts.uncovered]
    missing = [
        draft
        for title, draft in zip(titles, found.limitations, strict=False)
        if not any(title in text for text in said)
    ]
    # an "uncovered" item naming no step in its own words stands for one of the steps unnamed
    worded = sum(
        1
        for item, text in zip(assessed.limitations, said, strict=True)
        if item.kind == "uncovered" and not any(title in text for title in titles)
    )
    missing = missing[worded:]
    conflicts = found.limitations[len(facts.uncovered) :]
    for (i, j), draft in zip(facts.conflicts, conflicts, strict=False):
        sides = {evidence_key(i), evidence_key(j)}
        if not any(sides <= cited for cited in cites):
            missing.append(draft)
    if not missing:
        return assessed
    return assessed.model_copy(update={"limitations": [*assessed.limitations, *missing]})


def _clean_title(title: str) -> str:
    """A model's title on one line, without wrapping quotes or a final period, cut to length."""
    line = " ".join(title.split()).strip(_TITLE_EDGES)
    return chat_title(line.rstrip(".。").strip(_TITLE_EDGES))


def _usable_plan(draft: ResearchPlan | None) -> ResearchPlan | None:
    """A plan the model could not fix, if its only problem is a step covering a whole grid."""
    if draft is None or validation.usable_plan_problems(draft):
        return None
    return draft


def _known_replaces(draft: Reflection | None, known: set[str]) -> Reflection | None:
    """A reflection the model could not fix, with the unknown step ids it replaces dropped.

    ``None`` when that does not make it usable (continuing or adjusting with no new steps).
    """
    if draft is None:
        return None
    kept = draft.model_copy(update={"replaces": [i for i in draft.replaces if i in known]})
    return None if validation.reflection_problems(kept, known) else kept


def _normal_key(value: _Keyed) -> _Keyed:
    """``evidence_key`` written as ``E#`` (the checks accepted ``[e3]`` and the like)."""
    if value.evidence_key is None:
        return value
    return value.model_copy(update={"evidence_key": value.evidence_key.strip("[] ").upper()})


_KEYS = re.compile(r"(\s*)\[\s*(E\d+(?:\s*,\s*E\d+)*)\s*\]", re.I)


def _known_keys(assessed: ReportAssessment, shown: int) -> ReportAssessment:
    """``assessed`` with keys normalized to ``[E#]`` and those naming no evidence removed."""
    valid = {f"E{index + 1}" for index in range(shown)}

    def keep(match: re.Match[str]) -> str:
        keys = [k.strip().upper() for k in match.group(2).split(",")]
        kept = "".join(f"[{k}]" for k in keys if k in valid)
        return match.group(1) + kept if kept else ""

    return assessed.model_copy(
        update={
            "summary": _KEYS.sub(keep, assessed.summary),
            "limitations": [
                item.model_copy(update={"text": _KEYS.sub(keep, item.text)})
                for item in assessed.limitations
            ],
        }
    )
