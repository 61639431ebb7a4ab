"""Driving the research web app (``/app``) in Debian's headless Chromium, for its tests.

:func:`chromium` starts the browser (skipped locally without ``chromium`` and
``chromium-driver``, a failure under CI, as the other browser tests), with a download folder
and the browser's network log on, so that a test can list every request the page made.
:class:`Page` holds the few steps every test repeats: sign in, ask, wait.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from deep_research.server.webapp import APP_DIR
from tests.conftest import in_ci

REPO_ROOT = Path(__file__).resolve().parents[2]
AXE = REPO_ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
WAIT_SECONDS = 60.0

T = TypeVar("T")


def artifacts() -> Path:
    """Where screenshots are kept (``test-artifacts/`` or ``$DEEP_RESEARCH_TEST_ARTIFACTS``)."""
    folder = Path(os.environ.get("DEEP_RESEARCH_TEST_ARTIFACTS") or REPO_ROOT / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def require_built_page() -> None:
    """Skip (fail under CI) when the page is not built: ``make test`` builds it."""
    if not (APP_DIR / "index.html").is_file():
        message = "the web app is not built: `make test` builds it (npm ci + vite build in web/)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def chromium(downloads: Path, *, width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A headless Chromium session that saves downloads in ``downloads``."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (.ci/run installs them)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    options.add_experimental_option(
        "prefs",
        {
            "download.default_directory": str(downloads),
            "download.prompt_for_download": False,
            "safebrowsing.enabled": False,
        },
    )
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    session = webdriver.Chrome(service=Service(driver), options=options)
    session.execute_cdp_cmd(
        "Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    try:
        yield session
    finally:
        session.quit()


def wait(condition: Callable[[], T | None], what: str, timeout: float = WAIT_SECONDS) -> T:
    """Poll ``condition`` until it gives a truthy value; fail saying ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception as exc:  # a stale or missing element while the page redraws
            last_error = exc
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what} (last error: {last_error!r})")


@dataclass
class Page:
    """The web app of ``url`` in ``driver``."""

    driver: Any
    url: str

    def wait(
        self, condition: Callable[[], T | None], what: str, timeout: float = WAIT_SECONDS
    ) -> T:
        """:func:`wait`, saying what the page showed when it timed out."""
        try:
            return wait(condition, what, timeout)
        except AssertionError as exc:
            shown = self.driver.execute_script("return document.body.innerText")
            raise AssertionError(f"{exc}; the page showed:\n{str(shown)[:3000]}") from None

    def by(self, css: str) -> list[Any]:
        """The elements ``css`` selects."""
        from selenium.webdriver.common.by import By

        return list(self.driver.find_elements(By.CSS_SELECTOR, css))

    def one(self, css: str) -> Any:
        """The first element ``css`` selects, waiting for it."""
        return self.wait(lambda: (self.by(css) or [None])[0], css)

    def text(self) -> str:
        """The page's visible text."""
        return str(self.one("body").text)

    def open(self, hash_: str = "") -> None:
        """Load the page (at ``#hash_``)."""
        self.driver.get(f"{self.url}/app/{hash_}")

    def sign_in(self, token: str) -> None:
        """Sign in with ``token`` and wait for the chat list."""
        self.open()
        field = self.one("input[type=password]")
        field.clear()
        field.send_keys(token)
        self.one(".signin button[type=submit]").click()
        self.wait(lambda: self.by("nav.chat-list"), "the chat list after signing in")

    def choose(self, label: str, value: str) -> None:
        """Pick ``value`` in the ask form's select labelled ``label``."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select

        element = self.driver.find_element(
            By.XPATH, f"//form[contains(@class,'ask')]//label[contains(., '{label}')]/select"
        )
        Select(element).select_by_value(value)

    def ask(
        self,
        question: str,
        *,
        depth: str = "light",
        clarify: bool = False,
        review: bool = False,
    ) -> None:
        """Type ``question`` in the ask form with these choices and send it."""
        form = self.one("form.ask")
        self.choose("Depth", depth)
        boxes = form.find_elements("css selector", "input[type=checkbox]")
        for box, wanted in zip(boxes, (clarify, review), strict=True):
            if box.is_selected() != wanted:
                box.click()
        area = form.find_element("css selector", "textarea")
        area.send_keys(question)
        form.find_element("css selector", "button[type=submit]").click()

    def wait_report(self) -> Any:
        """Wait for a report with highlighted claims; return the report element."""
        return self.wait(
            lambda: self.by("article.report .claim[data-claim]") and self.by("article.report")[-1],
            "the report with its claims",
        )

    def live(self) -> Any:
        """The live view of the run just ended, unfolded (once over, it folds to one line)."""
        details = self.one(".live.finished details")
        if details.get_attribute("open") is None:
            self.one(".live.finished summary").click()
        return self.one(".live")

    def thread(self) -> str:
        """The open chat's thread id (from the page's address)."""
        url = str(self.driver.current_url)
        return wait(
            lambda: (
                "#/chat/" in str(self.driver.current_url)
                and str(self.driver.current_url).rsplit("/", 1)[1]
            ),
            f"a chat's address (at {url})",
        )

    def requests(self) -> list[str]:
        """The URLs the page requested since the last call (the browser's network log)."""
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(str(message["params"]["request"]["url"]))
        return urls

    def axe_violations(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it stands."""
        if not AXE.is_file():
            pytest.fail(f"axe-core is missing at {AXE}: `make test` installs web/ (npm ci)")
        self.driver.execute_script(AXE.read_text(encoding="utf-8"))
        found = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']})"
            ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact,"
            " nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))))"
            ".catch(e => done([{id: 'axe-error', impact: 'critical', nodes: [String(e)]}]));"
        )
        return [v for v in found if v["impact"] in ("serious", "critical")]
