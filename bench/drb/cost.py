"""What a DRB run will cost, estimated before it starts, from sizes known and sizes assumed.

Known exactly: DRB's prompt templates, each task's criteria and the peer's report (the
scoring prompt holds it). Assumed (:class:`Assumptions`, documented in docs/drb.md with the
figures measured on the stand-in): the tokens our graph spends per task, the length of our
article, the pairs FACT extracts, the pages it reads and the judge's reply per criterion.
Tokens are counted with the project's estimate, which errs high (:func:`estimate_tokens`).

Once tasks have finished in a run's folder, :func:`from_finished` replaces all of that by
what they spent (median per task), so that the estimate before a resumed or extended run
is measured, not assumed.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.drb.data import Peer, Task
from bench.drb.prompts import DrbPrompts
from bench.drb.race import Order, criteria_list, orders_for
from deep_research.engines.llm import ModelLimits, estimate_tokens


@dataclass(frozen=True)
class Assumptions:
    """Sizes a run cannot know before it runs (tokens unless named otherwise)."""

    model_prompt: int = 130_000
    """Prompt tokens our graph spends on one task (all its calls): an 8-step plan on the
    simulation's 1,000-word pages (BENCHMARKS.md, tokens per report)."""
    model_completion: int = 35_000
    """Completion tokens our graph spends on one task (the same 8-step plan)."""
    article: int = 4_000
    """Our article, with its references."""
    pairs: int = 30
    """Statement-URL pairs FACT extracts from it."""
    pair_tokens: int = 60
    """The judge's tokens per extracted pair (the fact, its index and URL)."""
    urls: int = 12
    """Distinct URLs those pairs cite."""
    page: int = 8_000
    """A page read for validation."""
    per_criterion: int = 90
    """The judge's reply per criterion in a comparison (analysis and two scores)."""


RECORD_KEYS = {"model": "model_tokens", "judge": "judge", "fact_judge": "fact_judge"}
"""Where a task's record keeps each role's tokens (see :mod:`bench.drb.run`)."""

Limits = Mapping[str, ModelLimits | None]
"""Each role's window and prices; ``None``: simulated, free."""


@dataclass(frozen=True)
class Estimate:
    """Prompt and completion tokens by role, and dollars."""

    tasks: int
    tokens: dict[str, tuple[int, int]]
    usd: float | None
    """``None`` when a model's price is unknown."""

    def line(self) -> str:
        """One line for the console."""
        if self.usd is None:
            cost = "cost unknown (no price)"
        else:
            cost = f"about ${self.usd:.2f}" if self.usd else "no cost (simulated models)"
        names = {"model": "model", "judge": "RACE judge", "fact_judge": "FACT judge"}
        parts = ", ".join(
            f"{names[role]} ~{prompt:,} + {completion:,}"
            for role, (prompt, completion) in self.tokens.items()
        )
        return f"{self.tasks} tasks, prompt + completion tokens: {parts}; {cost}"


def _priced(limits: ModelLimits | None) -> bool:
    return limits is not None and (limits.input_price > 0 or limits.output_price > 0)


def _usd(tokens: Mapping[str, tuple[int, int]], limits: Limits) -> float | None:
    """Dollars at each role's prices; ``None`` if a priced role's model has no price."""
    usd = 0.0
    for role, (prompt, completion) in tokens.items():
        found = limits.get(role)
        if found is None:
            continue
        if not _priced(found):
            return None
        usd += found.cost(prompt, completion)
    return usd


def estimate(
    tasks: Sequence[Task],
    prompts: DrbPrompts,
    peer: Peer,
    order: Order,
    limits: Limits,
    sizes: Assumptions = Assumptions(),
) -> Estimate:
    """The estimate for ``tasks`` from known and assumed sizes (see the module docstring)."""
    judge = [0, 0]
    fact = [0, 0]
    for task in tasks:
        template = {k: estimate_tokens(prompts.get(k, task.language)) for k in prompts.templates}
        judge[0] += template["clean"] + sizes.article
        judge[1] += sizes.article
        scoring = template["score"] + estimate_tokens(criteria_list(task) + task.prompt)
        scoring += sizes.article + estimate_tokens(peer.articles.get(task.id, ""))
        comparisons = len(orders_for(task, order))
        judge[0] += comparisons * scoring
        judge[1] += comparisons * sizes.per_criterion * len(task.criteria)
        fact[0] += template["extract"] + sizes.article
        fact[1] += sizes.pairs * sizes.pair_tokens
        fact[0] += sizes.urls * (template["validate"] + sizes.page + sizes.pairs * 40)
        fact[1] += sizes.pairs * 15
    n = len(tasks)
    tokens = {
        "model": (n * sizes.model_prompt, n * sizes.model_completion),
        "judge": (judge[0], judge[1]),
        "fact_judge": (fact[0], fact[1]),
    }
    return Estimate(n, tokens, _usd(tokens, limits))


def from_finished(left: int, finished: Sequence[Mapping[str, Any]], limits: Limits) -> Estimate:
    """The estimate for ``left`` tasks at the median tokens of the ``finished`` tasks' records."""

    def median(key: str, part: str) -> int:
        return left * int(statistics.median((r.get(key) or {}).get(part, 0) for r in finished))

    tokens = {
        role: (median(key, "prompt_tokens"), median(key, "completion_tokens"))
        for role, key in RECORD_KEYS.items()
    }
    return Estimate(left, tokens, _usd(tokens, limits))
