"""The verifier's reasons: written in English, shown to readers in the report's language.

The offline checks and the figure rule word each verdict's reason from one of the templates
of :data:`REASONS` (:func:`reason`), and the reason is stored as written: report.json, the
events and the database keep one language for the programs that read them. What a person
reads, report.md's footnotes and report.html's claim panel, goes through :func:`localize`,
which recognizes a template's English and writes it again in the report's language, the
figures as the texts wrote them. A reason no template wrote (a model's) is shown as it is.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

__all__ = ["REASONS", "ReasonName", "localize", "reason"]

ReasonName = Literal[
    "no_evidence",
    "not_aligned",
    "conflict",
    "missing",
    "negation",
    "antonym",
    "stated",
    "partly_stated",
    "not_stated",
    "figure_check",
    "analysis",
    "no_reason",
]

REASONS: dict[str, dict[ReasonName, str]] = {
    "en": {
        "no_evidence": "there is no evidence for it",
        "not_aligned": "the evidence does not state it",
        "conflict": "the evidence gives {stated}, not the claim's {figure}",
        "missing": "the evidence does not state the claim's {figures}",
        "negation": "the evidence states the opposite (negation differs)",
        "antonym": "the evidence says '{other}…' where the claim says '{said}…'",
        "stated": "stated: the evidence states {share} of the claim's terms and figures",
        "partly_stated": (
            "only partly stated: the evidence states {share} of the claim's terms and figures"
        ),
        "not_stated": "not stated: the evidence states {share} of the claim's terms and figures",
        "figure_check": "{reason} (figure check; the engine said SUPPORTED)",
        "analysis": "analysis: states no figure and names only what the evidence names",
        "no_reason": "no reason was given",
    },
    "fr": {
        "no_evidence": "aucune source n'est citée à l'appui",
        "not_aligned": "les sources ne l'énoncent pas",
        "conflict": "les sources donnent {stated}, et non {figure} comme l'affirmation",
        "missing": "les sources ne donnent pas ce chiffre de l'affirmation : {figures}",
        "negation": "les sources disent le contraire (une négation diffère)",
        "antonym": "les sources disent « {other}… » là où l'affirmation dit « {said}… »",
        "stated": "énoncée : les sources énoncent {share} des termes et chiffres de l'affirmation",
        "partly_stated": (
            "énoncée en partie : les sources énoncent {share} des termes et chiffres de "
            "l'affirmation"
        ),
        "not_stated": (
            "non énoncée : les sources n'énoncent que {share} des termes et chiffres de "
            "l'affirmation"
        ),
        "figure_check": "{reason} (contrôle des chiffres ; le moteur la jugeait étayée)",
        "analysis": "analyse : ne donne aucun chiffre et ne nomme que ce que nomment les sources",
        "no_reason": "aucune raison n'a été donnée",
    },
    "zh": {
        "no_evidence": "没有任何证据支持",
        "not_aligned": "证据中没有这一内容",
        "conflict": "证据给出的是{stated}，而不是陈述中的{figure}",
        "missing": "证据没有给出陈述中的{figures}",
        "negation": "证据的说法与陈述相反（否定不同）",
        "antonym": "证据说“{other}…”，而陈述说“{said}…”",
        "stated": "已陈述：证据涵盖了陈述中 {share} 的词语和数字",
        "partly_stated": "仅部分陈述：证据涵盖了陈述中 {share} 的词语和数字",
        "not_stated": "未陈述：证据只涵盖了陈述中 {share} 的词语和数字",
        "figure_check": "{reason}（数字核查；引擎原判为完全支持）",
        "analysis": "分析：不含数字，且只提及证据中提及的名称",
        "no_reason": "未给出原因",
    },
}
"""Each reason the verifier gives, by language; English is what it stores."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SHARE = {"fr": " %"}
"""How a language writes the percent sign of a share: ``85 %`` in French."""


def reason(name: ReasonName, **values: str) -> str:
    """The reason ``name`` in English, its placeholders filled with ``values``."""
    return REASONS["en"][name].format(**values)


@cache
def _patterns() -> tuple[tuple[ReasonName, re.Pattern[str]], ...]:
    """Each English template as a pattern that captures its values.

    The template that wraps another (the figure check) comes first.
    """
    found = []
    for name, template in REASONS["en"].items():
        parts = _PLACEHOLDER.split(template)
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        found.append((name, re.compile(pattern, re.S)))
    return tuple(sorted(found, key=lambda item: item[0] != "figure_check"))


def localize(reasoning: str, language: str) -> str:
    """``reasoning`` in ``language`` when a template of :data:`REASONS` wrote it.

    English, a language without templates and a reason no template wrote (a model's own
    words) come back unchanged.
    """
    templates = REASONS.get(language)
    if templates is None or language == "en":
        return reasoning
    for name, pattern in _patterns():
        match = pattern.fullmatch(reasoning)
        if match is None:
            continue
        values = match.groupdict()
        if "reason" in values:
            values["reason"] = localize(values["reason"], language)
        if "share" in values and language in _SHARE:
            values["share"] = values["share"].replace("%", _SHARE[language])
        return templates[name].format(**values)
    return reasoning
