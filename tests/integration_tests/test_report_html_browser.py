"""report.html in a real headless Chromium: click a claim, read its evidence, keep a screenshot.

Uses Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped
locally without them, a failure under CI. The screenshot is kept as a test artifact in
``test-artifacts/`` (or ``$DEEP_RESEARCH_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deep_research.cli import main
from deep_research.report.html import render_html
from deep_research.state import Report

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What did Hornsdale Power Reserve cost, and how large is it?"
ZH_NAMES = {
    "SUPPORTED": "得到支持",
    "PARTIAL": "部分支持",
    "UNSUPPORTED": "未得到支持",
    "CONTRADICTED": "与证据矛盾",
}


def _artifacts() -> Path:
    folder = Path(os.environ.get("DEEP_RESEARCH_TEST_ARTIFACTS") or REPO_ROOT / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (.ci/run installs them)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    session = webdriver.Chrome(service=Service(driver), options=options)
    try:
        yield session
    finally:
        session.quit()


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    out = tmp_path_factory.mktemp("report")
    assert main(["ask", QUESTION, "--quiet", "--no-clarify", "--out", str(out)]) == 0
    report = Report.model_validate_json((out / "report.json").read_text(encoding="utf-8"))
    page = out / "report.html"
    if not page.exists():  # until the command line writes it itself
        page.write_text(render_html(report), encoding="utf-8")
    return page, report


def test_clicking_a_claim_shows_its_quoted_evidence_and_source(
    browser: Any, report_page: tuple[Path, Report]
) -> None:
    from selenium.webdriver.common.by import By

    page, report = report_page
    browser.get(page.as_uri())
    spans = browser.find_elements(By.CSS_SELECTOR, ".claim")
    assert len(spans) == len(report.claims) > 0
    cited = next(c for c in report.claims if any(x.claim_id == c.id for x in report.citations))
    span = browser.find_element(By.CSS_SELECTOR, f'.claim[data-claim="{cited.id}"]')
    assert span.text == cited.text
    span.click()
    panel = browser.find_element(By.ID, "panel")
    verdict = panel.find_element(By.CSS_SELECTOR, "h3.verdict").text
    assert verdict.startswith((cited.verdict or "UNCHECKED").title())  # "Supported (…)"
    quotes = [q.text for q in panel.find_elements(By.CSS_SELECTOR, "blockquote.quote")]
    expected = [x.quote for x in report.citations if x.claim_id == cited.id and x.quote]
    assert quotes == expected
    link = panel.find_element(By.CSS_SELECTOR, "p.source a")
    assert link.get_attribute("href") in {r.url for r in report.references}
    assert "active" in span.get_attribute("class")
    assert browser.find_element(By.CSS_SELECTOR, "svg.chart").is_displayed()
    screenshot = _artifacts() / "report-html-claim-clicked.png"
    assert browser.save_screenshot(str(screenshot))
    assert screenshot.stat().st_size > 10_000


def test_a_chinese_page_writes_its_panel_in_chinese(
    browser: Any, report_page: tuple[Path, Report]
) -> None:
    from selenium.webdriver.common.by import By

    path, report = report_page
    chinese = report.model_copy(update={"question": "霍恩斯代尔储能电站的成本是多少？"})
    page = path.with_name("report-zh.html")
    page.write_text(render_html(chinese), encoding="utf-8")
    browser.get(page.as_uri())
    assert browser.find_element(By.ID, "panel").text == "点击高亮的陈述即可查看其证据。"
    checked = next(c for c in report.claims if c.verdict is not None and c.confidence is not None)
    browser.find_element(By.CSS_SELECTOR, f'.claim[data-claim="{checked.id}"]').click()
    verdict = browser.find_element(By.CSS_SELECTOR, "#panel h3.verdict").text
    assert verdict.startswith(f"{ZH_NAMES[str(checked.verdict)]}（置信度 ") and verdict[-1] == "）"


def test_a_phone_reads_the_page_without_scrolling_sideways(
    browser: Any, report_page: tuple[Path, Report]
) -> None:
    path, report = report_page
    url = "https://example.org/" + "/".join(["averylongunbrokenpathsegment"] * 8)
    long = report.model_copy(update={"markdown": f"{report.markdown}\nSee {url}\n"})
    page = path.with_name("report-long.html")
    page.write_text(render_html(long), encoding="utf-8")
    phone = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", phone)
    try:
        browser.get(page.as_uri())
        assert browser.execute_script("return innerWidth") == 390
        assert url in browser.find_element("css selector", "article").text
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways ({width} px)"
        assert browser.save_screenshot(str(_artifacts() / "report-html-phone.png"))

        # a tapped claim's evidence is pinned at the foot of the screen, not below the article
        cited = next(c for c in report.claims if any(x.claim_id == c.id for x in report.citations))
        span = browser.find_element("css selector", f'.claim[data-claim="{cited.id}"]')
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", span)
        span.click()
        verdict = browser.find_element("css selector", "#panel h3.verdict")
        top, bottom = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom];", verdict
        )
        assert 0 <= top and bottom <= 844, f"the evidence is out of sight ({top}-{bottom} px)"
        panel_top = browser.execute_script(
            "return document.getElementById('panel').getBoundingClientRect().top"
        )
        assert panel_top >= 844 * 0.5, f"the panel fills the screen (its top at {panel_top} px)"
        claim_bottom = browser.execute_script(
            "return arguments[0].getBoundingClientRect().bottom", span
        )
        assert claim_bottom <= panel_top, "the pinned panel covers the claim"
        assert browser.save_screenshot(str(_artifacts() / "report-html-phone-evidence.png"))
        close = browser.find_element("css selector", "#panel button.close")
        width, height = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", close
        )
        assert width >= 44 and height >= 44, f"the close button is {width}x{height} px"
        close.click()
        top = browser.execute_script(
            "return document.getElementById('panel').getBoundingClientRect().top"
        )
        assert top >= 844, f"the closed panel is still in sight (its top at {top} px)"
        assert browser.switch_to.active_element == span, "the focus is not back on the claim"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
