"""The language of a question, which a report is written in.

Detection is deliberately small: the script decides for Chinese, Japanese and Korean, and for
Latin-script text the share of French, Spanish or German function words; anything else is
English. The fixed text a report writes in each of these languages is in
:mod:`deep_research.text.labels`.
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
        "quelles comment pourquoi combien quand ce cette ces au aux leur plus été être".split()
    ),
    "es": frozenset(
        "el la los las del de un una y es son en para por con que cómo qué cuál cuáles "
        "porque cuánto cuánta cuántos cuándo dónde su sus al más".split()
    ),
    "de": frozenset(
        "der die das den dem des ein eine und ist sind für mit von zu wie was welche warum "
        "nicht auch im auf wann wo viel viele hat".split()
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


_FUNCTION_WORDS: dict[Language, frozenset[str]] = {
    "de": frozenset(
        "die hat haben hatte wird werden wurde wurden sie er es wir ihr ihre ihren sein seine "
        "sich viel viele vielen wer wann warum weshalb wo woher wohin welche welcher welches "
        "den einen einem auf aus bei nach seit noch nur so kann können gibt war man".split()
    ),
    "fr": frozenset("combien quand pourquoi comment a ont été sera seront il y".split()),
    "es": frozenset(
        "cuánto cuánta cuántos cuántas cuál cuáles dónde cuándo cómo porqué ha han hay "
        "sido son este esta estos estas ese esa le les se".split()
    ),
}
"""Function words of a language that are content words in English (``die``, ``hat``, ``son``),
or that the shared stopword list lacks: left out of a question's terms only when the question
is written in that language, so that an English question about die casting keeps its die."""


def function_words(language: Language) -> frozenset[str]:
    """Words of ``language`` that carry no subject (see :data:`_FUNCTION_WORDS`)."""
    return _FUNCTION_WORDS.get(language, frozenset())


_CJK_QUESTION_WORDS = re.compile(
    "有哪些|有什么|为什么|怎么样|怎么|怎样|什么|哪些|哪个|哪里|哪一年|如何|多少|是否|情况|是|吗|呢|的|和|与|及|或"
    "|なぜ|どのように|どのような|どの|何"
)
"""Chinese and Japanese question words, and the particles and conjunctions that join a
question's nouns (``的``, ``和``): in text written without spaces they would glue the subject
to the question (``回收情况如何``)."""


def without_question_words(text: str) -> str:
    """``text`` with its Chinese and Japanese question words and joining particles blanked.

    For the question side only (a question, a step's title, a query), so that its subject
    (``回收``) is what its terms name; evidence is matched as written.
    """
    return _CJK_QUESTION_WORDS.sub(" ", text)
