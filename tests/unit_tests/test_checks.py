"""The offline verifier: lexical support with strict number, date and negation checks."""

from __future__ import annotations

import pytest

from deep_research.state import Verdict
from deep_research.verification.checks import (
    Analyses,
    check_claim,
    check_one,
    figure_problem,
    support_rank,
)

EVIDENCE = "The upgraded server delivers 300 tokens/s on a single GPU since its 2021 release."


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("The upgraded server delivers 300 tokens/s on a single GPU", Verdict.SUPPORTED),
        ("The upgraded server delivers 3,000 tokens/s on a single GPU", Verdict.CONTRADICTED),
        ("The upgraded server was released in 2019", Verdict.CONTRADICTED),
        ("The upgraded server does not deliver 300 tokens/s on a single GPU", Verdict.CONTRADICTED),
        (
            "The upgraded server delivers tokens quickly on cheap laptops everywhere",
            Verdict.PARTIAL,
        ),
        ("Pumped hydro dominates long-duration storage", Verdict.UNSUPPORTED),
    ],
)
def test_verdicts(claim: str, verdict: Verdict) -> None:
    assert check_one(claim, EVIDENCE).verdict is verdict


def test_a_wrong_number_is_never_supported_even_with_full_word_overlap() -> None:
    result = check_one(
        "Hornsdale Power Reserve stores 129 MWh", "Hornsdale Power Reserve stores 193.5 MWh."
    )
    assert result.verdict is Verdict.CONTRADICTED
    assert "129" in result.reasoning


def test_the_best_of_several_quotes_decides_and_is_named() -> None:
    quotes = ["Unrelated text about tides.", "Hornsdale Power Reserve stores 193.5 MWh."]
    result = check_claim("Hornsdale Power Reserve stores 193.5 MWh", quotes)
    assert (result.verdict, result.index) == (Verdict.SUPPORTED, 1)


def test_no_evidence_means_unsupported() -> None:
    assert check_claim("Anything at all", []).verdict is Verdict.UNSUPPORTED


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict"),
    [
        # units: power is not energy; the claim's number as power contradicts it (the README
        # promises this), and an unstated figure is never fully supported
        (
            "Hornsdale Power Reserve has a capacity of 150 MWh",
            "Hornsdale Power Reserve has a capacity of 150 MW.",
            Verdict.CONTRADICTED,
        ),
        (
            "Hornsdale Power Reserve has a capacity of 150 MWh",
            "Hornsdale Power Reserve has a capacity of 120 MW.",
            Verdict.PARTIAL,
        ),
        # scales and units convert
        ("The project cost $1.2 billion", "The project cost $1,200 million.", Verdict.SUPPORTED),
        ("The plant delivers 0.15 GW", "The plant delivers 150 MW.", Verdict.SUPPORTED),
        ("Packs cost $150/kWh in 2023", "In 2023 packs cost $150,000/MWh.", Verdict.SUPPORTED),
        ("Efficiency reached 85%", "Efficiency reached 58%.", Verdict.CONTRADICTED),
        # dates: a different month contradicts; a year-only claim matches a full date
        (
            "Hornsdale opened in March 2017",
            "Hornsdale opened in December 2017.",
            Verdict.CONTRADICTED,
        ),
        ("Hornsdale opened in 2017", "Hornsdale opened on 1 December 2017.", Verdict.SUPPORTED),
        # hedges
        ("The battery holds about 190 MWh", "The battery holds 193.5 MWh.", Verdict.SUPPORTED),
        (
            "The library holds over 300,000 volumes",
            "The library holds 262,000 volumes.",
            Verdict.CONTRADICTED,
        ),
        # negation and antonyms
        (
            "The expansion was not approved by the regulator",
            "The expansion was approved by the regulator.",
            Verdict.CONTRADICTED,
        ),
        ("Prices rose sharply in 2023", "Prices fell sharply in 2023.", Verdict.CONTRADICTED),
        (
            "Balance is important for health and productivity",
            "Balance is not only important for health, it improves productivity.",
            Verdict.SUPPORTED,
        ),
    ],
)
def test_figure_unit_date_and_negation_traps(claim: str, evidence: str, verdict: Verdict) -> None:
    assert check_claim(claim, [evidence]).verdict is verdict


def test_a_negation_in_another_clause_does_not_contradict() -> None:
    evidence = (
        "Petiver amassed the largest natural history collection in the world, and it never "
        "would have happened without slavery."
    )
    claim = "Petiver amassed the largest natural history collection of his time"
    assert check_claim(claim, [evidence]).verdict is Verdict.SUPPORTED


def test_a_year_of_another_event_in_the_same_sentence_does_not_contradict() -> None:
    evidence = (
        "The British Olympic Association has today confirmed that Mark England has been "
        "appointed Team GB's Chef de Mission for the Baku 2015 European Games and the Rio 2016 "
        "Olympic Games."
    )
    claim = "He was Chef de Mission of Team GB at the 2016 Olympics, being appointed in 2014"
    result = check_claim(claim, [evidence])
    assert result.verdict is Verdict.PARTIAL  # 2014 is not stated, nor contradicted by 2015


def test_two_sentences_can_support_one_claim_and_the_span_is_the_best_one() -> None:
    passage = (
        "Intro line about storage. Hornsdale Power Reserve is in South Australia. "
        "Tesla built the battery for Neoen in 2017."
    )
    result = check_claim(
        "Tesla built Hornsdale Power Reserve in South Australia in 2017", [passage]
    )
    assert result.verdict is Verdict.SUPPORTED and result.index == 0
    assert passage[result.start : result.end] in {
        "Hornsdale Power Reserve is in South Australia.",
        "Tesla built the battery for Neoen in 2017.",
    }


def test_the_span_is_located_in_the_right_passage() -> None:
    passages = ["Nothing relevant here.", "Other text. The battery holds 193.5 MWh. More text."]
    result = check_claim("The battery holds 193.5 MWh [2].", passages)
    assert (result.verdict, result.index) == (Verdict.SUPPORTED, 1)
    assert passages[1][result.start : result.end] == "The battery holds 193.5 MWh."


def test_figure_problem_holds_a_claim_to_its_figures() -> None:
    quote = ["The upgraded server delivers 300 tokens/s on a single GPU."]
    wrong = figure_problem("The upgraded server delivers 3,000 tokens/s", quote)
    assert wrong is not None and wrong.verdict is Verdict.CONTRADICTED
    missing = figure_problem("The upgraded server delivers 300 tokens/s since 2019", quote)
    assert missing is not None and missing.verdict is Verdict.PARTIAL
    assert figure_problem("The upgraded server delivers 300 tokens/s", quote) is None
    assert figure_problem("The upgraded server is fast", quote) is None


def test_analyses_shared_by_many_checks_change_no_result() -> None:
    quotes = [
        EVIDENCE,
        "Hornsdale Power Reserve has a capacity of 150 MW. It opened on 1 December 2017.",
        "The expansion was approved by the regulator.",
        "In 2023 packs cost $150,000/MWh, and prices fell sharply.",
    ]
    claims = [
        "The upgraded server delivers 3,000 tokens/s on a single GPU",
        "The upgraded server was released in 2019",
        "Hornsdale Power Reserve has a capacity of 150 MWh and opened in March 2017",
        "The expansion was not approved by the regulator [2].",
        "Packs cost $150/kWh in 2023 as prices rose",
        "Pumped hydro dominates long-duration storage",
    ]
    analyses = Analyses()  # shared by every check below, as a verify or revise pass shares it
    for claim in claims:
        for index, quote in enumerate(quotes):
            assert check_one(claim, quote, index, analyses) == check_one(claim, quote, index)
            assert support_rank(claim, quote, analyses) == support_rank(claim, quote)
        assert check_claim(claim, quotes, analyses) == check_claim(claim, quotes)
        assert figure_problem(claim, quotes, analyses) == figure_problem(claim, quotes)
