"""Plan steps from the engine's drafts: shared by plan, review_plan and reflect."""

from __future__ import annotations

from deep_research.engines.schemas import StepDraft
from deep_research.state import PlanStep


def make_steps(drafts: list[StepDraft], *, first_index: int, round: int) -> list[PlanStep]:
    """Number drafted steps ``s01``, ``s02``... from ``first_index``."""
    return [
        PlanStep(
            id=f"s{first_index + i:02d}",
            title=d.title.strip(),
            intent=d.intent,
            evidence_needed=d.evidence_needed,
            round=round,
        )
        for i, d in enumerate(drafts)
        if d.title.strip()
    ]
