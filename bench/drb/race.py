"""RACE as DRB computes it, against the peer's report instead of DRB's unpublished reference.

For one task (DRB's ``deepresearch_bench_race.py`` and ``score_calculator.py``, reproduced):

1. Our article is cleaned by the judge with DRB's cleaning prompt (citations, reference list
   and footnotes removed); a reply under :data:`MIN_CLEANED_CHARS` characters is asked again.
2. The judge compares two cleaned articles with DRB's merged scoring prompt and the task's
   criteria (criterion and explanation per dimension, no weights), scoring both on each
   criterion from 0 to 10. A reply missing one of the four dimensions is asked again.
3. Each article's score in a dimension is the criterion-weighted mean of its scores; the
   criterion is found by its text (exact, then ignoring case, then one containing the other;
   an unknown one weighs the dimension's mean weight). Its total is the sum of the dimension
   scores times the task's dimension weights.
4. ``race`` = ours / (ours + peer), per dimension and for the totals (``overall``).

The judge reads the articles in the order given, so position matters: in ``alternate`` order
our article is ``article_1`` on odd task ids and ``article_2`` on even ones; ``both`` asks
both orders and averages the two ratios.

``race_estimate`` puts a ratio against the peer on DRB's scale: DRB published the peer's
ratio against its reference R per task, p/(p+R). With odds o/p = r/(1-r) and
p/R = q/(1-q), o/R = o/p · p/R, and the estimate is (o/R)/(1+o/R). It assumes the judge
scores the peer the same way in both comparisons (same judge model as DRB's, Gemini 2.5 Pro,
for figures that can stand beside the leaderboard); it is an estimate, labelled so.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from bench.drb.data import DIMENSIONS, Task
from bench.drb.judge import ATTEMPTS, Judge, json_of
from bench.drb.prompts import DrbPrompts

MIN_CLEANED_CHARS = 100
"""DRB's shortest acceptable cleaned article."""

Order = Literal["alternate", "both"]
Scores = dict[str, float]
"""An article's weighted score per dimension and its ``total``."""


class JudgeReplyError(ValueError):
    """The judge's reply could not be used after every attempt."""


def criteria_list(task: Task) -> str:
    """The task's criteria as DRB shows them to the judge: JSON by dimension, no weights."""
    shown: dict[str, list[dict[str, str]]] = {}
    for c in task.criteria:
        shown.setdefault(c.dimension, []).append(
            {"criterion": c.criterion, "explanation": c.explanation}
        )
    return json.dumps(shown, ensure_ascii=False, indent=2)


async def clean(judge: Judge, prompts: DrbPrompts, task: Task, article: str) -> str:
    """``article`` cleaned of its citations by the judge with DRB's cleaning prompt.

    Raises:
        JudgeReplyError: every reply was shorter than :data:`MIN_CLEANED_CHARS`.
    """
    prompt = prompts.fill("clean", task.language, article=article)
    for _ in range(ATTEMPTS):
        cleaned = await judge.ask(prompt)
        if len(cleaned.strip()) >= MIN_CLEANED_CHARS:
            return cleaned
    raise JudgeReplyError(f"task {task.id}: the cleaned article was empty or too short")


def _weight(weights: Mapping[str, float], criterion: str) -> float:
    """A criterion's weight by its text as the judge wrote it back (see the module docstring)."""
    if criterion in weights:
        return weights[criterion]
    lower = criterion.lower()
    for key, value in weights.items():
        if key.lower() == lower:
            return value
    for key, value in weights.items():
        if lower in key.lower() or key.lower() in lower:
            return value
    return sum(weights.values()) / len(weights)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def weighted(reply: Mapping[str, Any], task: Task) -> tuple[Scores, Scores]:
    """Both articles' weighted scores from the judge's reply (``article_1``, ``article_2``)."""
    by_dimension: dict[str, dict[str, float]] = {}
    for c in task.criteria:
        by_dimension.setdefault(c.dimension, {})[c.criterion] = c.weight
    first: Scores = {"total": 0.0}
    second: Scores = {"total": 0.0}
    for dimension, items in reply.items():
        weights = by_dimension.get(dimension)
        if not isinstance(items, list) or not weights or dimension not in task.dimension_weight:
            continue
        sums = [0.0, 0.0, 0.0]  # article_1, article_2, weight
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("criterion"), str):
                continue
            a, b = _number(item.get("article_1_score")), _number(item.get("article_2_score"))
            if a is None or b is None:
                continue
            weight = _weight(weights, item["criterion"].strip())
            sums = [sums[0] + a * weight, sums[1] + b * weight, sums[2] + weight]
        first[dimension] = sums[0] / sums[2] if sums[2] else 0.0
        second[dimension] = sums[1] / sums[2] if sums[2] else 0.0
        first["total"] += first[dimension] * task.dimension_weight[dimension]
        second["total"] += second[dimension] * task.dimension_weight[dimension]
    return first, second


async def compare(
    judge: Judge, prompts: DrbPrompts, task: Task, article_1: str, article_2: str
) -> tuple[Scores, Scores]:
    """Both articles' weighted scores, judged side by side with DRB's merged prompt.

    Raises:
        JudgeReplyError: no reply held JSON with the four dimensions.
    """
    prompt = prompts.fill(
        "score",
        task.language,
        task_prompt=task.prompt,
        article_1=article_1,
        article_2=article_2,
        criteria_list=criteria_list(task),
    )
    problem = ""
    for _ in range(ATTEMPTS):
        try:
            reply = json_of(await judge.ask(prompt))
        except ValueError as exc:
            problem = f"no JSON ({exc})"
            continue
        missing = [d for d in DIMENSIONS if not isinstance(reply, dict) or d not in reply]
        if not missing:
            return weighted(reply, task)
        problem = f"dimensions missing: {', '.join(missing)}"
    raise JudgeReplyError(f"task {task.id}: the scoring reply was not usable ({problem})")


def ratio(ours: Scores, peer: Scores) -> dict[str, float]:
    """ours / (ours + peer) per dimension and ``overall`` (0 when both are 0, as DRB does)."""
    out = {}
    for key in (*DIMENSIONS, "total"):
        o, p = ours.get(key, 0.0), peer.get(key, 0.0)
        out["overall" if key == "total" else key] = o / (o + p) if o + p > 0 else 0.0
    return out


def orders_for(task: Task, order: Order) -> list[bool]:
    """Whether our article goes first, for each comparison of ``task``."""
    return [True, False] if order == "both" else [task.id % 2 == 1]


async def race_task(
    judge: Judge,
    prompts: DrbPrompts,
    task: Task,
    cleaned: str,
    peer_article: str,
    order: Order,
) -> dict[str, Any]:
    """The task's comparisons and ``race`` (their ratios averaged when there are two)."""
    comparisons: list[dict[str, Any]] = []
    for ours_first in orders_for(task, order):
        pair = (cleaned, peer_article) if ours_first else (peer_article, cleaned)
        first, second = await compare(judge, prompts, task, *pair)
        ours, peer = (first, second) if ours_first else (second, first)
        comparisons.append(
            {"ours_first": ours_first, "ours": ours, "peer": peer, "race": ratio(ours, peer)}
        )
    keys = comparisons[0]["race"]
    race = {k: statistics.mean(c["race"][k] for c in comparisons) for k in keys}
    return {"comparisons": comparisons, "race": race}


def on_drb_scale(against_peer: float, peer_against_reference: float) -> float:
    """Our ratio against DRB's reference, from ours against the peer and the peer's."""
    if against_peer <= 0:
        return 0.0
    if against_peer >= 1 or peer_against_reference >= 1:
        return 1.0
    if peer_against_reference <= 0:
        return 0.0
    odds = against_peer / (1 - against_peer) * peer_against_reference / (1 - peer_against_reference)
    return odds / (1 + odds)


def estimate(race: Mapping[str, float], peer_race: Mapping[str, float]) -> dict[str, float]:
    """``race_estimate`` of one task: each ratio put on DRB's scale (see the module docstring)."""
    return {k: on_drb_scale(v, peer_race[k]) for k, v in race.items() if k in peer_race}


def means(rows: Sequence[Mapping[str, float]]) -> dict[str, float] | None:
    """The mean of each key over ``rows`` (``None`` when there are none), to 4 places."""
    if not rows:
        return None
    return {k: round(statistics.mean(r[k] for r in rows), 4) for k in rows[0]}
