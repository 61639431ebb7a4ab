"""The DRB harness: DRB's method reproduced, end to end on stand-ins, and its refusals.

The end-to-end test runs two tasks (one Chinese, one English) through ``python -m bench.drb``
against OpenAI-compatible and Tavily-like stand-ins on 127.0.0.1 (tests/bench_tests/
drb_standin.py): our graph writes with the stand-in model and searches the stand-in search,
the stand-in judge answers DRB's own prompts in DRB's formats, and FACT fetches the cited
pages from the stand-in through the project's guarded web reader, which reaches 127.0.0.1
only because the test sets the operator's allow-list (DEEP_RESEARCH_FETCH_ALLOWLIST).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from bench.drb import fact, race, run
from bench.drb.__main__ import main
from bench.drb.data import DIMENSIONS, DrbDataError, Task, available, load_peer, load_tasks
from bench.drb.judge import Judge
from bench.drb.measure import MALFORMED
from bench.drb.model import DrbChatModel
from bench.drb.prompts import load_prompts, parse
from bench.drb.standin import StandinJudge
from bench.drb.web import TaskWeb
from bench.report import systems
from bench.sections import Options, drb
from deep_research.engines.llm.catalog import ModelLimits
from deep_research.settings import get_settings
from deep_research.sources.web.reader import WebConfig, web_reader
from tests.bench_tests.drb_standin import Standin, serve

pytestmark = [
    pytest.mark.bench,
    pytest.mark.skipif(not available(), reason="DRB data not found (../shared/data/drb)"),
]

TASKS = (2, 51)
"""A Chinese task with an even id (our article second) and an English one with an odd id."""


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def standin_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Standin]:
    tasks = load_tasks(ids=set(TASKS))
    with serve(tasks, load_prompts()) as standin:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{standin.base_url}/v1")
        monkeypatch.setenv("TAVILY_API_KEY", "test-key")
        monkeypatch.setenv("DEEP_RESEARCH_TAVILY_BASE_URL", standin.base_url)
        monkeypatch.setenv("DEEP_RESEARCH_FETCH_ALLOWLIST", f"127.0.0.1:{standin.port}")
        get_settings.cache_clear()
        yield standin


def test_two_tasks_end_to_end_on_stand_ins_then_resume(
    standin_env: Standin, tmp_path: Path
) -> None:
    standin = standin_env
    out = tmp_path / "run"
    argv = ["--model", "writer", "--judge", "judge", "--fact-judge", "fact-judge"]
    argv += ["--web", "tavily", "--depth", "light", "--jobs", "2", "--out", str(out)]
    argv += ["--tasks", ",".join(map(str, TASKS))]

    assert main(argv) == 0

    tasks = {t.id: t for t in load_tasks(ids=set(TASKS))}
    peer = load_peer()
    prompts = load_prompts()
    # DRB's submission format, our articles citing the stand-in's pages
    submission = _lines(out / "submission.jsonl")
    assert [line["id"] for line in submission] == list(TASKS)
    for line in submission:
        assert line["prompt"] == tasks[int(str(line["id"]))].prompt
        assert re.search(r"\[\d+\]", str(line["article"]))
        assert f"{standin.base_url}/page/{line['id']}/" in str(line["article"])
    # cleaned by the judge with DRB's cleaning prompt: no citation marks, no reference list
    cleaned = _lines(out / "cleaned.jsonl")
    assert [line["id"] for line in cleaned] == list(TASKS)
    for line in cleaned:
        assert not re.search(r"\[\d+\]", str(line["article"]))
        assert standin.base_url not in str(line["article"])
    # judged side by side with the peer's report, in alternating order
    scoring = [
        f
        for f in (
            parse(prompts.get("score", lang), text)
            for _, text in standin.drb_prompts
            for lang in ("zh", "en")
        )
        if f
    ]
    assert len(scoring) == 2
    by_task = {next(t for t in TASKS if tasks[t].prompt == f["task_prompt"]): f for f in scoring}
    cleaned_of = {int(str(c["id"])): str(c["article"]) for c in cleaned}
    assert by_task[2]["article_1"] == peer.articles[2]  # even id: ours second
    assert by_task[2]["article_2"] == cleaned_of[2]
    assert by_task[51]["article_1"] == cleaned_of[51]  # odd id: ours first
    assert by_task[51]["article_2"] == peer.articles[51]
    assert json.loads(by_task[51]["criteria_list"]).keys() == {
        "comprehensiveness",
        "insight",
        "instruction_following",
        "readability",
    }
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    for row in scores["per_task"]:
        assert set(row["race"]) == {*DIMENSIONS, "overall"}
        assert all(0 < value < 1 for value in row["race"].values())
        assert row["race_estimate"]["overall"] == pytest.approx(
            race.on_drb_scale(row["race"]["overall"], row["peer_race"]["overall"]), abs=1e-4
        )
        assert row["model_tokens"]["prompt_tokens"] > 0 and row["judge"]["prompt_tokens"] > 0
        assert row["fact_judge"]["prompt_tokens"] > 0
    assert scores["overall"]["tasks_scored"] == 2
    assert set(scores["by_language"]) == {"zh", "en"}
    assert scores["peer_fact"]["citation_accuracy"] == pytest.approx(0.8732, abs=1e-4)
    # FACT: pairs extracted, every cited page fetched from the stand-in and judged
    for task_id in TASKS:
        record = json.loads((out / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))
        urls = record["fact"]["urls"]
        assert record["fact"]["pairs"] > 0 and urls
        for url, entry in urls.items():
            assert "error" not in entry, entry
            assert len(entry["verdicts"]) == len(entry["facts"])
            assert url.removeprefix(standin.base_url) in standin.pages_fetched
        assert 0 < record["fact"]["effective_citations"] <= record["fact"]["citations"]
    assert scores["overall"]["fact"]["tasks"] == 2
    # every DRB prompt asked; RACE's to the judge, FACT's to the FACT judge
    asked = {
        (kind, model)
        for model, text in standin.drb_prompts
        for kind in ("clean", "score", "extract", "dedupe", "validate")
        for lang in ("zh", "en")
        if parse(prompts.get(kind, lang), text) is not None
    }
    assert asked == {
        ("clean", "judge"),
        ("score", "judge"),
        ("extract", "fact-judge"),
        ("dedupe", "fact-judge"),
        ("validate", "fact-judge"),
    }

    # a rerun finds every task finished: nothing asked again, the same scores
    calls, fetched = len(standin.calls), len(standin.pages_fetched)
    assert main(argv) == 0
    assert (len(standin.calls), len(standin.pages_fetched)) == (calls, fetched)
    again = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert again["overall"] == scores["overall"]


def test_a_task_that_failed_is_resumed_from_the_stage_it_reached(
    standin_env: Standin, tmp_path: Path
) -> None:
    standin = standin_env
    out = tmp_path / "run"
    argv = ["--model", "writer", "--judge", "judge", "--web", "tavily", "--depth", "light"]
    argv += ["--tasks", "51", "--out", str(out)]
    assert main(argv) == 0
    record_path = out / "tasks" / "51.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    del record["race"], record["fact"]
    record["error"] = "RateLimitError: as if the judge had refused"
    record_path.write_text(json.dumps(record), encoding="utf-8")
    engine_calls = sum(1 for c in standin.calls if c.kind == "engine")

    assert main(argv) == 0

    assert sum(1 for c in standin.calls if c.kind == "engine") == engine_calls  # no new article
    resumed = json.loads(record_path.read_text(encoding="utf-8"))
    assert "error" not in resumed and resumed["article"] == record["article"]
    assert "race" in resumed and "fact" in resumed


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--model", "gpt-4.1", "--judge", "sim", "--web", "sim"], {}, "--web sim"),
        (["--model", "gpt-4.1", "--judge", "sim"], {}, "--web is required"),
        (["--model", "gpt-4.1", "--judge", "sim", "--web", "auto"], {}, "sample corpus"),
        (["--model", "gpt-4.1", "--judge", "sim", "--web", "tavily"], {}, "TAVILY_API_KEY"),
        (["--model", "gpt-4.1", "--judge", "sim", "--web", "local"], {}, "--corpus"),
        (["--model", "gpt-4.1", "--judge", "sim", "--web", "bing"], {}, "unknown source"),
        (["--model", "sim", "--judge", "sim", "--tasks", "1,x"], {}, "--tasks"),
        (["--model", "sim", "--judge", "sim", "--tasks", "1,999"], {}, "999"),
        (
            ["--model", "gpt-4.1", "--judge", "gpt-4.1", "--web", "searxng", "--max-cost", "1"],
            {"DEEP_RESEARCH_SEARXNG_URL": "http://127.0.0.1:9"},
            "over --max-cost",
        ),
        (
            ["--model", "my-local-model", "--judge", "sim", "--web", "searxng", "--max-cost", "5"],
            {"DEEP_RESEARCH_SEARXNG_URL": "http://127.0.0.1:9"},
            "DEEP_RESEARCH_PRICES",
        ),
    ],
)
def test_refusals_are_one_line_and_start_nothing(
    argv: list[str],
    env: dict[str, str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    out = tmp_path / "run"

    assert main([*argv, "--out", str(out)]) == 2

    error = capsys.readouterr().err.strip().splitlines()
    assert message in error[-1] and error[-1].startswith("python -m bench.drb: ")
    assert not out.exists()


def test_missing_drb_material_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--model", "sim", "--judge", "sim", "--data", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
    with pytest.raises(DrbDataError, match="clean_prompt.py"):
        load_prompts(tmp_path)


def test_dry_run_prints_the_estimate_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["--model", "sim", "--judge", "sim", "--tasks", "1,51", "--dry-run", "--out", str(out)]
    assert main(argv) == 0
    assert "2 tasks, prompt + completion tokens: model ~" in capsys.readouterr().err
    assert not out.exists()


def test_scores_are_weighted_by_criterion_then_by_dimension_as_drb_weights_them() -> None:
    task = load_tasks(ids={51})[0]
    dims = {d: [c for c in task.criteria if c.dimension == d] for d in DIMENSIONS}
    # article 1 scores 8 on the first criterion of each dimension and 4 elsewhere; article 2
    # scores 5 everywhere; the first criterion is written back in capitals (matched anyway)
    reply = {
        d: [
            {
                "criterion": c.criterion.upper() if i == 0 else c.criterion,
                "article_1_score": 8 if i == 0 else 4,
                "article_2_score": 5,
            }
            for i, c in enumerate(items)
        ]
        for d, items in dims.items()
    }
    first, second = race.weighted(reply, task)

    for d, items in dims.items():
        total = sum(c.weight for c in items)
        expected = (8 * items[0].weight + 4 * (total - items[0].weight)) / total
        assert first[d] == pytest.approx(expected)
        assert second[d] == pytest.approx(5)
    assert first["total"] == pytest.approx(
        sum(first[d] * task.dimension_weight[d] for d in DIMENSIONS)
    )
    ratio = race.ratio(first, second)
    assert ratio["overall"] == pytest.approx(first["total"] / (first["total"] + second["total"]))


def test_the_estimate_on_drb_scale_is_the_peers_score_when_we_tie_with_the_peer() -> None:
    assert race.on_drb_scale(0.5, 0.42) == pytest.approx(0.42)
    assert race.on_drb_scale(0.6, 0.42) > 0.42 > race.on_drb_scale(0.4, 0.42)
    # odds multiply: twice the peer (2/3) against a peer at even odds with DRB's reference
    assert race.on_drb_scale(2 / 3, 0.5) == pytest.approx(2 / 3)


def test_fact_summary_leaves_out_tasks_without_pairs_as_drb_does() -> None:
    rows = [
        {"pairs": 4, "citations": 4, "effective_citations": 3},
        {"pairs": 2, "citations": 1, "effective_citations": 1},
        {"pairs": 0, "citations": 0, "effective_citations": 0},
    ]
    found = fact.summary(rows)
    assert found == {
        "tasks": 2,
        "citations_per_task": 2.5,
        "effective_citations": 2.0,
        "citation_accuracy": 0.8,
    }


async def test_fact_reads_through_the_guarded_reader_which_refuses_loopback(tmp_path: Path) -> None:
    task = load_tasks(ids={51})[0]
    prompts = load_prompts()
    judge = Judge(StandinJudge(prompts=prompts), "sim")
    article = (
        "# Title\n\n## Part\n\nElderly spending in Japan grows [1].\n\n## References\n\n"
        "1. A page. Available from: http://127.0.0.1:9/page\n"
    )
    reader = web_reader(WebConfig.from_settings(get_settings()))  # no allow-list: the default

    found = await fact.fact_task(judge, prompts, task, article, reader)

    assert found["pairs"] == 1
    entry = found["urls"]["http://127.0.0.1:9/page"]
    assert entry["error"].startswith("not read: refused") and "verdicts" not in entry
    assert found["urls_not_read"] == 1 and found["citations"] == 0


def test_section_checks_both_languages_and_the_harness_plumbing_quickly() -> None:
    data = drb.run(Options(repeats=1, quick=True))
    for language in ("zh", "en"):
        assert data["by_language"][language]["malformed_punctuation"] == 0
    plumbing = data["plumbing"]
    assert plumbing["exit_status"] == 0 and plumbing["articles"] == plumbing["cleaned"] == 2
    assert plumbing["comparisons"] == 2 and plumbing["fact_urls_read"] > 0
    text, behind = systems.drb(data)
    assert "Not a quality result" in text and "RACE" in text and behind == []


@pytest.mark.parametrize(
    "text", ["drivers are:.", "**Key takeaway**.", "比亚迪 [1]。", "比亚迪。.", "end.."]
)
def test_the_malformed_punctuation_pattern_catches_each_known_defect(text: str) -> None:
    assert MALFORMED.search(text)


async def test_tasks_run_jobs_at_a_time_and_none_starts_once_the_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_flight, most = 0, 0

    async def stages(
        plan: run.Plan, task: Task, record: dict[str, Any], judge: Judge, fact_judge: Judge
    ) -> None:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.05)
        in_flight -= 1
        record |= {"article": "a", "cleaned": "c", "race": {"race": {"overall": 0.5}}}
        record |= {"fact": {"effective_citations": 1, "citations": 1}}
        record["judge"] = {"prompt_tokens": 1_000_000, "completion_tokens": 0}

    monkeypatch.setattr(run, "run_stages", stages)
    prompts = load_prompts()
    plan = run.Plan(
        tasks=load_tasks(ids={1, 2, 3, 51, 52}),
        model=DrbChatModel(),
        judge=StandinJudge(prompts=prompts),
        judge_name="judge",
        fact_judge=StandinJudge(prompts=prompts),
        fact_judge_name="judge",
        prompts=prompts,
        peer=load_peer(),
        sources=None,
        reader=TaskWeb,
        out=tmp_path,
        jobs=2,
        max_cost=2.5,
        judge_limits=ModelLimits(input_price=1.0),  # $1 a task
    )

    records = await run.run_all(plan)

    assert most == 2
    started = [r for r in records if "error" not in r]
    # two start at $0; each finish lets the next start: at $1, at $2, then at $3 none does
    assert [r["id"] for r in started] == [1, 2, 3, 51]
    assert all("--max-cost" in r["error"] for r in records if r not in started)
    assert all(run.task_path(tmp_path, r["id"]).is_file() for r in records)
    progress = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert len(progress) == 5 and progress[-1].split()[1] == "5/5"


def test_the_estimate_is_measured_once_tasks_have_finished_in_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for task_id, model_prompt in ((1, 1000), (2, 3000)):
        run.save_record(
            tmp_path,
            {
                "id": task_id,
                "article": "a",
                "cleaned": "c",
                "race": {},
                "fact": {},
                "model_tokens": {"prompt_tokens": model_prompt, "completion_tokens": 10},
                "judge": {"prompt_tokens": 500, "completion_tokens": 50},
                "fact_judge": {"prompt_tokens": 200, "completion_tokens": 20},
            },
        )
    argv = ["--model", "sim", "--judge", "sim", "--tasks", "1,2,51,52", "--dry-run"]

    assert main([*argv, "--out", str(tmp_path)]) == 0

    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "median of the 2 tasks finished" in line
    assert (
        "2 tasks, prompt + completion tokens: model ~4,000 + 20, RACE judge ~1,000 + 100, " in line
    )
    assert "FACT judge ~400 + 40" in line


async def test_both_orders_cancel_a_judge_that_favours_the_first_article() -> None:
    task = load_tasks(ids={51})[0]
    biased = {
        d: [
            {"criterion": c.criterion, "article_1_score": 6, "article_2_score": 4}
            for c in task.criteria
            if c.dimension == d
        ]
        for d in DIMENSIONS
    }
    reply = AIMessage(f"```json\n{json.dumps(biased)}\n```")
    judge = Judge(GenericFakeChatModel(messages=iter([reply, reply, reply])), "biased")
    prompts = load_prompts()

    alone = await race.race_task(judge, prompts, task, "ours", "peer's", "alternate")
    both = await race.race_task(judge, prompts, task, "ours", "peer's", "both")

    assert alone["race"]["overall"] == pytest.approx(0.6)  # odd id: ours first, favoured
    assert [c["ours_first"] for c in both["comparisons"]] == [True, False]
    assert all(v == pytest.approx(0.5) for v in both["race"].values())
