"""report.html: claims highlighted by verdict, their evidence one click away, nothing unescaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from deep_research.context import Context, resolve_config
from deep_research.report.html import render_html
from deep_research.state import (
    Citation,
    Claim,
    Limitation,
    Metrics,
    Reference,
    Report,
    ReportConfidence,
    Verdict,
    VerificationSummary,
)
from deep_research.text.labels import LABELS

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def make_report(
    *,
    extra_text: str = "",
    claims_checked: bool = True,
    question: str = "Battery costs?",
    references: str = "References",
) -> Report:
    body = (
        "# Battery costs\n\n## Prices\n\n"
        "Pack prices fell to 139 USD per kWh in 2023 [1]. LFP cells are cheaper than NMC "
        f"cells [2].{extra_text}\n\n- Costs keep falling [1].\n\n## {references}\n\n1. A — x\n"
    )

    def claim(n: int, text: str, verdict: Verdict, key: str, **fields: Any) -> Claim:
        start = body.index(text)
        return Claim(
            id=f"cl_{n}",
            text=text,
            position_start=start,
            position_end=start + len(text),
            verdict=verdict if claims_checked else None,
            citation_keys=[key],
            **fields,
        )

    claims = [
        claim(
            1,
            "Pack prices fell to 139 USD per kWh in 2023",
            Verdict.SUPPORTED,
            "ev_1",
            confidence=0.9,
            reasoning="the evidence states the price",
            evidence_id="ev_1",
        ),
        claim(
            2,
            "LFP cells are cheaper than NMC cells",
            Verdict.CONTRADICTED,
            "ev_2",
            confidence=0.8,
            reasoning=EVIL,
        ),
        claim(3, "Costs keep falling", Verdict.PARTIAL, "ev_1"),
    ]
    citations = [
        Citation(claim_id="cl_1", evidence_id="ev_1", reference_number=1, quote="139 USD/kWh."),
        Citation(claim_id="cl_2", evidence_id="ev_2", reference_number=2, quote=EVIL),
    ]
    references = [
        Reference(number=1, url="https://example.com/prices", title="Prices", location="x"),
        Reference(number=2, url="https://example.org/lfp", title=EVIL, location="y"),
    ]
    verification = (
        VerificationSummary(supported=1, partial=1, contradicted=1, passes=1)
        if claims_checked
        else VerificationSummary()
    )
    return Report(
        question=question,
        topic="Battery costs",
        outline=["Prices"],
        sections=[],
        markdown=body,
        claims=claims,
        citations=citations,
        references=references,
        sources=[],
        verification=verification,
        metrics=Metrics(),
        config=resolve_config(Context(), depth="light", engine="offline", sources=["local"]),
        extractive=False,
    )


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_every_claim_is_a_span_coloured_by_its_verdict_around_its_exact_text() -> None:
    page = render_html(make_report())
    spans = re.findall(r'<span class="claim v-(\w+)" data-claim="(cl_\d)"[^>]*>(.*?)</span>', page)
    assert [(v, i) for v, i, _ in spans] == [
        ("supported", "cl_1"),
        ("contradicted", "cl_2"),
        ("partial", "cl_3"),
    ]
    assert spans[0][2] == "Pack prices fell to 139 USD per kWh in 2023"


def test_untrusted_text_never_becomes_markup() -> None:
    page = render_html(make_report(extra_text=" " + EVIL))
    parsed = _parse(page)
    assert not [t for t, _ in parsed.tags if t == "img"]
    assert [t for t, a in parsed.tags if t == "script"] == ["script", "script"]
    assert all("onerror" not in attrs for _, attrs in parsed.tags)
    data = json.loads(parsed.scripts[0])  # the embedded claims' data parses back intact
    assert data["cl_2"]["reasoning"] == EVIL
    assert data["cl_2"]["evidence"][0]["title"] == EVIL
    assert "</script><img" not in parsed.scripts[0]


def test_the_page_needs_no_network() -> None:
    page = render_html(make_report())
    parsed = _parse(page)
    for tag, attrs in parsed.tags:
        if tag in {"script", "img", "link", "iframe"}:
            assert not attrs.get("src") and not attrs.get("href"), (tag, attrs)
    assert "default-src 'none'" in page


def test_references_are_linked_and_markers_point_at_them() -> None:
    page = render_html(make_report())
    assert '<li id="ref-1" value="1"><a href="https://example.com/prices">Prices</a>' in page
    assert '<a class="cite" href="#ref-2">[2]</a>' in page
    assert page.count("## References") == 0


def test_the_chart_and_tally_count_the_verdicts() -> None:
    page = render_html(make_report())
    assert "3 claims checked: 1 supported, 1 partial, 0 unsupported, 1 contradicted." in page
    assert re.search(r"<svg class=\"chart\"[^>]*>.*Contradicted.*</svg>", page, re.S)


def test_a_report_with_nothing_checked_says_so_instead_of_a_share() -> None:
    page = render_html(make_report(claims_checked=False))
    assert "No claim could be checked." in page
    assert "v-unchecked" in page


def test_the_summary_sits_under_the_title_and_the_confidence_beside_the_chart() -> None:
    confidence = ReportConfidence(level="medium", basis=f"2 of 3 supported; {EVIL}")
    report = make_report().model_copy(
        update={
            "summary": f"Prices fell [1]. {EVIL}",
            "confidence": confidence,
            "limitations": [Limitation(kind="conflict", text="A [1] versus B [2].")],
        }
    )
    page = render_html(report)
    title, summary = page.index("</h1>"), page.index('<p id="summary">')
    assert title < summary < page.index("<h2>Prices</h2>")
    assert '<a class="cite" href="#ref-1">[1]</a>. &lt;script&gt;' in page[summary:]
    aside = page[page.index("<aside>") :]
    assert '<span class="level level-medium">medium</span>' in aside
    assert "2 of 3 supported; &lt;script&gt;" in aside and "1 limitation stated" in aside
    assert [t for t, _ in _parse(page).tags if t in {"script", "img"}] == ["script", "script"]
    # a report without them (an old export, a simple answer) shows neither
    plain = render_html(make_report())
    assert 'id="summary"' not in plain and 'id="confidence"' not in plain


def test_analysis_claims_are_labelled_as_analysis_not_unchecked() -> None:
    report = make_report()
    kept = report.claims[1].model_copy(
        update={"verdict": None, "claim_type": "synthesis", "citation_keys": []}
    )
    page = render_html(report.model_copy(update={"claims": [report.claims[0], kept]}))
    assert 'class="claim v-analysis" data-claim="cl_2"' in page
    assert "Analysis" in page and "claim v-unchecked" not in page


def test_the_page_declares_the_reports_language() -> None:
    report = make_report()
    assert '<html lang="en">' in render_html(report)
    chinese = report.model_copy(update={"question": "中国的电池成本是多少？"})
    assert '<html lang="zh">' in render_html(chinese)


def test_the_panel_shows_the_verifiers_reason_in_the_reports_language() -> None:
    from deep_research.verification.reasons import reason, render

    report = make_report()
    why = reason("conflict", stated="150兆瓦", figure="一百五十兆瓦时")
    contradicted = report.claims[1].model_copy(update={"reasoning": render(why), "reason": why})
    claims = [report.claims[0], contradicted]
    english = render_html(report.model_copy(update={"claims": claims}))
    assert json.dumps(render(why), ensure_ascii=False) in english
    chinese = report.model_copy(update={"question": "中国的电池成本是多少？", "claims": claims})
    page = render_html(chinese)
    assert "证据给出的是150兆瓦，而不是陈述中的一百五十兆瓦时" in page and render(why) not in page
    assert chinese.claims[1].reasoning == render(why)  # report.json keeps the English words


ENGLISH_UI = (
    "References",
    "Verification",
    "Confidence",
    "Summary.",
    "Supported",
    "Partial",
    "Unsupported",
    "Contradicted",
    "Analysis",
    "Unchecked",
    "claims checked",
    "No claim could be checked",
    "claims by verdict",
    "Click a highlighted claim to see its evidence.",
    "No evidence is cited.",
    "(confidence",
    "found by the verifier",
    "stated in the report",
)
"""Every English word report.html writes itself; a page in another language has none of them."""


def assessed(question: str, references: str, *, claims_checked: bool = True) -> Report:
    """A report with a summary, a confidence, one limitation and one analysis claim."""
    report = make_report(question=question, references=references, claims_checked=claims_checked)
    analysis = report.claims[2].model_copy(update={"verdict": None, "claim_type": "synthesis"})
    return report.model_copy(
        update={
            "claims": [*report.claims[:2], analysis],
            "summary": "Prices fell [1].",
            "confidence": ReportConfidence(level="medium", basis="basis"),
            "limitations": [Limitation(kind="conflict", text="A [1] versus B [2].")],
        }
    )


def test_an_english_page_keeps_its_english_words() -> None:
    page = render_html(assessed("Battery costs?", "References"))
    for words in (
        '<html lang="en">',
        "<h2>References</h2>",
        "<h2>Verification</h2>",
        '<h2>Confidence: <span class="level level-medium">medium</span></h2>',
        "<strong>Summary.</strong>",
        "1 limitation stated in the report.",
        "3 claims checked: 1 supported, 1 partial, 0 unsupported, 1 contradicted.",
        'aria-label="claims by verdict"',
        "<p>Click a highlighted claim to see its evidence.</p>",
        'data-confidence=" (confidence {value})"',
        'data-none="No evidence is cited."',
        'data-found=" (found by the verifier)"',
        'data-close="Close"',
        'title="Contradicted"',
    ):
        assert words in page, words
    chart = page[page.index('<svg class="chart"') : page.index("</svg>")]
    names = re.findall(r'class="label">([^<]+)<', chart)
    assert names == ["Supported", "Partial", "Unsupported", "Contradicted", "Analysis"]
    data = json.loads(_parse(page).scripts[0])
    assert (data["cl_2"]["verdict"], data["cl_2"]["name"]) == ("CONTRADICTED", "Contradicted")
    assert (data["cl_3"]["verdict"], data["cl_3"]["name"]) == ("ANALYSIS", "Analysis")


def test_a_chinese_page_speaks_chinese_and_no_english() -> None:
    page = render_html(assessed("中国的电池成本是多少？", "参考文献"))
    for words in (
        '<html lang="zh">',
        "<h2>参考文献</h2>",
        "<h2>核查</h2>",
        '<h2>可信度：<span class="level level-medium">中</span></h2>',
        "<strong>摘要：</strong>",
        "报告中列出了 1 项局限。",
        "共核查 3 条陈述：1 条得到支持，1 条部分支持，0 条未得到支持，1 条与证据矛盾。",
        'aria-label="按核查结果统计的陈述"',
        "<p>点击高亮的陈述即可查看其证据。</p>",
        'data-confidence="（置信度 {value}）"',
        'data-none="未引用任何证据。"',
        'data-found="（由核查器找到）"',
        'data-close="关闭"',
        'title="与证据矛盾"',
    ):
        assert words in page, words
    chart = page[page.index('<svg class="chart"') : page.index("</svg>")]
    names = re.findall(r'class="label">([^<]+)<', chart)
    assert names == ["得到支持", "部分支持", "未得到支持", "与证据矛盾", "分析"]
    data = json.loads(_parse(page).scripts[0])
    assert (data["cl_2"]["verdict"], data["cl_2"]["name"]) == ("CONTRADICTED", "与证据矛盾")
    assert [words for words in ENGLISH_UI if words in page] == []
    unchecked = render_html(make_report(question="中国的电池成本是多少？", claims_checked=False))
    assert '<p id="tally">没有可核查的陈述。</p>' in unchecked and 'title="未核查"' in unchecked
    assert [words for words in ENGLISH_UI if words in unchecked] == []


def test_a_french_page_speaks_french_and_no_english() -> None:
    page = render_html(assessed("Quelle est la part du nucléaire en France ?", "Références"))
    for words in (
        '<html lang="fr">',
        "<h2>Références</h2>",
        "<h2>Vérification</h2>",
        '<h2>Confiance : <span class="level level-medium">moyenne</span></h2>',
        "<strong>Résumé.</strong>",
        "1 limite signalée dans le rapport.",
        "Affirmations vérifiées : 3 ; étayées : 1, en partie : 1, non étayées : 0, "
        "contredites : 1.",
        "<p>Cliquez sur une affirmation surlignée pour voir ses sources.</p>",
        'data-none="Aucune source n&#x27;est citée."',
        'title="Contredite"',
    ):
        assert words in page, words
    assert [words for words in ENGLISH_UI if words in page] == []
    unchecked = render_html(
        make_report(question="Quelle est la part du nucléaire en France ?", claims_checked=False)
    )
    assert '<p id="tally">Aucune affirmation n&#x27;a pu être vérifiée.</p>' in unchecked


def test_every_verdict_name_fits_the_charts_label_column() -> None:
    """The chart's bars start 110 pixels in; names are drawn in a 12-pixel font before them."""
    for language, labels in LABELS.items():
        for key in [k for k in labels if k.startswith("verdict_")]:
            name = labels[key]
            width = sum(12 if ord(char) > 0x2E80 else 7.5 for char in name)
            assert width < 108, (language, name)


def test_labels_stay_text_in_the_page_and_the_report_content_stays_escaped() -> None:
    report = assessed("中国的电池成本是多少？", "参考文献")
    page = render_html(report.model_copy(update={"summary": EVIL}))
    assert [t for t, _ in _parse(page).tags if t in {"script", "img"}] == ["script", "script"]
    assert "<strong>摘要：</strong> &lt;script&gt;" in page
