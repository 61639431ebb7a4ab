"""The language of a question, and the few fixed labels a report writes in it.

Detection is deliberately small: the script decides for Chinese, Japanese and Korean, and for
Latin-script text the share of French, Spanish or German function words; anything else is
English. Labels exist for the languages detected; others fall back to English.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["en", "fr", "es", "de", "zh", "ja", "ko"]

_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[^\W\d_]+")

_MARKERS: dict[Language, frozenset[str]] = {
    "fr": frozenset(
        "le la les des du de un une et est sont dans pour par sur avec qui que quels quelle "
        "quelles comment pourquoi ce cette ces au aux leur plus été être".split()
    ),
    "es": frozenset(
        "el la los las del de un una y es son en para por con que cómo qué cuál cuáles "
        "porque su sus al más".split()
    ),
    "de": frozenset(
        "der die das den dem des ein eine und ist sind für mit von zu wie was welche warum "
        "nicht auch im auf".split()
    ),
}
_ENGLISH = frozenset(
    "the of and is are in for to with what which how why a an on by from that this".split()
)


def language_of(text: str) -> Language:
    """The language ``text`` is most likely written in (see the module docstring)."""
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    han = len(_HAN.findall(text))
    letters = sum(1 for char in text if char.isalpha())
    if han and han * 3 >= letters:
        return "zh"
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    if not words:
        return "en"
    english = sum(w in _ENGLISH for w in words)
    best: Language = "en"
    best_count = english
    for language, markers in _MARKERS.items():
        count = sum(w in markers for w in words)
        if count > best_count:
            best, best_count = language, count
    return best


def french_spanish_or_german(text: str) -> frozenset[Language]:
    """Which of French, Spanish and German ``text`` reads as, at least as much as English.

    Counted in function words; a tie goes to them: a short sentence such as ``Le projet a
    coûté 1 500 millions d'euros`` has one English word (``a``) for one French (``le``), and
    ``La planta costó dos millones`` reads as French and Spanish alike. A text with no function
    word of theirs has none.
    """
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    english = sum(w in _ENGLISH for w in words)
    counts = {language: sum(w in markers for w in words) for language, markers in _MARKERS.items()}
    return frozenset(lang for lang, count in counts.items() if count > 0 and count >= english)


def writes_decimal_comma(text: str) -> bool:
    """True when ``text`` reads as French, Spanish or German at least as much as English.

    Those languages write ``48,6`` for 48.6 and group thousands with spaces or stops
    (``1 200``, ``1.200``); see :func:`french_spanish_or_german` for how a text is told apart.
    """
    return bool(french_spanish_or_german(text))


LANGUAGE_NAMES: dict[Language, str] = {
    "en": "English",
    "fr": "French",
    "es": "Spanish",
    "de": "German",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
}
"""The English name of each language, as prompts name it."""

Label = Literal[
    "references",
    "disagree",
    "notice",
    "verified",
    "unchecked",
    "broad",
    "limitations",
    "no_limits",
    "confidence",
    "high",
    "medium",
    "low",
    "basis_checked",
    "basis_unchecked",
    "basis_sources",
    "basis_conflicts",
    "basis_uncovered",
    "not_covered",
    "sources_disagree",
    "available_from",
    "marked_one",
    "marked_many",
    "mark_partial",
    "mark_unsupported",
    "mark_contradicted",
    "mark_note",
]

LABELS: dict[str, dict[Label, str]] = {
    "en": {
        "references": "References",
        "disagree": "Where sources disagree",
        "notice": (
            "Written by the offline extractive engine: every sentence of its sections is quoted "
            "from a source and selected by relevance and diversity; no language model wrote or "
            "paraphrased it. The Limitations section and the confidence line state what the "
            "run found."
        ),
        "verified": (
            "Verification: {supported} of {total} checked claims fully supported, {removed} "
            "removed or corrected in revision; details in report.json and report.html."
        ),
        "unchecked": (
            "Verification: no claim could be checked against the evidence; details in "
            "report.json and report.html."
        ),
        "broad": (
            "“{question}” is broad. Which aspect should the research cover (for example "
            "costs, history, technology, risks, or a comparison)?"
        ),
        "limitations": "Limitations",
        "no_limits": (
            "Every step of the research plan has a supported claim, and no two sources were "
            "found to disagree on a figure or a fact."
        ),
        "confidence": "Confidence",
        "high": "high",
        "medium": "medium",
        "low": "low",
        "basis_checked": "{supported} of {total} checked claims fully supported",
        "basis_unchecked": "no claim could be checked",
        "basis_sources": "{cited} sources cited, {independent} of them independent "
        "(distinct sites or documents)",
        "basis_conflicts": "{conflicts} conflicts between sources",
        "basis_uncovered": "{uncovered} parts of the question not covered",
        "not_covered": "Not covered: {title}. No claim on it is supported by the sources read.",
        "sources_disagree": "Sources disagree: “{a}” [{key_a}] versus “{b}” [{key_b}].",
        "available_from": "Available from: {location}",
        "marked_one": (
            "1 claim is marked in the text because the evidence does not fully support it; "
            "the notes give the reason."
        ),
        "marked_many": (
            "{count} claims are marked in the text because the evidence does not fully support "
            "them; the notes give the reason."
        ),
        "mark_partial": "partly supported",
        "mark_unsupported": "unsupported",
        "mark_contradicted": "contradicted by its evidence",
        "mark_note": "{mark}: {reason}.",
    },
    "fr": {
        "references": "Références",
        "disagree": "Points de désaccord entre les sources",
        "notice": (
            "Rédigé par le moteur extractif hors ligne : chaque phrase de ses sections est "
            "citée d'une source et choisie pour sa pertinence et sa diversité ; aucun modèle de "
            "langage ne l'a écrite ni reformulée. La section Limites et la ligne de confiance "
            "disent ce que la recherche a constaté."
        ),
        "verified": (
            "Vérification : {supported} affirmations vérifiées sur {total} entièrement "
            "étayées, {removed} retirées ou corrigées ; détails dans report.json et report.html."
        ),
        "unchecked": (
            "Vérification : aucune affirmation n'a pu être confrontée aux sources ; détails "
            "dans report.json et report.html."
        ),
        "broad": (
            "« {question} » est large. Quel aspect la recherche doit-elle couvrir (par exemple "
            "les coûts, l'historique, la technique, les risques ou une comparaison) ?"
        ),
        "limitations": "Limites",
        "no_limits": (
            "Chaque étape du plan de recherche a une affirmation étayée, et aucune source ne "
            "contredit une autre sur un chiffre ou un fait."
        ),
        "confidence": "Confiance",
        "high": "élevée",
        "medium": "moyenne",
        "low": "faible",
        "basis_checked": "{supported} affirmations vérifiées sur {total} entièrement étayées",
        "basis_unchecked": "aucune affirmation n'a pu être vérifiée",
        "basis_sources": "{cited} sources citées, dont {independent} indépendantes "
        "(sites ou documents distincts)",
        "basis_conflicts": "{conflicts} désaccords entre sources",
        "basis_uncovered": "{uncovered} parties de la question non couvertes",
        "not_covered": (
            "Non couvert : {title}. Aucune affirmation à ce sujet n'est étayée par les "
            "sources lues."
        ),
        "sources_disagree": "Les sources divergent : « {a} » [{key_a}] contre « {b} » [{key_b}].",
        "available_from": "Disponible sur : {location}",
        "marked_one": (
            "1 affirmation est signalée dans le texte car les sources ne l'étayent pas "
            "entièrement ; la note en donne la raison."
        ),
        "marked_many": (
            "{count} affirmations sont signalées dans le texte car les sources ne les étayent "
            "pas entièrement ; les notes en donnent la raison."
        ),
        "mark_partial": "partiellement étayée",
        "mark_unsupported": "non étayée",
        "mark_contradicted": "contredite par ses sources",
        "mark_note": "{mark} : {reason}.",
    },
    "zh": {
        "references": "参考文献",
        "disagree": "来源之间的分歧",
        "notice": (
            "本报告由离线抽取引擎生成：各章节的每句话均摘自来源，按相关性和多样性选取，"
            "未经任何语言模型撰写或改写。局限与可信度部分说明本次研究的发现。"
        ),
        "verified": (
            "核查：在 {total} 条经核查的陈述中，{supported} 条得到证据完全支持，"
            "{removed} 条在修订中被删除或更正；详情见 report.json 和 report.html。"
        ),
        "unchecked": "核查：没有可对照证据核查的陈述；详情见 report.json 和 report.html。",
        "broad": "“{question}”范围较广。研究应侧重哪个方面（例如成本、历史、技术、风险或比较）？",
        "limitations": "局限",
        "no_limits": "研究计划的每一步都有得到支持的陈述，也没有发现来源在数字或事实上相互矛盾。",
        "confidence": "可信度",
        "high": "高",
        "medium": "中",
        "low": "低",
        "basis_checked": "{total} 条经核查的陈述中 {supported} 条得到完全支持",
        "basis_unchecked": "没有可核查的陈述",
        "basis_sources": "引用 {cited} 个来源，其中 {independent} 个相互独立（不同网站或文档）",
        "basis_conflicts": "来源之间有 {conflicts} 处分歧",
        "basis_uncovered": "问题中有 {uncovered} 个部分未被覆盖",
        "not_covered": "未覆盖：{title}。所读来源中没有关于此项的得到支持的陈述。",
        "sources_disagree": "来源存在分歧：“{a}”[{key_a}] 与 “{b}”[{key_b}]。",
        "available_from": "获取地址：{location}",
        "marked_one": "文中标记了 1 条证据未能完全支持的陈述，脚注说明了原因。",
        "marked_many": "文中标记了 {count} 条证据未能完全支持的陈述，脚注说明了原因。",
        "mark_partial": "部分得到支持",
        "mark_unsupported": "未得到支持",
        "mark_contradicted": "与其证据相矛盾",
        "mark_note": "{mark}：{reason}。",
    },
}
"""Fixed text a report writes, by language."""


def label(language: str, name: Label) -> str:
    """The label ``name`` in ``language``, or in English when there is none in it."""
    return LABELS.get(language, LABELS["en"])[name]
