"""What a model can take and what it costs: context windows and prices of known models.

:data:`KNOWN_MODELS` is matched by the longest prefix of the model's own name (the provider
prefix and an OpenRouter-style ``vendor/`` are dropped, case is ignored), so that dated
snapshots (``claude-sonnet-4-5-20250929``) and tags (``qwen3:8b``) find their family.
``DEEP_RESEARCH_CONTEXT_TOKENS`` overrides every window and ``DEEP_RESEARCH_PRICES`` adds or
overrides prices (see :class:`~deep_research.settings.Settings`). A model not in the table has
the default window and no price (its cost is not estimated).

Token counts are estimated from text without a tokenizer (:func:`estimate_tokens`): a quarter
of a token per ASCII character and a whole one per other character, which errs on the side of
more tokens for every script.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from deep_research.engines.llm.providers import model_label

DEFAULT_CONTEXT_TOKENS = 32_768
"""The window assumed for a model not in the table (and no override)."""

OUTPUT_SHARE = 4
"""A quarter of the window (at most :data:`MAX_OUTPUT_RESERVE`) is kept free for the reply."""

MAX_OUTPUT_RESERVE = 8_192
SAFETY = 0.9
"""Share of what is left that prompts may fill: token estimates are estimates."""


@dataclass(frozen=True)
class ModelLimits:
    """A model's context window and prices."""

    context_tokens: int | None = None
    """Tokens of prompt and reply together; ``None``: unknown, prompts are not trimmed."""
    input_price: float = 0.0
    """USD per million prompt tokens."""
    output_price: float = 0.0
    """USD per million completion tokens."""

    @property
    def prompt_budget(self) -> int | None:
        """Tokens a prompt may take, leaving room for the reply; ``None`` when unbounded."""
        if self.context_tokens is None:
            return None
        reserve = min(MAX_OUTPUT_RESERVE, self.context_tokens // OUTPUT_SHARE)
        return int((self.context_tokens - reserve) * SAFETY)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for these tokens at this model's prices."""
        return (prompt_tokens * self.input_price + completion_tokens * self.output_price) / 1e6


KNOWN_MODELS: dict[str, tuple[int, float, float]] = {
    # OpenAI: window, USD per million input and output tokens
    "gpt-5": (400_000, 1.25, 10.00),
    "gpt-5-mini": (400_000, 0.25, 2.00),
    "gpt-5-nano": (400_000, 0.05, 0.40),
    "gpt-4.1": (1_047_576, 2.00, 8.00),
    "gpt-4.1-mini": (1_047_576, 0.40, 1.60),
    "gpt-4.1-nano": (1_047_576, 0.10, 0.40),
    "gpt-4o": (128_000, 2.50, 10.00),
    "gpt-4o-mini": (128_000, 0.15, 0.60),
    "o3": (200_000, 2.00, 8.00),
    "o3-mini": (200_000, 1.10, 4.40),
    "o4-mini": (200_000, 1.10, 4.40),
    # Anthropic
    "claude-opus-4": (200_000, 15.00, 75.00),
    "claude-sonnet-4": (200_000, 3.00, 15.00),
    "claude-3-7-sonnet": (200_000, 3.00, 15.00),
    "claude-haiku-4-5": (200_000, 1.00, 5.00),
    "claude-3-5-haiku": (200_000, 0.80, 4.00),
    # Google
    "gemini-2.5-pro": (1_048_576, 1.25, 10.00),
    "gemini-2.5-flash": (1_048_576, 0.30, 2.50),
    "gemini-2.0-flash": (1_048_576, 0.10, 0.40),
    # open models, as local servers (Ollama, vLLM, llama.cpp) serve them: no price
    "llama3": (8_192, 0.0, 0.0),
    "llama3.1": (131_072, 0.0, 0.0),
    "llama3.2": (131_072, 0.0, 0.0),
    "llama3.3": (131_072, 0.0, 0.0),
    "qwen2.5": (32_768, 0.0, 0.0),
    "qwen3": (40_960, 0.0, 0.0),
    "mistral": (32_768, 0.0, 0.0),
    "gemma3": (131_072, 0.0, 0.0),
}
"""Known models by name prefix: context window, USD per million prompt and completion tokens."""


def _family(model: str, table: Mapping[str, object]) -> str | None:
    name = model_label(model).lower().rsplit("/", 1)[-1]
    matches = [key for key in table if name.startswith(key.lower())]
    return max(matches, key=len) if matches else None


def limits_of(
    model: str,
    *,
    context_tokens: int | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> ModelLimits:
    """The window and prices of ``model``, with the operator's overrides.

    Args:
        model: ``provider:model`` or a bare name.
        context_tokens: A window for every model (``DEEP_RESEARCH_CONTEXT_TOKENS``).
        prices: USD per million prompt and completion tokens by model name prefix
            (``DEEP_RESEARCH_PRICES``), over the shipped ones.
    """
    known = _family(model, KNOWN_MODELS)
    window, input_price, output_price = (
        KNOWN_MODELS[known] if known else (DEFAULT_CONTEXT_TOKENS, 0.0, 0.0)
    )
    priced = _family(model, prices or {})
    if priced is not None and prices is not None:
        input_price, output_price = prices[priced]
    return ModelLimits(context_tokens or window, input_price, output_price)


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` takes, estimated high (see the module docstring)."""
    ascii_chars = len(text) if text.isascii() else len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def fit(
    costs: Sequence[int], budget: int, priority: Callable[[int], float] | None = None
) -> list[int]:
    """The positions of the items to keep within ``budget`` tokens, in their order.

    Items are taken by descending ``priority`` (ties and no priority: in order) while they fit.

    Args:
        costs: The tokens of each item.
        budget: The tokens the items may take together.
        priority: The relevance of the item at a position.
    """
    order = sorted(range(len(costs)), key=lambda i: (-(priority(i) if priority else 0.0), i))
    kept, spent = [], 0
    for position in order:
        if spent + costs[position] <= budget:
            kept.append(position)
            spent += costs[position]
    return sorted(kept)


def clip(text: str, tokens: int) -> str:
    """``text`` cut to about ``tokens`` tokens, at a word, with an ellipsis when cut."""
    if estimate_tokens(text) <= tokens:
        return text
    chars = max(0, tokens) * 4
    while chars and estimate_tokens(text[:chars]) > tokens:
        chars = chars * 3 // 4
    cut = text[:chars].rsplit(" ", 1)[0] if " " in text[:chars] else text[:chars]
    return f"{cut}…"
