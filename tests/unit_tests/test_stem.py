"""The stemmer gives a word and its inflected forms one stem, so they match in ranking."""

from __future__ import annotations

import pytest

from deep_research.sources.evidence import select_evidence
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id
from deep_research.text import content_tokens, stem


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


@pytest.mark.parametrize("pair", ["rebase merge", "storage store", "use us", "kWh kw", "2020 202"])
def test_different_words_keep_different_stems(pair: str) -> None:
    first, second = pair.split()
    assert stem(first) != stem(second)


def test_a_step_about_a_rebase_finds_what_is_rebased() -> None:
    text = (
        "# Rebasing\n\nThe commits of the branch are rebased one at a time onto the new base. "
        "A merge records both histories in a new commit instead."
    )
    document = Document(id=stable_id("doc", text), url="file:///c/rebase.md", title="", text=text)
    step = PlanStep(id="s01", title="What happens to commits in a rebase")
    spans = select_evidence(
        [document], step, [step.title], topic=content_tokens(step.title), question=step.title
    )
    assert spans
    assert "are rebased one at a time" in spans[0].quote
