"""The research web app on the LLM engine: a real ``langgraph dev`` whose model is scripted.

The server's model is the scripted OpenAI-compatible endpoint of
:mod:`tests.integration_tests.fake_openai` (on 127.0.0.1), which streams its report in small
pieces and is out of service (HTTP 503) for the report of a question naming
:data:`OUTAGE_WORD`. One server for the module, without auth (the page needs no sign-in).
Skipped locally without chromium, chromium-driver or the built page; a failure under CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration_tests.fake_openai import REPORT, scripted_openai
from tests.integration_tests.server_process import langgraph_dev
from tests.integration_tests.webapp_browser import Page, chromium, require_built_page

pytestmark = [pytest.mark.server, pytest.mark.browser]

OUTAGE_WORD = "Zeppelin"
"""A question naming it fails mid-run: the model is out of service when the report is written."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Any]]]:
    """``langgraph dev`` on the scripted model; yields its URL and the model's requests."""
    require_built_page()
    with scripted_openai(outages=frozenset({OUTAGE_WORD})) as (base_url, requests):
        env = {
            "DEEP_RESEARCH_MODEL": "scripted-model",
            "OPENAI_API_KEY": "test-key",
            "OPENAI_BASE_URL": base_url,
        }
        with langgraph_dev(tmp_path_factory.mktemp("webapp-model"), env) as url:
            yield url, requests


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium(tmp_path_factory.mktemp("downloads")) as session:
        yield session


@pytest.fixture
def page(browser: Any, server: tuple[str, list[Any]]) -> Page:
    """The page, on a fresh load."""
    view = Page(browser, server[0])
    view.open()
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()
    view.wait(lambda: view.by("form.ask"), "the ask form")
    return view


def test_the_scripted_model_is_asked_watched_and_read(
    page: Page, server: tuple[str, list[Any]]
) -> None:
    from selenium.webdriver.common.by import By

    url, requests = server
    page.wait(lambda: "Signed in as local" in page.text(), "the options read")
    asked = len(requests)
    page.ask("Describe Hornsdale Power Reserve", depth="light")
    page.wait(lambda: page.by(".live li.step"), "the plan's steps")
    page.wait(lambda: "Finished:" in page.one(".live").text, "the run's end in the live view")
    page.live()
    titles = [e.text for e in page.by(".live li.step .title")]
    assert titles[:2] == ["Hornsdale Power Reserve", "LFP versus NMC for grid storage"]
    # the report as the model streamed it, shown as plain text (its Markdown and keys as written)
    draft = page.one(".live .draft")
    assert draft.text.strip() == REPORT.strip()
    assert not draft.find_elements(By.CSS_SELECTOR, "*"), "the draft holds markup"

    report_element = page.wait_report()
    thread = page.thread()
    with httpx.Client(base_url=url, trust_env=False, timeout=60) as api:
        session = api.get(f"/chats/{thread}").json()["sessions"][-1]
        report = api.get(f"/sessions/{session['id']}/report").json()
        stored = api.get(f"/sessions/{session['id']}/events").json()
    # the stored copies of the draft's events keep the counts, not the text (no second report)
    writing = [e["data"] for e in stored if e["type"] == "synthesis_progress"]
    assert writing and writing[-1]["done"] and writing[-1]["characters"] == len(REPORT)
    assert all("text" not in data for data in writing), writing
    shown = report_element.find_elements(By.CSS_SELECTOR, ".claim[data-claim]")
    assert {e.get_attribute("data-claim") for e in shown} == {c["id"] for c in report["claims"]}
    assert all("v-SUPPORTED" in e.get_attribute("class") for e in shown)  # the scripted verdicts
    assert "Hornsdale Power Reserve is a grid battery in South Australia" in report_element.text
    writer = [r for r in requests[asked:] if not r.get("tools") and r.get("stream")]
    assert writer and all(r["model"] == "scripted-model" for r in requests[asked:])


def test_a_run_that_fails_mid_run_says_why_in_one_line(page: Page) -> None:
    page.ask(f"Describe the {OUTAGE_WORD} battery at Hornsdale", depth="light")
    # research went on (the plan, its searches): the run was not refused up front
    page.wait(lambda: page.by(".live li.step.done"), "a step researched before the failure")
    alert = page.wait(
        lambda: page.by("[role=alert].problem") and page.by("[role=alert].problem")[0],
        "the failure's line",
        timeout=90,
    )
    line = alert.text
    assert "\n" not in line and line.startswith("The run failed:"), line
    assert "HTTP 503" in line and "overloaded" in line, line  # why
    assert "ask again" in line, line  # and what to do
    assert page.by("form.ask"), "the question can be asked again"
    page.driver.refresh()  # read again from the server: the chat says how its last run ended
    again = page.wait(
        lambda: page.by("[role=alert].problem") and page.by("[role=alert].problem")[0].text,
        "the failure's line after a reload",
    )
    assert "\n" not in again and "HTTP 503" in again and "ask again" in again, again
