"""Figures written the Chinese way: number units, currencies, units, hedges and dates.

Read by :mod:`deep_research.verification.quantities` and judged by the offline verifier's
``check_one``, as the English promises of ``test_figure_promises.py`` are.
"""

from __future__ import annotations

import pytest

from deep_research.state import Verdict
from deep_research.verification.agreement import agrees
from deep_research.verification.checks import check_claim, check_one
from deep_research.verification.quantities import Quantity, quantities


def one(text: str) -> Quantity:
    (found,) = quantities(text)
    return found


@pytest.mark.parametrize(
    ("text", "kind", "value", "currency"),
    [
        ("投资5亿元", "money", 5e8, "CNY"),
        ("投资500万元", "money", 5e6, "CNY"),
        ("投资5千万元", "money", 5e7, "CNY"),
        ("投资1.2万亿元", "money", 1.2e12, "CNY"),
        ("融资3十亿美元", "money", 3e9, "US$"),
        ("花费2百万欧元", "money", 2e6, "€"),
        ("人民币5亿", "money", 5e8, "CNY"),
        ("人民币5亿元", "money", 5e8, "CNY"),
        ("5亿元人民币", "money", 5e8, "CNY"),
        ("￥５亿", "money", 5e8, "¥"),
        ("装机容量为150兆瓦", "power", 150e6, ""),
        ("装机容量为120万千瓦", "power", 1.2e9, ""),
        ("容量为2吉瓦", "power", 2e9, ""),
        ("储能193.5兆瓦时", "energy", 193.5e6, ""),
        ("发电3亿千瓦时", "energy", 3e11, ""),
        ("占比45%", "percent", 45.0, ""),
        ("占比４５％", "percent", 45.0, ""),
        ("占比百分之45", "percent", 45.0, ""),
        ("上升5个百分点", "points", 5.0, ""),
        ("历时3年", "duration", 3 * 8766.0, ""),
        ("长12公里", "length", 12e3, ""),
        ("共有1,200人", "count", 1200.0, ""),
        ("体重160斤", "mass", 80e3, ""),
        # traditional characters
        ("投資5億元", "money", 5e8, "CNY"),
        ("儲能193.5兆瓦時", "energy", 193.5e6, ""),
        ("上升5個百分點", "points", 5.0, ""),
        ("投資3萬美元", "money", 3e4, "US$"),
    ],
)
def test_chinese_figures_are_read_in_base_units(
    text: str, kind: str, value: float, currency: str
) -> None:
    found = one(text)
    assert (found.kind, found.value, found.currency) == (kind, pytest.approx(value), currency)


def test_chinese_dates_keep_their_month_and_day() -> None:
    found = one("该电站于2017年12月1日投入运营")
    assert (found.kind, found.value, found.month, found.day) == ("date", 2017, 12, 1)
    assert (one("于2020年完工").kind, one("于2020年完工").month) == ("date", None)


def test_chinese_hedges_are_read() -> None:
    assert one("约200兆瓦").bound == "approx"
    assert one("超过26万册").bound == "ge"
    assert one("不超过5%").bound == "le"
    assert one("不到5%").bound == "le"


def test_a_chinese_figure_agrees_with_its_english_form() -> None:
    assert agrees(one("投资5亿美元"), one("cost US$500 million"))
    assert agrees(one("150兆瓦"), one("0.15 GW"))
    assert not agrees(one("5亿元"), one("5亿美元"))  # yuan are not dollars


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict"),
    [
        # power is not energy
        ("该电站的装机容量为150兆瓦。", "该电站的装机容量为150兆瓦时。", Verdict.CONTRADICTED),
        ("该电站的装机容量为150兆瓦。", "该电站的装机容量为0.15吉瓦。", Verdict.SUPPORTED),
        ("该电站的装机容量为150兆瓦。", "该电站的装机容量为15万千瓦。", Verdict.SUPPORTED),
        # magnitudes written with number units or in full
        ("该项目投资5亿元。", "该项目投资5亿元。", Verdict.SUPPORTED),
        ("该项目投资5亿元。", "该项目投资500,000,000元。", Verdict.SUPPORTED),
        ("该项目投资5亿元。", "该项目投资５亿元。", Verdict.SUPPORTED),
        ("该项目投资5亿元。", "该项目投资5千万元。", Verdict.CONTRADICTED),
        ("该项目投资5亿元。", "该项目投资5亿美元。", Verdict.CONTRADICTED),
        # percentages, points and years
        ("市场份额上升了5个百分点。", "市场份额上升了5%。", Verdict.CONTRADICTED),
        ("市场份额为百分之45。", "市场份额为45%。", Verdict.SUPPORTED),
        ("该电站于2019年投入运营。", "该电站于2021年投入运营。", Verdict.CONTRADICTED),
        # hedges widen the match
        ("该电池的功率约为200兆瓦。", "该电池的功率为193.5兆瓦。", Verdict.SUPPORTED),
        ("该项目投资超过4亿元。", "该项目投资5亿元。", Verdict.SUPPORTED),
        ("该项目投资超过6亿元。", "该项目投资5亿元。", Verdict.CONTRADICTED),
    ],
)
def test_chinese_figures_are_judged_like_english_ones(
    claim: str, evidence: str, verdict: Verdict
) -> None:
    result = check_one(claim, evidence)
    assert result.verdict is verdict, result.reasoning


def test_a_chinese_figure_the_evidence_lacks_makes_the_claim_partial() -> None:
    result = check_claim("该项目投资5亿元，于2019年完工。", ["该项目于2019年完工。"])
    assert result.verdict is Verdict.PARTIAL
    assert "5亿元" in result.reasoning


@pytest.mark.parametrize(
    ("text", "kind", "value", "currency"),
    [
        ("储能容量为一百五十兆瓦时", "energy", 150e6, ""),
        ("装机容量为一百二十万千瓦", "power", 1.2e9, ""),
        ("该项目投资两亿元", "money", 2e8, "CNY"),
        ("人民币五亿", "money", 5e8, "CNY"),
        ("投资三亿五千万美元", "money", 3.5e8, "US$"),
        ("市场份额为百分之五十", "percent", 50.0, ""),
        ("上升五个百分点", "points", 5.0, ""),
        ("历时十二年", "duration", 12 * 8766.0, ""),
        ("该公司有三千五百名员工", "count", 3500.0, ""),
        ("共一千零五家企业", "count", 1005.0, ""),
        ("约有两万五千人", "count", 25000.0, ""),
        ("规模达五十万亿元", "money", 5e13, "CNY"),
        ("体重一百六十斤", "mass", 80e3, ""),
        ("投资三点五亿元", "money", 3.5e8, "CNY"),
        ("增长百分之三点五", "percent", 3.5, ""),
        ("功率为零点五兆瓦", "power", 0.5e6, ""),
        # digits mixed with number units, as before
        ("投资3千万元", "money", 3e7, "CNY"),
        ("共有1.5万人", "count", 1.5e4, ""),
    ],
)
def test_numbers_written_in_characters_are_read_in_base_units(
    text: str, kind: str, value: float, currency: str
) -> None:
    found = one(text)
    assert (found.kind, found.value, found.currency) == (kind, pytest.approx(value), currency)
    assert not found.spelled


def test_years_months_and_days_written_in_characters_are_dates() -> None:
    found = one("该电站于二〇一九年三月五日投入运营")
    assert (found.kind, found.value, found.month, found.day) == ("date", 2019, 3, 5)
    assert (one("二零二零年十二月").value, one("二零二零年十二月").month) == (2020, 12)
    assert one("2019年十月投产").month == 10


@pytest.mark.parametrize(
    "text",
    [
        "一些企业采用统一标准，一般来说效果一样",  # 一 in words
        "第一阶段于星期三开始",  # an ordinal and a weekday
        "十二月的产量",  # a month
        "“十二五”规划",  # a name, not one number
        "一五一十地说明",  # an idiom, not one number
        "万一发生事故",  # 万 cannot start a number
        "数十万辆汽车和十几家企业",  # vague numbers
        "三点开会，三点五分结束",  # times
    ],
)
def test_number_characters_in_words_are_not_figures(text: str) -> None:
    assert [q for q in quantities(text) if not q.spelled] == []


def test_one_character_and_counts_of_nothing_are_read_as_spelled_out() -> None:
    """They can match a figure, but are never required and never contradict one."""
    assert one("三元锂电池").spelled  # 三元 is also "ternary"
    assert one("一年来").spelled  # 一 is often "a"
    assert one("十万火急").spelled  # counts nothing named
    assert not one("五兆瓦").spelled  # one character with a unit


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict"),
    [
        ("储能容量为一百五十兆瓦时。", "储能容量为150 MWh。", Verdict.SUPPORTED),
        ("储能容量为一百五十兆瓦时。", "储能容量为150兆瓦时。", Verdict.SUPPORTED),
        ("储能容量为一百五十兆瓦时。", "储能容量为150兆瓦。", Verdict.CONTRADICTED),
        ("储能容量为150兆瓦时。", "储能容量为一百五十兆瓦。", Verdict.CONTRADICTED),
        ("该公司有三千五百名员工。", "该公司有3,500名员工。", Verdict.SUPPORTED),
        ("该公司有三千五百名员工。", "该公司有4000名员工。", Verdict.CONTRADICTED),
        ("该项目投资两亿元。", "该项目投资2亿元。", Verdict.SUPPORTED),
        ("该项目投资两亿元。", "该项目投资2亿美元。", Verdict.CONTRADICTED),
        ("市场份额为百分之五十。", "市场份额为50%。", Verdict.SUPPORTED),
        ("市场份额上升了五个百分点。", "市场份额上升了5%。", Verdict.CONTRADICTED),
        ("该电站于二〇一九年投入运营。", "该电站于2019年投入运营。", Verdict.SUPPORTED),
        ("该电站于二〇一九年投入运营。", "该电站于2021年投入运营。", Verdict.CONTRADICTED),
    ],
)
def test_numbers_written_in_characters_are_judged_like_digits(
    claim: str, evidence: str, verdict: Verdict
) -> None:
    result = check_one(claim, evidence)
    assert result.verdict is verdict, result.reasoning


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("一些企业采用统一标准。", "3家企业采用统一标准。"),
        ("这是一种一般的做法，一样有效。", "这是5种一般的做法，2样有效。"),
        ("统一电网由一家公司运营。", "统一电网由2家公司运营。"),
        ("三元锂电池的成本下降。", "三元锂电池的成本下降到5元。"),
    ],
)
def test_number_characters_in_words_never_contradict_the_evidence(
    claim: str, evidence: str
) -> None:
    result = check_one(claim, evidence)
    assert result.verdict is Verdict.SUPPORTED, result.reasoning


def test_more_than_after_a_number_in_characters_is_a_lower_bound() -> None:
    found = one("回收规模为一百多万吨")
    assert (found.kind, found.value, found.bound) == ("mass", pytest.approx(1e12), "ge")
    assert one("五十多家企业").bound == "ge"
