"""Evidence selection prefers the kind of figure asked for, and keeps facets on the subject."""

from __future__ import annotations

from deep_research.sources.evidence import answer_kinds, select_evidence, subject_names
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id
from deep_research.text import content_tokens


def _documents(pages: dict[str, str]) -> list[Document]:
    return [
        Document(id=stable_id("doc", text), url=url, title=url, text=text)
        for url, text in pages.items()
    ]


FARM = {
    "file:///corpus/farm.md": (
        "# Brightwater Farm\n\nThe Brightwater wind farm expansion was approved by the state. "
        "The Brightwater wind farm expansion received A$12 million from the state. "
        "The Brightwater wind farm expansion added towers to the eastern ridge. "
        "The Brightwater wind farm expansion began operating in 2021 after delays."
    ),
    "file:///corpus/other.md": (
        "# Other\n\nWind turbines convert the energy of moving air into electricity. "
        "Offshore wind sites have steadier winds than most sites on land. "
        "Turbine blades are made of glass fibre composites and resin. "
        "Storage developers often pair batteries with solar farms in dry regions."
    ),
}


def _select(question: str, step: PlanStep, pages: dict[str, str]) -> list[str]:
    spans = select_evidence(
        _documents(pages),
        step,
        [step.title],
        limit=6,
        topic=content_tokens(question),
        question=question,
    )
    return [s.quote for s in spans]


def test_answer_kinds_follow_the_question_cue() -> None:
    assert "money" in answer_kinds("What did the plant cost")
    assert "date" in answer_kinds("When was the plant opened")
    assert "energy" in answer_kinds("How large is the plant")
    assert not answer_kinds("Why do plants fail")


def test_a_money_question_prefers_a_currency_amount() -> None:
    question = "What funding did the Brightwater wind farm expansion get?"
    step = PlanStep(id="s01", title=question.rstrip("?"), intent=question)
    quotes = _select(question, step, FARM)
    assert "A$12 million" in quotes[0]


def test_a_date_question_prefers_a_year() -> None:
    question = "When did the Brightwater wind farm expansion start?"
    step = PlanStep(id="s01", title=question.rstrip("?"), intent=question)
    quotes = _select(question, step, FARM)
    assert "2021" in quotes[0]


def test_a_facet_of_a_named_subject_quotes_only_sentences_naming_it() -> None:
    question = "What did the Brightwater wind farm cost?"
    step = PlanStep(id="s03", title="How it works", intent="Mechanisms: brightwater wind farm")
    quotes = _select(question, step, FARM)
    assert quotes
    assert all("Brightwater" in q for q in quotes)


def test_a_facet_with_no_sentence_about_the_subject_selects_nothing() -> None:
    question = "What did the Brightwater wind farm cost?"
    step = PlanStep(id="s03", title="How it works", intent="Mechanisms: brightwater wind farm")
    pages = {"file:///corpus/other.md": FARM["file:///corpus/other.md"]}
    assert _select(question, step, pages) == []


def test_a_broad_question_still_finds_facet_evidence() -> None:
    question = "What are the risks of wind turbines?"
    step = PlanStep(id="s03", title="How it works", intent="Mechanisms: risks wind turbines")
    quotes = _select(question, step, FARM)
    assert quotes


def test_names_are_runs_of_capitalised_words() -> None:
    assert subject_names("How do LFP and NMC batteries compare at Red Rock Station?") == [
        ["lfp"],
        ["nmc"],
        ["red", "rock", "station"],
    ]
    assert subject_names("What are the fire risks of grid batteries?") == []
