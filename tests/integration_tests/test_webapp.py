"""The research web app at ``/app``, end to end: a real ``langgraph dev`` and headless Chromium.

One server for the module, with auth (two listed users and signed tokens, so each test signs
in as a user of its own) and a corpus root holding a planted page. Every test drives the page
as a person would (keyboard or clicks), and checks what the server then holds through its API.
Skipped locally without chromium, chromium-driver or the built page; a failure under CI.
"""

from __future__ import annotations

import contextlib
import http.server
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from deep_research.server.tokens import sign_token
from deep_research.sources import SAMPLE_CORPUS
from tests.integration_tests.server_process import langgraph_dev
from tests.integration_tests.webapp_browser import (
    Page,
    artifacts,
    chromium,
    require_built_page,
)

pytestmark = [pytest.mark.server, pytest.mark.browser]

SECRET = "webapp-test-signing-secret-0123456789-abcdef"
TOKENS = {"alice": "alice-webapp-token-0123456789", "bob": "bob-webapp-token-0123456789"}
QUESTION = "What did Hornsdale Power Reserve cost, and how large is it?"


class Canary(http.server.ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 that records every request it is sent."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        canary = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.seen.append(self.path)
                self.send_response(200)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                return

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def origin(self) -> str:
        """The canary's ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.server_address[1]}"


@dataclass(frozen=True)
class AppServer:
    """The running server, its planted corpus and the canary."""

    url: str
    corpus: Path
    canary: Canary

    def token(self, user: str) -> str:
        """A listed token for alice and bob, a signed one (a JWT) for anyone else."""
        return TOKENS.get(user) or sign_token(user, SECRET)

    def http(self, user: str) -> httpx.Client:
        """An HTTP client of the server signed in as ``user``."""
        return httpx.Client(
            base_url=self.url,
            headers={"Authorization": f"Bearer {self.token(user)}"},
            trust_env=False,
            timeout=60,
        )


def _planted(canary: str) -> str:
    return f"""# Grid batteries and planted markup

Grid batteries store electricity when it is cheap and release it when demand peaks.
<img src="{canary}/img.png" alt="tracking pixel"> The Hornsdale battery in South Australia
cost about 90 million Australian dollars when it opened in 2017.
<script>fetch("{canary}/script")</script> Lithium iron phosphate cells last for thousands
of cycles, which suits grid storage. ![chart]({canary}/chart.png)
<a href="{canary}/link">Read more</a> <iframe src="{canary}/frame"></iframe>
<b onmouseover="fetch('{canary}/hover')">Grid batteries also steady the frequency</b> of a
network within milliseconds.
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """``langgraph dev`` with auth and a corpus root holding a planted page; a canary beside."""
    require_built_page()
    canary = Canary()
    thread = threading.Thread(target=canary.serve_forever, daemon=True)
    thread.start()
    workdir = tmp_path_factory.mktemp("webapp")
    corpus = workdir / "planted"
    corpus.mkdir()
    (corpus / "grid-batteries.md").write_text(_planted(canary.origin), encoding="utf-8")
    env = {
        "DEEP_RESEARCH_AUTH_TOKENS": ",".join(f"{t}={u}" for u, t in TOKENS.items()),
        "DEEP_RESEARCH_AUTH_SECRET": SECRET,
        "DEEP_RESEARCH_CORPUS_ROOTS": os.pathsep.join((str(workdir), str(SAMPLE_CORPUS))),
    }
    try:
        with langgraph_dev(workdir, env) as url:
            yield AppServer(url=url, corpus=corpus, canary=canary)
    finally:
        canary.shutdown()
        canary.server_close()


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The browser's download folder."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads: Path) -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium(downloads) as session:
        yield session


@pytest.fixture
def page(browser: Any, server: AppServer) -> Iterator[Page]:
    """The page, signed out, in a normal window and the light scheme."""
    browser.set_window_size(1280, 900)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    view = Page(browser, server.url)
    view.open()
    browser.execute_script("sessionStorage.clear(); localStorage.clear();")
    browser.refresh()
    view.requests()  # start the network log afresh
    yield view


def user() -> str:
    """A user of the test's own (a signed token), so tests do not see each other's chats."""
    return f"user-{uuid.uuid4().hex[:10]}"


def test_the_page_is_served_without_a_token_under_a_strict_policy(server: AppServer) -> None:
    with httpx.Client(base_url=server.url, trust_env=False) as anonymous:
        page = anonymous.get("/app/")
        assert page.status_code == 200
        policy = page.headers["content-security-policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["default-src"] == "'self'"
        assert directives["script-src"] == "'self'"  # no inline script, no other origin
        assert directives["connect-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert "unsafe" not in policy and "http" not in policy
        html = page.text
        assert "<script>" not in html  # every script is a file of the page's own origin
        asset = next(
            part.split('"')[1] for part in html.split("src=")[1:] if part.startswith('"/app/')
        )
        script = anonymous.get(asset)
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert script.headers["content-security-policy"] == policy
        assert anonymous.get("/app/config.json").json() == {"auth": True}
        assert anonymous.get("/app/../chats").status_code == 401  # the API still needs a token
        assert anonymous.get("/chats").status_code == 401
        assert anonymous.get("/app/nothing-here.js").status_code == 404
        assert anonymous.post("/app/").status_code == 405
    with server.http("alice") as api:
        options = api.get("/options").json()
    assert options["user"] == "alice" and options["default_model"] == "offline"
    assert "offline" in options["models"] and options["store"] is True
    assert {"auto", "local"} <= set(options["sources"])
    assert options["depths"] == ["auto", "light", "medium", "extended"]


def test_sign_in_ask_watch_read_download_and_give_feedback(
    page: Page, server: AppServer, downloads: Path
) -> None:
    from selenium.webdriver.common.by import By

    # a refused token keeps the sign-in, saying so
    page.open()
    page.one("input[type=password]").send_keys("not-a-token")
    page.one(".signin button[type=submit]").click()
    page.wait(lambda: "refused" in page.one(".signin [role=alert]").text, "the refusal")

    name = user()
    token = server.token(name)
    page.sign_in(token)
    page.wait(lambda: f"Signed in as {name}" in page.text(), "the user's name")
    page.ask(QUESTION, depth="light")
    # the live view: the plan's steps, their searches and sources, the claims being judged
    page.wait(lambda: page.by(".live li.step"), "the plan's steps")
    thread = page.thread()
    page.wait(lambda: "Finished:" in page.one(".live").text, "the run's end in the live view")
    live = page.live()
    counts = [s.find_element(By.CSS_SELECTOR, ".counts").text for s in page.by(".live li.step")]
    assert any(not c.startswith("0 searches") for c in counts), counts
    assert any(" 0 sources" not in c for c in counts), counts
    assert page.by(".live .claims-live li[data-verdict]"), "no claim was shown being judged"
    assert "Claims judged" in live.text

    # the report, read from its JSON: every claim highlighted by its verdict
    report_element = page.wait_report()
    with server.http(name) as api:
        chat = api.get(f"/chats/{thread}").json()
        session = chat["sessions"][-1]
        report = api.get(f"/sessions/{session['id']}/report").json()
        markdown = api.get(f"/sessions/{session['id']}/report.md").text
    claims = report_element.find_elements(By.CSS_SELECTOR, ".claim[data-claim]")
    assert {c.get_attribute("data-claim") for c in claims} == {c["id"] for c in report["claims"]}
    for element in claims:
        claim = next(c for c in report["claims"] if c["id"] == element.get_attribute("data-claim"))
        assert element.text == claim["text"]
        assert f"v-{claim['verdict']}" in element.get_attribute("class")
    cited = next(
        c for c in report["claims"] if any(x["claimId"] == c["id"] for x in report["citations"])
    )
    button = report_element.find_element(By.CSS_SELECTOR, f'.claim[data-claim="{cited["id"]}"]')
    button.click()
    panel = page.one("aside.panel .evidence")
    quotes = [q.text for q in panel.find_elements(By.CSS_SELECTOR, "blockquote")]
    expected = [x["quote"] for x in report["citations"] if x["claimId"] == cited["id"]]
    assert quotes == expected
    assert panel.find_element(By.CSS_SELECTOR, "h4.verdict").text.startswith(
        {"SUPPORTED": "Supported", "PARTIAL": "Partly", "UNSUPPORTED": "Unsupported"}.get(
            cited["verdict"], "Contradicted"
        )
    )
    assert button.get_attribute("aria-pressed") == "true"
    references = page.by("section.references li")
    assert len(references) == len(report["references"])
    assert report["confidence"]["level"] in page.one(".report .confidence").text

    # downloads: the files the routes serve, saved by the browser
    for label, name_ in (("report.md", "report.md"), ("JSON", "report.json")):
        page.driver.find_element(
            By.XPATH, f"//div[@class='downloads']/button[normalize-space()='{label}']"
        ).click()
        page.wait(
            lambda n=name_: (downloads / n).is_file() and (downloads / n).stat().st_size, name_
        )
    assert (downloads / "report.md").read_text(encoding="utf-8") == markdown
    # the draft was shown as it was written: its Markdown as plain text, no markup drawn
    draft = page.one(".live .draft")
    assert not draft.find_elements(By.CSS_SELECTOR, "*")
    headings = [line for line in report["markdown"].splitlines() if line.startswith("## ")]
    assert any(heading in draft.text for heading in headings), (headings, draft.text[:300])
    for label, name_ in (("Article", "report.article.md"), ("HTML", "report.html")):
        page.driver.find_element(
            By.XPATH, f"//div[@class='downloads']/button[normalize-space()='{label}']"
        ).click()
        page.wait(
            lambda n=name_: (downloads / n).is_file() and (downloads / n).stat().st_size, name_
        )

    # feedback: stored through the route, shown again when the chat is opened again
    page.one(".feedback textarea").send_keys("clear and sourced")
    page.driver.find_element(
        By.XPATH, "//section[@class='feedback']//button[contains(., 'Not helpful')]"
    ).click()
    page.wait(lambda: "saved" in page.one(".feedback .status").text, "the feedback saved")
    answer = next(m for m in chat["messages"] if m["role"] == "assistant")
    with server.http(name) as api:
        stored = api.get(f"/messages/{answer['id']}/feedback").json()
    assert (stored["rating"], stored["text"]) == (-1, "clear and sourced")
    page.driver.refresh()
    page.wait(
        lambda: (
            page.by(".feedback button[aria-pressed=true]")
            and "Not helpful" in page.one(".feedback button[aria-pressed=true]").text
        ),
        "the feedback shown again",
    )
    assert page.one(".feedback textarea").get_attribute("value") == "clear and sourced"

    # the token stayed in this tab: never in the address, never in localStorage
    assert token not in page.driver.current_url
    assert page.driver.execute_script("return JSON.stringify(localStorage)") == "{}"
    assert token in page.driver.execute_script("return JSON.stringify(sessionStorage)")
    # and every request went to the server itself
    origins = {url.split("/")[2] for url in page.requests() if url.startswith("http")}
    assert origins == {server.url.split("/")[2]}, origins


def test_a_refused_token_brings_the_sign_in_back(page: Page, server: AppServer) -> None:
    page.sign_in(server.token(user()))
    page.driver.execute_script("sessionStorage.setItem('dr:token', 'expired-token')")
    page.driver.refresh()
    page.wait(lambda: page.by(".signin"), "the sign-in after a 401")
    assert "sign in again" in page.text()


def test_plan_review_approves_an_edited_plan(page: Page, server: AppServer) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    name = user()
    page.sign_in(server.token(name))
    page.ask(QUESTION, depth="light", review=True)
    form = page.one("form.interrupt[aria-label='Plan review']")
    fields = form.find_elements(By.CSS_SELECTOR, ".plan-edit input")
    proposed = [f.get_attribute("value") for f in fields]
    assert len(proposed) >= 2
    assert page.axe_violations() == [], "the plan review form"
    fields[0].send_keys(Keys.CONTROL, "a")
    fields[0].send_keys("Hornsdale Power Reserve construction cost")
    form.find_elements(By.CSS_SELECTOR, ".plan-edit button")[-1].click()  # remove the last
    form.find_element(By.XPATH, ".//button[normalize-space()='Add a step']").click()
    form.find_elements(By.CSS_SELECTOR, ".plan-edit input")[-1].send_keys("Battery capacity in MWh")
    submit = form.find_element(By.CSS_SELECTOR, "button[type=submit]")
    assert submit.text == "Research the edited plan"
    submit.click()
    page.wait_report()
    thread = page.thread()
    page.live()
    titles = [e.text for e in page.by(".live li.step .title")]
    assert titles[0] == "Hornsdale Power Reserve construction cost"
    assert "Battery capacity in MWh" in titles
    assert proposed[-1] not in titles[: len(proposed)]
    with server.http(name) as api:
        session = api.get(f"/chats/{thread}").json()["sessions"][-1]
        plan = api.get(f"/sessions/{session['id']}").json()["plan"]
    planned = [step["title"] for step in plan]
    assert planned[0] == "Hornsdale Power Reserve construction cost"
    assert "Battery capacity in MWh" in planned


def test_a_clarifying_question_is_answered_in_place(page: Page, server: AppServer) -> None:
    from selenium.webdriver.common.by import By

    name = user()
    page.sign_in(server.token(name))
    page.ask("batteries", depth="light", clarify=True)
    form = page.one("form.interrupt[aria-label='Clarifying question']")
    asked = form.find_element(By.CSS_SELECTOR, ".asked").text
    assert asked
    page.driver.refresh()  # the paused thread shows its question again
    form = page.one("form.interrupt[aria-label='Clarifying question']")
    assert form.find_element(By.CSS_SELECTOR, ".asked").text == asked
    assert page.axe_violations() == [], "the clarifying question"
    form.find_element(By.CSS_SELECTOR, "textarea").send_keys("costs of grid batteries")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    page.wait_report()
    thread = page.thread()
    with server.http(name) as api:
        messages = api.get(f"/chats/{thread}").json()["messages"]
    assert [m["content"] for m in messages[:3]] == ["batteries", asked, "costs of grid batteries"]
    shown = [e.text for e in page.by(".messages .content")]
    assert asked in shown and "costs of grid batteries" in shown


def test_chats_are_renamed_deleted_restored_and_purged(page: Page, server: AppServer) -> None:
    from selenium.webdriver.common.by import By

    name = user()
    page.sign_in(server.token(name))
    page.ask("How large is Hornsdale Power Reserve?", depth="light")
    page.wait_report()
    thread = page.thread()
    page.ask("What did it cost?", depth="light")  # a follow-up in the same chat
    page.wait(lambda: len(page.by("article.report")) == 2, "the follow-up's report")
    assert page.thread() == thread
    row = f"nav.chat-list li[data-thread='{thread}']"
    page.one(f"{row} button[aria-label^='Rename']").click()
    field = page.one(f"{row} input")
    field.clear()
    field.send_keys("Battery notes")
    page.one(f"{row} button[type=submit]").click()
    page.wait(
        lambda: page.one(f"{row} .open").text.split("\n")[0] == "Battery notes", "the new title"
    )
    with server.http(name) as api:
        assert api.get(f"/chats/{thread}").json()["title"] == "Battery notes"

    page.one(f"{row} button[aria-label^='Delete']").click()
    page.wait(lambda: "Chat deleted." in page.one(".toast").text, "the undo offer")
    assert "#/chat/" not in page.driver.current_url  # the deleted chat is closed
    page.driver.find_element(By.XPATH, "//div[@class='toast']/button[.='Undo']").click()
    page.wait(lambda: page.by(f"nav.chat-list > ul {row.split(' ', 1)[1]}"), "the chat restored")

    page.one(f"{row} button[aria-label^='Delete']").click()
    deleted = page.one("details.deleted")
    deleted.find_element(By.TAG_NAME, "summary").click()
    page.one(f"details.deleted li[data-thread='{thread}'] button[aria-label$='for good']").click()
    confirm = page.one("details.deleted [role=alertdialog]")
    assert "cannot be undone" in confirm.text
    assert page.axe_violations() == [], "the chat list with a purge to confirm"
    with server.http(name) as api:  # nothing is erased before the confirmation
        assert api.get("/chats", params={"include_deleted": True}).json()
    confirm.find_element(By.XPATH, ".//button[.='Erase']").click()
    page.wait(lambda: "erased" in page.one(".toast").text, "the purge's confirmation")
    with server.http(name) as api:
        assert api.get("/chats", params={"include_deleted": True}).json() == []

    # the preferences page: saved defaults are the ask form's defaults
    page.open("#/preferences")
    from selenium.webdriver.support.ui import Select

    Select(
        page.driver.find_element(By.XPATH, "//form[@class='preferences']//select[1]")
    ).select_by_value("web_search")
    page.one("form.preferences button[type=submit]").click()
    page.wait(lambda: "Saved" in page.one("form.preferences .status").text, "preferences saved")
    with server.http(name) as api:
        assert api.get("/preferences").json()["mode"] == "web_search"
    page.open("#/")
    page.driver.refresh()
    xpath = "//form[contains(@class,'ask')]//label[contains(., 'Mode')]/select"
    page.wait(
        lambda: (
            Select(page.driver.find_element(By.XPATH, xpath)).first_selected_option.get_attribute(
                "value"
            )
            == "web_search"
        ),
        "the saved mode as the ask form's default",
    )


def test_another_user_sees_none_of_the_chats(page: Page, server: AppServer) -> None:
    with server.http("alice") as api:
        thread = _researched(api, QUESTION)
        assert any(c["thread_id"] == thread for c in api.get("/chats").json())
    page.sign_in(server.token("bob"))
    page.wait(lambda: "No chats yet." in page.one("nav.chat-list").text, "bob's empty list")
    page.open(f"#/chat/{thread}")
    page.wait(lambda: "#/chat/" not in page.driver.current_url, "alice's chat refused to bob")
    assert "deleted" in page.one(".toast").text.lower() or not page.by("article.report")


def _a_run_under_way(page: Page, server: AppServer) -> tuple[str, str]:
    """A new user's two-part question at extended depth, its research started: (user, thread)."""
    name = user()
    page.sign_in(server.token(name))
    page.ask(
        "How do LFP and NMC batteries compare for grid storage, and what did Hornsdale cost?",
        depth="extended",
    )
    page.wait(lambda: page.by(".live li.step.researching"), "research under way")
    return name, page.thread()


def test_reloading_during_a_run_reattaches_to_it(page: Page, server: AppServer) -> None:
    name, thread = _a_run_under_way(page, server)
    with server.http(name) as api:
        runs = api.get(f"/threads/{thread}/runs").json()
    assert runs[0]["status"] in ("pending", "running"), "the run ended before the reload"
    page.driver.refresh()
    # the replayed stream rebuilds the live view: the plan and its sources so far
    page.wait(lambda: page.by(".live li.step"), "the live view after the reload")
    page.wait_report()
    assert "Finished:" in page.one(".live").text
    assert page.axe_violations() == [], "the live view of a finished run beside its report"
    live_nodes = page.driver.execute_script("return document.querySelectorAll('.live *').length")
    events = int(page.one(".live").get_attribute("data-events"))
    assert events > 100 and live_nodes < 600, (events, live_nodes)


def test_new_research_during_a_run_offers_the_question_box(page: Page, server: AppServer) -> None:
    _, thread = _a_run_under_way(page, server)
    page.one("header.top a[href='#/']").click()
    page.wait(lambda: page.by("form.ask textarea"), "the question box of a new chat")
    assert not page.by("button.stop") and not page.by(".live"), "the run left shown as running"
    # the run went on in the server: its chat, opened again, shows it to its end
    page.one(f"nav.chat-list li[data-thread='{thread}'] button.open").click()
    page.wait_report()
    page.wait(lambda: page.by("form.ask textarea"), "the follow-up's question box")


def test_planted_markup_stays_inert_and_no_request_leaves(page: Page, server: AppServer) -> None:
    from selenium.webdriver.common.by import By

    name = user()
    with server.http(name) as api:
        thread = api.post("/threads", json={}).json()["thread_id"]
        run = api.post(
            f"/threads/{thread}/runs/wait",
            json={
                "assistant_id": "deep_research",
                "input": {
                    "messages": [{"role": "user", "content": "How do grid batteries store energy?"}]
                },
                "context": {
                    "depth": "light",
                    "allow_clarification": False,
                    "sources": "local",
                    "corpus_dir": str(server.corpus),
                },
            },
        )
        assert run.status_code == 200, run.text
        api.patch(
            f"/chats/{thread}", json={"title": f'<img src="{server.canary.origin}/title.png">'}
        )
    page.sign_in(server.token(name))
    page.open(f"#/chat/{thread}")
    report = page.wait_report()
    for claim in report.find_elements(By.CSS_SELECTOR, ".claim[data-claim]"):
        claim.click()  # every quote of the planted page is drawn in the panel
    assert f'<img src="{server.canary.origin}/title.png">' in page.one("nav.chat-list").text
    time.sleep(1.0)
    counts = page.driver.execute_script(
        "return [document.images.length, document.scripts.length,"
        " document.querySelectorAll('iframe, object, embed').length]"
    )
    assert counts == [0, 1, 0], counts  # no image, no frame; the one script is the page's
    assert server.canary.seen == []
    origins = {url.split("/")[2] for url in page.requests() if url.startswith("http")}
    assert origins == {server.url.split("/")[2]}, origins


def test_keyboard_accessibility_and_colour_schemes(page: Page, server: AppServer) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    assert page.axe_violations() == [], "sign-in page"
    # keyboard only: the token field has the focus order's first place, Enter signs in
    name = user()
    page.one("input[type=password]").click()
    ActionChains(page.driver).send_keys(server.token(name), Keys.ENTER).perform()
    page.wait(lambda: page.by("form.ask textarea"), "the ask form")
    page.one("form.ask textarea").send_keys(QUESTION)
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(
        Keys.CONTROL
    ).perform()
    report = page.wait_report()
    first = report.find_element("css selector", ".claim[data-claim]")
    page.driver.execute_script("arguments[0].focus()", first)
    ActionChains(page.driver).send_keys(Keys.ENTER).perform()
    page.wait(lambda: page.by("aside.panel .evidence"), "the evidence opened from the keyboard")
    assert page.axe_violations() == [], "a chat with its report, light"
    shots = artifacts()
    page.driver.save_screenshot(str(shots / "webapp-light.png"))
    page.driver.execute_script("document.querySelector('.report-body').scrollIntoView()")
    page.driver.save_screenshot(str(shots / "webapp-report.png"))  # docs/app.png
    page.driver.execute_script("window.scrollTo(0, 0)")
    page.driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    assert page.driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
    background = page.driver.execute_script(
        "return getComputedStyle(document.body).backgroundColor"
    )
    assert background != "rgb(255, 255, 255)"
    assert page.axe_violations() == [], "a chat with its report, dark"
    page.driver.save_screenshot(str(shots / "webapp-dark.png"))
    page.driver.set_window_size(390, 844)
    time.sleep(0.3)
    width = page.driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 400, f"the narrow window scrolls sideways ({width} px)"
    assert page.axe_violations() == [], "narrow"
    page.driver.save_screenshot(str(shots / "webapp-narrow.png"))
    page.driver.set_window_size(1280, 900)
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    page.open("#/preferences")
    page.one("form.preferences")
    assert page.axe_violations() == [], "preferences"


PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False}
"""A phone's viewport, exactly (a window's size would include the browser's own frame)."""

IN_VIEW = """
const r = arguments[0].getBoundingClientRect();
return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
  && scrollY === 0;"""
"""Whether an element lies whole within the first screen, the page not scrolled."""

RECT = """
const r = arguments[0].getBoundingClientRect();
return [r.width, r.height, r.top, r.bottom];"""
"""An element's width, height, top and bottom in CSS px."""

TOUCH = 44
"""The least width and height of a finger's target, in CSS px (WCAG 2.5.5)."""


def _rect(page: Page, element: Any) -> tuple[float, float, float, float]:
    width, height, top, bottom = page.driver.execute_script(RECT, element)
    return float(width), float(height), float(top), float(bottom)


LINES = (
    "const range = document.createRange(); range.selectNodeContents(arguments[0]);"
    "return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size"
)
"""The lines an element's text takes."""


def _touchable(page: Page, element: Any) -> bool:
    width, height, _, _ = _rect(page, element)
    return width >= TOUCH and height >= TOUCH


def _researched(api: httpx.Client, question: str) -> str:
    """A chat of ``api``'s user researching ``question`` to its end; its thread id."""
    thread = str(api.post("/threads", json={}).json()["thread_id"])
    run = api.post(
        f"/threads/{thread}/runs/wait",
        json={
            "assistant_id": "deep_research",
            "input": {"messages": [{"role": "user", "content": question}]},
            "context": {"depth": "light", "allow_clarification": False},
        },
    )
    assert run.status_code == 200, run.text
    return thread


def test_a_phone_shows_the_question_first_and_never_scrolls_sideways(
    page: Page, server: AppServer
) -> None:
    name = user()
    page.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        wide = "return document.documentElement.scrollWidth <= innerWidth"
        page.sign_in(server.token(name))
        page.wait(
            lambda: "No chats yet." in page.one("nav.chat-list").get_attribute("textContent"),
            "the empty list",
        )
        assert page.driver.execute_script(IN_VIEW, page.one("form.ask textarea")), "a new visit"
        assert page.driver.execute_script(wide), "a new visit scrolls sideways"
        # the header is one line; Preferences, the user and Sign out are a tap away
        header = _rect(page, page.one("header.top"))[1]
        assert header <= 60, f"the header is {header} px tall"
        lines = page.driver.execute_script(LINES, page.one("header.top a[href='#/']"))
        assert lines == 1, f"New research takes {lines} lines"  # it is the current page here
        menu = page.one("header.top button.menu")
        assert _touchable(page, menu) and _touchable(page, page.one("header.top a[href='#/']"))
        assert not page.one("header.top a[href='#/preferences']").is_displayed()
        menu.click()
        assert menu.get_attribute("aria-expanded") == "true"
        assert name in page.one("header.top .who").text
        for item in ("a[href='#/preferences']", "button:not(.menu)"):  # Sign out
            element = page.one(f"header.top .account {item}")
            assert element.is_displayed() and _rect(page, element)[1] >= TOUCH, item
        assert page.axe_violations() == [], "the open menu on a phone"
        page.driver.save_screenshot(str(artifacts() / "webapp-phone-menu.png"))
        page.one("header.top .account a[href='#/preferences']").click()
        page.wait(lambda: page.by("form.preferences"), "the preferences from the menu")
        assert menu.get_attribute("aria-expanded") == "false", "the menu stayed open"
        page.open("#/")

        # five chats, one asking about a long unbroken URL (its title and message show it)
        url = "https://example.org/" + "/".join(["averylongunbrokenpathsegment"] * 8)
        questions = [QUESTION, f"How large is Hornsdale? See {url}"]
        questions += ["What do grid batteries store?", "How long do LFP cells last?", "Why LFP?"]
        with server.http(name) as api:
            threads = [_researched(api, question) for question in questions]
        page.driver.refresh()
        page.wait(lambda: len(page.by("nav.chat-list li[data-thread]")) == 5, "the five chats")
        assert page.driver.execute_script(IN_VIEW, page.one("form.ask textarea")), "five chats"
        assert page.driver.execute_script(wide), "the chat page scrolls sideways"
        page.driver.save_screenshot(str(artifacts() / "webapp-phone.png"))

        # the list is a tap away; opening a chat folds it again to show the chat
        fold = page.one("nav.chat-list button.fold")
        assert fold.text.endswith("(5)") and fold.get_attribute("aria-expanded") == "false"
        assert not page.by("nav.chat-list li[data-thread]")[0].is_displayed()
        assert _rect(page, fold)[1] >= TOUCH
        fold.click()
        # a finger's targets: each row's Rename and Delete at least 44 by 44 px
        for action in page.by("nav.chat-list li[data-thread] .row-actions button"):
            assert _touchable(page, action), (action.text, _rect(page, action))
        page.driver.save_screenshot(str(artifacts() / "webapp-phone-list.png"))
        page.one(f"nav.chat-list li[data-thread='{threads[1]}'] button.open").click()
        report = page.wait_report()
        assert page.one("nav.chat-list button.fold").get_attribute("aria-expanded") == "false"
        assert url in page.one(".message.user .content").text
        assert page.driver.execute_script(wide), "the report page scrolls sideways"

        # a claim's evidence shows at the foot of the screen, not below the whole report
        claim = report.find_elements("css selector", ".claim[data-claim]")[0]
        page.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", claim)
        claim.click()
        evidence = page.one("aside.panel .evidence")
        shown = page.driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return r.top < innerHeight && r.bottom > 0;",
            evidence,
        )
        assert shown, "the evidence opened out of sight"
        assert page.axe_violations() == [], "a report with its evidence on a phone"
        page.driver.save_screenshot(str(artifacts() / "webapp-phone-evidence.png"))
        assert _touchable(page, page.one("aside.panel button.close"))
        page.one("aside.panel button.close").click()
        page.wait(lambda: not page.by("aside.panel .evidence"), "the evidence closed")

        # a follow-up's live view, its brief quoting the URL, keeps within the width too
        page.ask(f"And what did it cost? {url}", depth="light")
        page.wait(
            lambda: len(page.by("article.report")) == 2 and "Finished:" in page.one(".live").text,
            "the follow-up's report beside its live view",
        )
        # the finished run's view folds to one line: the follow-up box comes right after the
        # report and its feedback, not after the whole live view
        live = _rect(page, page.one(".live"))[1]
        assert live <= 90, f"the finished live view is {live} px tall"  # two lines at most
        gap = _rect(page, page.one("form.ask"))[2] - _rect(page, page.by(".feedback")[-1])[3]
        assert gap <= 100, f"{gap} px between the report's feedback and the follow-up box"
        assert _touchable(page, page.one(".live summary"))
        page.driver.execute_script("arguments[0].scrollIntoView()", page.one(".live"))
        page.driver.save_screenshot(str(artifacts() / "webapp-phone-followup.png"))
        # and from the top of the chat, the follow-up box is one tap away
        page.driver.execute_script("window.scrollTo(0, 0)")
        jump = page.one(".chat-head button.to-follow-up")
        assert _touchable(page, jump)
        jump.click()
        box = page.one("form.ask textarea")
        page.wait(
            lambda: page.driver.execute_script(
                "const r = arguments[0].getBoundingClientRect();"
                "return r.top >= 0 && r.bottom <= innerHeight"
                " && document.activeElement === arguments[0];",
                box,
            ),
            "the follow-up box in sight, with the focus",
        )
        assert url in page.live().text  # a tap unfolds it
        assert page.by(".live li.step")[0].is_displayed()
        assert page.driver.execute_script(wide), "the live view scrolls sideways"
    finally:
        page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


class Gate:
    """A TCP forwarder on a fixed port of 127.0.0.1 that can go away and come back."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = _free_port()
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []

    def up(self) -> None:
        """Listen and forward."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        """Stop listening and drop every connection: the server is gone."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for conn in self._open:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
        self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def _pipe(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_server_going_away_shows_a_banner_that_clears(page: Page, server: AppServer) -> None:
    gate = Gate(int(server.url.rsplit(":", 1)[1]))
    gate.up()
    try:
        via = Page(page.driver, f"http://127.0.0.1:{gate.port}")
        via.sign_in(server.token(user()))
        gate.down()
        page.driver.execute_script("window.dispatchEvent(new Event('focus'))")  # reads the list
        via.wait(lambda: "cannot be reached" in via.one(".banner.offline").text, "the banner")
        gate.up()
        via.wait(lambda: not via.by(".banner.offline"), "the banner gone once the server is back")
        assert via.by("nav.chat-list")
    finally:
        gate.down()


def test_a_chat_deleted_in_another_tab_disappears(page: Page, server: AppServer) -> None:
    token = server.token(user())
    page.sign_in(token)
    page.ask(QUESTION, depth="light")
    page.wait_report()
    thread = page.thread()
    first = page.driver.current_window_handle
    page.driver.switch_to.new_window("tab")
    try:
        other = Page(page.driver, server.url)
        other.sign_in(token)  # a tab of its own: its own sessionStorage
        other.one(f"nav.chat-list li[data-thread='{thread}'] button[aria-label^='Delete']").click()
        other.wait(lambda: "Chat deleted." in other.one(".toast").text, "the deletion")
    finally:
        page.driver.close()
        page.driver.switch_to.window(first)
    page.driver.execute_script("window.dispatchEvent(new Event('focus'))")
    page.wait(lambda: "#/chat/" not in page.driver.current_url, "the deleted chat closed")
    assert "That chat was deleted" in page.one(".toast").text
    assert not page.by(f"nav.chat-list > ul li[data-thread='{thread}']")


def test_a_cancelled_run_and_a_refused_one_say_so(page: Page, server: AppServer) -> None:
    page.sign_in(server.token(user()))
    page.ask("How do LFP and NMC batteries compare for grid storage?", depth="extended")
    page.wait(lambda: page.by(".live li.step"), "research under way")
    page.one("button.stop").click()
    page.wait(lambda: "cancelled" in page.one(".notice").text, "the cancellation")
    page.driver.refresh()  # read again from the server: the last run was cancelled
    page.wait(lambda: page.by(".notice") and "cancelled" in page.one(".notice").text, "again")

    # a question the server refuses: one line saying why, and what to do
    area = page.one("form.ask textarea")
    page.driver.execute_script(
        "const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;"
        "set.call(arguments[0], 'batteries \\u0007 bell');"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        area,
    )
    page.one("form.ask button[type=submit]").click()
    alert = page.one("[role=alert].problem")
    assert alert.text.startswith("The run failed:") and "control characters" in alert.text
    assert "\n" not in alert.text and "ask again" in alert.text


def test_an_open_server_says_so_and_needs_no_sign_in(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    require_built_page()
    with langgraph_dev(tmp_path_factory.mktemp("webapp-open")) as url:
        page = Page(browser, url)
        page.open()
        browser.execute_script("sessionStorage.clear()")
        browser.refresh()
        banner = page.one(".banner.open")
        assert "Sign-in is off" in banner.text
        page.one("form.ask")
        assert not page.by(".signin")
        page.wait(lambda: "Signed in as local" in page.text(), "the local user's name")
        assert not page.by(".top .account button")  # no sign-out on an open server


def _tab_to(page: Page, css: str, *, limit: int = 150, back: bool = False) -> Any:
    """Press Tab (Shift+Tab when ``back``) until the focused element matches ``css``."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page.one(css)  # drawn (the page may still be rendering it)
    for _ in range(limit):
        if page.driver.execute_script(
            "const e = document.activeElement; return !!e && e.matches(arguments[0])", css
        ):
            return page.driver.switch_to.active_element
        keys = ActionChains(page.driver)
        if back:
            keys.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            keys.send_keys(Keys.TAB).perform()
    focused = page.driver.execute_script("return document.activeElement.outerHTML.slice(0, 200)")
    raise AssertionError(f"{css} was not reached with the Tab key in {limit} presses ({focused})")


def _keys(page: Page, *keys: str) -> None:
    """Type ``keys`` into whatever has the focus."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(page.driver).send_keys(*keys).perform()


def test_every_action_by_keyboard_alone(page: Page, server: AppServer, downloads: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    name = user()
    _tab_to(page, ".signin input[type=password]")
    _keys(page, server.token(name), Keys.ENTER)
    page.wait(lambda: f"Signed in as {name}" in page.text(), "signed in by the keyboard")

    # ask, with a clarifying question allowed (the default) and the plan to review
    _tab_to(page, "form.ask textarea")
    _keys(page, "batteries")
    _tab_to(page, "form.ask label.choice:nth-of-type(2) select")  # Depth
    _keys(page, "l")  # a focused select takes the first letter of an option: light
    _tab_to(page, "form.ask label.check:last-of-type input[type=checkbox]")
    _keys(page, Keys.SPACE)  # let me review the plan first
    _tab_to(page, "form.ask button[type=submit]")
    _keys(page, Keys.ENTER)

    # the clarifying question, answered
    page.one("form.interrupt[aria-label='Clarifying question']")
    _tab_to(page, "form.interrupt[aria-label='Clarifying question'] textarea")
    _keys(page, "costs of grid batteries")
    _tab_to(page, "form.interrupt[aria-label='Clarifying question'] button[type=submit]")
    _keys(page, Keys.ENTER)

    # the plan, approved
    page.one("form.interrupt[aria-label='Plan review']")
    approve = _tab_to(page, "form.interrupt[aria-label='Plan review'] button[type=submit]")
    assert approve.text == "Approve the plan"
    _keys(page, Keys.ENTER)
    page.wait_report()
    thread = page.thread()

    # a claim's evidence, opened
    _tab_to(page, "article.report .claim[data-claim]")
    _keys(page, Keys.ENTER)
    page.wait(lambda: page.by("aside.panel .evidence"), "the evidence opened by the keyboard")

    # a download, saved
    asked_at = time.time() - 1  # a file saved now (another test may have saved one by its name)
    button = _tab_to(page, ".downloads button")
    assert button.text == "report.md"
    _keys(page, Keys.ENTER)
    page.wait(
        lambda: [
            f
            for f in downloads.iterdir()
            if f.name.startswith("report") and f.suffix == ".md" and f.stat().st_mtime >= asked_at
        ],
        "the file the keyboard downloaded",
    )

    # feedback, stored
    _tab_to(page, ".feedback button[aria-pressed]")  # Helpful
    _keys(page, Keys.SPACE)
    page.wait(lambda: "saved" in page.one(".feedback .status").text, "the feedback saved")
    with server.http(name) as api:
        chat = api.get(f"/chats/{thread}").json()
        answer = next(
            m
            for m in reversed(chat["messages"])
            if m["role"] == "assistant" and not m["is_clarification"]
        )
        assert api.get(f"/messages/{answer['id']}/feedback").json()["rating"] == 1

    # rename: the field opens with the focus, Enter saves, the focus comes back to Rename
    row = f"nav.chat-list li[data-thread='{thread}']"
    _tab_to(page, f"{row} button.rename")
    _keys(page, Keys.ENTER)
    page.wait(lambda: page.driver.switch_to.active_element.tag_name == "input", "the title field")
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    _keys(page, "Keyboard notes", Keys.ENTER)
    page.wait(
        lambda: page.one(f"{row} .open").text.split("\n")[0] == "Keyboard notes", "the new title"
    )
    assert page.driver.execute_script(
        "return document.activeElement.matches(arguments[0])", f"{row} button.rename"
    ), "the focus was lost after renaming"
    with server.http(name) as api:
        assert api.get(f"/chats/{thread}").json()["title"] == "Keyboard notes"

    # delete, then undo: the focus goes to Undo when the deleted chat's row goes away
    _tab_to(page, f"{row} button[aria-label^='Delete']")
    _keys(page, Keys.ENTER)
    page.wait(lambda: "Chat deleted." in page.one(".toast").text, "the undo offer")
    _tab_to(page, ".toast button:not([aria-label])", limit=3)  # Undo
    _keys(page, Keys.ENTER)
    page.wait(lambda: page.by(f"nav.chat-list > ul {row.split(' ', 1)[1]}"), "the chat restored")

    # delete again, then erase for good after the confirmation
    _tab_to(page, f"{row} button[aria-label^='Delete']")
    _keys(page, Keys.ENTER)
    page.wait(lambda: page.by("details.deleted"), "the deleted chats")
    _tab_to(page, "details.deleted summary")
    _keys(page, Keys.ENTER)
    _tab_to(page, f"details.deleted li[data-thread='{thread}'] button[aria-label$='for good']")
    _keys(page, Keys.ENTER)
    keep = _tab_to(page, "details.deleted [role=alertdialog] button", limit=1)  # has the focus
    assert keep.text == "Keep", "the confirmation did not take the focus on its safe choice"
    _tab_to(page, "details.deleted [role=alertdialog] button.danger", limit=3, back=True)  # Erase
    with server.http(name) as api:  # nothing is erased before the confirmation
        assert api.get("/chats", params={"include_deleted": True}).json()
    _keys(page, Keys.ENTER)
    page.wait(lambda: "erased" in page.one(".toast").text, "the purge's confirmation")
    with server.http(name) as api:
        assert api.get("/chats", params={"include_deleted": True}).json() == []


def test_preferences_skip_plan_editing_and_sign_out_by_keyboard_alone(
    page: Page, server: AppServer
) -> None:
    """The actions the first keyboard test leaves out: every one reached and used by keys."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    name = user()
    _tab_to(page, ".signin input[type=password]")
    _keys(page, server.token(name), Keys.ENTER)
    page.wait(lambda: f"Signed in as {name}" in page.text(), "signed in by the keyboard")

    # preferences: the page opened from its link, a depth and standing instructions saved
    _tab_to(page, "header.top nav a[href='#/preferences']")
    _keys(page, Keys.ENTER)
    _tab_to(page, "form.preferences select:nth-of-type(2)")  # Depth
    _keys(page, "l")  # light
    _tab_to(page, "form.preferences textarea")
    _keys(page, "Answer in short paragraphs.")
    _tab_to(page, "form.preferences button[type=submit]")
    _keys(page, Keys.ENTER)
    page.wait(lambda: "Saved" in page.one("form.preferences .status").text, "preferences saved")
    with server.http(name) as api:
        saved = api.get("/preferences").json()
    assert saved["depth"] == "light"
    assert saved["system_instructions"] == "Answer in short paragraphs."

    # back to a new question, asked with the plan to review
    _tab_to(page, "header.top nav a[href='#/']")
    _keys(page, Keys.ENTER)
    _tab_to(page, "form.ask textarea")
    _keys(page, "batteries")
    _tab_to(page, "form.ask label.check:last-of-type input[type=checkbox]")
    _keys(page, Keys.SPACE)  # let me review the plan first
    _tab_to(page, "form.ask button[type=submit]")
    _keys(page, Keys.ENTER)

    # the clarifying question, skipped
    skip = _tab_to(page, "form.interrupt[aria-label='Clarifying question'] button[type=button]")
    assert skip.text.startswith("Skip")
    _keys(page, Keys.ENTER)

    # the plan, edited: the first step retitled, the last removed, one added
    plan = "form.interrupt[aria-label='Plan review']"
    page.one(plan)
    proposed = [f.get_attribute("value") for f in page.by(f"{plan} .plan-edit input")]
    assert len(proposed) >= 2
    _tab_to(page, f"{plan} .plan-edit li:first-child input")
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    _keys(page, "Hornsdale Power Reserve construction cost")
    _tab_to(page, f"{plan} button[aria-label='Remove step {len(proposed)}']")
    _keys(page, Keys.ENTER)
    add = _tab_to(page, f"{plan} .actions button[type=button]")
    assert add.text == "Add a step"
    _keys(page, Keys.ENTER)
    _tab_to(page, f"{plan} .plan-edit li:last-child input", back=True)
    _keys(page, "Battery capacity in MWh")
    submit = _tab_to(page, f"{plan} button[type=submit]")
    assert submit.text == "Research the edited plan"
    _keys(page, Keys.ENTER)
    page.wait_report()
    thread = page.thread()
    with server.http(name) as api:
        session = api.get(f"/chats/{thread}").json()["sessions"][-1]
        planned = [step["title"] for step in api.get(f"/sessions/{session['id']}").json()["plan"]]
    assert planned[0] == "Hornsdale Power Reserve construction cost"
    assert "Battery capacity in MWh" in planned
    assert proposed[-1] not in planned[: len(proposed)]

    # sign out: the sign-in form comes back and says why
    _tab_to(page, "header.top button", back=True)
    _keys(page, Keys.ENTER)
    page.wait(lambda: page.by(".signin input[type=password]"), "the sign-in form")
    assert "You signed out." in page.text()
