"""Figures derived by arithmetic from cited figures are checked by computing them.

A growth rate, a share, a ratio, a sum or a difference that the evidence implies but does not
write is SUPPORTED when the arithmetic is right and CONTRADICTED when it is wrong, in the
offline checks and when a model's SUPPORTED is held to the figure rule.
"""

from __future__ import annotations

import pytest

from deep_research.state import Verdict
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
