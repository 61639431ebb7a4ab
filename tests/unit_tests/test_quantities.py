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
        ("5 percentage points", "points", 5.0),
        ("5 pp", "points", 5.0),
        ("50 basis points", "points", 0.5),
        ("90 million euros", "money", 90e6),
        ("12 cents/kWh", "money/energy", 0.12e-3),
        ("3 GWh", "energy", 3e9),
        ("$5k", "money", 5e3),
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
        ("50 basis points", "0.5 percentage points"),
        ("90 million Australian dollars", "A$90 million"),
        ("€90 million", "EUR 90 million"),
        ("90 million euros", "€90 million"),
        ("£2 billion", "GBP 2,000 million"),
        ("12 cents/kWh", "$0.12/kWh"),
        ("¥5 billion", "JPY 5 billion"),
        ("3 GWh", "3,000 MWh"),
        ("$5M", "$5 million"),
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
        ("A$90 million", "US$90 million"),  # dollars of different countries
        ("90 million euros", "90 million dollars"),
        ("£90 million", "€90 million"),
        ("JPY 5 billion", "CNY 5 billion"),
        ("$2 billion", "$2 million"),  # magnitudes
        ("1.5 GW", "1,500 kW"),
        ("3 GWh", "3 MWh"),
        ("12 cents per kWh", "21 cents per kWh"),
        ("$150 per tonne", "$150 per kg"),  # the same price per another unit
        ("5 percentage points", "7 percentage points"),
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
        ("5 percentage points", "5%"),  # a change in points is not a percentage
        ("30%", "30 pp"),
    ],
)
def test_the_claims_number_in_a_confused_unit_conflicts(claim: str, evidence: str) -> None:
    c, e = quantities(claim)[0], quantities(evidence)[0]
    assert not agrees(c, e) and conflicts(c, e)


def test_a_day_and_month_without_a_year_is_a_date_only_with_a_capitalized_month() -> None:
    for text in ("On 12 July, Reading", "on July 12 the", "the 3rd of May", "on April 9th in"):
        found = one(text)
        assert found.kind == "date" and found.value == 0 and found.month and found.day, text
    assert one("the 5 may be").kind == "count"  # the verb, not the month
    assert agrees(one("On 12 July, Reading"), one("on 12 July 2019"))
    # a full date is not stated by the day and month alone, nor contradicted by them
    c, e = one("on November 2, 2004"), one("on Election Day, November 2")
    assert not agrees(c, e) and not conflicts(c, e)


def test_the_second_year_of_a_range_and_list_numbers_are_not_figures() -> None:
    assert [q.text for q in quantities("during the 2018–19 academic year")] == ["2018"]
    assert quantities("1. Choose a location\n2. Fill it with water") == []
    assert one("It rose by 4. Then it fell").kind == "count"  # not at the start of a line


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # a comma before one, two or four digits is a decimal comma, in any language
        ("48,6 %", "percent", 48.6),
        ("La part est de 48,6 %.", "percent", 48.6),
        ("Le projet coûte 1,5 milliard d'euros.", "money", 1.5e9),
        ("Die Anlage kostet 1.234,5 Mio. Euro.", "money", 1.2345e9),
        ("3,1416 m", "length", 3.1416),
        ("l'éolien a produit 48,6 térawattheures", "energy", 48.6e12),
        ("eine Leistung von 5 Megawatt", "power", 5e6),
        # spaces group thousands: no-break ones anywhere, plain ones in French text
        ("Le parc atteint 1 200 MW de puissance.", "power", 1.2e9),
        ("1\u202f200 MW", "power", 1.2e9),
        ("1\u00a0200 MWh", "energy", 1.2e9),
        # a lone 1,234 or 1.234 reads as the text's language writes it
        ("The plant has a capacity of 1,234 MW.", "power", 1.234e9),
        ("La centrale a une puissance de 1,234 MW.", "power", 1.234e6),
        ("Die Stadt hat 1.234 Einwohner und eine Anlage.", "count", 1234.0),
        ("The cell holds 1.234 kWh.", "energy", 1234.0),
        # English grouping is unchanged
        ("1,200,000 units", "count", 1.2e6),
        ("1,234.5 units", "count", 1234.5),
    ],
)
def test_decimal_commas_and_thousands_separators_are_read_by_shape_and_language(
    text: str, kind: str, value: float
) -> None:
    found = one(text)
    assert (found.kind, found.value) == (kind, pytest.approx(value))


def test_english_keeps_a_plain_space_between_two_numbers() -> None:
    assert [q.value for q in quantities("In 2019 the 3 200-MW plants ran.")] == [2019, 3, 200e6]


def test_french_and_german_hedges_scales_and_points_are_read() -> None:
    assert one("environ 200 MW").bound == "approx"
    assert one("plus de 5 %").bound == "ge"
    assert one("bis zu 3 GWh").bound == "le"
    assert (one("une hausse de 3 points de pourcentage").kind, one("3 Prozentpunkte").kind) == (
        "points",
        "points",
    )
    assert (one("2 Mrd. Euro").value, one("2 Mrd. Euro").currency) == (2e9, "€")
    assert (one("3 millions d'euros").value, one("12 € par mois").currency) == (3e6, "€")


def test_a_grouped_number_is_never_a_year() -> None:
    assert one("2 019 unités vendues en France").kind == "count"
    assert one("2.019 Einheiten wurden verkauft").kind == "count"
