"""Evidence selection ranks on the step's terms; the names a question asks about."""

from __future__ import annotations

from deep_research.sources.evidence import abbreviations, select_evidence
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id
from deep_research.text.words import subject_names

PAGES = {
    "file:///corpus/second-life.md": (
        "# Second life\n\nThe history of each used pack is not always known to fire officials. "
        "Recyclers keep a timeline of every pack they receive from carmakers."
    ),
    "file:///corpus/hornsdale.md": (
        "# Hornsdale\n\nThe history of Hornsdale Power Reserve began with a tender in 2017. "
        "Its timeline includes an expansion that was completed in 2020."
    ),
}


def _documents() -> list[Document]:
    return [
        Document(id=stable_id("doc", text), url=url, title=url, text=text)
        for url, text in PAGES.items()
    ]


def test_the_step_terms_decide_not_the_question_s_other_terms() -> None:
    step = PlanStep(id="s02", title="History and timeline", intent="Dates and milestones")
    spans = select_evidence(_documents(), step, ["history timeline"], limit=4)
    assert {s.url for s in spans} == set(PAGES)


def test_names_are_runs_of_capitalised_words() -> None:
    """The names a question asks about, which conflict detection keeps to."""
    assert subject_names("How do LFP and NMC batteries compare at Red Rock Station?") == [
        ["lfp"],
        ["nmc"],
        ["red", "rock", "station"],
    ]
    assert subject_names("What are the fire risks of grid batteries?") == []


def test_a_sentence_naming_the_subject_by_its_abbreviation_is_on_it() -> None:
    # the SQLite page on write-ahead logging calls it "WAL" in every sentence
    text = (
        "# Overview\n\nA reader may see a different snapshot than the one it started with. "
        "WAL is significantly faster in most scenarios."
    )
    page = Document(
        id=stable_id("doc", text),
        url="file:///corpus/wal.html",
        title="Write-Ahead Logging",
        text=text,
    )
    step = PlanStep(id="s01", title="advantages of write-ahead logging")
    spans = select_evidence([page], step, ["write-ahead logging advantages"], limit=1)
    assert [s.quote for s in spans] == ["WAL is significantly faster in most scenarios."]
    assert abbreviations("write-ahead logging", []) == []  # only what a page spells so
