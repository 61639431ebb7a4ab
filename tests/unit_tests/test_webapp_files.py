"""The web app's files (``/app``): answered before auth, only from their folder, under a policy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from deep_research.server.webapp import CONTENT_SECURITY_POLICY, WebApp, resolve
from deep_research.settings import get_settings


def _api(_request: object) -> PlainTextResponse:
    return PlainTextResponse("the API", status_code=401)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>app</title>", encoding="utf-8")
    (root / "assets" / "index-1.js").write_text("console.log(1)", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("not for the page", encoding="utf-8")
    return root


@pytest.fixture
def client(built: Path) -> Iterator[TestClient]:
    inner = Starlette(routes=[Route("/{path:path}", _api)])
    with TestClient(WebApp(inner, root=built)) as http:
        yield http


def test_the_page_and_its_assets_are_answered_under_the_policy(client: TestClient) -> None:
    page = client.get("/app/")
    assert page.status_code == 200 and page.text.startswith("<!doctype html>")
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert page.headers["cache-control"] == "no-cache"
    script = client.get("/app/assets/index-1.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "immutable" in script.headers["cache-control"]
    assert client.head("/app/").content == b""
    redirect = client.get("/app", follow_redirects=False)
    assert (redirect.status_code, redirect.headers["location"]) == (308, "/app/")


def test_only_files_of_the_folder_are_answered(client: TestClient, built: Path) -> None:
    assert client.get("/app/../secret.txt").status_code != 200
    assert client.get("/app/%2e%2e/secret.txt").status_code == 404
    assert client.get("/app/.hidden").status_code == 404
    assert client.post("/app/").status_code == 405
    assert resolve("/app/../secret.txt", built) is None
    assert resolve("/app/assets", built) is None  # a folder is not a file
    assert client.get("/chats").text == "the API"  # everything else goes on to the server


def test_config_says_whether_a_token_is_needed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEEP_RESEARCH_AUTH_TOKENS", raising=False)
    monkeypatch.delenv("DEEP_RESEARCH_AUTH_SECRET", raising=False)
    get_settings.cache_clear()
    assert client.get("/app/config.json").json() == {"auth": False}
    monkeypatch.setenv("DEEP_RESEARCH_AUTH_TOKENS", "a-long-enough-token-0123456789=ann")
    get_settings.cache_clear()
    try:
        assert client.get("/app/config.json").json() == {"auth": True}
    finally:
        monkeypatch.delenv("DEEP_RESEARCH_AUTH_TOKENS")
        get_settings.cache_clear()


def test_an_unbuilt_page_says_how_to_build_it(tmp_path: Path) -> None:
    with TestClient(WebApp(Starlette(), root=tmp_path / "none")) as http:
        answer = http.get("/app/")
    assert answer.status_code == 503 and "make dev" in answer.text


def test_text_files_go_gzipped_to_a_browser_that_takes_it(client: TestClient) -> None:
    plain = client.get("/app/assets/index-1.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.text == "console.log(1)"
    packed = client.get("/app/assets/index-1.js", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.text == "console.log(1)"  # httpx decompresses it
