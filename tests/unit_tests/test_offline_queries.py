"""The offline engine's plans keep every part of a question, and a second search differs."""

from __future__ import annotations

from deep_research.engines import OfflineEngine
from deep_research.engines.offline.engine import feedback_terms
from deep_research.state import Finding, PlanStep


async def test_a_short_second_part_of_a_question_is_a_step_of_its_own() -> None:
    question = "What is a partial index, and why would one use it?"
    plan = (await OfflineEngine().plan(question, [], 8)).value
    assert [s.title for s in plan.steps] == ["What is a partial index", "why would one use it"]


def test_feedback_terms_are_words_the_evidence_repeats_that_were_not_searched() -> None:
    notes = (
        "WAL is significantly faster in most scenarios [E1]. Readers do not block writers "
        "in WAL mode [E2]. The WAL file grows until a checkpoint [E3]."
    )
    assert feedback_terms(notes, ["write ahead logging"]) == ["wal"]
    assert feedback_terms(notes, ["wal logging"]) == []  # already searched with: nothing new


async def test_a_second_pass_searches_first_with_the_words_the_evidence_repeats() -> None:
    step = PlanStep(id="s01", title="write ahead logging")
    finding = Finding(
        step_id="s01",
        notes="WAL is faster [E1]. WAL readers do not block writers [E2].",
        sufficient=False,
    )
    queries = (
        await OfflineEngine().queries("Why use write ahead logging?", step, [], 2, finding=finding)
    ).value
    assert queries[0] == "write ahead logging wal"


async def test_a_thin_step_is_broadened_with_new_words_not_a_subset_of_its_own() -> None:
    plan = [PlanStep(id="s01", title="advantages of write ahead logging")]
    finding = Finding(
        step_id="s01", notes="WAL is faster [E1]. WAL readers wait less [E2].", sufficient=False
    )
    reply = (await OfflineEngine().reflect("Why WAL?", plan, [finding], 2)).value
    assert reply.decision == "adjust"
    assert reply.new_steps[0].title == "advantages write ahead logging wal"
    assert reply.new_steps[0].intent == "advantages of write ahead logging"
