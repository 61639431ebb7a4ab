"""The web app (``/app``): what its first load weighs, how soon it paints, how fast it draws.

``langgraph dev`` serves the repository's ``langgraph.json`` (auth open, offline engine) on a
free port of 127.0.0.1, with the page built by ``make web`` (the section says so and stops
when it is not built). Measured:

* the first load's transfer: the page and every asset it names, fetched as a browser does
  (``Accept-Encoding: gzip``), in bytes on the wire and uncompressed (goal: 300 KB gzipped);
* the time to first contentful paint of a cold load in headless Chromium on loopback, from
  the browser's own paint timing (a new browser each repeat, so nothing is cached);
* how many progress events a second the live view renders: ``/app/bench.html`` feeds the
  events of a 16-step run (16 steps of 16 research events each and 400 claims, 682 in all)
  to the page's own reducer and view one at a time, each drawn before the next, and reports
  the rate, the slowest event and the DOM size at the end (bounded).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import REPO_ROOT, log, summary
from bench.sections import Options
from deep_research.server import APP_DIR, dev_server, langgraph_executable

NAME = "webapp"
GOAL_GZIP_KB = 300
_REMOVED = ("DEEP_RESEARCH_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY")


def _transfer(url: str) -> dict[str, Any]:
    """Bytes of the first load: on the wire (gzip) and uncompressed, per file."""
    files: dict[str, dict[str, int]] = {}
    with httpx.Client(base_url=url, trust_env=False, timeout=30) as http:
        queue = ["/app/"]
        while queue:
            path = queue.pop(0)
            with http.stream("GET", path, headers={"Accept-Encoding": "gzip"}) as answer:
                answer.raise_for_status()
                wire = sum(len(chunk) for chunk in answer.iter_raw())
            body = http.get(path, headers={"Accept-Encoding": "identity"}).content
            files[path] = {"wire": wire, "raw": len(body)}
            if path.endswith((".html", "/")) or path.endswith(".js"):
                found = re.findall(rb'(?:src|href)="(/app/assets/[^"]+)"', body)
                found += re.findall(rb'"(?:\./|/app/assets/)([\w.-]+\.(?:js|css))"', body)
                for name in found:
                    text = name.decode()
                    asset = text if text.startswith("/") else f"/app/assets/{text}"
                    if asset not in files and asset not in queue and "bench" not in asset:
                        queue.append(asset)
    wire = sum(f["wire"] for f in files.values())
    return {
        "files": files,
        "wire_kb": round(wire / 1024, 1),
        "raw_kb": round(sum(f["raw"] for f in files.values()) / 1024, 1),
        "goal_kb": GOAL_GZIP_KB,
        "met": wire / 1024 <= GOAL_GZIP_KB,
    }


def _browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))), options=options)


def _first_paint(url: str, repeats: int) -> dict[str, Any]:
    paints, loads = [], []
    for _ in range(repeats):
        browser = _browser()
        try:
            browser.get(f"{url}/app/")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                timing = browser.execute_script(
                    "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                    "const n = performance.getEntriesByType('navigation')[0];"
                    "return [p ? p.startTime : null, n ? n.loadEventEnd : 0];"
                )
                if timing[0] is not None and timing[1]:
                    paints.append(timing[0] / 1000)
                    loads.append(timing[1] / 1000)
                    break
                time.sleep(0.05)
        finally:
            browser.quit()
    return {"first_contentful_paint_s": summary(paints), "load_event_s": summary(loads)}


def _render_rate(url: str, repeats: int) -> dict[str, Any]:
    results = []
    browser = _browser()
    try:
        for _ in range(repeats):
            browser.get(f"{url}/app/bench.html")
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                found = browser.execute_script(
                    "const o = document.getElementById('result'); return o && o.textContent"
                )
                if found:
                    results.append(json.loads(found))
                    break
                time.sleep(0.1)
    finally:
        browser.quit()
    if not results:
        raise RuntimeError("the live view's bench gave no result")
    return {
        "events": results[0]["events"],
        "events_per_second": summary([r["events_per_second"] for r in results], 1),
        "longest_event_ms": summary([r["longest_event_ms"] for r in results], 1),
        "dom_nodes": max(r["dom_nodes"] for r in results),
    }


def run(options: Options) -> dict[str, Any]:
    """Measure the page on a fresh ``langgraph dev``."""
    if not (APP_DIR / "index.html").is_file():
        raise RuntimeError("the web app is not built: run `make web` first")
    if langgraph_executable() is None or not shutil.which("chromium"):
        raise RuntimeError("needs the `langgraph` executable and Debian's chromium")
    repeats = 1 if options.quick else max(3, options.repeats)
    with tempfile.TemporaryDirectory(prefix="bench-webapp-") as folder:
        workdir = Path(folder)
        env = {"DEEP_RESEARCH_DATA_DIR": str(workdir / "data")}
        with dev_server(REPO_ROOT / "langgraph.json", workdir, env=env, remove_env=_REMOVED) as srv:
            log(f"langgraph dev on {srv.url}")
            transfer = _transfer(srv.url)
            log(f"first load: {transfer['wire_kb']} KB on the wire ({transfer['raw_kb']} KB raw)")
            paint = _first_paint(srv.url, repeats)
            log(f"first contentful paint: {paint['first_contentful_paint_s']}")
            rate = _render_rate(srv.url, repeats)
            log(f"live view: {rate['events_per_second']} events/s")
    return {
        "transfer": transfer,
        **paint,
        "live_view": rate,
        "repeats": repeats,
    }
