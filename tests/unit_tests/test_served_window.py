"""The context window is read from the model's server where it says (issue 42, point 7).

Each local server is faked at the HTTP transport with what it answers: llama.cpp's
``/props``, vLLM's ``/v1/models``, Ollama's ``/api/show``; a server that says nothing leaves
the window to the configuration, then the documented default.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from deep_research import engines
from deep_research.engines import load_engine
from deep_research.engines.llm import LLMEngine, windows
from deep_research.engines.llm.catalog import DEFAULT_CONTEXT_TOKENS
from deep_research.engines.llm.windows import served_window

BASE = "http://local.test:8080/v1"


def server(routes: dict[tuple[str, str], Any]) -> httpx.MockTransport:
    """A server answering ``(method, path)`` with JSON, and 404 to anything else."""

    def handle(request: httpx.Request) -> httpx.Response:
        body = routes.get((request.method, request.url.path))
        return httpx.Response(404) if body is None else httpx.Response(200, json=body)

    return httpx.MockTransport(handle)


LLAMA_CPP = {("GET", "/props"): {"default_generation_settings": {"n_ctx": 8192}}}
VLLM = {
    ("GET", "/v1/models"): {
        "data": [
            {"id": "other", "max_model_len": 4096},
            {"id": "qwen3", "max_model_len": 40960},
        ]
    }
}
OLLAMA = {("POST", "/api/show"): {"parameters": "stop <|im_end|>\nnum_ctx 16384\n"}}
LLAMA_CPP_PYTHON = {("GET", "/v1/models"): {"data": [{"id": "qwen3", "owned_by": "me"}]}}


@pytest.mark.parametrize(
    ("routes", "window"),
    [(LLAMA_CPP, 8192), (VLLM, 40960), (OLLAMA, 16384), (LLAMA_CPP_PYTHON, None), ({}, None)],
    ids=["llama.cpp", "vllm", "ollama", "llama-cpp-python", "silent"],
)
def test_each_server_is_read_where_it_states_the_window(
    routes: dict[tuple[str, str], Any], window: int | None
) -> None:
    assert served_window("qwen3", BASE, transport=server(routes)) == window


def test_openai_itself_is_not_asked() -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"asked {request.url}")

    assert served_window("gpt-4.1", None, transport=httpx.MockTransport(fail)) is None


def test_an_unreachable_server_says_nothing() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    assert served_window("qwen3", BASE, transport=httpx.MockTransport(refuse)) is None


def _engine_window(monkeypatch: pytest.MonkeyPatch, routes: dict[tuple[str, str], Any]) -> Any:
    def faked(model: str, base_url: str | None, **options: Any) -> int | None:
        return served_window(model, base_url, **{**options, "transport": server(routes)})

    monkeypatch.setattr(windows, "served_window", faked)
    engines._window.cache_clear()  # asked once per process and model: a new server here
    engine = load_engine("qwen3")
    assert isinstance(engine, LLMEngine)
    return engine.limits_of("writer").context_tokens


def test_the_server_window_comes_first_then_configuration_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", BASE)
    assert _engine_window(monkeypatch, LLAMA_CPP) == 8192  # qwen3's table window is 40960

    load_engine.cache_clear()
    monkeypatch.setenv("DEEP_RESEARCH_CONTEXT_TOKENS", "12000")
    from deep_research.settings import get_settings

    get_settings.cache_clear()
    assert _engine_window(monkeypatch, VLLM) == 40960  # the server's, over the setting
    load_engine.cache_clear()
    assert _engine_window(monkeypatch, {}) == 12000  # silent server: the setting

    load_engine.cache_clear()
    monkeypatch.delenv("DEEP_RESEARCH_CONTEXT_TOKENS")
    get_settings.cache_clear()
    monkeypatch.setattr(windows, "served_window", lambda *a, **k: None)
    engines._window.cache_clear()
    engine = load_engine("some-unknown-model")
    assert isinstance(engine, LLMEngine)
    assert engine.limits_of("writer").context_tokens == DEFAULT_CONTEXT_TOKENS


def test_a_server_learns_the_windows_before_it_serves_so_no_run_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the question is blocking HTTP: inside a run on langgraph dev's event loop it is refused
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", BASE)
    asked: list[str] = []

    def faked(model: str, base_url: str | None, **options: Any) -> int | None:
        asked.append(model)
        return served_window(model, base_url, **{**options, "transport": server(LLAMA_CPP)})

    monkeypatch.setattr(windows, "served_window", faked)
    engines.learn_windows(["offline", "qwen3"])
    assert asked == ["qwen3"]  # the offline engine has no server to ask

    def refuse(*args: Any, **kwargs: Any) -> int | None:
        raise AssertionError("a run asked the model's server for its window")

    monkeypatch.setattr(windows, "served_window", refuse)
    engine = load_engine("qwen3")
    assert isinstance(engine, LLMEngine)
    assert engine.limits_of("writer").context_tokens == 8192
