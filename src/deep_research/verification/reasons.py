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
    "background",
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
        "background": (
            "unsourced background: cites nothing, states no "
            "figure and names only what the evidence names"
        ),
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
        "background": (
            "contexte sans source : ne cite rien, ne donne aucun "
            "chiffre et ne nomme que ce que nomment les sources"
        ),
        "no_reason": "aucune raison n'a été donnée",
    },
    "es": {
        "no_evidence": "ninguna fuente la respalda",
        "not_aligned": "las fuentes no lo afirman",
        "conflict": "las fuentes dan {stated}, no {figure} como la afirmación",
        "missing": "las fuentes no dan esta cifra de la afirmación: {figures}",
        "negation": "las fuentes dicen lo contrario (difiere una negación)",
        "antonym": "las fuentes dicen «{other}…» donde la afirmación dice «{said}…»",
        "stated": (
            "afirmada: las fuentes recogen el {share} de los términos y cifras de la afirmación"
        ),
        "partly_stated": (
            "afirmada solo en parte: las fuentes recogen el {share} de los términos y cifras "
            "de la afirmación"
        ),
        "not_stated": (
            "no afirmada: las fuentes solo recogen el {share} de los términos y cifras de la "
            "afirmación"
        ),
        "figure_check": "{reason} (control de cifras; el motor la daba por respaldada)",
        "analysis": "análisis: no da ninguna cifra y solo nombra lo que nombran las fuentes",
        "background": (
            "contexto sin fuente: no cita nada, no da ninguna "
            "cifra y solo nombra lo que nombran las fuentes"
        ),
        "no_reason": "no se dio ningún motivo",
    },
    "de": {
        "no_evidence": "es gibt keinen Beleg dafür",
        "not_aligned": "die Belege sagen das nicht aus",
        "conflict": "die Belege nennen {stated}, nicht {figure} wie die Aussage",
        "missing": "die Belege nennen diese Zahl der Aussage nicht: {figures}",
        "negation": "die Belege sagen das Gegenteil (eine Verneinung weicht ab)",
        "antonym": "die Belege sagen „{other}…“, wo die Aussage „{said}…“ sagt",
        "stated": "belegt: die Belege enthalten {share} der Begriffe und Zahlen der Aussage",
        "partly_stated": (
            "nur teilweise belegt: die Belege enthalten {share} der Begriffe und Zahlen der Aussage"
        ),
        "not_stated": (
            "nicht belegt: die Belege enthalten nur {share} der Begriffe und Zahlen der Aussage"
        ),
        "figure_check": "{reason} (Zahlenprüfung; das Modul hielt sie für belegt)",
        "analysis": "Analyse: nennt keine Zahl und nur, was die Belege nennen",
        "background": (
            "Hintergrund ohne Quelle: zitiert nichts, nennt "
            "keine Zahl und nur, was die Belege nennen"
        ),
        "no_reason": "es wurde kein Grund angegeben",
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
        "background": ("无来源的背景：未引用来源，不含数字，且只提及证据中提及的名称"),
        "no_reason": "未给出原因",
    },
    "ja": {
        "no_evidence": "裏付けとなる証拠がありません",
        "not_aligned": "証拠にその記述がありません",
        "conflict": "証拠では{stated}であり、主張の{figure}ではありません",
        "missing": "証拠に主張の{figures}が記載されていません",
        "negation": "証拠は主張と反対のことを述べています（否定の有無が異なる）",
        "antonym": "証拠は「{other}…」と述べ、主張は「{said}…」と述べています",
        "stated": "記載あり：証拠は主張の語句と数値の {share} を含んでいます",
        "partly_stated": "一部のみ記載：証拠は主張の語句と数値の {share} を含んでいます",
        "not_stated": "記載なし：証拠は主張の語句と数値の {share} しか含んでいません",
        "figure_check": "{reason}（数値チェック。エンジンの判定は「裏付けあり」）",
        "analysis": "分析：数値を含まず、証拠に出てくる名称だけを挙げています",
        "background": (
            "出典のない背景説明：何も引用せず、数値を含まず、証拠に出てくる名称だけを挙げています"
        ),
        "no_reason": "理由は示されていません",
    },
    "ko": {
        "no_evidence": "뒷받침하는 근거가 없습니다",
        "not_aligned": "근거에 그 내용이 없습니다",
        "conflict": "근거의 수치는 {stated}, 주장의 수치는 {figure}입니다",
        "missing": "근거에 주장의 다음 수치가 없습니다: {figures}",
        "negation": "근거는 주장과 반대되는 내용을 말합니다(부정 여부가 다름)",
        "antonym": "근거는 ‘{other}…’라고 하지만 주장은 ‘{said}…’라고 합니다",
        "stated": "기술됨: 근거가 주장의 용어와 수치 중 {share}를 담고 있습니다",
        "partly_stated": "일부만 기술됨: 근거가 주장의 용어와 수치 중 {share}를 담고 있습니다",
        "not_stated": "기술되지 않음: 근거가 주장의 용어와 수치 중 {share}만 담고 있습니다",
        "figure_check": "{reason} (수치 확인; 엔진은 ‘뒷받침됨’으로 판정)",
        "analysis": "분석: 수치를 제시하지 않으며 근거에 나오는 이름만 언급합니다",
        "background": (
            "출처 없는 배경: 아무것도 인용하지 않고 수치를 "
            "제시하지 않으며 근거에 나오는 이름만 언급합니다"
        ),
        "no_reason": "이유가 제시되지 않았습니다",
    },
}
"""Each reason the verifier gives, by language; English is what it stores."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SHARE = {"fr": " %", "es": " %", "de": " %"}
"""How a language writes the percent sign of a share: ``85 %`` in French, Spanish and German."""


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
