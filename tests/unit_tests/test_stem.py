"""The stemmer gives a word and its inflected forms one stem, so they match in ranking."""

from __future__ import annotations

import pytest

from deep_research.sources.evidence import select_evidence
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id
from deep_research.text.words import stem
from deep_research.verification.alignment import words


@pytest.mark.parametrize(
    "forms",
    [
        "rebase rebased rebases rebasing",
        "fire fires fired firing",
        "price prices priced pricing",
        "cause causes caused causing",
        "charge charges charged charging",
        "agree agrees agreed agreeing",
        "free frees freed freeing",
        "loss losses",
        "class classes",
        "box boxes",
        "battery batteries",
        "stash stashes stashed stashing",
        "coût coûte coûté coûtées",
    ],
)
def test_a_word_and_its_forms_stem_alike(forms: str) -> None:
    assert len({stem(word) for word in forms.split()}) == 1, [stem(w) for w in forms.split()]


@pytest.mark.parametrize(
    "forms",
    [
        "commit commits committed committing",
        "stop stops stopped stopping",
        "plan plans planned planning",
        "refer refers referred referring",
        "program programs programmed programming",
    ],
)
def test_a_consonant_doubled_before_ed_or_ing_is_undoubled(forms: str) -> None:
    assert len({stem(word) for word in forms.split()}) == 1, [stem(w) for w in forms.split()]


@pytest.mark.parametrize(
    ("forms", "expected"),
    [
        ("add adds added adding", "add"),  # a stem of three letters keeps its pair
        ("skill skills skilled", "skill"),  # l, s, f and z are not undoubled
        ("fall falls falling", "fall"),
        ("pass passes passed passing", "pass"),
        ("stuff stuffs stuffed", "stuff"),
        ("buzz buzzed buzzing", "buzz"),
    ],
)
def test_a_word_ending_in_a_double_consonant_keeps_it(forms: str, expected: str) -> None:
    assert [stem(word) for word in forms.split()] == [expected] * len(forms.split())


@pytest.mark.parametrize(
    "forms",
    [
        "supply supplies supplied supplying",
        "study studies studied studying",
        "apply applies applied applying",
        "city cities",
        "movie movies",
    ],
)
def test_y_ies_and_ied_stem_alike(forms: str) -> None:
    assert len({stem(word) for word in forms.split()}) == 1, [stem(w) for w in forms.split()]


@pytest.mark.parametrize("forms", ["base bases based basing", "see sees seeing", "use uses"])
def test_a_short_word_and_its_forms_stem_alike(forms: str) -> None:
    assert len({stem(word) for word in forms.split()}) == 1, [stem(w) for w in forms.split()]


@pytest.mark.parametrize(
    "word", ["bed", "red", "need", "seed", "species", "series", "news", "play", "employ"]
)
def test_a_word_that_only_looks_inflected_stems_to_itself(word: str) -> None:
    assert stem(word) == word


@pytest.mark.parametrize(
    "pair",
    [
        "rebase merge",
        "storage store",
        "use us",
        "used user",
        "using user",
        "news new",
        "added ad",
        "employee employ",
        "kWh kw",
        "2020 202",
    ],
)
def test_different_words_keep_different_stems(pair: str) -> None:
    first, second = pair.split()
    assert stem(first) != stem(second)


def test_the_verifier_matches_a_claims_words_in_any_form() -> None:
    claim = words("The utility supplied power and committed to the plans it released")
    evidence = words("The utility supplies power, commits to planned work and releases it")
    assert claim <= evidence, claim - evidence


def test_a_step_about_a_rebase_finds_what_is_rebased() -> None:
    text = (
        "# Rebasing\n\nThe commits of the branch are rebased one at a time onto the new base. "
        "A merge records both histories in a new commit instead."
    )
    document = Document(id=stable_id("doc", text), url="file:///c/rebase.md", title="", text=text)
    step = PlanStep(id="s01", title="What happens to commits in a rebase")
    spans = select_evidence([document], step, [step.title])
    assert spans
    assert "are rebased one at a time" in spans[0].quote
