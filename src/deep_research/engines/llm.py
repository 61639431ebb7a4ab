"""The LLM engine: each research task is one chat-model call, structured by function calling.

Any OpenAI-compatible endpoint works (:func:`build_chat_model`); tests drive
:class:`LLMEngine` with a scripted chat model instead. Provider errors are translated here, once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import date
from typing import TypeVar

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from deep_research.engines import prompts
from deep_research.engines._structured import (
    Runnables,
    invoke_structured,
    provider_errors,
    usage_of,
)
from deep_research.engines.base import (
    ClaimCheck,
    ProgressCallback,
    Reply,
    Turn,
    chat_title,
    evidence_key,
)
from deep_research.engines.schemas import (
    ChatTitle,
    ClaimVerdict,
    ClarifyDecision,
    Reflection,
    ResearchPlan,
    Rewrite,
    SearchQueries,
    StepNotes,
    VerdictBatch,
)
from deep_research.errors import ConfigurationError, EngineError
from deep_research.state.models import EvidenceSpan, Finding, PlanStep, TokenUsage, Verdict

_Keyed = TypeVar("_Keyed", ClaimVerdict, Rewrite)

_TITLE_EDGES = "\"'`*_“”‘’„«»‹› "
"""Quotes, emphasis and spaces a model may wrap a title in."""

REQUEST_TIMEOUT_SECONDS = 120.0
"""Timeout of one request; while streaming, the longest wait for the next piece."""


def build_chat_model(
    model: str,
    *,
    api_key: str | None,
    base_url: str | None,
    http_async_client: httpx.AsyncClient | None = None,
) -> ChatOpenAI:
    """Build a streaming chat model for any OpenAI-compatible endpoint.

    Args:
        model: The model name, passed to the endpoint verbatim.
        api_key: The key; ``None`` falls back to ``OPENAI_API_KEY``.
        base_url: The endpoint; ``None`` falls back to ``OPENAI_BASE_URL``, then OpenAI.
        http_async_client: An HTTP client to send requests with (tests use a mock transport).

    Returns:
        The chat model, with two retries and token usage reported while streaming.

    Raises:
        ConfigurationError: no API key is available.
    """
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise ConfigurationError(
            "no API key for the model endpoint: set OPENAI_API_KEY "
            "(any value for a local server that needs none)"
        )
    return ChatOpenAI(
        model=model,
        api_key=SecretStr(key),
        base_url=base_url,
        streaming=True,
        stream_usage=True,
        max_retries=2,
        timeout=REQUEST_TIMEOUT_SECONDS,
        http_async_client=http_async_client,
    )


class LLMEngine:
    """The :class:`~deep_research.engines.base.Engine` backed by a chat model."""

    extractive = False

    def __init__(
        self,
        model: BaseChatModel,
        name: str,
        *,
        today: date | None = None,
        instructions: str = "",
    ) -> None:
        """Wrap ``model``.

        Args:
            model: A chat model that supports tool calling.
            name: The model name, recorded in reports.
            today: The date the prompts state; ``None`` uses the current date at each call.
            instructions: The user's standing instructions (see :meth:`with_instructions`).
        """
        self.model = model
        self.name = name
        self._today = today
        self.instructions = instructions.strip()
        self._runnables: Runnables = {}

    def with_instructions(self, instructions: str) -> LLMEngine:
        """This engine with the user's standing instructions added to its writing prompts.

        They reach clarify, plan, queries, reflect, the report and direct answers; notes,
        verdicts and rewrites keep to the evidence alone, and chat titles to the question.
        """
        engine = LLMEngine(self.model, self.name, today=self._today, instructions=instructions)
        engine._runnables = self._runnables  # the same model: its runnables serve both
        return engine

    def _system(self, prompt: str) -> str:
        if not self.instructions:
            return prompt
        return prompt + prompts.INSTRUCTIONS_BLOCK.format(instructions=self.instructions)

    def _date(self) -> str:
        return (self._today or date.today()).isoformat()

    @staticmethod
    def _messages(system: str, *parts: str) -> list[BaseMessage]:
        return [SystemMessage(content=system), HumanMessage(content="\n\n".join(parts))]

    async def title(self, question: str) -> Reply[str]:
        """Write a short title for a chat from its first question, in the question's language.

        The title is cleaned (one line, no quotes or final period) and cut to
        :data:`~deep_research.engines.schemas.TITLE_CHARS`. When the endpoint fails or the model
        gives no usable title, the title is :func:`chat_title` of the question: a title is not
        worth failing the research for.

        Raises:
            ConfigurationError: the endpoint refused the API key.
        """
        messages = self._messages(prompts.TITLE_PROMPT, f"First question: {question}")
        try:
            named, usage = await invoke_structured(self.model, ChatTitle, messages, self._runnables)
        except EngineError:  # StructuredOutputError included; ConfigurationError is not one
            return Reply(chat_title(question))
        return Reply(_clean_title(named.title) or chat_title(question), usage)

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """Decide whether to ask a clarifying question."""
        messages = self._messages(
            self._system(prompts.CLARIFY_PROMPT.format(today=self._date())),
            f"Conversation so far:\n{prompts.render_history(history)}",
            f"Request: {question}",
        )
        decision, usage = await invoke_structured(
            self.model, ClarifyDecision, messages, self._runnables
        )
        return Reply(decision, usage)

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """Write a brief and at most ``max_steps`` research steps."""
        messages = self._messages(
            self._system(prompts.PLAN_PROMPT.format(today=self._date(), max_steps=max_steps)),
            f"Conversation so far:\n{prompts.render_history(history)}",
            f"Question: {question}",
        )
        plan, usage = await invoke_structured(self.model, ResearchPlan, messages, self._runnables)
        return Reply(plan.model_copy(update={"steps": plan.steps[:max_steps]}), usage)

    async def queries(
        self, question: str, step: PlanStep, previous: Sequence[str], n: int
    ) -> Reply[list[str]]:
        """Propose at most ``n`` new search queries for a step."""
        issued = "\n".join(f"- {query}" for query in previous) or "(none)"
        messages = self._messages(
            self._system(prompts.QUERIES_PROMPT.format(today=self._date(), n=n)),
            f"Question: {question}",
            f"Research step:\n{prompts.render_step(step)}",
            f"Queries already issued:\n{issued}",
        )
        proposed, usage = await invoke_structured(
            self.model, SearchQueries, messages, self._runnables
        )
        seen = {query.strip().casefold() for query in previous}
        fresh: list[str] = []
        for query in (q.strip() for q in proposed.queries):
            if query and query.casefold() not in seen and len(fresh) < n:
                seen.add(query.casefold())
                fresh.append(query)
        return Reply(fresh, usage)

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        """Summarize what the evidence establishes for a step, citing ``[E#]`` keys."""
        messages = self._messages(
            prompts.NOTES_PROMPT.format(data_rule=prompts.DATA_RULE),
            f"Question: {question}",
            f"Research step:\n{prompts.render_step(step)}",
            prompts.render_evidence(evidence),
        )
        notes, usage = await invoke_structured(self.model, StepNotes, messages, self._runnables)
        return Reply(notes, usage)

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
    ) -> Reply[Reflection]:
        """Decide whether to continue, adjust or complete the research."""
        messages = self._messages(
            self._system(
                prompts.REFLECT_PROMPT.format(
                    today=self._date(), max_new_steps=max_new_steps, data_rule=prompts.DATA_RULE
                )
            ),
            f"Question: {question}",
            f"Plan steps (id, title):\n{prompts.render_plan(plan)}",
            prompts.render_findings(findings),
        )
        reflection, usage = await invoke_structured(
            self.model, Reflection, messages, self._runnables
        )
        known = {step.id for step in plan}
        cleaned = reflection.model_copy(
            update={
                "new_steps": reflection.new_steps[:max_new_steps],
                "replaces": [step_id for step_id in reflection.replaces if step_id in known],
            }
        )
        return Reply(cleaned, usage)

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
    ) -> Reply[str]:
        """Write the report in Markdown, ``##`` per section, citing evidence as ``[E#]``.

        The reply is streamed: ``on_progress`` receives each piece of text as it arrives.
        """
        messages = self._messages(
            self._system(
                prompts.REPORT_PROMPT.format(today=self._date(), data_rule=prompts.DATA_RULE)
            ),
            f"Question: {question}",
            f"Brief: {brief}",
            f"Research plan:\n{prompts.render_plan(plan)}",
            prompts.render_evidence(evidence),
        )
        pieces: list[str] = []
        usage = TokenUsage()
        with provider_errors():
            async for chunk in self.model.astream(messages):
                piece = chunk.text
                if piece:
                    pieces.append(piece)
                    if on_progress is not None:
                        on_progress(piece)
                usage += usage_of(chunk, calls=0)
        return Reply("".join(pieces), usage + TokenUsage(calls=1))

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """Answer directly, without research (``simple`` mode)."""
        messages = self._messages(
            self._system(prompts.ANSWER_PROMPT.format(today=self._date())),
            f"Conversation so far:\n{prompts.render_history(history)}",
            f"Question: {question}",
        )
        with provider_errors():
            reply = await self.model.ainvoke(messages)
        return Reply(reply.text.strip(), usage_of(reply))

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """Return one verdict per claim, in the order given, from a single request.

        A claim the model gave no verdict for is ``UNSUPPORTED`` with confidence 0; verdicts
        for unknown claim ids are ignored.
        """
        if not checks:
            return Reply([])
        messages = self._messages(
            prompts.JUDGE_PROMPT.format(data_rule=prompts.DATA_RULE),
            f"Judge these {len(checks)} claims.",
            prompts.render_claim_checks(checks),
        )
        batch, usage = await invoke_structured(self.model, VerdictBatch, messages, self._runnables)
        by_id: dict[str, ClaimVerdict] = {}
        for verdict in batch.verdicts:
            by_id.setdefault(verdict.claim_id, verdict)
        verdicts = [
            _checked_key(by_id[check.claim.id], check.evidence)
            if check.claim.id in by_id
            else ClaimVerdict(
                claim_id=check.claim.id,
                verdict=Verdict.UNSUPPORTED,
                confidence=0.0,
                reasoning="no verdict returned",
            )
            for check in checks
        ]
        return Reply(verdicts, usage)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """Correct or hedge an unsupported claim from its evidence, or remove it (empty text)."""
        messages = self._messages(
            prompts.REWRITE_PROMPT.format(data_rule=prompts.DATA_RULE),
            prompts.render_claim_checks([check]),
        )
        rewrite, usage = await invoke_structured(self.model, Rewrite, messages, self._runnables)
        return Reply(_checked_key(rewrite, check.evidence), usage)


def _clean_title(title: str) -> str:
    """A model's title on one line, without wrapping quotes or a final period, cut to length."""
    line = " ".join(title.split()).strip(_TITLE_EDGES)
    return chat_title(line.rstrip(".。").strip(_TITLE_EDGES))


def _checked_key(value: _Keyed, evidence: Sequence[EvidenceSpan]) -> _Keyed:
    """Normalize ``evidence_key`` to ``E#``, or drop it when it names no evidence given."""
    if value.evidence_key is None:
        return value
    key = value.evidence_key.strip("[] ").upper()
    valid = {evidence_key(index) for index in range(len(evidence))}
    return value.model_copy(update={"evidence_key": key if key in valid else None})
