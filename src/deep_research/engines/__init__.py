"""Reasoning engines: one interface (:class:`Engine`), an LLM engine and an offline engine."""

from __future__ import annotations

from functools import lru_cache

from deep_research.engines.base import (
    ClaimCheck,
    Engine,
    Instructable,
    Reply,
    Turn,
    chat_title,
    evidence_key,
)
from deep_research.engines.offline import OfflineEngine
from deep_research.settings import OFFLINE, get_settings

__all__ = [
    "ClaimCheck",
    "Engine",
    "Instructable",
    "OfflineEngine",
    "Reply",
    "Turn",
    "chat_title",
    "evidence_key",
    "load_engine",
]


@lru_cache(maxsize=8)
def load_engine(model: str) -> Engine:
    """Return the engine for a model name (``offline`` or a model of the configured endpoint).

    This is the one construction point of engines; tests replace the engine by passing their
    own to ``build_graph(engine=...)``.

    Raises:
        ConfigurationError: a model is named but no API key is configured.
    """
    if model == OFFLINE:
        return OfflineEngine()
    from deep_research.engines.llm import LLMEngine, build_chat_model

    settings = get_settings()
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    chat_model = build_chat_model(model, api_key=key, base_url=settings.openai_base_url)
    return LLMEngine(chat_model, name=model)
