"""A step that names the question's subject keeps its evidence on that subject.

Off-topic sentences that share the step's other words ("caused", "fire", "cost") are not
quoted under its heading, while a sentence that states the answer without the name (by a
pronoun, a short form, or because its page or section is about the subject) still is.
"""

from __future__ import annotations

from deep_research.sources.evidence import name_anchors, select_evidence, subject_names
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id
from deep_research.text import content_tokens

KOREA_QUESTION = "What caused the South Korea ESS fires?"

FIRES = {
    "file:///c/south-korea.md": (
        "# South Korea's Energy Storage Fire Crisis\n\n"
        "The country built one of the fastest-growing storage markets in the late 2010s. "
        "The committee blamed poor battery protection and faulty installation for the fires. "
        "Operators suspended more than 500 sites while the causes were investigated."
    ),
    "file:///c/notable-fires.md": (
        "# Notable Grid Battery Fires\n\n"
        "## South Korea, 2017 to 2019\n\n"
        "An investigation found that weak battery protection caused most of the 23 fires.\n\n"
        "## Victorian Big Battery, 2021\n\n"
        "Investigators reported that a leak in a Megapack's cooling system caused arcing, "
        "which started the fire. The fire caused the loss of two Megapack units."
    ),
    "file:///c/flow.md": (
        "# Flow Batteries\n\n"
        "Iron flow batteries, developed by ESS Inc in Oregon, use iron, salt and water. "
        "Flow batteries caused no fires at the sites studied."
    ),
}

HORNSDALE_QUESTION = "What did Hornsdale Power Reserve cost?"

COSTS = {
    "file:///c/hornsdale.md": (
        "# Hornsdale Power Reserve\n\n"
        "Neoen built the battery near Jamestown in 2017. "
        "The expansion cost A$71 million and added 50 MW of power."
    ),
    "file:///c/big-batteries.md": (
        "# Big Batteries in Australia\n\n"
        "Hornsdale Power Reserve was expanded in 2020. It cost A$8 million more than planned. "
        "The Victorian Big Battery cost A$160 million to build."
    ),
    "file:///c/grid-forming.md": (
        "# Grid-Forming Inverters\n\n"
        "In December 2022 ARENA announced A$176 million in funding for eight power batteries. "
        "Each battery will reserve power for grid-forming services at a cost."
    ),
}


def _documents(pages: dict[str, str]) -> list[Document]:
    return [
        Document(id=stable_id("doc", text), url=url, title=text.split("\n")[0][2:], text=text)
        for url, text in pages.items()
    ]


def _quotes(question: str, pages: dict[str, str]) -> dict[str, list[str]]:
    """The quotes selected for the step that asks ``question``, by page."""
    title = question.rstrip("?")
    step = PlanStep(id="s01", title=title, intent=title)
    spans = select_evidence(
        _documents(pages),
        step,
        [title],
        limit=8,
        topic=content_tokens(question),
        question=question,
    )
    found: dict[str, list[str]] = {}
    for span in spans:
        found.setdefault(span.url, []).append(span.quote)
    return found


def test_a_sentence_about_another_fire_is_not_quoted_for_the_named_one() -> None:
    quotes = _quotes(KOREA_QUESTION, FIRES)
    everything = " ".join(q for page in quotes.values() for q in page)
    assert "Megapack" not in everything  # shares "caused" and "fire", about Victoria
    assert "ESS Inc" not in everything  # shares "ESS", about a company
    assert "file:///c/flow.md" not in quotes


def test_sentences_that_do_not_name_the_subject_are_kept_where_it_is_their_topic() -> None:
    quotes = _quotes(KOREA_QUESTION, FIRES)
    korea_page = " ".join(quotes["file:///c/south-korea.md"])
    # the page's title names South Korea (as a possessive): its sentences are about it
    assert "The committee blamed poor battery protection" in korea_page
    # the section heading names South Korea
    assert any("caused most of the 23 fires" in q for q in quotes["file:///c/notable-fires.md"])


def test_a_cost_step_quotes_the_subject_s_costs_not_another_project_s() -> None:
    quotes = _quotes(HORNSDALE_QUESTION, COSTS)
    everything = " ".join(q for page in quotes.values() for q in page)
    assert "A$176 million" not in everything  # funding for other batteries
    assert "A$160 million" not in everything  # another battery's cost, on a page naming both
    assert "The expansion cost A$71 million" in everything  # the page is about Hornsdale
    assert "It cost A$8 million more than planned." in everything  # "It" is Hornsdale


def test_the_anchor_of_a_name_is_a_term_that_page_headings_give_it() -> None:
    names = subject_names(KOREA_QUESTION)
    assert names == [["south", "korea", "ess"]]
    texts = [{"south", "korea", "fir"}, {"south", "korea"}, {"ess", "iron"}, {"south"}]
    # by rarity alone, "ess" (one page, a company's name) would mark the name
    assert name_anchors(names, texts, []) == ["ess"]
    # a heading that names South Korea shows which of its terms pages use for it
    headings = [set(content_tokens("South Korea, 2017 to 2019"))]
    assert name_anchors(names, texts, headings) == ["korea"]
    # a heading holding a single term of a longer name ("Power Markets") is no evidence
    hornsdale = subject_names(HORNSDALE_QUESTION)
    name, power, reserve = hornsdale[0]
    texts = [{name, power}, {power, reserve}, {power}]
    assert name_anchors(hornsdale, texts, [set(content_tokens("Power Markets"))]) == [name]
