"""The context window a model's server says it runs with, where it says.

An OpenAI-compatible endpoint has no standard field for the window, but the common local
servers each state it somewhere:

* llama.cpp's ``llama-server``: ``GET /props`` → ``default_generation_settings.n_ctx`` (the
  window it was started with, ``--ctx-size``);
* vLLM: ``GET /v1/models`` → ``max_model_len`` of the model;
* Ollama: ``POST /api/show`` → ``num_ctx`` among the model's parameters, when its Modelfile
  sets one (otherwise Ollama runs its default window, which it does not report).

:func:`served_window` asks them in that order, briefly, and gives ``None`` when none answers
(llama-cpp-python's server, OpenAI, a hosted API): the window then comes from
``DEEP_RESEARCH_CONTEXT_TOKENS``, else the table of known models, else
:data:`~deep_research.engines.llm.catalog.DEFAULT_CONTEXT_TOKENS`
(:func:`~deep_research.engines.llm.catalog.limits_of`).
"""

from __future__ import annotations

import re
from typing import Any

import httpx

PROBE_TIMEOUT_SECONDS = 2.0
"""How long each question to the server may take: a server that does not answer says nothing."""


def served_window(
    model: str,
    base_url: str | None,
    *,
    api_key: str | None = None,
    transport: httpx.BaseTransport | None = None,
) -> int | None:
    """The context window the server at ``base_url`` states for ``model``, or ``None``.

    Args:
        model: The model's name on the server.
        base_url: The OpenAI-compatible endpoint (``http://host:port/v1``); ``None`` (OpenAI
            itself) is not asked.
        api_key: Sent as a bearer token, as to the endpoint itself.
        transport: The HTTP transport (tests fake the server here).
    """
    if not base_url:
        return None
    api = base_url.rstrip("/")
    root = re.sub(r"/v1$", "", api)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(
        transport=transport, timeout=PROBE_TIMEOUT_SECONDS, headers=headers
    ) as client:
        for probe in (_llama_cpp, _vllm, _ollama):
            try:
                window = probe(client, api, root, model)
            except (httpx.HTTPError, ValueError, TypeError, KeyError, AttributeError):
                window = None
            if window:
                return window
    return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _llama_cpp(client: httpx.Client, api: str, root: str, model: str) -> int | None:
    response = client.get(f"{root}/props")
    if response.status_code != 200:
        return None
    props = response.json()
    settings = props.get("default_generation_settings") or {}
    return _positive(settings.get("n_ctx")) or _positive(props.get("n_ctx"))


def _vllm(client: httpx.Client, api: str, root: str, model: str) -> int | None:
    response = client.get(f"{api}/models")
    if response.status_code != 200:
        return None
    for entry in response.json().get("data") or []:
        if entry.get("id") == model:
            return _positive(entry.get("max_model_len"))
    return None


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.M)


def _ollama(client: httpx.Client, api: str, root: str, model: str) -> int | None:
    response = client.post(f"{root}/api/show", json={"model": model})
    if response.status_code != 200:
        return None
    found = _NUM_CTX.search(str(response.json().get("parameters") or ""))
    return int(found.group(1)) if found else None
