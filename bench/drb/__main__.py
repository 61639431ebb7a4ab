"""``python -m bench.drb --model M --judge J --web SOURCES``: DRB's tasks, scored as DRB scores.

Our graph answers each task with model ``M`` searching ``SOURCES`` (the names ``ask
--sources`` takes: ``tavily``, ``searxng``, ``mcp``, ``academic``... joined with ``+``), then
judge ``J`` scores the article with DRB's own prompts, read from DRB's folder (``--data``):
RACE side by side with a published system's report, and FACT on the pages our citations
name, read through the project's guarded web reader. ``sim`` as model, judge or web is the
keyless simulation (a plumbing check, not a result). Written to ``--out`` as tasks finish:
``submission.jsonl`` and ``cleaned.jsonl`` (DRB's formats), ``tasks/<id>.json`` (each stage),
``reports/<id>.json`` and ``scores.json``. A rerun with the same ``--out`` resumes. See
docs/drb.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from bench.common import RESULTS_DIR, log
from bench.drb.cost import estimate, from_finished
from bench.drb.data import DATA_DIR, DrbDataError, Task, available, load_peer, load_tasks
from bench.drb.fact import Reader
from bench.drb.model import DrbChatModel
from bench.drb.prompts import DrbPrompts, load_prompts
from bench.drb.run import Plan, finished, load_record, run_all, write_file
from bench.drb.scores import scores
from bench.drb.standin import StandinJudge
from bench.drb.web import TaskWeb
from deep_research.context import source_names
from deep_research.engines.llm import ModelLimits, limits_of
from deep_research.errors import DeepResearchError
from deep_research.settings import get_settings
from deep_research.sources import SourceProvider, load_sources
from deep_research.sources.web import WebConfig, web_reader

SIM = "sim"
EXIT_USAGE = 2
FACT_PAGE_CACHE = "fact_pages.sqlite"
"""The FACT reader's own page cache, in the run's folder: pages are read fresh for each run
folder and once only across its resumes."""


class UsageError(ValueError):
    """The command line asks for something the harness refuses to do."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.drb", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", required=True, help="our graph's model, or 'sim'")
    parser.add_argument("--judge", required=True, help="RACE's judge model, or 'sim'")
    parser.add_argument(
        "--fact-judge", default="", help="FACT's judge model (default: --judge; DRB's is a Flash)"
    )
    parser.add_argument(
        "--web",
        default="",
        help="what our graph searches: names joined with '+' as `ask --sources` takes them "
        "(tavily, searxng, mcp, academic...), or 'sim' (only with --model sim, its default)",
    )
    parser.add_argument("--corpus", help="folder for the 'local' source (never the sample)")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many tasks")
    parser.add_argument("--depth", default="auto", choices=["auto", "light", "medium", "extended"])
    parser.add_argument(
        "--order",
        default="alternate",
        choices=["alternate", "both"],
        help="our article first on odd task ids (alternate), or both orders averaged",
    )
    parser.add_argument("--jobs", type=int, default=2, help="tasks run at once (default 2)")
    parser.add_argument("--max-cost", type=float, help="refuse to start over this many USD")
    parser.add_argument("--dry-run", action="store_true", help="print the estimate and stop")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="DRB's folder")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "drb-run", help="output folder")
    return parser


def chat_model(name: str, http: httpx.AsyncClient) -> BaseChatModel:
    """A model of the configured endpoint or provider (``provider:model`` or a bare name).

    ``http`` is this run's own client for an OpenAI-compatible endpoint (the library's
    shared client would outlive the run's event loop).

    Raises:
        ConfigurationError: no key, or the provider's package is missing.
    """
    from deep_research.engines.llm import build_chat_model

    return build_chat_model(name, api_key=None, base_url=None, http_async_client=http)


def judge_model(name: str, prompts: DrbPrompts, http: httpx.AsyncClient) -> BaseChatModel:
    """The stand-in judge for ``sim``, else :func:`chat_model`."""
    return StandinJudge(prompts=prompts) if name == SIM else chat_model(name, http)


def sources_for(web: str, corpus: str | None) -> list[SourceProvider] | None:
    """The providers our graph searches (``None``: each task's simulated web).

    Raises:
        UsageError: ``auto`` finds no web search, or ``local`` has no ``--corpus``.
        ConfigurationError: a name is unknown or a provider lacks its setting.
    """
    if web == SIM:
        return None
    try:
        names = source_names(web)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    settings = get_settings()
    if names == ["auto"] and settings.tavily_api_key is None and settings.searxng_url is None:
        raise UsageError(
            "--web auto finds no web search here (neither TAVILY_API_KEY nor "
            "DEEP_RESEARCH_SEARXNG_URL is set) and would search the bundled sample corpus; "
            "name what to search, e.g. --web tavily"
        )
    if "local" in names and not corpus:
        raise UsageError("--web local needs --corpus DIR (the bundled sample corpus is not DRB's)")
    return load_sources(web, corpus)


def _tasks(args: argparse.Namespace) -> list[Task]:
    try:
        ids = {int(i) for i in args.tasks.split(",") if i.strip()} or None
    except ValueError:
        raise UsageError(f"--tasks takes ids separated by commas, not {args.tasks!r}") from None
    tasks = load_tasks(args.data, ids)
    if ids is not None and (unknown := ids - {t.id for t in tasks}):
        raise UsageError(f"no DRB task with id {', '.join(map(str, sorted(unknown)))}")
    return tasks[: args.limit] if args.limit else tasks


def _limits(name: str) -> ModelLimits | None:
    return None if name == SIM else limits_of(name, prices=get_settings().prices)


def prepare(args: argparse.Namespace, http: httpx.AsyncClient) -> Plan:
    """Check the command line and build the run's plan, before anything is spent.

    Raises:
        UsageError: a choice the harness refuses (see :func:`sources_for`).
        DrbDataError: DRB's material is missing.
        ConfigurationError: a model or source cannot be set up.
    """
    if not available(args.data):
        raise DrbDataError(f"DRB data not found in {args.data} (query.jsonl, criteria.jsonl)")
    web = args.web or (SIM if args.model == SIM else "")
    if not web:
        raise UsageError("--web is required with a real model: name what to search, e.g. tavily")
    if web == SIM and args.model != SIM:
        raise UsageError(
            "--web sim is the simulated web made of the rubrics; a real model would write "
            "from the rubric text. Use it only with --model sim"
        )
    prompts = load_prompts(args.data)
    peer = load_peer(args.data)
    tasks = _tasks(args)
    sources = sources_for(web, args.corpus)
    model = DrbChatModel() if args.model == SIM else chat_model(args.model, http)
    fact_name = args.fact_judge or args.judge
    judge = judge_model(args.judge, prompts, http)
    fact_judge = judge_model(fact_name, prompts, http)
    if sources is None:

        def reader(task: Task) -> Reader:
            return TaskWeb(task)

    else:
        config = WebConfig.from_settings(get_settings())
        guarded = web_reader(replace(config, cache_path=args.out / FACT_PAGE_CACHE))

        def reader(task: Task) -> Reader:
            return guarded

    return Plan(
        tasks=tasks,
        model=model,
        judge=judge,
        judge_name=args.judge,
        fact_judge=fact_judge,
        fact_judge_name=fact_name,
        prompts=prompts,
        peer=peer,
        sources=sources,
        reader=reader,
        out=args.out,
        depth=args.depth,
        order=args.order,
        jobs=args.jobs,
        max_cost=args.max_cost,
        model_limits=_limits(args.model),
        judge_limits=_limits(args.judge),
        fact_judge_limits=_limits(fact_name),
    )


def check_budget(plan: Plan, args: argparse.Namespace) -> None:
    """Print the estimate for the tasks left; refuse when it is over ``--max-cost``.

    Raises:
        UsageError: over the budget, or a budget with a model whose price is unknown.
    """
    records = [load_record(plan.out, t.id) for t in plan.tasks]
    done = [r for r in records if finished(r)]
    left = [t for t, r in zip(plan.tasks, records, strict=True) if not finished(r)]
    limits = {
        "model": plan.model_limits,
        "judge": plan.judge_limits,
        "fact_judge": plan.fact_judge_limits,
    }
    if done:
        found = from_finished(len(left), done, limits)
        basis = f"the median of the {len(done)} tasks finished in {plan.out}"
    else:
        found = estimate(left, plan.prompts, plan.peer, plan.order, limits)
        basis = "assumed sizes, see docs/drb.md"
    log(f"estimate ({basis}): {found.line()}")
    if args.max_cost is None:
        return
    if found.usd is None:
        raise UsageError(
            "--max-cost needs a price for every model: add them to DEEP_RESEARCH_PRICES"
        )
    if found.usd > args.max_cost:
        raise UsageError(f"the estimate, ${found.usd:.2f}, is over --max-cost ${args.max_cost:g}")


def about(args: argparse.Namespace) -> dict[str, Any]:
    """What the run was."""
    return {
        "model": args.model,
        "judge": args.judge,
        "fact_judge": args.fact_judge or args.judge,
        "web": args.web or SIM,
        "depth": args.depth,
        "order": args.order,
    }


async def _run_all(plan: Plan, http: httpx.AsyncClient) -> list[dict[str, Any]]:
    async with http:
        return await run_all(plan)


def main(argv: list[str] | None = None) -> int:
    """Run the harness; returns the exit status (2: refused, with one line saying why)."""
    args = _parser().parse_args(argv)
    http = httpx.AsyncClient(follow_redirects=True)
    try:
        plan = prepare(args, http)
        check_budget(plan, args)
    except (UsageError, DrbDataError, DeepResearchError) as exc:
        print(f"python -m bench.drb: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.dry_run:
        return 0
    records = asyncio.run(_run_all(plan, http))
    result = scores(plan.tasks, records, plan.peer, about(args))
    write_file(args.out / "scores.json", json.dumps(result, ensure_ascii=False, indent=1))
    print(json.dumps(result["overall"], ensure_ascii=False, indent=1))
    log(f"wrote {args.out / 'submission.jsonl'} and {args.out / 'scores.json'}")
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
