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


async def test_a_part_that_names_no_subject_is_searched_with_the_first_parts() -> None:
    # "how long does it last" searched alone found rowids "as long as" their names are free and
    # SQLite's support "until 2050"; with the first part's subject it looks for the database
    question = "How do you create an in-memory SQLite database, and how long does it last?"
    engine = OfflineEngine()
    plan = (await engine.plan(question, [], 8)).value
    first, second = plan.steps[:2]
    assert (first.title, first.intent) == ("How do you create an in-memory SQLite database",) * 2
    assert second.title == "how long does it last"  # its heading stays the part as asked
    assert second.intent == "how long does it last: create memory sqlite database"
    step = PlanStep(id="s02", title=second.title, intent=second.intent)
    queries = (await engine.queries(question, step, [], 2)).value
    assert queries == ["long last create memory sqlite database"]  # never "long last" alone


async def test_a_part_that_names_its_own_subject_is_searched_by_itself() -> None:
    question = "When does the pre-commit hook run, and which options skip the commit hooks?"
    plan = (await OfflineEngine().plan(question, [], 8)).value
    assert [s.intent for s in plan.steps[:2]] == [s.title for s in plan.steps[:2]]


async def test_a_query_of_the_same_words_in_another_order_is_not_searched_again() -> None:
    step = PlanStep(id="s01", title="vacuum full", intent="vacuum full")
    queries = (await OfflineEngine().queries("Vacuum full?", step, ["full vacuum"], 3)).value
    assert "vacuum full" not in queries
    assert all(set(q.split()) != {"vacuum", "full"} for q in queries)


async def test_the_largest_or_how_many_can_is_searched_as_a_maximum() -> None:
    # a manual states limits as maximums: SQLite's limits page was never found by "largest
    # database sqlite hold" nor by "columns table"
    question = (
        "What is the largest database SQLite can hold, and how many columns can one table have?"
    )
    engine = OfflineEngine()
    largest = PlanStep(id="s01", title="What is the largest database SQLite can hold")
    columns = PlanStep(id="s02", title="how many columns can one table have")
    assert (await engine.queries(question, largest, [], 1)).value[0].startswith("maximum ")
    assert (await engine.queries(question, columns, [], 1)).value[0].startswith("maximum ")
    smallest = PlanStep(id="s01", title="What is the smallest page size")
    assert "minimum" in (await engine.queries("?", smallest, [], 1)).value[0]
    plain = PlanStep(id="s01", title="how many requests does ab send")
    assert "maximum" not in " ".join((await engine.queries("?", plain, [], 3)).value)
