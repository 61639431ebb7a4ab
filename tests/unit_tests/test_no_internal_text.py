"""No internal identifier or markup is ever text (issue #44).

A run's evidence keys, ids and hashes must never become a query, a step title, a heading or a
sentence; a page's source markup is not quoted; a reference's title is never punctuation only;
a sentence that points back at what precedes it is quoted after it or not at all.
"""

from __future__ import annotations

import re
import signal
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from deep_research.context import Context
from deep_research.engines import OfflineEngine, Reply
from deep_research.engines.schemas import StepNotes
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.report.build import shown_title
from deep_research.sources import LocalCorpus
from deep_research.sources.evidence import select_windows
from deep_research.state import EvidenceSpan, Passage, PlanStep
from deep_research.text.words import (
    has_markup,
    is_transcript,
    refers_back,
    splits_a_quotation,
    without_ids,
)
from deep_research.verification.citations import MARKER
from tests.fakes import quoted_spans

QUESTION = (
    "How much do residential heat pumps cost to install and how efficient are they in cold "
    "climates?"
)
PAGES = {
    "install-costs.md": (
        "# Installer survey 2023\n\nThe median installed cost of a ducted air-source heat pump "
        "was 14,500 dollars in 2023, according to the national installer survey. The survey "
        "covered 1,200 installations of ducted air-source heat pumps.\n"
    ),
    "tax-credit.md": (
        "# Federal tax credit for heat pumps\n\nHomeowners who install a qualifying heat pump "
        "can claim a federal tax credit of 30 percent, up to 2,000 dollars per year. The "
        "credit applies to equipment that meets the efficiency tier of the program.\n"
    ),
    "cold-climate.md": (
        "# Cold climate performance\n\nModern cold-climate air-source heat pumps keep a "
        "coefficient of performance of about 2 at minus 15 degrees Celsius. Field trials in "
        "Maine found that the units met the full heating load of the homes down to minus 20 "
        "degrees Celsius.\n"
    ),
    "water-heaters.md": (
        "# Heat pump water heaters\n\nA heat pump water heater moves heat from the surrounding "
        "air into the water tank. In cold basements their efficiency is lower because the "
        "surrounding air is colder.\n"
    ),
}
RUN_ID = re.compile(
    r"\b[a-z]{1,4}[ _][0-9a-f]{12}\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12}\b"
)
"""How a run's ids (``ev_7b0ba6937658``) or their hashes would read if they leaked into text."""
ID_FIELD = re.compile(r"(?:ids?|keys?)$|^(?:thread|run|checkpoint)", re.I)
"""Fields whose values are ids by design (``evidenceIds``, ``citationKeys``, ``stepId``)."""


class ThinCost(OfflineEngine):
    """The offline engine, judging the cost step's first round thin, so reflection rewords it."""

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        reply = await super().notes(question, step, evidence)
        if step.round == 1 and "cost" in step.title:
            return Reply(reply.value.model_copy(update={"sufficient": False}), reply.usage)
        return reply


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Every string of ``value`` that is text (not an id field), with the key it stands under."""
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if isinstance(value, dict):
        for k, v in value.items():
            if not ID_FIELD.search(str(k)):
                yield from _strings(v, str(k))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, key)
    elif isinstance(value, str):
        yield key, MARKER.sub(" ", value)  # a marker is the internal form of a citation


async def test_a_run_emits_no_internal_id_as_text(tmp_path: Path) -> None:
    root = tmp_path / "pages"
    root.mkdir()
    for name, text in PAGES.items():
        (root / name).write_text(text, encoding="utf-8")
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")
    graph = build_graph(
        engine=ThinCost(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    events = [
        chunk
        async for chunk in graph.astream(
            {"messages": [HumanMessage(QUESTION)]},
            config,
            context=Context(allow_clarification=False),
            stream_mode="custom",
        )
    ]
    values = (await graph.aget_state(config)).values
    plan = values["plan"]
    assert any(s.replaced for s in plan), "reflection must have reworded the thin cost step"
    leaks = [
        (key, text)
        for key, text in _strings([events, {k: v for k, v in values.items() if k != "messages"}])
        if RUN_ID.search(text)
    ]
    assert not leaks, leaks[:5]
    report = values["report"]
    # every word searched for or printed as a title comes from the question or the pages read
    known = set(re.findall(r"\w+", " ".join([QUESTION, *PAGES.values()]).lower()))
    titled = [
        *(s.title for s in plan),
        *(q for f in values["findings"] for q in f.queries),
        *(s.title for s in report.sections),
    ]
    strangers = {w for t in titled for w in re.findall(r"\w+", t.lower())} - known
    assert not strangers, strangers
    assert "14,500 dollars" in report.markdown


def test_ids_keys_and_hashes_are_blanked_from_words_taken_as_text() -> None:
    notes = "It cost 14,500 dollars [@ev_7b0ba6937658]. It did [E2]. See ev_7b0ba6937658."
    assert not RUN_ID.search(without_ids(notes)) and "[E2]" not in without_ids(notes)
    assert "14,500 dollars" in without_ids(notes)


def _quoted(url: str, text: str, title: str, query: str) -> str:
    """What the evidence picker quotes of the page ``text`` for a step titled ``title``."""
    step = PlanStep(id="s01", title=title)
    return " ".join(w.text for w in select_windows([_passage(url, text)], step, [query]))


def _passage(url: str, text: str) -> Passage:
    return Passage(
        id="p1", url=url, document_id="d", text=text, start=0, end=len(text), score=1.0, clean=True
    )


def test_source_markup_is_never_quoted() -> None:
    assert has_markup("Use :func:`debug`, :func:`info` and the other functions to log.")
    assert has_markup("Read the ``logging.conf`` file first.")
    assert has_markup("See [the guide](https://example.org/guide) for the details.")
    assert has_markup("This is **very** important for the run.")
    assert has_markup("The [[Heat pump]] page covers it in {{convert|5|kW}} units.")
    assert not has_markup("The median cost was 14,500 dollars in 2023 (see the survey).")
    text = (
        "Logging can be configured in code. Call :func:`basicConfig` once before logging. "
        "Each handler writes records to one destination."
    )
    quoted = _quoted(
        "file:///doc/logging.rst.txt",
        text,
        "logging handler configured basicConfig",
        "logging handler",
    )
    assert ":func:" not in quoted and "handler writes records" in quoted


def test_a_json_example_is_never_quoted_as_a_sentence() -> None:
    # mod_md's manual shows the JSON its status handler returns; split into sentences, its
    # "detail": "The certificate ... can be used. reached a report as prose, joined to the
    # sentence before it
    assert has_markup('"type": "progress", "detail": "The certificate has been renewed.')
    assert has_markup('{"count": 3, "ok": true}')
    assert not has_markup('The field "name": it must be unique within one table.')
    assert not has_markup('Set "MaxRequestWorkers" to 150 on a small server.')
    text = (
        "The handler reports its progress as JSON lines.\n"
        '"type": "progress", "detail": "The certificate for the managed domain has been renewed'
        ' successfully and can be used. A graceful server restart now is recommended."\n'
        "A graceful restart loads the renewed certificate without dropping connections."
    )
    quoted = _quoted(
        "file:///doc/mod_md.html",
        text,
        "certificate renewed graceful restart progress",
        "certificate restart",
    )
    assert '"detail"' not in quoted and "type" not in quoted
    assert "now is recommended" not in quoted  # the string's second sentence, and its mark
    assert "graceful restart loads the renewed certificate" in quoted


def test_a_sentence_that_points_back_comes_with_what_it_points_at_or_not_at_all() -> None:
    assert refers_back("Let's start by creating the above configuration file programmatically.")
    assert refers_back("This module defines functions for logging.")
    assert not refers_back("The logging module defines functions for logging.")
    # a sentence opening with a word that draws on the one before (Apache's mod_userdir page,
    # git describe's manual): "therefore" and "otherwise" say nothing alone
    assert refers_back("Therefore, the UserDir directive specifies a directory.")
    assert refers_back("Otherwise, it suffixes the tag name with the number of commits.")
    assert refers_back("This functionality is not supported by mod_userdir.")
    assert not refers_back("It is therefore inappropriate to give direct access.")
    # "this" standing for what was just said, and "such cases" (Apache's and PostgreSQL's pages)
    assert refers_back("This means that Apache httpd will serve any file mapped from an URL.")
    assert refers_back("These defaults should be changed in such cases.")
    assert not refers_back("This directive sets the number of seconds to wait.")  # a heading's
    # after a code block (not a sentence of its line), the sentence is not quoted at all
    text = (
        "Configure a logger with a file handler.\n\n    handler = FileHandler('app.log')\n\n"
        "Let's start by creating the above configuration file programmatically, with a logger."
    )
    passage = _passage("file:///doc/l.html", text)
    step = PlanStep(id="s01", title="configuration file logger programmatically")
    windows = select_windows([passage], step, ["configuration file logger"])
    assert windows and not any("the above" in w.text for w in windows)
    # on the line of the sentence it points at, it is quoted after that sentence
    text = (
        "The logging configuration file names three handlers for the service. The above "
        "configuration file also sets the root logger level to warning."
    )
    passage = _passage("file:///doc/m.html", text)
    windows = select_windows([passage], step, ["root logger level"])
    taking = [w.text for w in windows if "The above" in w.text]
    assert taking and all(t.startswith("The logging configuration file names") for t in taking)


async def test_a_sentence_after_the_one_it_draws_on_is_on_its_subject_like_any_other() -> None:
    """Right after its antecedent, "Otherwise, ..." was counted as on no part's subject, and so
    left out once other on-subject sentences filled the share: the condition without its
    alternative (git describe's manual; a held-out report lost the fact so)."""
    question = "What name does git describe give a commit?"
    pair = (
        "If the tag points to the commit, git describe names the commit by the tag alone. "
        "Otherwise, git describe names the commit by the tag and the number of commits since."
    )
    words = iter(
        """apple banana cherry dune eagle falcon garnet harbor island jungle kettle lantern
        meadow nickel orchard pebble quartz river saddle timber umbrella valley walnut yonder
        zephyr anchor beacon canyon delta ember fjord glacier hollow inlet jasper kiln lagoon
        marsh nectar oasis prairie quiver ridge summit tundra upland vista willow yarrow zenith
        acorn bramble cobalt dahlia fennel granite heather iris juniper kelp lilac mantle nutmeg
        onyx poplar quince raven sierra thistle urchin violet wren yucca zinnia alder birch
        cedar dogwood elm""".split()
    )
    quotes: dict[str, str] = {}
    for n in range(26):  # more on-subject sentences than the section's share, the pair sixth
        if n == 5:
            quotes["ev_pair"] = pair
        quotes[f"ev_{n:02d}"] = (
            f"The name git describe gives a commit can {next(words)} the {next(words)} of "
            f"{next(words)}."
        )
    step = PlanStep(id="s01", title="What name does git describe give a commit", intent="name")
    reply = await OfflineEngine().write_report(question, question, [step], quoted_spans(quotes))
    first, second = (s.strip() for s in pair.split(". Otherwise"))
    assert first in reply.value
    assert f"{first} [E6]. Otherwise{second.removesuffix('.')} [E6]." in reply.value


def test_a_title_is_never_punctuation_only() -> None:
    assert shown_title("=============", "file:///doc/howto/logging.rst.txt") == (
        "file:///doc/howto/logging.rst.txt"
    )
    assert shown_title("Logging HOWTO", "file:///doc/howto/logging.rst.txt") == "Logging HOWTO"


def test_a_chain_of_sentences_pointing_back_ends_when_its_first_antecedent_is_missing() -> None:
    """Each sentence of the line points back, and the first has nothing before it: the window
    takes none of them (before, dropping the first put the second's antecedent back, forever)."""

    def stuck(signum: int, frame: object) -> None:
        raise TimeoutError("select_windows did not return")

    text = (
        "The logging level is set in a configuration file for every run.\n\n"
        "This configuration file is read at start-up by the logging setup. The above "
        "configuration sets the logging level for every handler."
    )
    passage = _passage("file:///doc/n.html", text)
    step = PlanStep(id="s01", title="logging level configuration handler")
    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(5)
    try:
        windows = select_windows([passage], step, ["logging level handler"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert windows and windows[0].text.startswith("The logging level is set")
    assert not any("The above" in w.text or "This configuration" in w.text for w in windows)


def test_a_sentence_split_out_of_a_quotation_is_no_quote() -> None:
    """The second sentence of a JSON string (mod_md's status) carries a closing mark alone."""
    assert splits_a_quotation('A graceful server restart now is recommended."')
    assert splits_a_quotation('He wrote "First thing.')
    assert splits_a_quotation("The \u201ccurly one.")
    assert not splits_a_quotation('Set "ServerName" before the first virtual host.')
    assert not splits_a_quotation('The main supply is a 12" pipe laid in 1931.')
    assert not splits_a_quotation('Legacy VFSes lack the "version 2" shared-memory methods.')
    assert not splits_a_quotation("No quotation marks at all.")


def test_table_rows_run_together_are_never_quoted() -> None:
    # SQLite's file format page: a two-column table of a column's name and what it holds
    text = (
        "The sqlite_stat4 table holds one row per sample of an index.\n"
        "tbl: | The sqlite_stat4.tbl column holds name of the table that owns the index\n"
        "idx: | The sqlite_stat4.idx column holds name of the index that the row describes."
    )
    quoted = _quoted(
        "file:///doc/fileformat2.html",
        text,
        "sqlite_stat4 table column index",
        "sqlite_stat4 column",
    )
    assert " | " not in quoted and "one row per sample" in quoted


def test_a_terminal_session_is_never_quoted_as_prose() -> None:
    # git's manual: an example session, its output and its callouts, read as one "sentence"
    assert is_transcript("Further I know that: $ git show-branch --more=4 master | head .")
    assert is_transcript('$ git commit -m "Commit files in index" <2> $ git add frotz.c <3>')
    assert not is_transcript("The pack cost $ 115 per kWh in 2024.")
    assert not is_transcript("Use git reset --soft HEAD^ to undo the last commit.")
    text = (
        "You can remove the file from the index while keeping your changes with git reset. "
        "$ git reset -- frotz.c <1> $ git commit -m files <2> This keeps it in the tree.\n"
        "The reset command moves the branch head and keeps the working tree as it is."
    )
    quoted = _quoted(
        "file:///doc/git-reset.html",
        text,
        "git reset keep changes working tree",
        "git reset changes",
    )
    assert "$ git" not in quoted and "<1>" not in quoted
    assert "keeps the working tree" in quoted


async def test_a_lead_in_is_written_only_with_what_it_introduces() -> None:
    """SQLite's WAL page: "Advantages include:" was written alone at a paragraph's end, its list
    left out; a lead-in whose next sentence is not written is taken back, and a paragraph never
    ends with one."""
    question = "What are the advantages of WAL mode in SQLite?"
    step = PlanStep(id="s01", title="What are the advantages of WAL mode in SQLite")
    opening = (
        "WAL mode in SQLite is one of two journal modes. SQLite keeps WAL mode once it is set. "
        "WAL mode in SQLite needs shared memory."
    )
    listed = "Advantages of WAL mode include:\n- WAL mode in SQLite is significantly faster."
    alone = "The advantages of WAL mode in SQLite are these:"
    spans = quoted_spans({"ev_a": opening, "ev_b": listed, "ev_c": alone})
    reply = await OfflineEngine().write_report(question, question, [step], spans)
    paragraphs = [p for p in reply.value.split("\n\n") if "[E" in p]
    assert "these:" not in reply.value  # its quote ends with it: nothing follows
    # the fourth sentence of a paragraph, a lead-in: the paragraph goes on with its item
    assert any("include: [E2] WAL mode in SQLite is significantly faster" in p for p in paragraphs)
    assert not any(p.rstrip().endswith((":", ": [E2]")) for p in paragraphs)


async def test_a_sentence_that_only_sends_the_reader_elsewhere_is_not_written() -> None:
    """git's manual: "See also the --amend option to git-commit(1)." and "(See the ... section
    in git-rebase(1) ...)" were claims of a report on undoing a rebase; they state nothing."""
    question = "How do I undo a git rebase?"
    step = PlanStep(id="s01", title="How do I undo a git rebase")
    quote = (
        "To undo a git rebase, reset the branch to ORIG_HEAD with git reset --hard. "
        "See also the --amend option to git-commit(1). "
        '(See the "RECOVERING FROM UPSTREAM REBASE" section in git-rebase(1).) '
        "For more details on undoing a git rebase, see the reflog."
    )
    reply = await OfflineEngine().write_report(
        question, question, [step], quoted_spans({"a": quote})
    )
    assert "reset the branch to ORIG_HEAD" in reply.value
    assert "See also" not in reply.value and "RECOVERING" not in reply.value
    assert "see the reflog" not in reply.value
