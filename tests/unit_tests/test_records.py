"""Typed records map to exactly the rows they promise: places, roles, and only the set fields."""

from __future__ import annotations

from deep_research.persistence.records import (
    IterationRecord,
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
    SubStepRecord,
    answered_step,
    planned_step,
    searched_step,
)
from deep_research.state import EvidenceSpan, Finding, PlanStep, VerificationSummary

STEP = PlanStep(id="s03", title="Costs", intent="what it cost", round=2)


def test_a_message_kind_fixes_its_place_role_and_clarification_flag() -> None:
    rows = [MessageRecord(kind, "text").columns(question_nr=2) for kind in MessageKind]
    assert [(r["position"], r["role"]) for r in rows] == [
        (8, "user"),
        (9, "assistant"),
        (10, "user"),
        (11, "assistant"),
    ]
    assert [r.get("is_clarification", False) for r in rows] == [False, True, True, False]
    report = MessageRecord(MessageKind.REPORT, "# Report", query_mode="deep_research")
    assert report.columns(1)["query_mode"] == "deep_research"
    assert "query_mode" not in MessageRecord(MessageKind.QUESTION, "q").columns(1)


def test_a_session_update_writes_only_the_columns_it_sets() -> None:
    assert SessionUpdate().columns() == {}
    assert SessionUpdate(status=SessionStatus.INTERRUPTED).columns() == {"status": "interrupted"}
    planned = SessionUpdate(depth="light", plan=[STEP], classification={"mode": "web_search"})
    assert planned.columns() == {
        "depth": "light",
        "plan": [STEP.model_dump(mode="json")],
        "classification": {"mode": "web_search"},
    }
    verified = SessionUpdate(verification=VerificationSummary(supported=2, passes=1))
    assert verified.columns()["verification"]["supported"] == 2
    assert SessionUpdate(plan=[]).columns() == {"plan": []}  # an empty plan is a plan


def test_an_error_is_written_when_given_and_none_clears_it() -> None:
    failed = SessionUpdate(status=SessionStatus.FAILED, error="boom")
    assert failed.columns() == {"status": "failed", "error": "boom"}
    stopped = SessionUpdate(status=SessionStatus.INTERRUPTED, error=None)
    assert stopped.columns() == {"status": "interrupted", "error": None}


def test_iterations_and_sub_steps_update_only_what_they_know() -> None:
    assert IterationRecord(2, steps=["s03"]).columns() == {"iteration_nr": 2, "steps": ["s03"]}
    decided = IterationRecord(2, decision="complete", reasoning="budget reached").columns()
    assert decided == {"iteration_nr": 2, "decision": "complete", "reasoning": "budget reached"}
    key = {"iteration_nr": 2, "sub_step_nr": 3, "step_id": "s03"}
    assert SubStepRecord(STEP).columns() == key
    assert planned_step(STEP).columns() == key | {
        "instructions": "Costs",
        "reasoning": "what it cost",
        "extra_data": STEP.model_dump(),
    }
    assert searched_step(STEP, ["local", "chat"]).columns() == key | {"tool": "search:local+chat"}
    span = EvidenceSpan(
        id="ev_1",
        url="https://a.example/",
        document_id="d",
        step_id="s03",
        quote="Q.",
        start=0,
        end=2,
    )
    finding = Finding(step_id="s03", notes="It cost X [@ev_1].", evidence_ids=["ev_1"])
    answered = answered_step(STEP, finding, [span]).columns()
    assert answered["sub_answer"] == "It cost X [@ev_1]."
    assert answered["cited_docs"] == ["https://a.example/"] and answered["claims"] == ["ev_1"]
    assert "notes" not in answered["extra_data"]


def test_the_report_message_records_the_tools_the_answer_used() -> None:
    from deep_research.persistence.projection import tool_calls
    from deep_research.state import Source, State

    state = State(
        findings=[Finding(step_id="s01", notes="", queries=["lfp cost"], searches=1)],
        sources=[
            Source(url="https://a.example/", title="A", provider="tavily"),
            Source(url="file:///c/b.md", title="B", provider="local"),
        ],
        verification=VerificationSummary(passes=2),
    )
    calls = tool_calls(state)
    assert calls == [
        {
            "name": "search",
            "step_id": "s01",
            "providers": ["local", "tavily"],
            "queries": ["lfp cost"],
        },
        {"name": "verify", "passes": 2},
    ]
    row = MessageRecord(MessageKind.REPORT, "# R", tool_calls=calls).columns(1)
    assert row["tool_calls"] == calls
