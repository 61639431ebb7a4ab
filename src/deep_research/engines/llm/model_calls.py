"""How the LLM engine calls its models: roles, windows, prices, structured answers.

:class:`ModelCalls` is the part of :class:`~deep_research.engines.llm.engine.LLMEngine` that
does not know the research tasks: which chat model plays a :data:`Role`, how large a prompt may be
(prompts are built to fit the role's window and rebuilt smaller while the endpoint finds them
too long), what the tokens cost, and how a structured answer is asked for
(:func:`~deep_research.engines.llm.structured.attempt_structured`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from deep_research.engines.base import Turn
from deep_research.engines.llm import fitting, prompts
from deep_research.engines.llm.catalog import ModelLimits, estimate_tokens
from deep_research.engines.llm.structured import (
    Attempt,
    Check,
    Runnables,
    StructuredMode,
    attempt_structured,
)
from deep_research.errors import ContextOverflowError
from deep_research.state.models import EvidenceSpan, TokenUsage

S = TypeVar("S", bound=BaseModel)
T = TypeVar("T")

OVERFLOW_RETRIES = 3
"""Times a prompt the endpoint found too long is sent again with half the data budget."""

Role = Literal["writer", "judge", "notes"]
"""Who does a task: the ``judge`` judges claims, the ``notes`` model proposes queries, takes
notes and titles chats, the ``writer`` does the rest (plan, reflection, report, rewrites)."""


@dataclass(frozen=True)
class Prompt:
    """Messages built to fit a budget, and how many items were left out or cut to fit."""

    messages: list[BaseMessage]
    trimmed: int = 0


Build = Callable[[int | None], Prompt]
"""Builds a prompt whose data fits the given prompt budget (``None``: no limit)."""


def data_budget(budget: int | None, *fixed: str) -> int | None:
    """The tokens left for data in a prompt of ``budget`` tokens once ``fixed`` text is in."""
    if budget is None:
        return None
    return max(0, budget - sum(map(estimate_tokens, fixed)) - 16)


class ModelCalls:
    """Chat models by role, with their windows and prices, and how they are asked."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        roles: Mapping[Role, BaseChatModel] | None = None,
        structured: StructuredMode = "auto",
        limits: Mapping[Role, ModelLimits] | None = None,
    ) -> None:
        """Call ``model``, and the models of ``roles`` for their roles.

        Args:
            model: The writer's chat model, and every role's that ``roles`` does not name.
            roles: Cheaper models for the ``judge`` and ``notes`` roles (see :data:`Role`).
            structured: How structured answers are asked for (``tools``, ``json``, ``auto``).
            limits: Each role's context window and prices; a role not named has the
                writer's, and a writer not named has no window limit and no price.
        """
        self.model = model
        self.roles: dict[Role, BaseChatModel] = {"writer": model, **(roles or {})}
        self.structured = structured
        self.limits: dict[Role, ModelLimits] = dict(limits or {})
        self._runnables: dict[Role, Runnables] = {}

    @staticmethod
    def messages(system: str, *parts: str) -> list[BaseMessage]:
        """A system message and one human message of ``parts``, blank-line separated."""
        return [SystemMessage(content=system), HumanMessage(content="\n\n".join(parts))]

    def chat(self, role: Role) -> BaseChatModel:
        """The chat model that plays ``role``."""
        return self.roles.get(role, self.model)

    def limits_of(self, role: Role) -> ModelLimits:
        """The window and prices of the model that plays ``role``."""
        return self.limits.get(role) or self.limits.get("writer") or ModelLimits()

    def priced(self, role: Role, usage: TokenUsage) -> TokenUsage:
        """``usage`` with the cost of its tokens at the role's model's prices."""
        cost = self.limits_of(role).cost(usage.prompt_tokens, usage.completion_tokens)
        return usage.model_copy(update={"cost_usd": usage.cost_usd + cost})

    async def ask(
        self,
        role: Role,
        schema: type[S],
        messages: Sequence[BaseMessage],
        check: Check | None = None,
    ) -> Attempt[S]:
        """Ask the role's model for ``schema``, checked, re-asked and in JSON mode if need be."""
        result = await attempt_structured(
            self.chat(role),
            schema,
            messages,
            self._runnables.setdefault(role, {}),
            check=check,
            mode=self.structured,
        )
        result.usage = self.priced(role, result.usage)
        return result

    async def fitted(self, role: Role, build: Build, ask: Callable[[Prompt], Awaitable[T]]) -> T:
        """``ask`` a prompt built to fit the role's window; halve it while it is too long.

        Raises:
            ContextOverflowError: it was still too long at a sixteenth of the budget.
        """
        budget = self.limits_of(role).prompt_budget
        for attempt in range(OVERFLOW_RETRIES + 1):
            prompt = build(budget)
            try:
                return await ask(prompt)
            except ContextOverflowError:
                if attempt == OVERFLOW_RETRIES:
                    raise
                tokens = sum(estimate_tokens(str(m.content)) for m in prompt.messages)
                budget = (budget or tokens) // 2
        raise AssertionError("unreachable")  # pragma: no cover

    async def ask_fitted(
        self, role: Role, schema: type[S], build: Build, check: Check | None = None
    ) -> Attempt[S]:
        """:meth:`ask` with a prompt fitted to the role's window (see :meth:`fitted`).

        A prompt that never fits is an attempt without a value, so the task falls back.
        """

        async def ask(prompt: Prompt) -> Attempt[S]:
            result = await self.ask(role, schema, prompt.messages, check)
            result.usage += TokenUsage(trimmed=prompt.trimmed)
            return result

        try:
            return await self.fitted(role, build, ask)
        except ContextOverflowError as exc:
            return Attempt(problem=str(exc))

    def with_history(self, system: str, history: Sequence[Turn], question: str) -> Build:
        """Builds a prompt with as many of the latest turns of the chat as fit."""

        def build(budget: int | None) -> Prompt:
            kept, left_out = fitting.fit_history(history, data_budget(budget, system, question))
            rendered = f"Conversation so far:\n{prompts.render_history(kept)}"
            return Prompt(self.messages(system, rendered, question), left_out)

        return build

    def with_evidence(self, system: str, evidence: Sequence[EvidenceSpan], *parts: str) -> Build:
        """Builds a prompt with as much of the evidence as fits, the most relevant first."""

        def build(budget: int | None) -> Prompt:
            positions, left_out = fitting.fit_evidence(
                evidence, data_budget(budget, system, *parts)
            )
            shown = prompts.render_evidence(evidence, positions)
            return Prompt(self.messages(system, *parts, shown), left_out)

        return build
