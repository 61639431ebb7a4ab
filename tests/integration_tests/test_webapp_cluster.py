"""The research web app on the Aegra cluster: served by both instances, ask, watch, read.

Two instances (``deploy/cluster.sh``, as ``make cluster``) over PostgreSQL and Redis, with
auth, on the offline engine. The page is signed in on one instance, asks and watches its run
there, and the chat is then read on the other instance. Skipped locally without the cluster's
Python 3.12 environment, Redis, PostgreSQL or chromium; a failure under CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from psycopg import sql

from tests.integration_tests.cluster_process import Cluster, aegra_cluster
from tests.integration_tests.webapp_browser import Page, chromium, require_built_page

pytestmark = [pytest.mark.server, pytest.mark.postgres, pytest.mark.browser]

TOKEN = "ada-webapp-cluster-token-0123456789"
QUESTION = "What did Hornsdale Power Reserve cost, and how large is it?"


def _database(admin: str, name: str, scheme: str) -> str:
    parts = urlsplit(admin)
    return urlunsplit((scheme, parts.netloc, f"/{name}", parts.query, ""))


@pytest.fixture(scope="module")
def cluster(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two Aegra instances with auth (one user), on databases of their own."""
    require_built_page()
    admin = _database(postgres_url, "postgres", "postgresql")
    base = urlsplit(postgres_url).path.lstrip("/")
    domain, aegra = f"{base}_webapp_domain", f"{base}_webapp_aegra"
    env = {"DEEP_RESEARCH_AUTH_TOKENS": f"{TOKEN}=ada"}
    try:
        with aegra_cluster(
            tmp_path_factory.mktemp("webapp-cluster"),
            _database(admin, domain, "postgresql+psycopg"),
            _database(admin, aegra, "postgresql"),
            env,
        ) as running:
            yield running
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in (domain, aegra):
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                    (name,),
                )
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium(tmp_path_factory.mktemp("downloads")) as session:
        yield session


def test_both_instances_serve_the_page_without_a_token(cluster: Cluster) -> None:
    for url in cluster.urls:
        with httpx.Client(base_url=url, trust_env=False) as anonymous:
            page = anonymous.get("/app/")
            assert page.status_code == 200, page.text
            assert "default-src 'self'" in page.headers["content-security-policy"]
            assert anonymous.get("/app/config.json").json() == {"auth": True}
            assert anonymous.get("/chats").status_code == 401


def test_ask_watch_and_read_on_the_cluster(cluster: Cluster, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    first = Page(browser, cluster.urls[0])
    first.sign_in(TOKEN)
    first.ask(QUESTION, depth="light")
    first.wait(lambda: first.by(".live li.step"), "the plan's steps, streamed from the cluster")
    report = first.wait_report()
    thread = first.thread()
    first.wait(lambda: "Finished:" in first.one(".live").text, "the run's end")
    claims = report.find_elements(By.CSS_SELECTOR, ".claim[data-claim]")
    with httpx.Client(
        base_url=cluster.urls[1], headers={"Authorization": f"Bearer {TOKEN}"}, trust_env=False
    ) as api:
        session = api.get(f"/chats/{thread}").json()["sessions"][-1]
        stored = api.get(f"/sessions/{session['id']}/report").json()
    assert {c.get_attribute("data-claim") for c in claims} == {c["id"] for c in stored["claims"]}
    claims[0].click()
    assert first.one("aside.panel .evidence blockquote").text

    # the same chat, read on the other instance
    second = Page(browser, cluster.urls[1])
    second.sign_in(TOKEN)
    second.open(f"#/chat/{thread}")
    again = second.wait_report()
    assert len(again.find_elements(By.CSS_SELECTOR, ".claim[data-claim]")) == len(claims)
