"""Offline evidence selection: BM25 sentence ranking with headings, chosen for diversity."""

from __future__ import annotations

import itertools

import pytest

from deep_research.sources import evidence
from deep_research.sources.evidence import select_evidence
from deep_research.state import Document, PlanStep
from deep_research.state.models import stable_id


def _document(url: str, text: str) -> Document:
    return Document(id=stable_id("doc", text), url=url, title=text.split("\n")[0][2:], text=text)


# each sentence on its own line, so that each is a window of its own
SNAPSHOTS = _document(
    "file:///c/snapshots.md",
    "# Snapshots\n\n"
    "A snapshot records the state of the volume at one moment in time.\n\n"
    "At one moment in time, a snapshot records the state of the volume.\n\n"
    "Restoring a snapshot returns the volume to its recorded state.",
)
STEP = PlanStep(id="s01", title="What does a snapshot record of the volume state")


def test_a_sentence_repeating_one_taken_gives_way_to_one_that_says_something_else() -> None:
    quotes = [s.quote for s in select_evidence([SNAPSHOTS], STEP, [STEP.title], limit=2)]
    assert len(quotes) == 2
    assert "records the state" in quotes[0]
    assert quotes[1].startswith("Restoring a snapshot")  # not the near copy of the first


def test_without_diversity_the_near_copy_would_be_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above holds because of the diversity weight, not by accident of the scores."""
    monkeypatch.setattr(evidence, "DIVERSITY", 0.0)
    quotes = [s.quote for s in select_evidence([SNAPSHOTS], STEP, [STEP.title], limit=2)]
    assert all("records the state" in q for q in quotes)


WAL = _document(
    "file:///c/wal.md",
    "# Write-Ahead Logging\n\n"
    "WAL is significantly faster in most scenarios.\n\n"
    "Readers do not block writers and a writer does not block readers.",
)
JOURNAL = _document(
    "file:///c/journal.md",
    "# Rollback journal\n\n"
    "The rollback journal keeps the original content of changed pages.\n\n"
    "Logging of every change to a separate file is optional in some modes.",
)


def test_a_sentence_under_a_heading_naming_the_subject_is_on_it_without_naming_it() -> None:
    step = PlanStep(id="s01", title="What are the advantages of write-ahead logging")
    quotes = [s.quote for s in select_evidence([JOURNAL, WAL], step, [step.title], limit=3)]
    assert "WAL is significantly faster in most scenarios." in quotes
    assert quotes.index("WAL is significantly faster in most scenarios.") < len(quotes) - 1


def test_without_headings_that_sentence_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence, "HEAD_WEIGHT", 0.0)
    monkeypatch.setattr(evidence, "abbreviations", lambda text, passages: [])  # "WAL" spelled out
    step = PlanStep(id="s01", title="What are the advantages of write-ahead logging")
    quotes = [s.quote for s in select_evidence([JOURNAL, WAL], step, [step.title], limit=3)]
    assert "WAL is significantly faster in most scenarios." not in quotes


def test_a_window_does_not_take_a_sentence_another_window_holds() -> None:
    """The definition before the best sentence is its own window, not lost as a repeat."""
    text = (
        "# Thermal runaway\n\n"
        "Thermal runaway is a chain reaction in which a cell heats itself faster than it cools. "
        "Thermal runaway in a cell is triggered by overcharging, a short circuit or heating of "
        "the cell. Once it begins, it cannot be stopped by cutting the power."
    )
    step = PlanStep(id="s01", title="What triggers thermal runaway in a cell")
    spans = select_evidence([_document("file:///c/runaway.md", text)], step, [step.title])
    quoted = " ".join(s.quote for s in spans)
    assert quoted.count("triggered by overcharging") == 1
    assert "is a chain reaction" in quoted
    starts = sorted((s.start, s.end) for s in spans)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(starts))


# a lead-in ending with a colon, then a list whose items never name the step's subject
KILNS = _document(
    "file:///c/kilns.md",
    "# Electric kilns\n\n"
    "Electric kilns have drawbacks that buyers should weigh before they order one. "
    "The main ones are:\n\n"
    "- The elements wear out after a few hundred firings.\n"
    "- A reduction atmosphere cannot be reached without gas.\n"
    "- Firing large pieces evenly takes a long soak at the top.\n\n"
    "Some examples of kiln shelves are:\n\n"
    "```\nshelf 40 x 40 cm\n```",
)
KILN_STEP = PlanStep(id="s01", title="What drawbacks do electric kilns have")


def test_a_sentence_whose_line_ends_with_a_colon_is_quoted_with_the_list_it_opens() -> None:
    quotes = [s.quote for s in select_evidence([KILNS], KILN_STEP, [KILN_STEP.title])]
    opening = next(q for q in quotes if q.startswith("Electric kilns have drawbacks"))
    assert "The main ones are:" in opening
    assert "The elements wear out after a few hundred firings." in opening
    assert "A reduction atmosphere cannot be reached without gas." in opening
    assert len([s for s in opening.split("\n") if s.startswith("- ")]) == 2  # three sentences
    assert KILNS.text[KILNS.text.index(opening) :].startswith(opening)  # a verbatim slice


def test_a_lead_in_that_nothing_quotable_follows_is_not_quoted() -> None:
    step = PlanStep(id="s01", title="Which examples of kiln shelves are there")
    quotes = [s.quote for s in select_evidence([KILNS], step, [step.title])]
    assert not any(q.rstrip().endswith(":") for q in quotes)
    assert all("Some examples of kiln shelves" not in q for q in quotes)


def test_list_items_are_not_joined_to_a_sentence_that_does_not_introduce_them() -> None:
    text = (
        "# Electric kilns\n\nElectric kilns have drawbacks that buyers should weigh.\n\n"
        "- The elements wear out after a few hundred firings.\n"
    )
    quotes = [s.quote for s in select_evidence([_document("file:///c/k.md", text)], KILN_STEP, [])]
    assert "Electric kilns have drawbacks that buyers should weigh." in quotes


def test_a_window_that_took_a_list_ends_with_the_list() -> None:
    text = (
        "# Electric kilns\n\nElectric kilns have one drawback that buyers should weigh. "
        "The main one is:\n\n- The elements wear out after a few hundred firings.\n\n"
        "Gas burners in a separate shed reach a reduction atmosphere.\n"
    )
    quotes = [s.quote for s in select_evidence([_document("file:///c/k.md", text)], KILN_STEP, [])]
    assert quotes[0].endswith("The elements wear out after a few hundred firings.")


def test_a_full_width_colon_opens_a_list_too() -> None:
    text = (
        "# 电窑\n\n电窑有一些缺点，购买的人在订购之前应该认真考虑这些缺点。主要的有：\n\n"
        "- 加热元件在几百次烧制之后就会损坏。\n- 没有燃气就无法达到还原气氛。\n"
    )
    step = PlanStep(id="s01", title="电窑有哪些缺点")
    quotes = [s.quote for s in select_evidence([_document("file:///c/zh.md", text)], step, [])]
    assert "加热元件在几百次烧制之后就会损坏。" in quotes[0]


# a manual page: what its subject is comes first, details follow
FILLER = " ".join(f"Paragraph {n} describes option number {n} in detail." for n in range(30))
MANUAL = _document(
    "file:///c/upsert.md",
    "# Manual\n\n"
    "An upsert is a clause added to an insert that turns it into an update on a conflict.\n\n"
    f"{FILLER}\n\n"
    "The upsert clause follows the syntax of another clause.\n\n"
    f"{FILLER}",
)
UPSERT = PlanStep(id="s01", title="How does an upsert clause work")


def test_a_sentence_in_the_opening_of_its_page_is_preferred() -> None:
    quotes = [s.quote for s in select_evidence([MANUAL], UPSERT, [UPSERT.title], limit=1)]
    assert quotes[0].startswith("An upsert is a clause added")


def test_without_the_opening_weight_the_later_sentence_would_be_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The test above holds because of the opening weight, not by accident of the scores."""
    monkeypatch.setattr(evidence, "OPENING_WEIGHT", 0.0)
    quotes = [s.quote for s in select_evidence([MANUAL], UPSERT, [UPSERT.title], limit=1)]
    assert quotes[0].startswith("The upsert clause follows")


# a lead-in ending with a colon, then an example that is no sentence: configuration lines
HEATERS = _document(
    "file:///c/heaters.md",
    "# Heater control\n\n"
    "To keep a greenhouse heater off below a set temperature, add these lines to heater.conf:\n\n"
    "HeaterMinimum 12\n"
    "HeaterHysteresis 2\n\n"
    "The heater then waits until the air is two degrees warmer before it starts again.\n",
)
HEATER_STEP = PlanStep(id="s01", title="How do I keep a greenhouse heater off below a temperature")


def test_a_lead_in_is_quoted_with_the_example_lines_it_introduces() -> None:
    quotes = [s.quote for s in select_evidence([HEATERS], HEATER_STEP, [HEATER_STEP.title])]
    opening = next(q for q in quotes if q.startswith("To keep a greenhouse heater off"))
    assert opening.endswith("HeaterMinimum 12\nHeaterHysteresis 2")  # the example, whole lines
    assert "waits until" not in opening  # the next sentence is not part of the example
    assert HEATERS.text[HEATERS.text.index(opening) :].startswith(opening)  # a verbatim slice


LOG_FORMATS = _document(
    "file:///c/logs.md",
    "# Log formats\n\n"
    "Another common format string is the Combined Log Format. It can be used as follows.\n"
    'LogFormat "%h %l %u %t %>s %b" combined\n'
    'CustomLog "log/access_log" combined\n\n'
    "This format adds two fields to the Common Log Format.\n",
)


def test_a_sentence_that_announces_what_follows_is_a_lead_in() -> None:
    # Apache's log files page: "It can be used as follows." ends with a stop, and the format
    # string the question asked for, the line after it, was never quoted
    step = PlanStep(id="s01", title="What is the format string of the combined log format")
    quotes = [s.quote for s in select_evidence([LOG_FORMATS], step, [step.title])]
    assert any(q.endswith('CustomLog "log/access_log" combined') for q in quotes), quotes
    assert evidence.leads_in("Configure it like this.") and evidence.leads_in("Do the following.")
    assert not evidence.leads_in("It follows the log format.")


def test_an_example_is_taken_up_to_its_line_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evidence, "EXAMPLE_LINES", 1)
    quotes = [s.quote for s in select_evidence([HEATERS], HEATER_STEP, [HEATER_STEP.title])]
    opening = next(q for q in quotes if q.startswith("To keep a greenhouse heater off"))
    assert opening.endswith("heater.conf:\n\nHeaterMinimum 12")


# a lead-in, then a definition list: each term a line of its own, no sentence
VENTS = _document(
    "file:///c/vents.md",
    "# Vent modes\n\n"
    "The mode argument of a greenhouse vent controller can take other values:\n"
    "- open\n"
    "- Keeps the roof vents fully open whatever the temperature reads.\n"
    "- auto\n"
    "- Opens the roof vents in steps as the temperature rises. This is the default.\n\n"
    "Vent motors are checked once a year.\n",
)


def test_a_lead_in_before_a_definition_list_is_quoted_with_its_first_terms() -> None:
    step = PlanStep(id="s01", title="Which values can the vent controller mode argument take")
    quotes = [s.quote for s in select_evidence([VENTS], step, [step.title])]
    opening = next(q for q in quotes if q.startswith("The mode argument"))
    assert "- open\n- Keeps the roof vents fully open" in opening
    assert "Vent motors" not in opening  # the blank line ends the list
    assert sum("Keeps the roof vents" in q for q in quotes) == 1  # no other window repeats it


# a sentence interrupted by an example line: "For example / COMMAND / will cause ..."
PUMPS = _document(
    "file:///c/pumps.md",
    "# Pump control\n\n"
    "Use this setting to run a pump only when the tank is low. For example\n\n"
    "PumpStart 40%\n\n"
    "will cause the pump to start whenever the tank holds less than forty percent, "
    "and to stop when it is full.\n",
)


def test_a_sentence_that_continues_an_example_line_is_quoted_with_it() -> None:
    step = PlanStep(id="s01", title="When will the pump start with the tank low")
    quotes = [s.quote for s in select_evidence([PUMPS], step, [step.title])]
    assert any(q.startswith("PumpStart 40%\n\nwill cause the pump to start") for q in quotes)


def test_statements_join_an_example_line_to_the_sentence_it_opens() -> None:
    text = PUMPS.text[PUMPS.text.index("PumpStart") :]
    found = [s.text for s in evidence.statements(text)]
    assert found[0].startswith("PumpStart 40%\n\nwill cause the pump")
    assert len(found) == 1
    assert all(text[s.start : s.end] == s.text for s in evidence.statements(text))


FORWARDING = (
    "Let's assume you have a primary and two secondary central servers. Then, you can use the "
    "following config file excerpt to send data to them:\n\n"
    'if($msg contains "error") then {\n'
    '     action(type="omfwd" target="primary-syslog.example.com" port="10514"\n'
    '            protocol="tcp")\n\n'
    'The action processes all messages that contain "error".'
)


def test_statements_join_a_lead_in_to_the_example_lines_it_introduces() -> None:
    """rsyslog's failover tutorial: each line of the snippet was written as a claim of its own,
    a period added ('then { . action(...)'); the lead-in and its lines are one statement."""
    found = [s.text for s in evidence.statements(FORWARDING)]
    assert found[0] == "Let's assume you have a primary and two secondary central servers."
    assert found[1].startswith("Then, you can use the following config file excerpt")
    assert found[1].endswith('protocol="tcp")') and 'if($msg contains "error")' in found[1]
    assert found[2] == 'The action processes all messages that contain "error".'  # prose again
    assert len(found) == 3
    assert all(FORWARDING[s.start : s.end] == s.text for s in evidence.statements(FORWARDING))
    # a lead-in followed by sentences (a list) keeps them as statements of their own
    listed = "Three servers take part:\n- The primary takes every message.\n- The others wait."
    assert len(evidence.statements(listed)) == 3
