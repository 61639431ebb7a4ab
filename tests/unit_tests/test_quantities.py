"""Figures in text: scales, units, currencies, dates and hedges, and how they compare."""

from __future__ import annotations

import pytest

from deep_research.verification.agreement import agrees, conflicts
from deep_research.verification.quantities import Quantity, quantities


def one(text: str) -> Quantity:
    (found,) = quantities(text)
    return found


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("1,200 units", "count", 1200.0),
        ("1.2 billion people", "count", 1.2e9),
        ("150 MW", "power", 150e6),
        ("0.15 GW", "power", 150e6),
        ("193.5 MWh", "energy", 193.5e6),
        ("2 megawatt-hours", "energy", 2e6),
        ("45%", "percent", 45.0),
        ("12 per cent", "percent", 12.0),
        ("A$90 million", "money", 90e6),
        ("$1.5bn", "money", 1.5e9),
        ("$150/kWh", "money/energy", 0.15),
        ("$150,000 per MWh", "money/energy", 0.15),
        ("a 4-hour battery", "duration", 4.0),
        ("300 tokens/s", "rate:tokens/s", 300.0),
        ("in 2019", "date", 2019.0),
        ("the 1990s", "decade", 1990.0),
    ],
)
def test_figures_are_read_in_base_units(text: str, kind: str, value: float) -> None:
    found = one(text)
    assert (found.kind, found.value) == (kind, pytest.approx(value))


def test_dates_keep_their_month_and_day() -> None:
    for text in ("on 1 December 2017", "on December 1, 2017", "on 2017-12-01"):
        found = one(text)
        assert (found.kind, found.value, found.month, found.day) == ("date", 2017, 12, 1)
    assert one("in March 2017").month == 3 and one("in March 2017").day is None


def test_ordinals_names_and_citation_markers_are_not_figures() -> None:
    assert quantities("the 3rd largest, COVID-19, F-35 and [4]") == []


def test_a_comma_number_is_a_count_not_a_year() -> None:
    assert one("2,019 units").kind == "count"
    assert one("2019 units").kind == "date"


def test_hedges_and_bounds_are_read() -> None:
    assert one("about 200 MW").bound == "approx"
    assert one("more than 260,000 volumes").bound == "ge"
    assert one("up to 5%").bound == "le"


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("1.2 billion", "1,200 million"),
        ("150 MW", "0.15 GW"),
        ("$150/kWh", "$150,000/MWh"),
        ("193 MWh", "193.5 MWh"),  # rounded to the precision written
        ("about 200 MW", "193.5 MW"),
        ("more than 250,000 volumes", "262,000 volumes"),
        ("March 2017", "17 March 2017"),
        ("2017", "17 March 2017"),
        ("the 1990s", "1994"),
        ("3 units", "three units"),
        ("$90 million", "US$90 million"),
    ],
)
def test_equal_figures_agree(claim: str, evidence: str) -> None:
    assert agrees(quantities(claim)[0], quantities(evidence)[0])


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("3,000 tokens/s", "300 tokens/s"),
        ("2019", "2021"),
        ("129 MWh", "193.5 MWh"),
        ("1.2 billion", "1.5 billion"),
        ("December 2017", "March 2017"),
        ("45%", "54%"),
        ("€90 million", "$90 million"),
        ("more than 300,000 volumes", "262,000 volumes"),
    ],
)
def test_different_figures_of_one_kind_conflict(claim: str, evidence: str) -> None:
    c, e = quantities(claim)[0], quantities(evidence)[0]
    assert not agrees(c, e) and conflicts(c, e)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("150 MWh", "120 MW"),  # energy is not power
        ("2019", "2,019 units"),  # a year is not a count
        ("40 units", "45 homes"),  # counts of different things
        ("17 March 2017", "March 2017"),  # more precise than the evidence: not stated
    ],
)
def test_figures_of_different_kinds_neither_agree_nor_conflict(claim: str, evidence: str) -> None:
    c, e = quantities(claim)[0], quantities(evidence)[0]
    assert not agrees(c, e) and not conflicts(c, e)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("150 MWh", "150 MW"),  # the same number as power, where the claim says energy
        ("2 GW", "2 GWh"),
        ("$150/kWh", "$150/kW"),  # a price per energy is not a price per power
    ],
)
def test_the_claims_number_in_a_confused_unit_conflicts(claim: str, evidence: str) -> None:
    c, e = quantities(claim)[0], quantities(evidence)[0]
    assert not agrees(c, e) and conflicts(c, e)
