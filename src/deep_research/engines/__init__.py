"""Reasoning engines: one interface (:class:`Engine`), an LLM engine and an offline engine."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from deep_research.engines.base import (
    Assessment,
    ClaimCheck,
    Engine,
    Instructable,
    Reply,
    Turn,
    Windowed,
    WritingInputs,
    chat_title,
    evidence_key,
    passage_key,
)
from deep_research.engines.offline.engine import OfflineEngine
from deep_research.engines.quotes import locate_quotes
from deep_research.errors import ConfigurationError
from deep_research.settings import OFFLINE, get_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "Assessment",
    "ClaimCheck",
    "Engine",
    "Instructable",
    "Windowed",
    "OfflineEngine",
    "Reply",
    "Turn",
    "WritingInputs",
    "chat_title",
    "evidence_key",
    "learn_windows",
    "load_engine",
    "locate_quotes",
    "passage_key",
]


@lru_cache(maxsize=32)
def _window(model: str, api_key: str | None) -> int | None:
    """The window the OpenAI-compatible server of ``model`` states, if it does.

    See :mod:`deep_research.engines.llm.windows`; other providers are not asked. Asked once
    per process and model: the question is blocking HTTP, so a server asks it before it serves
    (:func:`learn_windows`), never inside a run on its event loop.
    """
    from deep_research.engines.llm.providers import split_model
    from deep_research.engines.llm.windows import served_window

    provider, name = split_model(model)
    if provider not in (None, "openai"):
        return None
    return served_window(name, get_settings().openai_base_url, api_key=api_key)


def learn_windows(models: Iterable[str]) -> None:
    """Ask the model servers for the windows of ``models`` now (blocking; call it in a thread).

    A server calls this at start-up, off its event loop, for the models its runs may use, so
    that building an engine inside a run finds the answer already known.
    """
    settings = get_settings()
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    for model in models:
        if model != OFFLINE:
            _window(model, key)


@lru_cache(maxsize=8)
def load_engine(
    model: str,
    *,
    judge_model: str | None = None,
    notes_model: str | None = None,
    temperature: float | None = None,
    seed: int | None = None,
    writer_max_tokens: int | None = None,
    judge_max_tokens: int | None = None,
    notes_max_tokens: int | None = None,
) -> Engine:
    """Return the engine for a model name (``offline``, ``provider:model`` or a bare name).

    This is the one construction point of engines; tests replace the engine by passing their
    own to ``build_graph(engine=...)``.

    Args:
        model: The writer's model (see :mod:`deep_research.engines.llm.providers`).
        judge_model: The model that judges claims, when it is another one.
        notes_model: The model that proposes queries and takes notes, when it is another one.
        temperature: The sampling temperature of every call (``None``: the provider's).
        seed: The sampling seed of every call, where the provider takes one.
        writer_max_tokens: The most tokens one reply of the writer may have.
        judge_max_tokens: The most tokens one reply of the judge may have.
        notes_max_tokens: The most tokens one reply of the notes model may have.

    Raises:
        ConfigurationError: a model cannot be set up (no API key, its provider's package is
            missing).

    Example:
        >>> engine = load_engine("offline")
        >>> engine.name, type(engine).__name__
        ('offline', 'OfflineEngine')

        ``load_engine("openai:gpt-4.1-mini")`` builds the LLM engine the same way (it needs the
        provider's package and API key).
    """
    if model == OFFLINE:
        return OfflineEngine()
    from deep_research.engines.llm.engine import LLMEngine, Role, build_chat_model
    from deep_research.engines.llm.providers import Sampling

    settings = get_settings()
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    caps: dict[Role, int | None] = {
        "writer": writer_max_tokens,
        "judge": judge_max_tokens,
        "notes": notes_max_tokens,
    }

    def build(name: str, role: Role) -> BaseChatModel:
        sampling = Sampling(temperature, seed, caps[role])
        return build_chat_model(
            name, api_key=key, base_url=settings.openai_base_url, sampling=sampling
        )

    from deep_research.engines.llm.catalog import limits_of

    picked: dict[Role, str | None] = {"judge": judge_model, "notes": notes_model}
    if OFFLINE in picked.values():
        raise ConfigurationError(
            "the judge and notes models must be models; 'offline' is a whole engine "
            "(set DEEP_RESEARCH_MODEL=offline for it)"
        )
    names: dict[Role, str] = {
        "writer": model,
        **{r: n for r, n in picked.items() if n and n != model},
    }
    # a role of the writer's model with another output cap is a model of its own
    names.update({r: model for r in caps if r not in names and caps[r] != caps["writer"]})
    roles: dict[Role, BaseChatModel] = {r: build(n, r) for r, n in names.items() if r != "writer"}
    limits = {
        role: limits_of(
            name,
            context_tokens=_window(name, key) or settings.context_tokens,
            prices=settings.prices,
        )
        for role, name in names.items()
    }
    return LLMEngine(
        build(model, "writer"),
        name=model,
        roles=roles,
        structured=settings.structured_output,
        limits=limits,
    )
