"""Figures derived by arithmetic from cited figures are checked by computing them.

A growth rate, a share, a ratio, a sum or a difference that the evidence implies but does not
write is SUPPORTED when the arithmetic is right and CONTRADICTED when it is wrong, in the
offline checks and when a model's SUPPORTED is held to the figure rule. Detection rests on
where the operands stand, not on words, and a figure that only happens to equal a
computation is not supported.
"""

from __future__ import annotations

import pytest

from deep_research.state import Verdict
from deep_research.verification.arithmetic import cue_words
from deep_research.verification.checks import check_claim, figure_problem

REVENUE = ["Revenue was $10 million in 2020 and $15 million in 2021."]
INCOME = ["2023年全国居民人均可支配收入为39,218元，2022年为36,883元。"]


@pytest.mark.parametrize(
    "claim",
    [
        "Revenue rose from $10 million in 2020 to $15 million in 2021, a 50% increase",
        "Revenue grew 50% between 2020 and 2021",
        "Revenue in 2021 was 1.5 times that of 2020",
        "Combined revenue over 2020 and 2021 totalled $25 million",
        "Revenue rose by $5 million from 2020 to 2021",
    ],
)
def test_a_figure_computed_right_from_the_evidence_is_supported(claim: str) -> None:
    result = check_claim(claim, REVENUE)
    assert result.verdict is Verdict.SUPPORTED, result.reasoning
    assert figure_problem(claim, REVENUE) is None  # a model's SUPPORTED stands


@pytest.mark.parametrize(
    ("claim", "computed"),
    [
        (
            "Revenue rose from $10 million in 2020 to $15 million in 2021, a 40% increase",
            "50% (the change from $10 million to $15 million)",
        ),
        (
            "Combined revenue over 2020 and 2021 totalled $30 million",
            "25,000,000 (the sum of $10 million and $15 million)",
        ),
        ("Revenue in 2021 was 3 times that of 2020", "1.5 times ($10 million to $15 million)"),
    ],
)
def test_a_figure_computed_wrong_is_contradicted_with_what_the_arithmetic_gives(
    claim: str, computed: str
) -> None:
    result = check_claim(claim, REVENUE)
    assert result.verdict is Verdict.CONTRADICTED
    assert computed in result.reasoning
    problem = figure_problem(claim, REVENUE)  # a model's SUPPORTED becomes CONTRADICTED
    assert problem is not None and problem.verdict is Verdict.CONTRADICTED


def test_chinese_growth_is_computed_in_the_direction_the_claim_states() -> None:
    right = "2023年全国居民人均可支配收入为39,218元，比2022年的36,883元增长6.3%"
    assert check_claim(right, INCOME).verdict is Verdict.SUPPORTED
    wrong = check_claim(right.replace("6.3%", "8.3%"), INCOME)
    assert wrong.verdict is Verdict.CONTRADICTED
    assert "6.33% (the change from 36,883元 to 39,218元)" in wrong.reasoning


def test_a_figure_that_only_happens_to_equal_a_computation_is_still_unstated() -> None:
    # no word says it was derived: the evidence's two figures do not state "$25 million"
    result = check_claim("The plant cost $25 million in 2021", REVENUE)
    assert result.verdict is not Verdict.SUPPORTED


OUTPUT = ["Output was 10 units in 2017 and 18 units in 2021."]
SERIES = ["Output was 10, 12, 15, 18 and 20 units in 2017, 2018, 2019, 2020 and 2021."]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # the claim shows both operands: any operation, in any language
        ("Revenue: $10 million in 2020, $15 million in 2021 (+50%)", REVENUE),
        (
            "Los ingresos pasaron de $10 millones en 2020 a $15 millones en 2021, un 50% más",
            REVENUE,
        ),
        ("Revenue was $10 million in 2020 and $15 million in 2021: $25 million", REVENUE),
        # a percent change or ratio of two figures of one sentence on the same subject
        ("2021 revenue: 1.5x 2020 revenue", REVENUE),
        ("Output: +80% between 2017 and 2021", OUTPUT),
    ],
)
def test_a_derived_figure_needs_no_word_saying_it_was_derived(
    claim: str, evidence: list[str]
) -> None:
    assert cue_words(claim) == []
    result = check_claim(claim, evidence)
    assert result.verdict is Verdict.SUPPORTED, result.reasoning
    assert figure_problem(claim, evidence) is None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # a sum of figures the claim does not show would pass a wrong figure for one of them
        ("Revenue was $25 million in 2021", REVENUE),
        # the figure's subject is not the operands' (no word around it is in their sentence)
        ("The plant's capacity factor was 50% in 2021", REVENUE),
        (
            "Revenue was $15 million in 2021, when wind and solar farms supplied 50% of the grid",
            REVENUE,
        ),
        # counts of different things are no operands of one another
        (
            "The firm employs 120 engineers and 80 technicians across 40 sites",
            ["The firm employs 120 engineers and 80 technicians."],
        ),
        # a small count equals a difference of others by chance too often
        (
            "The fleet had 12 ships in 2020 and 15 ships in 2021, 3 of them new",
            ["The fleet had 12 ships in 2020 and 15 ships in 2021."],
        ),
        # a sentence of many figures: some pair gives most percentages (10 -> 18 is 80%)
        ("Output: +80% between 2017 and 2021", SERIES),
    ],
)
def test_a_figure_that_equals_a_computation_by_chance_is_not_supported(
    claim: str, evidence: list[str]
) -> None:
    assert cue_words(claim) == []
    result = check_claim(claim, evidence)
    assert result.verdict is not Verdict.SUPPORTED, result.reasoning
    assert figure_problem(claim, evidence) is not None  # a model's SUPPORTED does not stand


def test_wrong_arithmetic_no_word_announces_is_unstated_not_contradicted() -> None:
    # without a word saying it was computed, 40% may be a fact of its own: unstated
    result = check_claim("Revenue: $10 million in 2020, $15 million in 2021 (+40%)", REVENUE)
    assert result.verdict is Verdict.PARTIAL
    said = check_claim(
        "Revenue rose from $10 million in 2020 to $15 million in 2021, +40%", REVENUE
    )
    assert said.verdict is Verdict.CONTRADICTED


@pytest.mark.parametrize("bound", ["or more", "or less", "and more", "or fewer"])
def test_a_figure_bounded_by_or_more_says_nothing_was_computed(bound: str) -> None:
    # "8,000 cycles or more" bounds a figure: the claim's 314 Ah is not a wrong difference of
    # the evidence's 280 Ah and 500 Ah (the sample corpus; a report said the sources disagree)
    claim = f"Makers of 314 Ah storage cells advertise cycle lives of 8,000 cycles {bound}."
    evidence = ["Storage cells have grown from 280 Ah to over 500 Ah."]
    assert not cue_words(claim)
    assert check_claim(claim, evidence).verdict is not Verdict.CONTRADICTED
    # said as a comparison, "more" still announces a computed figure
    compared = "Storage cells grew by 314 Ah, more than before."
    assert cue_words(compared) == ["grew", "more"]
    assert check_claim(compared, evidence).verdict is Verdict.CONTRADICTED


# Round 4 (issue 43): operands on the claim's subject, of its unit, in the stated direction.

HORNSDALE = [
    "Hornsdale Power Reserve cost A$90 million to build.",
    "In 2018 it earned A$23 million in revenue.",
]
EXPANSION = [
    "Neoen planned A$10,000 for community events in 2017.",
    "The expansion cost A$90 million.",
]
CELLS = ["LFP cells store about 160 Wh/kg.", "NMC cells store about 250 Wh/kg."]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # a cost plus a revenue is no total cost
        ("Hornsdale Power Reserve had a total cost of A$113 million.", HORNSDALE),
        # a ratio of a budget for events to a building's cost
        ("The expansion cost 9,000 times more than planned.", EXPANSION),
        # LFP stores 90 Wh/kg less than NMC, not more
        ("LFP cells store 90 Wh/kg more than NMC cells at 250 Wh/kg.", CELLS),
        ("LFP cells store 90 Wh/kg more than NMC cells.", CELLS),
        ("NMC cells store 36% less than LFP cells.", CELLS),
    ],
)
def test_a_figure_from_unrelated_operands_or_the_wrong_way_is_not_supported(
    claim: str, evidence: list[str]
) -> None:
    result = check_claim(claim, evidence)
    assert result.verdict is not Verdict.SUPPORTED, result.reasoning
    assert figure_problem(claim, evidence) is not None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "Hornsdale Power Reserve had a total cost of A$113 million.",
            [
                "Hornsdale Power Reserve cost A$90 million to build.",
                "Its expansion cost A$23 million.",
            ],
        ),
        (
            "The expansion cost 9,000 times more than planned.",
            [
                "The expansion was planned to cost A$10,000.",
                "The expansion cost A$90 million.",
            ],
        ),
        ("NMC cells store 90 Wh/kg more than LFP cells at 160 Wh/kg.", CELLS),
        ("NMC cells store 90 Wh/kg more than LFP cells.", CELLS),
        ("LFP cells store 90 Wh/kg less than NMC cells.", CELLS),
        (
            "NMC cells store 90 Wh/kg more than LFP cells.",
            ["LFP cells store about 160 Wh/kg and NMC cells about 250 Wh/kg."],
        ),
    ],
)
def test_a_figure_from_operands_on_its_subject_the_stated_way_is_still_derived(
    claim: str, evidence: list[str]
) -> None:
    result = check_claim(claim, evidence)
    assert result.verdict is Verdict.SUPPORTED, result.reasoning
    assert figure_problem(claim, evidence) is None
