"""``python -m bench.drb --model M --judge J``: run DRB tasks, write a submission, score it.

For each chosen task the whole graph answers its prompt with model ``M`` (``sim``: the
simulated model of :mod:`bench.drb.model`; any other name: a model of the OpenAI-compatible
endpoint set by ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``). ``--web sim`` searches each task's
simulated web (the default with the simulated model); ``--web auto`` searches what a run
would (Tavily when ``TAVILY_API_KEY`` is set, else the local corpus). Written to ``--out``:

* ``submission.jsonl``: DRB's submission format, one ``{"id", "prompt", "article"}`` a line;
* ``reports/<id>.json``: each full report (claims, verdicts, evidence quotes, references);
* ``scores.json``: RACE per task and dimension from the shipped rubrics, judged by ``J``
  (``sim``: a keyless coverage judge), and citation accuracy by our verifier; means by
  language (see :mod:`bench.drb.score` for what the numbers mean).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from bench.common import RESULTS_DIR, log
from bench.drb.data import DATA_DIR, Task, available, load_tasks
from bench.drb.measure import ask, measure
from bench.drb.model import DrbChatModel
from bench.drb.score import citation_accuracy, judge_scores, race
from deep_research.sources.base import SourceProvider

SIM = "sim"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.drb", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", required=True, help="model name, or 'sim'")
    parser.add_argument("--judge", required=True, help="judge model name, or 'sim'")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many tasks")
    parser.add_argument("--depth", default="auto", choices=["auto", "light", "medium", "extended"])
    parser.add_argument("--web", default="", choices=["", "sim", "auto"], help="where to search")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="folder of DRB's jsonl files")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "drb-run", help="output folder")
    return parser


def chat_model(name: str) -> BaseChatModel:
    """The simulated model for ``sim``, else a model of the configured endpoint."""
    if name == SIM:
        return DrbChatModel()
    from deep_research.engines.llm import build_chat_model

    return build_chat_model(name, api_key=None, base_url=None)


def _means(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for language in sorted({r["language"] for r in rows}):
        chosen = [r for r in rows if r["language"] == language]
        accuracies = [r["citations"]["accuracy"] for r in chosen if r["citations"]["accuracy"]]
        out[language] = {
            "tasks": len(chosen),
            "race_overall": round(statistics.mean(r["race"]["overall"] for r in chosen), 3),
            "citation_accuracy": round(statistics.mean(accuracies), 3) if accuracies else None,
            "evidence_found_share": round(
                sum(r["evidence_spans"] > 0 for r in chosen) / len(chosen), 3
            ),
        }
    return out


async def run(args: argparse.Namespace, tasks: list[Task]) -> dict[str, Any]:
    """Answer, save and score every task; return the scores."""
    model = chat_model(args.model)
    judge = None if args.judge == SIM else chat_model(args.judge)
    web = args.web or (SIM if args.model == SIM else "auto")
    reports_dir = args.out / "reports"
    reports_dir.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with (args.out / "submission.jsonl").open("w", encoding="utf-8") as submission:
        for task in tasks:
            log(f"drb task {task.id} ({task.language})")
            sources: list[SourceProvider] | None = None if web == SIM else []
            report = await ask(task, model, depth=args.depth, sources=sources)
            line = {"id": task.id, "prompt": task.prompt, "article": report.markdown}
            submission.write(json.dumps(line, ensure_ascii=False) + "\n")
            data = report.model_dump(mode="json", by_alias=True)
            (reports_dir / f"{task.id}.json").write_text(
                json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8"
            )
            measured = measure(task, report, report.config.depth)
            scores = await judge_scores(judge, task, report.markdown)
            rows.append(
                {
                    **measured.row(),
                    "race": race(task, scores),
                    "citations": citation_accuracy(report),
                }
            )
    result = {
        "model": args.model,
        "judge": args.judge,
        "web": web,
        "by_language": _means(rows),
        "per_task": rows,
    }
    (args.out / "scores.json").write_text(
        json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the harness; returns the exit status."""
    args = _parser().parse_args(argv)
    if not available(args.data):
        print(f"DRB data not found in {args.data}", file=sys.stderr)
        return 2
    ids = {int(i) for i in args.tasks.split(",") if i.strip()} or None
    tasks = load_tasks(args.data, ids)
    if args.limit:
        tasks = tasks[: args.limit]
    result = asyncio.run(run(args, tasks))
    print(json.dumps(result["by_language"], ensure_ascii=False, indent=1))
    log(f"wrote {args.out / 'submission.jsonl'} and {args.out / 'scores.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
