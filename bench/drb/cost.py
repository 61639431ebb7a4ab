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
from deep_research.engines.catalog import ModelLimits, estimate_tokens


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


@dataclass(frozen=True)
class Estimate:
    """Tokens and dollars for the model (our graph) and the judge."""

    tasks: int
    model_prompt: int
    model_completion: int
    judge_prompt: int
    judge_completion: int
    usd: float | None
    """``None`` when a model's price is unknown."""

    def line(self) -> str:
        """One line for the console."""
        if self.usd is None:
            cost = "cost unknown (no price)"
        else:
            cost = f"about ${self.usd:.2f}" if self.usd else "no cost (simulated models)"
        return (
            f"{self.tasks} tasks: model ~{self.model_prompt:,} prompt + "
            f"{self.model_completion:,} completion tokens, judge ~{self.judge_prompt:,} + "
            f"{self.judge_completion:,}; {cost}"
        )


def _priced(limits: ModelLimits | None) -> bool:
    return limits is not None and (limits.input_price > 0 or limits.output_price > 0)


def estimate(
    tasks: Sequence[Task],
    prompts: DrbPrompts,
    peer: Peer,
    order: Order,
    model: ModelLimits | None,
    judge: ModelLimits | None,
    sizes: Assumptions = Assumptions(),
) -> Estimate:
    """The estimate for ``tasks``; ``model`` / ``judge`` ``None``: simulated, free."""
    judge_prompt = judge_completion = 0
    for task in tasks:
        language = task.language
        template = {k: estimate_tokens(prompts.get(k, language)) for k in prompts.templates}
        judge_prompt += template["clean"] + sizes.article
        judge_completion += sizes.article
        scoring = template["score"] + estimate_tokens(criteria_list(task) + task.prompt)
        scoring += sizes.article + estimate_tokens(peer.articles.get(task.id, ""))
        comparisons = len(orders_for(task, order))
        judge_prompt += comparisons * scoring
        judge_completion += comparisons * sizes.per_criterion * len(task.criteria)
        judge_prompt += template["extract"] + sizes.article
        judge_completion += sizes.pairs * sizes.pair_tokens
        judge_prompt += sizes.urls * (template["validate"] + sizes.page + sizes.pairs * 40)
        judge_completion += sizes.pairs * 15
    n = len(tasks)
    model_prompt, model_completion = n * sizes.model_prompt, n * sizes.model_completion
    usd: float | None = 0.0
    for limits, prompt, completion in (
        (model, model_prompt, model_completion),
        (judge, judge_prompt, judge_completion),
    ):
        if limits is None or usd is None:
            continue
        usd = usd + limits.cost(prompt, completion) if _priced(limits) else None
    return Estimate(n, model_prompt, model_completion, judge_prompt, judge_completion, usd)


def from_finished(
    left: int,
    finished: Sequence[Mapping[str, Any]],
    model: ModelLimits | None,
    judge: ModelLimits | None,
) -> Estimate:
    """The estimate for ``left`` tasks at the median tokens of the ``finished`` tasks' records."""

    def median(key: str, part: str) -> int:
        return left * int(statistics.median(r[key][part] for r in finished))

    model_prompt = median("model_tokens", "prompt_tokens")
    model_completion = median("model_tokens", "completion_tokens")
    judge_prompt = median("judge", "prompt_tokens")
    judge_completion = median("judge", "completion_tokens")
    usd: float | None = 0.0
    for limits, prompt, completion in (
        (model, model_prompt, model_completion),
        (judge, judge_prompt, judge_completion),
    ):
        if limits is None or usd is None:
            continue
        usd = usd + limits.cost(prompt, completion) if _priced(limits) else None
    return Estimate(left, model_prompt, model_completion, judge_prompt, judge_completion, usd)
