"""The docqa section's LLM path on the strong-model stand-in (bench/sim/strong.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.sections import docqa
from bench.sim import strong
from deep_research.sources.local import LocalCorpus

PAGES = {
    "stash.md": (
        "# git stash\n\n"
        "The git stash command saves local modifications and reverts the working tree.\n\n"
        "Use git stash pop to restore the stashed changes into the working tree.\n\n"
        "## History\n\n"
        "Cherries ripen in June and are picked by hand.\n"
    ),
    "bisect.md": (
        "# git bisect\n\n"
        "The git bisect command uses a binary search to find the commit that introduced a bug.\n"
    ),
}

ITEM = {
    "question": "What does git stash do, and how are stashed changes restored?",
    "pages": ["stash.md"],
    "facts": ["saves local modifications", "git stash pop"],
}


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in PAGES.items():
        (root / name).write_text(text, encoding="utf-8")
    return LocalCorpus(root, tmp_path / "index.sqlite")


def test_the_strong_row_runs_the_llm_path_on_a_tiny_corpus(corpus: LocalCorpus) -> None:
    row = asyncio.run(docqa._measure(corpus, ITEM, "strong"))
    assert row["answer_page_read"] and row["recall_pages"] == 1.0
    # every key fact the page holds is picked, located, handed to the writer and written
    assert row["facts_in_pages"] == row["facts_in_pages_to_writer"] == 2
    assert row["recall_evidence"] == row["recall_report"] == 1.0
    assert row["quotes"] > 0 and row["dropped"] == 0 and row["evidence_left_out"] == 0
    assert row["pick_tokens"] > 0  # the stand-in reports its usage
    summary = docqa._summary([row])
    assert summary["pages_to_writer"] == 1.0


def test_the_stand_in_never_reads_the_key_facts(
    corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facts listed for a question change nothing the stand-in is sent: only the score."""
    engines: list[strong.StrongRun] = []

    class Recorded(strong.StrongRun):
        def __init__(self) -> None:
            super().__init__()
            engines.append(self)

    monkeypatch.setattr(docqa, "StrongRun", Recorded)
    first = asyncio.run(docqa._measure(corpus, ITEM, "strong"))
    other = asyncio.run(docqa._measure(corpus, {**ITEM, "facts": ["ripen in june"]}, "strong"))
    assert len(engines) == 2
    sent = [engine.stand_in.written_from for engine in engines]
    assert sent[0] and sent[0] == sent[1]
    assert first["quotes"] == other["quotes"] and first["sections"] == other["sections"]
    # only the score moves: the cherry sentence shares no term with the question
    assert other["recall_pages"] == 1.0 and other["recall_evidence"] == 0.0


def test_the_stand_in_quotes_sentences_sharing_a_term_and_no_others() -> None:
    prompt = (
        "Question: How are stashed changes restored?\n\n"
        "Research step:\n[s1] Restoring a stash\n\n"
        "Untrusted data from the web or the corpus follows (passages).\n"
        "Page: stash.md\n"
        "[P1] (section: git stash)\n"
        "> Saving work is quick. Use git stash pop to restore changes.\n"
        "> Cherries ripen in June.\n"
        "> # Restore\n"
        "> A stash is restored onto the current branch.\n"
    )
    quotes = [q["quote"] for q in strong.pick(prompt)["quotes"]]
    # the heading between two picked sentences ends the run: a quote is contiguous text
    assert quotes == [
        "Use git stash pop to restore changes.",
        "A stash is restored onto the current branch.",
    ]
    notes = strong.notes("[E1] (section: x)\n> First one here. Second.\n[E2] (section: y)\n> Two")
    assert notes["notes"] == "First one here [E1]. Two [E2]."


def test_the_stand_in_writes_every_quote_it_is_handed_under_its_step() -> None:
    prompt = (
        "Question: q\n\n"
        "Untrusted data follows (research).\n"
        "### Step [s1] Saving\nNotes:\n> Saved [E1].\nEvidence:\nPage: a.md\n"
        "[E1] (section: none)\n> Stash saves work.\n"
        "### Step [s2] Restoring\nNotes:\n> none\nEvidence:\nPage: a.md\n"
        "[E2] (section: none)\n> Pop restores it\n"
    )
    written = strong.report(prompt)
    assert (
        written == "## Saving\n\nStash saves work [E1].\n\n## Restoring\n\nPop restores it [E2].\n"
    )
    assert strong.writer_quotes(prompt) == ["Stash saves work.", "Pop restores it"]
