"""The verifier's reasons are stored as codes with values and worded in the reader's language."""

from __future__ import annotations

import re
import typing

import pytest

from deep_research.state import Claim, Reason
from deep_research.state.models import ReasonCode
from deep_research.text.labels import LABELS
from deep_research.verification.checks import check_claim
from deep_research.verification.reasons import REASONS, figure_check, reason, render, words

CODES: tuple[ReasonCode, ...] = typing.get_args(ReasonCode)
SAMPLE = {
    "stated": "2021年",
    "figure": "2019年",
    "figures": "A$90 million, 2020",
    "other": "fell",
    "said": "rose",
    "share": "45%",
}


def placeholders(template: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", template))


def test_every_report_language_words_every_reason_with_the_same_figures() -> None:
    assert set(REASONS) == set(LABELS)
    for language, templates in REASONS.items():
        assert set(templates) == set(CODES), language
        for code in CODES:
            assert placeholders(templates[code]) == placeholders(REASONS["en"][code])


@pytest.mark.parametrize("language", [lang for lang in REASONS if lang != "en"])
@pytest.mark.parametrize("code", [c for c in CODES if c != "figure_check"])
def test_each_reason_is_worded_in_the_readers_language(language: str, code: ReasonCode) -> None:
    values = {k: v for k, v in SAMPLE.items() if k in placeholders(REASONS["en"][code])}
    shown = render(reason(code, **values), language)
    expected = REASONS[language][code].format(**values)
    spaced = language in ("fr", "es", "de")  # 45 % with a space before the sign
    assert shown == (expected.replace("45%", "45 %") if spaced else expected)
    assert shown != render(reason(code, **values))


def test_the_figure_check_wraps_its_cause_and_both_are_worded_in_the_language() -> None:
    stored = figure_check(reason("missing", figures="2020"))
    assert stored == Reason(code="figure_check", params={"figures": "2020", "cause": "missing"})
    assert (
        render(stored)
        == "the evidence does not state the claim's 2020 (figure check; the engine said SUPPORTED)"
    )
    assert render(stored, "zh") == "证据没有给出陈述中的2020（数字核查；引擎原判为完全支持）"


def test_a_language_without_templates_gets_english() -> None:
    stored = reason("conflict", stated="300 tokens/s", figure="3,000 tokens/s")
    assert render(stored, "pt") == render(stored, "en")


def test_a_claim_shows_its_code_worded_or_else_the_models_own_reasoning() -> None:
    checked = check_claim("Hornsdale cost A$90 million.", ["Hornsdale cost A$66 million."])
    assert checked.reason.code == "conflict"
    assert checked.reason.params == {"stated": "A$66 million", "figure": "A$90 million"}
    assert checked.reasoning == render(checked.reason)  # English for programs
    claim = Claim(
        id="c1",
        text="Hornsdale cost A$90 million.",
        position_start=0,
        position_end=28,
        reasoning=checked.reasoning,
        reason=checked.reason,
    )
    assert (
        words(claim, "fr")
        == "les sources donnent A$66 million, et non A$90 million comme l'affirmation"
    )
    model = claim.model_copy(update={"reason": None, "reasoning": "Le document indique 150 MW."})
    assert words(model, "fr") == "Le document indique 150 MW."
