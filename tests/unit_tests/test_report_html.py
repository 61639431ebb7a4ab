"""report.html: claims highlighted by verdict, their evidence one click away, nothing unescaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from deep_research.context import Context, resolve_config
from deep_research.report_html import render_html
from deep_research.state import (
    Citation,
    Claim,
    Metrics,
    Reference,
    Report,
    Verdict,
    VerificationSummary,
)

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def make_report(*, extra_text: str = "", claims_checked: bool = True) -> Report:
    body = (
        "# Battery costs\n\n## Prices\n\n"
        "Pack prices fell to 139 USD per kWh in 2023 [1]. LFP cells are cheaper than NMC "
        f"cells [2].{extra_text}\n\n- Costs keep falling [1].\n\n## References\n\n1. A — x\n"
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
        question="Battery costs?",
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
