"""How much a model reads and writes from: budgets sized by its context window and the depth.

A research step shows its picker the best passages of the pages it read, and the writer is
shown the notes and evidence of every step. How much of each is a share of the model's
prompt budget (:attr:`~deep_research.engines.llm.catalog.ModelLimits.prompt_budget`, from the
table of known models or ``DEEP_RESEARCH_CONTEXT_TOKENS``), larger at a greater depth, never
a fixed count: a 128k-token model at ``extended`` depth is shown about 10,000 words of passages
per pick, a 32k-token one 2,500. A model of unknown window is sized as
:data:`~deep_research.engines.llm.catalog.DEFAULT_CONTEXT_TOKENS`.

The offline engine reads a fixed budget (:data:`~deep_research.sources.passages.PASSAGE_BUDGET`)
and keeps its own counts: it has no window.
"""

from __future__ import annotations

from deep_research.engines.llm.catalog import DEFAULT_CONTEXT_TOKENS, ModelLimits

TOKENS_PER_WORD = 1.5
"""Model tokens per word of passage text, as
:func:`~deep_research.engines.llm.catalog.estimate_tokens` counts English (four characters a
token, six a word with its space)."""

READ_SHARE = {"light": 0.06, "medium": 0.09, "extended": 0.14}
"""Share of the picker's prompt budget its passages may fill, by depth."""

MIN_PASSAGE_WORDS = {"light": 2000, "medium": 2250, "extended": 2500}
"""Words of passages a pick is shown at least, whatever the window (a 32k-token model)."""

MAX_PASSAGE_WORDS = {"light": 4000, "medium": 7000, "extended": 12000}
"""Words of passages a pick is shown at most, however large the window: beyond this a step's
pages rarely hold more that is relevant, and every word is paid for."""

WRITE_SHARE = {"light": 0.4, "medium": 0.55, "extended": 0.7}
"""Share of the writer's prompt budget the research (notes and evidence) may fill, by depth;
the rest is the instructions, the outline and room to spare."""


def _prompt_budget(limits: ModelLimits) -> int:
    sized = limits if limits.context_tokens else ModelLimits(DEFAULT_CONTEXT_TOKENS)
    budget = sized.prompt_budget
    assert budget is not None  # a window is set
    return budget


def passage_words(limits: ModelLimits, depth: str) -> int:
    """Words of passages one pick is shown: a share of the picker's window, within bounds."""
    words = int(_prompt_budget(limits) * READ_SHARE[depth] / TOKENS_PER_WORD)
    return max(MIN_PASSAGE_WORDS[depth], min(MAX_PASSAGE_WORDS[depth], words))


def writer_tokens(limits: ModelLimits, depth: str) -> int:
    """Tokens of research (notes and evidence) the writer is shown at most."""
    return int(_prompt_budget(limits) * WRITE_SHARE[depth])
