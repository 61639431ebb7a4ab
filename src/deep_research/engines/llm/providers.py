"""Chat models by name: ``provider:model`` (LangChain's ``init_chat_model`` form) or a bare name.

A bare name (``gpt-4.1-mini``, ``qwen3:8b``) is a model of the OpenAI-compatible endpoint at
``OPENAI_BASE_URL`` (OpenAI itself when unset): OpenAI, OpenRouter, vLLM, Ollama's and
llama.cpp's OpenAI-compatible servers. A known provider prefix selects that provider's
LangChain integration, installed as an optional extra of this package::

    anthropic:claude-sonnet-4-5      pip install "deep-research[anthropic]"
    ollama:qwen3:8b                  pip install "deep-research[ollama]"

Naming a provider whose package is missing is a :class:`ConfigurationError` saying what to
install. The provider table is this package's own (the ``langchain`` package is not needed).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr, ValidationError

from deep_research.errors import ConfigurationError

REQUEST_TIMEOUT_SECONDS = 120.0
"""Timeout of one request; while streaming, the longest wait for the next piece."""

MAX_RETRIES = 2
"""Retries of a failed request by the provider's own client."""


@dataclass(frozen=True)
class Sampling:
    """How a model samples its replies: temperature, seed and the most tokens a reply may have.

    ``None`` leaves the provider's default. Each provider names them its own way
    (:data:`SAMPLING_NAMES`); a provider without a seed gets none.
    """

    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None


SAMPLING_NAMES: dict[str, dict[str, str]] = {
    "azure_openai": {"temperature": "temperature", "seed": "seed", "max_tokens": "max_tokens"},
    "anthropic": {"temperature": "temperature", "max_tokens": "max_tokens"},
    "ollama": {"temperature": "temperature", "seed": "seed", "max_tokens": "num_predict"},
    "google_genai": {"temperature": "temperature", "max_tokens": "max_output_tokens"},
    "bedrock_converse": {"temperature": "temperature", "max_tokens": "max_tokens"},
    "groq": {"temperature": "temperature", "max_tokens": "max_tokens"},
    "mistralai": {"temperature": "temperature", "seed": "random_seed", "max_tokens": "max_tokens"},
}
"""Each provider's constructor argument for each :class:`Sampling` field it supports."""


@dataclass(frozen=True)
class Provider:
    """A LangChain chat-model integration and where it comes from."""

    module: str
    """The module that defines the chat model class."""
    cls: str
    """The chat model class."""
    package: str
    """The PyPI package of the integration."""
    extra: str
    """This package's optional extra that installs it."""
    options: dict[str, Any] = field(default_factory=dict)
    """Constructor arguments besides the model name (retries and timeouts where supported)."""


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("langchain_openai", "ChatOpenAI", "langchain-openai", "openai"),
    "azure_openai": Provider(
        "langchain_openai",
        "AzureChatOpenAI",
        "langchain-openai",
        "openai",
        {"max_retries": MAX_RETRIES, "timeout": REQUEST_TIMEOUT_SECONDS},
    ),
    "anthropic": Provider(
        "langchain_anthropic",
        "ChatAnthropic",
        "langchain-anthropic",
        "anthropic",
        {"max_retries": MAX_RETRIES, "default_request_timeout": REQUEST_TIMEOUT_SECONDS},
    ),
    "ollama": Provider("langchain_ollama", "ChatOllama", "langchain-ollama", "ollama"),
    "google_genai": Provider(
        "langchain_google_genai",
        "ChatGoogleGenerativeAI",
        "langchain-google-genai",
        "google",
        {"max_retries": MAX_RETRIES, "timeout": REQUEST_TIMEOUT_SECONDS},
    ),
    "bedrock_converse": Provider("langchain_aws", "ChatBedrockConverse", "langchain-aws", "aws"),
    "groq": Provider(
        "langchain_groq",
        "ChatGroq",
        "langchain-groq",
        "groq",
        {"max_retries": MAX_RETRIES, "timeout": REQUEST_TIMEOUT_SECONDS},
    ),
    "mistralai": Provider(
        "langchain_mistralai",
        "ChatMistralAI",
        "langchain-mistralai",
        "mistralai",
        {"max_retries": MAX_RETRIES, "timeout": REQUEST_TIMEOUT_SECONDS},
    ),
}
"""Providers by the prefix that names them (``init_chat_model``'s names)."""


def split_model(spec: str) -> tuple[str | None, str]:
    """``(provider, model)`` of a model name; the provider is ``None`` for a bare name.

    Only a known provider counts as a prefix, so ``qwen3:8b`` stays a bare name and
    ``ollama:qwen3:8b`` is Ollama's ``qwen3:8b``.
    """
    prefix, colon, rest = spec.partition(":")
    if colon and prefix.strip().lower() in PROVIDERS and rest.strip():
        return prefix.strip().lower(), rest.strip()
    return None, spec.strip()


def model_label(spec: str) -> str:
    """The model's own name, without a provider prefix (the key of price and window tables)."""
    return split_model(spec)[1]


def build_chat_model(
    model: str,
    *,
    api_key: str | None,
    base_url: str | None,
    http_async_client: httpx.AsyncClient | None = None,
    sampling: Sampling | None = None,
) -> BaseChatModel:
    """Build the chat model a name selects (see the module docstring).

    Args:
        model: ``provider:model`` or a bare name of the OpenAI-compatible endpoint.
        api_key: The OpenAI-compatible endpoint's key; ``None`` falls back to
            ``OPENAI_API_KEY``. Other providers read their own variables.
        base_url: The OpenAI-compatible endpoint; ``None`` falls back to ``OPENAI_BASE_URL``.
        http_async_client: An HTTP client for the OpenAI-compatible endpoint (tests use a mock
            transport).
        sampling: Temperature, seed and output cap of every call (see :class:`Sampling`).

    Returns:
        The chat model, with retries and, for OpenAI-compatible endpoints, streaming with usage.

    Raises:
        ConfigurationError: the provider's package is missing, or the model cannot be set up
            (no API key, for one).
    """
    provider, name = split_model(model)
    sampling = sampling or Sampling()
    if provider in (None, "openai"):
        return _openai_compatible(name, api_key, base_url, http_async_client, sampling)
    assert provider is not None
    spec = PROVIDERS[provider]
    try:
        module = importlib.import_module(spec.module)
    except ImportError:
        raise ConfigurationError(
            f"model {model!r} needs the {spec.package} package: "
            f'pip install "deep-research[{spec.extra}]"'
        ) from None
    chat_class = getattr(module, spec.cls)
    names = SAMPLING_NAMES.get(provider, {})
    chosen = {
        names[field]: value
        for field, value in vars(sampling).items()
        if value is not None and field in names
    }
    try:
        return chat_class(model=name, **spec.options, **chosen)  # type: ignore[no-any-return]
    except (ValidationError, ValueError, TypeError, openai.OpenAIError) as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigurationError(f"could not set up model {model!r}: {detail}") from None


def _openai_compatible(
    model: str,
    api_key: str | None,
    base_url: str | None,
    http_async_client: httpx.AsyncClient | None,
    sampling: Sampling,
) -> ChatOpenAI:
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        raise ConfigurationError(
            "no API key for the model endpoint: set OPENAI_API_KEY "
            "(any value for a local server that needs none)"
        )
    # ChatOpenAI sends max_tokens as OpenAI's max_completion_tokens, which servers such as
    # llama-cpp-python ignore: another endpoint is sent max_tokens as well
    served = base_url or os.environ.get("OPENAI_BASE_URL")
    cap = sampling.max_tokens
    return ChatOpenAI(
        model=model,
        api_key=SecretStr(key),
        base_url=base_url,
        streaming=True,
        stream_usage=True,
        max_retries=MAX_RETRIES,
        timeout=REQUEST_TIMEOUT_SECONDS,
        http_async_client=http_async_client,
        temperature=sampling.temperature,
        seed=sampling.seed,
        max_tokens=cap,
        extra_body={"max_tokens": cap} if cap is not None and served else None,
    )
