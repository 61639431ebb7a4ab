"""Structured outputs of the reasoning engines.

These are not graph state. Their field descriptions are part of the prompt: the LLM engine
sends them as function schemas, and the offline engine fills the same shapes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from deep_research.state.models import CheckedBy, Reason, Requirements, Verdict

TITLE_CHARS = 80
"""Longest chat title."""


class ClarifyDecision(BaseModel):
    """Whether the request needs a clarifying question before research."""

    needs_clarification: bool = Field(
        description="True only if the request is too ambiguous to research without asking."
    )
    question: str = Field(
        default="", description="One short clarifying question; empty when none is needed."
    )


class ChatTitle(BaseModel):
    """A short title for a chat, written from its first question."""

    title: str = Field(
        min_length=1,
        max_length=TITLE_CHARS,
        description=(
            "A few words naming the subject, in the language of the question; "
            "no quotes, no final period."
        ),
    )


class StepDraft(BaseModel):
    """One research step as proposed by the planner."""

    title: str = Field(description="A short, specific title; also usable as a search query.")
    intent: str = Field(default="", description="What this step must find out.")
    evidence_needed: str = Field(
        default="", description="What evidence (figures, dates, named sources) would settle it."
    )


class ResearchPlan(BaseModel):
    """A research brief, the question's requirements and a plan of independent steps."""

    brief: str = Field(description="Two or three sentences restating what the report must answer.")
    complexity: Literal["simple", "moderate", "complex"] = Field(
        default="moderate", description="How much research the question needs."
    )
    requirements: Requirements = Field(
        default_factory=Requirements,
        description="What the question explicitly asks for; the report is outlined from it.",
    )
    steps: list[StepDraft] = Field(
        description="Independent research steps, most important first, no overlap."
    )


class SearchQueries(BaseModel):
    """Search queries for one research step."""

    queries: list[str] = Field(
        description="Distinct keyword queries, each different from the ones already issued."
    )


class StepNotes(BaseModel):
    """A researcher's notes on one step, grounded in the evidence it was shown."""

    notes: str = Field(description="What the evidence establishes, with [E#] citations.")
    sufficient: bool = Field(description="True if the evidence answers the step well enough.")
    missing: str = Field(
        default="",
        description="What the step still lacks (figures, dates, sources); empty when nothing.",
    )


class PickedQuote(BaseModel):
    """One quote a researcher picked from the passages it was shown.

    A model names the quote by its sentences' numbers (the engine takes their text from the
    passage, so no quote is miscopied and the reply is short); a quote copied verbatim, as
    models were asked before, is accepted instead. The engine fills ``quote`` either way.
    """

    passage: str = Field(description="The key (P#) of the passage picked from.")
    sentences: str = Field(
        default="",
        description=(
            "The numbers of one to three consecutive sentences of that passage that answer "
            "the step, as shown before them: 's4', or 's4-s6'."
        ),
    )
    quote: str = Field(
        default="",
        description=(
            "Leave empty: the sentences' numbers say which text it is. (A quote copied "
            "exactly from the passage is accepted instead of numbers.)"
        ),
    )
    relevance: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="How directly the quote answers the step: 1 states the answer, 0.3 helps.",
    )


class EvidencePicks(BaseModel):
    """The evidence a researcher picked for one step."""

    quotes: list[PickedQuote] = Field(
        default_factory=list,
        description=(
            "Every pick that answers part of the step, best first: as many as the passages "
            "hold, none when they hold nothing relevant."
        ),
    )


class Reflection(BaseModel):
    """The decision after a research round."""

    decision: Literal["continue", "adjust", "complete"] = Field(
        description=(
            "continue: add steps for gaps; adjust: replace weak steps with reworded ones; "
            "complete: the findings answer the question."
        )
    )
    reasoning: str = Field(default="", description="One or two sentences on why.")
    new_steps: list[StepDraft] = Field(
        default_factory=list, description="Steps to research next (continue or adjust)."
    )
    replaces: list[str] = Field(
        default_factory=list, description="Ids of the steps that adjusted steps replace."
    )
    unmet: list[str] = Field(
        default_factory=list,
        description=(
            "The items of the checklist the findings do not meet yet, one each, in the "
            "question's terms; empty when all are met."
        ),
    )


class ClaimVerdict(BaseModel):
    """The verdict on one claim against the evidence shown with it."""

    claim_id: str = Field(description="The id of the claim judged.")
    verdict: Verdict = Field(
        description=(
            "SUPPORTED: the evidence states it; PARTIAL: only part is stated; UNSUPPORTED: "
            "the evidence does not state it; CONTRADICTED: the evidence states otherwise."
        )
    )
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in the verdict, 0 to 1.")
    reasoning: str = Field(default="", description="One short sentence.")
    evidence_key: str | None = Field(
        default=None, description="The key (E#) of the evidence the verdict relies on."
    )
    quote: str | None = Field(
        default=None,
        description=(
            "The shortest passage of that evidence the verdict relies on, copied verbatim "
            "(one sentence or less)."
        ),
    )
    reason: SkipJsonSchema[Reason | None] = None
    """The verifier's reason as a code with its values, when the offline checker or the
    figure rule wrote :attr:`reasoning` (set by the engine, never by the model)."""
    checked_by: SkipJsonSchema[CheckedBy | None] = None
    """Set by the engine, never by the model (it is not in the schema the model sees):
    ``model``, ``offline``, or ``fallback`` for the offline checker standing in for a model
    that gave no usable verdict."""


class VerdictBatch(BaseModel):
    """Verdicts for a batch of claims, one per claim."""

    verdicts: list[ClaimVerdict]


class Rewrite(BaseModel):
    """A revised claim, or its removal."""

    text: str = Field(
        description="The corrected or hedged sentence, without citation markers; empty to remove."
    )
    evidence_key: str | None = Field(
        default=None, description="The key (E#) of the evidence the new sentence relies on."
    )


class LimitationDraft(BaseModel):
    """One limit of a report, as the engine states it."""

    kind: Literal["uncovered", "conflict", "other"] = Field(
        description=(
            "uncovered: a part of the question the report does not answer; conflict: sources "
            "that disagree (cite both sides); other: another caveat a reader must know."
        )
    )
    text: str = Field(
        description=(
            "One sentence stating the limit. A conflict names both figures or statements "
            "and cites each side with its key, [E#][E#]."
        )
    )


PartStatus = Literal["answered", "partly", "not_answered"]
"""How far a report answers a part of the question."""


class PartAnswer(BaseModel):
    """Whether the report's claims answer one part of the question, and which claims do."""

    part: str = Field(description="The part of the question, copied as listed.")
    status: PartStatus = Field(
        description=(
            "answered: the report's claims state the answer this part asks for (the figure, "
            "the name, the steps, the yes or no, the cause); partly: they bear on it but leave "
            "what it asks for unstated; not_answered: they do not address it."
        )
    )
    evidence_keys: list[str] = Field(
        default_factory=list,
        description=(
            "The keys ([E#]) cited by the report's sentences that answer it; empty when "
            "not_answered."
        ),
    )


class ReportAssessment(BaseModel):
    """A summary of a finished report and the limits a reader must know."""

    summary: str = Field(
        description=(
            "Two or three sentences answering the question from what the report states, "
            "keeping its [E#] citations; no new facts."
        )
    )
    limitations: list[LimitationDraft] = Field(
        default_factory=list,
        description=(
            "One item per uncovered part and per conflict listed, then any other part of the "
            "question the report leaves unanswered; empty when there is none."
        ),
    )
    parts: list[PartAnswer] = Field(
        default_factory=list,
        description="One judgement per part of the question listed, in the order listed.",
    )
