"""Every language a question is detected in has every fixed text a report writes."""

from __future__ import annotations

import re
import typing

import pytest

from deep_research.text.labels import LABELS, Label, label
from deep_research.text.language import Language

ALL: tuple[Label, ...] = typing.get_args(Label)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_english_has_every_label() -> None:
    assert sorted(LABELS["en"]) == sorted(ALL)


def test_every_detected_language_has_a_table() -> None:
    assert set(LABELS) == set(typing.get_args(Language))


@pytest.mark.parametrize("language", sorted(LABELS))
def test_every_language_has_every_english_label_with_the_same_placeholders(
    language: str,
) -> None:
    table = LABELS[language]
    assert sorted(table) == sorted(LABELS["en"])
    for name, text in table.items():
        assert text.strip(), name
        assert placeholders(text) == placeholders(LABELS["en"][name]), name


def test_a_missing_key_or_language_falls_back_to_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert label("pt", "references") == "References"
    partial = {k: v for k, v in LABELS["fr"].items() if k != "panel_hint"}
    monkeypatch.setitem(LABELS, "fr", partial)
    assert label("fr", "panel_hint") == "Click a highlighted claim to see its evidence."
    assert label("fr", "references") == "Références"
