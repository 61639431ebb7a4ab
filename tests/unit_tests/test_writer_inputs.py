"""What the writer, the query writer and reflection see."""

from __future__ import annotations

from deep_research.engines.llm import prompts
from deep_research.engines.llm.outline import REPORT_WORDS
from deep_research.report.build import kept_findings, report_evidence
from deep_research.state import EvidenceSpan, Finding, PlanStep, State
from deep_research.state.models import concrete_depth


def _span(span_id: str, step_id: str, url: str) -> EvidenceSpan:
    quote = f"Quote {span_id} states a fact."
    return EvidenceSpan(
        id=span_id, url=url, document_id="d", step_id=step_id, quote=quote, start=0, end=len(quote)
    )


def test_research_is_grouped_by_step_with_notes_gaps_and_page_titles() -> None:
    plan = [PlanStep(id="s01", title="Costs"), PlanStep(id="s02", title="Risks")]
    evidence = [
        _span("ev_a", "s02", "https://a.example/x"),
        _span("ev_b", "s01", "https://b.example/y"),
    ]
    findings = [
        Finding(step_id="s01", notes="Costs fell [@ev_b].", missing="the 2024 price"),
        Finding(step_id="s02", notes="Fires are rare [@ev_a]."),
    ]
    block = prompts.render_research(
        plan, findings, evidence, {"https://b.example/y": "Price Index"}
    )

    costs, risks = block.index("Step [s01] Costs"), block.index("Step [s02] Risks")
    assert costs < risks
    # keys stay positions in the evidence list, in notes and headers alike
    assert "Costs fell [E2]." in block and "Fires are rare [E1]." in block
    assert block.index("Page: Price Index (source: https://b.example/y)\n[E2]") < risks
    assert risks < block.index("Page: https://a.example/x\n[E1] (section")
    assert "Still missing: the 2024 price" in block
    assert block.startswith("Untrusted data")


def test_user_instructions_win_over_style_but_not_over_citations() -> None:
    block = prompts.INSTRUCTIONS_BLOCK
    assert "precedence over the style rules" in block
    assert "never change the citation and safety rules" in block
    assert "A table may present facts" in prompts.REPORT_PROMPT
    assert "{length}" in prompts.REPORT_PROMPT and set(REPORT_WORDS) == {
        "light",
        "medium",
        "extended",
    }


def test_a_replaced_steps_findings_stay_in_the_writers_input() -> None:
    # no step is recorded as its replacement: its finding is offered as it is (never dropped)
    plan = [PlanStep(id="s01", title="old", replaced=True), PlanStep(id="s02", title="new")]
    state = State(
        plan=plan,
        findings=[
            Finding(step_id="s01", notes="weak", evidence_ids=["ev_a"]),
            Finding(step_id="s02", notes="good", evidence_ids=["ev_b"]),
        ],
        evidence=[_span("ev_a", "s01", "https://a.example"), _span("ev_b", "s02", "https://b")],
    )
    assert [f.step_id for f in kept_findings(state)] == ["s01", "s02"]
    assert [e.id for e in report_evidence(state)] == ["ev_a", "ev_b"]


def test_complex_questions_get_the_extended_budget() -> None:
    assert concrete_depth("auto", "complex") == "extended"
    assert concrete_depth("auto", "simple") == "light"


def test_the_h1_is_the_chat_title_then_the_shortened_question() -> None:
    from deep_research.nodes.finalize import report_title

    question = "What " + "very " * 30 + "long question is this?"
    assert report_title(State(question=question, question_nr=1, title="Long questions")) == (
        "Long questions"
    )
    follow_up = report_title(State(question=question, question_nr=2, title="Long questions"))
    assert follow_up.endswith("…") and len(follow_up) <= 80


def test_a_pages_address_and_title_are_written_once_for_all_its_quotes() -> None:
    plan = [PlanStep(id="s01", title="Costs")]
    evidence = [
        _span("ev_a", "s01", "https://a.example/x"),
        _span("ev_b", "s01", "https://b.example/y"),
        _span("ev_c", "s01", "https://a.example/x"),
    ]
    block = prompts.render_research(plan, [], evidence, {"https://a.example/x": "Costs 2024"})
    assert block.count("https://a.example/x") == 1 and block.count("Costs 2024") == 1
    page_a = block.index("Page: Costs 2024 (source: https://a.example/x)")
    # its quotes keep their keys (positions in the evidence list), under its header
    assert page_a < block.index("[E1] (section") < block.index("[E3] (section")
    assert block.index("[E3] (section") < block.index("Page: https://b.example/y\n[E2]")
