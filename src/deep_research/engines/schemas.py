"""Structured outputs of the reasoning engines.

These are not graph state. Their field descriptions are part of the prompt: the LLM engine
sends them as function schemas, and the offline engine fills the same shapes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from deep_research.state.models import Verdict

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
    """A research brief and a plan of independent steps."""

    brief: str = Field(description="Two or three sentences restating what the report must answer.")
    complexity: Literal["simple", "moderate", "complex"] = Field(
        default="moderate", description="How much research the question needs."
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
