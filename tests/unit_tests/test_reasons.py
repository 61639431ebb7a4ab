"""The verifier's reasons are stored in English and shown to readers in the report's language."""

from __future__ import annotations

import re
import typing

import pytest

from deep_research.labels import LABELS
from deep_research.verification.reasons import REASONS, ReasonName, localize, reason

NAMES: tuple[ReasonName, ...] = typing.get_args(ReasonName)
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
        assert set(templates) == set(NAMES), language
        for name in NAMES:
            assert placeholders(templates[name]) == placeholders(REASONS["en"][name])


@pytest.mark.parametrize("language", [lang for lang in REASONS if lang != "en"])
@pytest.mark.parametrize("name", [n for n in NAMES if n != "figure_check"])
def test_each_reason_is_shown_in_the_reports_language(language: str, name: ReasonName) -> None:
    values = {k: v for k, v in SAMPLE.items() if k in placeholders(REASONS["en"][name])}
    shown = localize(reason(name, **values), language)
    expected = REASONS[language][name].format(**values)
    spaced = language in ("fr", "es", "de")  # 45 % with a space before the sign
    assert shown == (expected.replace("45%", "45 %") if spaced else expected)
    assert shown != reason(name, **values)


def test_the_figure_check_wraps_a_reason_that_is_shown_translated_too() -> None:
    stored = reason("figure_check", reason=reason("missing", figures="2020"))
    assert (
        stored
        == "the evidence does not state the claim's 2020 (figure check; the engine said SUPPORTED)"
    )
    assert localize(stored, "zh") == "证据没有给出陈述中的2020（数字核查；引擎原判为完全支持）"


def test_english_and_reasons_no_template_wrote_are_shown_as_they_are() -> None:
    stored = reason("conflict", stated="300 tokens/s", figure="3,000 tokens/s")
    assert localize(stored, "en") == stored
    assert localize(stored, "pt") == stored  # no templates in Portuguese: English
    model = "Le document indique 150 MW, pas 150 MWh."
    assert localize(model, "fr") == model
