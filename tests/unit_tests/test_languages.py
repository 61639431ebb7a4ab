"""Any language, any script: tokens, sentences, quotes, drafts, and the offline graph.

The Chinese and French corpora under tests/fixtures were written for these tests.
"""

from __future__ import annotations

import random
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources import LocalCorpus
from deep_research.sources.local import default_index_path, query_terms
from deep_research.state import PlanStep, Report, Verdict
from deep_research.text import words as text_module
from deep_research.text.language import french_spanish_or_german, language_of, writes_decimal_comma
from deep_research.text.words import (
    CJK_CLASS,
    content_tokens,
    numbers,
    sentences,
    split_line,
    tokens,
    word_count,
)
from deep_research.verification.citations import extract_claims, normalize_draft

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_tokens_keep_accents_and_cut_cjk_into_bigrams() -> None:
    assert tokens("L'électricité coûte cher") == ["électricité", "coûte", "cher"]
    assert tokens("比亚迪2023年") == ["比亚", "亚迪", "2023", "年"]
    assert "lectricit" not in content_tokens("électricité")


def test_tokens_are_the_same_whichever_path_the_text_takes() -> None:
    """ASCII text, other spaced scripts and CJK text are tokenized by different paths.

    A word is lower-cased on its own, never with the whole text (``İ`` lowers to two characters,
    the second not a letter, which would cut the word); elision applies to ASCII and curly
    apostrophes alike, and only at a word's start.
    """
    assert tokens("The US'S d'Artagnan rock'n'roll 3.5") == [
        "the",
        "us's",
        "artagnan",
        "rock'n'roll",
        "3.5",
    ]
    assert tokens("İstanbul l’Été") == ["i̇stanbul", "été"]
    assert tokens("İstanbul 比亚迪 l’Été") == ["i̇stanbul", "比亚", "亚迪", "été"]
    assert tokens("ΣΊΣΥΦΟΣ, qu’il") == ["σίσυφος", "il"]
    assert tokens("Straße_und 1,200") == ["straße", "und", "1,200"]


def test_the_fast_word_patterns_match_as_the_plain_ones() -> None:
    """Possessive quantifiers, and ``[a-z0-9]`` in lower-cased ASCII, change no match."""
    cjk, word = rf"[{CJK_CLASS}]", rf"[^\W_{CJK_CLASS}]"
    plain = re.compile(rf"(?P<cjk>{cjk}+)|(?P<word>{word}+(?:[.,'’]{word}+)*)")
    plain_spaced = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*")
    r = random.Random(33)
    for alphabet in ("aZ9_ .,'-\n", "aZ9_ .,'’-éİß比亚\n"):
        for _ in range(5000):
            text = "".join(r.choice(alphabet) for _ in range(r.randrange(24)))
            assert text_module._WORD.findall(text) == plain.findall(text)
            assert text_module._SPACED_WORD.findall(text) == plain_spaced.findall(text)
            if text.isascii():
                lowered = text.lower()
                assert text_module._ASCII_WORD.findall(lowered) == plain_spaced.findall(lowered)


def test_numbers_are_found_inside_cjk_text() -> None:
    assert numbers("比亚迪2023年销量为300万辆") == [2023.0, 300.0]
    assert numbers("A320") == []


def test_sentences_end_at_full_width_stops_and_before_capitals_of_any_script() -> None:
    assert list(split_line("宁德时代是龙头。比亚迪第二！份额多少？其余")) == [
        "宁德时代是龙头。",
        "比亚迪第二！",
        "份额多少？",
        "其余",
    ]
    assert list(split_line("Le coût a doublé. Élevé, il reste. 3 réacteurs.")) == [
        "Le coût a doublé.",
        "Élevé, il reste.",
        "3 réacteurs.",
    ]
    assert list(split_line("The U.S. grid grew. e.g. it did.")) == [
        "The U.S. grid grew. e.g. it did."
    ]


def test_the_day_of_a_german_date_does_not_end_a_sentence() -> None:
    assert list(split_line("Die Anlage ging am 3. März 2021 in Betrieb. Sie läuft.")) == [
        "Die Anlage ging am 3. März 2021 in Betrieb.",
        "Sie läuft.",
    ]
    assert list(split_line("Es stieg um 4. Danach fiel es.")) == [
        "Es stieg um 4.",
        "Danach fiel es.",
    ]


def test_sentence_offsets_are_verbatim_in_cjk_text() -> None:
    text = "# 标题\n\n宁德时代是龙头。比亚迪第二。\n"
    found = list(sentences(text))
    assert [s.text for s in found] == ["宁德时代是龙头。", "比亚迪第二。"]
    assert all(text[s.start : s.end] == s.text for s in found)


def test_word_counts_are_comparable_across_scripts() -> None:
    assert word_count("主要制造商包括比亚迪。") == 5
    assert word_count("The plant opened in 2020.") == 5


@pytest.mark.parametrize(
    ("draft", "expected"),
    [
        ("The main drivers are:", "The main drivers are:"),
        ("**Key takeaway**", "**Key takeaway**"),
        ("主要制造商包括比亚迪 [@ev_2]。", "主要制造商包括比亚迪[@ev_2]。"),
        ("主要制造商包括比亚迪 [@ev_2]", "主要制造商包括比亚迪[@ev_2]。"),
        ("比亚迪。[@a] 宁德时代也是 [@b]。", "比亚迪[@a]。宁德时代也是[@b]。"),
        ("« Il l'a dit. »", "« Il l'a dit. »"),
        ("Prices fell [@a]. [@b] Next one", "Prices fell [@a][@b]. Next one."),
        (
            "份额为43%[@a]，比亚迪为27%[@b]。使用 LFP 电池[@c]。",
            "份额为43%，比亚迪为27%[@a][@b]。使用 LFP 电池[@c]。",
        ),
    ],
)
def test_normalization_keeps_prose_intact(draft: str, expected: str) -> None:
    assert normalize_draft(draft) == expected + "\n"
    assert "。." not in normalize_draft(draft)


def test_claims_of_a_chinese_draft_are_located_exactly() -> None:
    draft = normalize_draft("宁德时代的份额约为43% [@a]。比亚迪采用刀片电池[@b]。")
    claims = extract_claims(draft)
    assert [draft[c.position_start : c.position_end] for c in claims] == [
        "宁德时代的份额约为43%",
        "比亚迪采用刀片电池",
    ]
    assert [c.citation_keys for c in claims] == [["a"], ["b"]]


def test_local_corpus_query_terms_are_cjk_bigram_phrases() -> None:
    assert query_terms("比亚迪 battery") == ["比 亚", "亚 迪", "battery"]


def test_language_detection() -> None:
    assert language_of("中国动力电池市场的主要制造商有哪些？") == "zh"
    assert language_of("Quelle est la part du nucléaire en France ?") == "fr"
    assert language_of("How do LFP and NMC compare?") == "en"


def test_languages_that_write_decimal_commas_are_told_apart_from_english() -> None:
    """They decide how ``1,234`` and ``1 200`` read (docs/verification.md)."""
    assert writes_decimal_comma("Le projet a coûté 1 500 millions d'euros.")  # a tie: French
    assert writes_decimal_comma("Die Anlage hat 1.234 Einwohner.")
    assert writes_decimal_comma("El proyecto costó 1.500 millones de euros.")
    assert not writes_decimal_comma("The plant has a capacity of 1,234 MW.")
    assert not writes_decimal_comma("1,234 MW")  # no words: English


def test_french_spanish_and_german_are_each_told_apart_from_english() -> None:
    """Their month names and numbers in words are read in text that reads as them."""
    assert french_spanish_or_german("Le projet a coûté deux millions d'euros.") == {"fr"}
    assert french_spanish_or_german("La planta costó dos millones de euros.") == {"fr", "es"}
    assert french_spanish_or_german("Die Anlage kostete zwei Millionen Euro.") == {"de"}
    assert french_spanish_or_german("The project cost two million euros.") == set()


async def _report(corpus: str, question: str, tmp_path: Path) -> Report:
    root = (FIXTURES / corpus).resolve()
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[LocalCorpus(root, default_index_path(tmp_path, root))],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config: dict[str, Any] = {"configurable": {"thread_id": uuid.uuid4().hex}}
    out = await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        config,
        context=Context(allow_clarification=False, depth="light"),
    )
    report: Report = out["report"]
    return report


async def test_chinese_question_finds_evidence_and_verifies_it(tmp_path: Path) -> None:
    report = await _report("corpus_zh", "中国动力电池市场的主要制造商有哪些？", tmp_path)

    assert report.references, "no evidence found in the Chinese corpus"
    assert report.claims
    assert all(c.verdict is Verdict.SUPPORTED for c in report.claims)
    assert "宁德时代" in report.markdown
    assert "[1]。" in report.markdown  # the marker goes before the full stop, unspaced
    assert " [1]" not in report.markdown
    assert "。." not in report.markdown
    assert "离线抽取引擎" in report.markdown  # the notice is in the question's language
    assert "## 局限" in report.markdown and "**可信度：" in report.markdown
    assert "Limitations" not in report.markdown and "局限" not in report.outline
    assert report.markdown.rstrip().endswith("详情见 report.json 和 report.html。*")
    assert "获取地址：" in report.markdown and "Available from" not in report.markdown
    assert all(r.citation.endswith(f"获取地址：{r.location}") for r in report.references)
    for claim in report.claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text


async def test_french_question_finds_evidence_and_verifies_it(tmp_path: Path) -> None:
    question = (
        "Quelle est la part du nucléaire dans la production d'électricité en France, "
        "et combien a coûté l'EPR de Flamanville ?"
    )
    report = await _report("corpus_fr", question, tmp_path)

    assert report.references
    assert all(c.verdict is Verdict.SUPPORTED for c in report.claims)
    assert "électricité" in report.markdown
    assert "térawattheures" in report.markdown
    assert "## Combien a coûté l'EPR de Flamanville" in report.markdown  # split at ", et"
    assert "13,2 milliards" in report.markdown  # coûté matches coût
    assert "moteur extractif" in report.markdown
    assert "Disponible sur : " in report.markdown and "Available from" not in report.markdown


async def test_the_offline_clarifying_question_is_asked_in_the_questions_language() -> None:
    reply = await OfflineEngine().clarify("电池", [])
    assert reply.value.needs_clarification and "范围较广" in reply.value.question
    english = await OfflineEngine().clarify("batteries", [])
    assert "is broad" in english.value.question


def test_chinese_pages_are_cut_into_passages_of_comparable_size() -> None:
    from deep_research.sources.passages import build_passages
    from deep_research.state import Document

    sentence = "宁德时代是全球装机量最大的动力电池制造商，2023年其国内市场份额约为43%。"
    text = "# 电池\n\n" + sentence * 60
    passages = build_passages(Document(id="d", url="https://x.example", title="t", text=text))
    assert len(passages) > 5  # not one passage holding the whole page
    assert all(text[p.start : p.end] == p.text for p in passages)
    assert max(p.tokens for p in passages) < 200


def test_a_questions_own_function_words_are_not_its_terms() -> None:
    from deep_research.engines.offline.engine import _words

    assert _words("Wie viel hat die Batterie gekostet und wie groß ist sie?") == [
        "batterie",
        "gekostet",
        "groß",
    ]
    # "die" and "hat" are English words: an English question keeps them
    assert _words("What limits die casting of red hat parts?") == [
        "limits",
        "die",
        "casting",
        "red",
        "hat",
        "parts",
    ]


async def test_a_german_cost_question_is_answered_with_what_it_cost(tmp_path: Path) -> None:
    from deep_research.sources import SAMPLE_CORPUS

    graph = build_graph(
        engine=OfflineEngine(),
        sources=[LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    out = await graph.ainvoke(
        {"messages": [HumanMessage("Wie viel hat die Hornsdale Power Reserve gekostet?")]},
        config,
        context=Context(allow_clarification=False, depth="light"),
    )
    report: Report = out["report"]
    plan = (await graph.aget_state(config)).values["plan"]
    # the money spent, as for the English question, and no research step of German
    # function words ("viel hat die") that no English page can mention
    assert "A$8 million" in report.markdown or "A$15 million" in report.markdown
    assert [s.title for s in plan] == ["Wie viel hat die Hornsdale Power Reserve gekostet"]


def test_chinese_question_words_do_not_glue_to_the_subject() -> None:
    from deep_research.engines.offline.engine import _words
    from deep_research.sources.evidence import step_terms

    assert _words("磷酸铁锂电池有哪些优点和缺点？回收情况如何？") == [
        "磷酸铁锂电池",
        "优点",
        "缺点",
        "回收",
    ]
    # a step titled by the question finds sentences on its subject: its terms are the
    # subject's bigrams, not 情况 or 如何
    terms = step_terms(PlanStep(id="s01", title="回收情况如何"))
    assert terms == ["回收"]


async def test_a_chinese_question_adds_no_step_of_question_words(tmp_path: Path) -> None:
    question = "磷酸铁锂电池有哪些优点和缺点？回收情况如何？"
    root = (FIXTURES / "corpus_zh").resolve()
    graph = build_graph(
        engine=OfflineEngine(),
        sources=[LocalCorpus(root, default_index_path(tmp_path, root))],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        config,
        context=Context(allow_clarification=False, depth="medium"),
    )
    plan = (await graph.aget_state(config)).values["plan"]
    added = [s.title for s in plan if s.round > 1]
    assert added  # the medium depth's reflection adds a step for what no finding mentions
    assert all(not any(w in t for w in ("哪些", "如何", "情况", "电池有")) for t in added), added
