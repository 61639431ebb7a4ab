"""French, Spanish and German month names and numbers in words, read as figures.

Read by :mod:`deep_research.verification.quantities` (with ``dates`` and ``number_words``) and
judged end to end by ``verify_claims`` with the offline engine, as the English promises of
``test_figure_promises.py`` are (docs/verification.md, "Figures are strict").
"""

from __future__ import annotations

import pytest

from deep_research.engines import OfflineEngine
from deep_research.report.verify import verify_claims
from deep_research.state import Verdict
from deep_research.verification.agreement import agrees, conflicts
from deep_research.verification.quantities import Quantity, quantities


def one(text: str) -> Quantity:
    (found,) = quantities(text)
    return found


@pytest.mark.parametrize(
    ("text", "kind", "value", "currency"),
    [
        ("Le projet a coûté deux millions d'euros.", "money", 2e6, "€"),
        ("La centrale a coûté un milliard d'euros.", "money", 1e9, "€"),
        ("Le projet a coûté trois cents millions d'euros.", "money", 3e8, "€"),
        ("La planta costó dos millones de euros.", "money", 2e6, "€"),
        ("La planta costó un millón de euros.", "money", 1e6, "€"),
        ("El proyecto costó mil millones de euros.", "money", 1e9, "€"),
        ("Die Anlage kostete zwei Millionen Euro.", "money", 2e6, "€"),
        ("Die Anlage kostete eine Milliarde Euro.", "money", 1e9, "€"),
        ("La ville compte deux millions d'habitants.", "count", 2e6, ""),
        # English follows the same rule
        ("The plant cost two million dollars.", "money", 2e6, "$"),
        ("About three billion euros were spent.", "money", 3e9, "€"),
        ("The city has two million residents.", "count", 2e6, ""),
        ("It cost one billion dollars.", "money", 1e9, "$"),
        ("A million people live there.", "count", 1e6, ""),
    ],
)
def test_a_number_in_words_before_a_scale_word_is_a_figure(
    text: str, kind: str, value: float, currency: str
) -> None:
    found = one(text)
    assert (found.kind, found.value, found.currency) == (kind, pytest.approx(value), currency)
    assert not found.spelled  # required, and it can contradict


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Le parc compte vingt éoliennes.", 20),
        ("Le parc compte vingt-deux éoliennes.", 22),
        ("Le parc compte trois cents éoliennes.", 300),
        ("Le parc compte soixante et onze éoliennes.", 71),
        ("Le parc compte quatre-vingt-dix-sept éoliennes.", 97),
        ("Le parc compte mille deux cents éoliennes.", 1200),
        ("Le parc compte deux mille éoliennes.", 2000),
        ("El parque tiene treinta y dos turbinas.", 32),
        ("El parque tiene ciento veinte turbinas.", 120),
        ("El parque tiene doscientas turbinas.", 200),
        ("El parque tiene dos mil turbinas.", 2000),
        ("Der Park hat zwanzig Turbinen.", 20),
    ],
)
def test_numbers_in_words_add_up_and_multiply(text: str, value: int) -> None:
    found = one(text)
    assert (found.kind, found.value, found.spelled) == ("count", value, True)


def test_numbers_in_words_take_percentages_and_hedges() -> None:
    percent = one("La part est de vingt pour cent.")
    assert (percent.kind, percent.value) == ("percent", 20.0)
    assert one("Der Anteil liegt bei zwanzig Prozent.").kind == "percent"
    assert one("Le projet a coûté environ deux millions d'euros.").bound == "approx"
    assert one("Plus de deux millions de personnes y vivent.").bound == "ge"


@pytest.mark.parametrize(
    "text",
    [
        "Il a acheté une maison dans la ville.",  # articles, not numbers
        "El proyecto es uno de los más grandes.",
        "Die Anlage ist eine der größten.",
        "Il a payé vingt cents pour le ticket.",  # twenty cents: money in words is not read
    ],
)
def test_articles_and_money_in_words_without_a_scale_are_not_figures(text: str) -> None:
    assert quantities(text) == []


@pytest.mark.parametrize(
    "text",
    ["One of the plants failed.", "It won a million-dollar grant.", "an amount of lithium"],
)
def test_one_and_a_are_numbers_only_before_a_scale_word(text: str) -> None:
    assert quantities(text) == []


def test_a_number_in_words_is_not_read_twice() -> None:
    """``cent`` of ``pour cent`` is no hundred, and French ``six`` is read once."""
    assert [q.text for q in quantities("La part est de 20 pour cent et de vingt pour cent.")] == [
        "20 pour cent",
        "vingt pour cent",
    ]
    assert [q.value for q in quantities("Les six premiers mois de la centrale.")] == [6.0]


def test_english_text_reads_no_french_spanish_or_german_words() -> None:
    """``once`` is not Spanish eleven, nor ``Mars`` March, in English."""
    assert quantities("It was once the largest plant in the country.") == []
    assert [q.text for q in quantities("The Mars 2020 mission landed on Mars.")] == ["2020"]


@pytest.mark.parametrize(
    ("text", "year", "month", "day"),
    [
        ("Le chantier a commencé le 3 mars 2021.", 2021, 3, 3),
        ("Le chantier a commencé le 1er mars 2021.", 2021, 3, 1),
        ("Le chantier a commencé le 15 août 2021.", 2021, 8, 15),
        ("Le chantier a commencé en décembre 2021.", 2021, 12, None),
        ("Le chantier a commencé le 14 juillet.", 0, 7, 14),
        ("La obra empezó el 3 de marzo de 2021.", 2021, 3, 3),
        ("La obra empezó en mayo de 2021.", 2021, 5, None),
        ("Die Anlage ging am 3. März 2021 in Betrieb.", 2021, 3, 3),
        ("Die Anlage ging im Juni 2021 in Betrieb.", 2021, 6, None),
    ],
)
def test_french_spanish_and_german_dates_keep_their_month_and_day(
    text: str, year: int, month: int, day: int | None
) -> None:
    found = one(text)
    assert (found.kind, found.value, found.month, found.day) == ("date", year, month, day)


def test_a_french_date_is_the_same_date_written_in_english_or_iso() -> None:
    french = one("Le chantier a commencé le 3 mars 2021.")
    assert agrees(french, one("Construction started on 3 March 2021."))
    assert agrees(french, one("Construction started on 2021-03-03."))
    assert agrees(one("Le chantier a commencé en mars 2021."), one("on 3 March 2021"))
    assert conflicts(french, one("Construction started on 5 March 2021."))


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict"),
    [
        # the brief's example: a figure in words against the same figure in digits
        (
            "Le projet a coûté deux millions d'euros.",
            "Le projet a coûté 2 millions d'euros.",
            Verdict.SUPPORTED,
        ),
        (
            "Le projet a coûté deux millions d'euros.",
            "Le projet a coûté 3 millions d'euros.",
            Verdict.CONTRADICTED,
        ),
        (
            "Le projet a coûté 3 millions d'euros.",
            "Le projet a coûté deux millions d'euros.",
            Verdict.CONTRADICTED,
        ),
        (
            "Le projet a coûté deux millions d'euros.",
            "Le projet a coûté 2 millions de dollars.",
            Verdict.CONTRADICTED,
        ),
        (
            "La planta costó dos millones de euros.",
            "La planta costó 2 millones de euros.",
            Verdict.SUPPORTED,
        ),
        (
            "La planta costó dos millones de euros.",
            "La planta costó 3 millones de euros.",
            Verdict.CONTRADICTED,
        ),
        (
            "Die Anlage kostete zwei Millionen Euro.",
            "Die Anlage kostete 3 Millionen Euro.",
            Verdict.CONTRADICTED,
        ),
        # dates with month names
        (
            "Le chantier a commencé le 3 mars 2021.",
            "Le chantier a commencé le 2021-03-03.",
            Verdict.SUPPORTED,
        ),
        (
            "Le chantier a commencé le 3 mars 2021.",
            "Le chantier a commencé le 3 mai 2021.",
            Verdict.CONTRADICTED,
        ),
        (
            "Le chantier a commencé le 3 mars 2021.",
            "Le chantier a commencé en mars 2021.",
            Verdict.PARTIAL,  # the evidence does not state the day
        ),
        (
            "La obra empezó el 3 de marzo de 2021.",
            "La obra empezó el 2021-03-03.",
            Verdict.SUPPORTED,
        ),
        (
            "Die Anlage ging am 3. März 2021 in Betrieb.",
            "Die Anlage ging am 5. März 2021 in Betrieb.",
            Verdict.CONTRADICTED,
        ),
        (
            "The plant cost two million dollars.",
            "The plant cost $3 million.",
            Verdict.CONTRADICTED,
        ),
        (
            "The plant cost $2 million.",
            "The plant cost two million dollars.",
            Verdict.SUPPORTED,
        ),
        # a small number in words matches digits, but never contradicts them
        (
            "Le parc compte trois cents éoliennes.",
            "Le parc compte 300 éoliennes.",
            Verdict.SUPPORTED,
        ),
        (
            "Le parc compte 300 éoliennes.",
            "Le parc compte trois cents éoliennes.",
            Verdict.SUPPORTED,
        ),
        (
            "Le parc compte 300 éoliennes.",
            "Le parc compte quatre cents éoliennes.",
            Verdict.PARTIAL,
        ),
    ],
)
async def test_figures_in_words_and_month_names_are_judged_like_digits(
    claim: str, evidence: str, verdict: Verdict
) -> None:
    (judgement,) = (await verify_claims(OfflineEngine(), [(claim, [evidence])])).value
    assert judgement.verdict is verdict, judgement.reasoning
