"""The benchmark harness (``bench/``, run by ``make bench``) on a tiny scale, in seconds.

Not a benchmark: it checks that the simulation still answers every request both agents make,
that its token counts agree with what our engine reports, and that each section's pipeline
still runs and renders, so the harness cannot rot between benchmark runs. No database and no
network: the sections that need PostgreSQL or a server are run without them.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from bench import report
from bench.common import write_result
from bench.sections import (
    Options,
    checkpoints,
    corpus,
    docqa,
    orchestration,
    resume,
    robustness,
    startup,
    tokens,
)
from bench.sim import text
from bench.sim.profiles import Profile
from bench.sim.responder import STAGES, Request, Scenario, respond
from bench.sim.tokens import count, prompt_tokens
from deep_research.persistence.checkpointer import make_serde

pytestmark = pytest.mark.bench

FAST = {"search": 0.01, "read": 0.01}
QUICK_MODEL = Profile(
    name="quick",
    model="a test's: fast, but reading and writing take time",
    base=0.1,
    prefill=200_000,
    decode=20_000,
    source="",
)
"""A profile for tests: about 0.01 s to a short prompt's first token, 0.05 s per 1,000 tokens
written (real time run ten times faster)."""


def test_tokenizer_is_the_real_cl100k_offline() -> None:
    assert count("Hello world, how are you?") == 7
    assert prompt_tokens([{"role": "user", "content": "Hello world, how are you?"}]) == 13


def test_simulation_answers_every_request_of_the_peer() -> None:
    scenario = Scenario(plan_steps=3, queries_per_step=2)

    def schema(name: str) -> dict[str, Any]:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": {}}}

    def tool(name: str) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "parameters": {}}}

    user = [{"role": "user", "content": text.QUESTION}]
    clarify = respond(Request(user, response_format=schema("ClarifyWithUser")), scenario)
    assert clarify.stage == "clarify" and json.loads(clarify.content)["need_clarification"] is False
    supervisor = [tool("ConductResearch"), tool("ResearchComplete")]
    plan = respond(Request(user, tools=supervisor), scenario)
    assert plan.stage == "plan" and len(plan.tool_calls) == 3
    topic = json.loads(plan.tool_calls[0]["arguments"])["research_topic"]
    researcher = [tool("ResearchComplete"), tool("tavily_search")]
    search = respond(Request([{"role": "user", "content": topic}], tools=researcher), scenario)
    assert search.call == "tavily_search"
    assert len(json.loads(search.tool_calls[0]["arguments"])["queries"]) == 2
    page = text.page(text.result_urls("cycle life", 1)[0]).text
    webpage = [{"role": "user", "content": f"<webpage_content>\n{page}\n</webpage_content>"}]
    summary = respond(Request(webpage, response_format=schema("Summary")), scenario)
    assert summary.stage == "reading" and json.loads(summary.content)["summary"]
    tool_result = [{"role": "tool", "content": f"SUMMARY: {page}\nURL: https://a.example/x"}]
    compress = [*tool_result, {"role": "user", "content": "Please clean up these findings."}]
    assert respond(Request(compress), scenario).stage == "notes"
    final = [{"role": "user", "content": "Based on all the research conducted, write."}]
    assert respond(Request(final), scenario).stage == "report"
    with pytest.raises(ValueError, match="no answer"):
        respond(Request(user, tools=[tool("SomethingNew")]), scenario)


def test_orchestration_run_is_bounded_by_its_critical_path() -> None:
    result = asyncio.run(orchestration.one_run(2, QUICK_MODEL, FAST))
    assert result["plan"] == 2 and result["calls"]["SearchQueries"] == 2
    assert result["bound"]["researchers"] > 0 and result["bound"]["main"] > 0
    assert result["ratio"] >= 0.98
    # the time beyond the bound is the nodes' and what no node's calls span
    beyond = result["wall"] - result["bound"]["bound"]
    assert sum(result["excess"].values()) == pytest.approx(beyond, abs=0.01)
    assert result["excess"][orchestration.OUTSIDE_CALLS] > 0, (
        result["excess"],
        result["bound"],
        result["wall"],
    )


def test_sections_run_and_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results"
    quick = Options(quick=True)
    write_result("orchestration", orchestration.run(quick), results)

    async def memory_checkpoints() -> dict[str, Any]:
        saver = InMemorySaver(serde=make_serde())
        growth = [await checkpoints._growth(saver, 10, 1)]
        real_run = await checkpoints._real_run(saver, InMemoryStore(), 1)
        return {"growth": growth, "real_run": real_run}

    write_result(
        "checkpoints",
        {
            "backends": {"memory": asyncio.run(memory_checkpoints())},
            "targets": checkpoints.TARGETS,
        },
        results,
    )

    row = resume._stage(tmp_path / "resume", "plan", "ResearchPlan", 1, "sync")
    assert row["killed"] and row["resumable"] and row["completed_after_resume"]
    # Killed at the plan, after clarify's decision; the chat's title is asked beside the plan
    # and was in flight too.
    assert row["finished_before_kill"] == 1 and row["repeated_finished"] == 0
    write_result(
        "resume",
        {"plan_steps": resume.STEPS, "calls_uninterrupted": 0, "stages": [row]},
        results,
    )

    monkeypatch.setattr(tokens, "LATENCY", FAST)
    ours, unverified, _, errors = asyncio.run(
        tokens._measure((1,), 1, peer_ok=False, model_profile=QUICK_MODEL)
    )
    assert not errors
    run = ours[1][0]
    counted = tokens._total(run["stages"])
    assert counted["prompt"] == run["usage"]["prompt_tokens"] > 0
    assert counted["completion"] == run["usage"]["completion_tokens"] > 0
    # the report's words come over time, and verification comes after the last of them
    waits = run["waits"]
    assert 0 < waits["first_words"] < waits["draft"] < waits["report"]
    fast = unverified[1][0]
    assert fast["stages"]["verify"]["calls"] == 0 < run["stages"]["verify"]["calls"]
    # its waits are measured too (which run ends first is the benchmark's figure, not a test's:
    # two runs' wall times compared once flake under load)
    assert 0 < fast["waits"]["draft"] <= fast["waits"]["report"]
    peer = {"package": tokens.PEER_PACKAGE, "skipped": "not in unit tests"}
    write_result(
        "tokens",
        {
            "peer": peer,
            "stages": list(STAGES),
            "sizes": [tokens._row(1, ours[1], [], unverified[1])],
            "latency_seconds": FAST,
            "profile": QUICK_MODEL.described(),
        },
        results,
    )

    measured = corpus.measure([60], 5)
    assert measured["sizes"][0]["agreement"]["queries_with_results"] == 5
    write_result("corpus", measured, results)

    env = dict(os.environ)
    baseline = {name for _, outer, name in startup._import_lines("pass", env, Path.cwd()) if outer}
    cost = startup._import_cost("deep_research.text.words", env, Path.cwd(), baseline)
    assert cost["ms"] > 0 and not cost["langgraph"]
    second = {"n": 1, "median": 0.05, "min": 0.05, "max": 0.05}
    slow = {"n": 1, "median": 2.0, "min": 2.0, "max": 2.0}
    command = {"ratio_to_python": 4.0, "goal_seconds": 0.3}
    write_result(
        "startup",
        {
            "python_seconds": {"n": 1, "median": 0.0125, "min": 0.0125, "max": 0.0125},
            "commands": {
                "help": command | {"seconds": second, "met": True},
                "chats": command | {"seconds": slow, "goal_seconds": 1.0, "met": False},
            },
            "imports": {"deep_research.text.words": cost},
        },
        results,
    )
    spoiled = asyncio.run(robustness.one_run(1.0, 0))  # every structured reply malformed
    assert spoiled["ok"] and len(set(spoiled["faults"])) >= 4
    write_result("robustness", robustness.run(quick), results)
    fact = docqa.recall(["a tagging message"], "It holds a date, and a tagging-message.")
    assert fact == 1.0 and docqa.recall(["not there"], "elsewhere") == 0.0
    run = {
        "questions": 10,
        "page_recall": 1.0,
        "pages_cited": 0.9,
        "fact_recall": {"pages": 1.0, "passages": 0.9, "evidence": 0.5, "report": 0.4},
        "passage_tokens_per_question": 3000,
        "quotes": 100,
        "quotes_dropped": 0,
        "supported_share": 1.0,
    }
    drops = {"picks_dropped": {"not_found": 1, "repeat": 4}}
    strong_run = run | {"pages_to_writer": 0.8, "evidence_left_out": 2} | drops
    split = {"offline": run, "sim": run, "strong": strong_run}
    write_result(
        "docqa",
        {
            "corpora": {
                "a-doc": {"corpus": "A.", "pages": 5, "splits": {"dev": split, "test": split}},
                "b-doc": {"corpus": "B.", "skipped": "`apt-get install b-doc` failed: no"},
            }
        },
        results,
    )

    markdown = report.update(tmp_path / "BENCHMARKS.md", results)
    rendered = markdown.read_text()
    for title in (
        "Machine",
        "Orchestration",
        "Checkpoints",
        "Resume",
        "Tokens",
        "Local corpus",
        "Start-up",
        "Robustness",
    ):
        assert f"## {title}" in rendered
    assert "`deep-research chats` (empty SQLite store) takes 2.00 s (goal 1.0 s)" in rendered
    # docqa: a column per corpus and split, a skipped corpus with its reason, a missed goal
    assert "| measure | a-doc dev | a-doc test |" in rendered
    assert "b-doc: `apt-get install b-doc` failed: no" in rendered
    assert "a-doc test split**: key facts in the report 0.40, goal 0.7" in rendered
    assert "**LLM path at a 128k window, strong-model stand-in" in rendered
    assert "| repeat 4, not_found 1 |" in rendered
    assert "a-doc test split, LLM path (stand-in)**: 0.80 of the key facts" in rendered
    assert "## Where we are behind" in rendered
    assert "| plan steps | first words, ours / peer | complete draft, ours / peer |" in rendered
    assert "Model calls: profile `quick`" in rendered
    assert report.update(markdown, results).read_text() == rendered  # regenerated in place


def test_checkpoint_section_reports_against_the_budget() -> None:
    from bench.report import systems

    async def memory() -> dict[str, Any]:
        saver = InMemorySaver(serde=make_serde())
        growth = [await checkpoints._growth(saver, 10, 1)]
        real_run = await checkpoints._real_run(saver, InMemoryStore(), 1)
        return {"growth": growth, "real_run": real_run}

    measured = asyncio.run(memory())
    assert measured["growth"][0]["bytes"]["small_step"] < checkpoints.TARGETS["small_step_bytes"]
    result = {"targets": checkpoints.TARGETS, "backends": {"memory": measured}}
    text, behind = systems.checkpoints(result)
    assert text.count("(met)") == 2 and not behind
    measured["real_run"]["stored_bytes"] = 2_000_000
    text, behind = systems.checkpoints(result)
    assert "**over**" in text and "stores 2,000,000 bytes** (budget 1,000,000)" in behind[0]


def test_the_bound_counts_main_nodes_that_ran_side_by_side_once() -> None:
    from bench.sim.trace import CallRecord, critical_path

    def call(ns: str, start: float, end: float) -> CallRecord:
        return CallRecord("model", "s", "c", ns, ns, start=start, end=end)

    latency = {"model": 0.3}
    in_series = [call("clarify:1", 0.0, 0.3), call("plan:2", 0.3, 0.6)]
    beside = [*in_series, call("title_chat:3", 0.3, 0.6)]  # ran with plan
    assert critical_path(in_series, latency)["main"] == pytest.approx(0.6)
    assert critical_path(beside, latency)["main"] == pytest.approx(0.6)


def test_the_simulated_model_replays_an_answer_it_worked_out_with_its_tokens() -> None:
    # the simulator's own work must not be charged to the agent run after run (bench/sim/model.py)
    from langchain_core.messages import HumanMessage, SystemMessage

    from bench.sim.model import SimulatedChatModel

    worked: list[Request] = []

    class Counting(SimulatedChatModel):
        def _respond(self, request: Request) -> Any:
            worked.append(request)
            return super()._respond(request)

    model = Counting(scenario=Scenario(plan_steps=3))
    question = [
        SystemMessage("You answer questions directly."),
        HumanMessage(f"What limits grid batteries? {os.getpid()}"),
    ]
    first, again = (asyncio.run(model.ainvoke(question)) for _ in range(2))
    assert len(worked) == 1
    assert again.content == first.content and again.usage_metadata == first.usage_metadata
    assert first.usage_metadata and first.usage_metadata["input_tokens"] > 0
    other = Counting(scenario=Scenario(plan_steps=5))  # another scenario is worked out anew
    asyncio.run(other.ainvoke(question))
    assert len(worked) == 2


def test_figures_from_another_cpu_are_kept_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.__main__ as runner
    from bench.report import agent, document

    size = {
        "plan_steps": 4,
        "ratio": {"median": 1.2},
        "compute_seconds": {"median": 0.3},
        "meets_target": False,
    }
    earlier = {"machine": {"cpu": "Old CPU"}, "measured_at": "2026-01-02T00:00:00", "sizes": [size]}
    monkeypatch.setattr(runner, "machine", lambda: {"cpu": "New CPU"})
    kept = runner.other_cpus(earlier)
    assert kept == {"Old CPU": earlier}
    assert runner.other_cpus({**earlier, "machine": {"cpu": "New CPU"}, "other_cpus": kept}) == kept
    # rendered beside the new figures, each named by its CPU, and judged against the target
    mine = {"machine": {"cpu": "New CPU"}, "target": 1.1, "other_cpus": kept}
    text, behind = agent.orchestration(
        {
            **mine,
            "latency_seconds": {"model": 1, "search": 1, "read": 1},
            "repeats": 1,
            "sizes": [
                {
                    **size,
                    "ratio": {"median": 1.05, "q1": 1.0, "q3": 1.1},
                    "wall_seconds": {"median": 1, "min": 1, "max": 1},
                    "bound_seconds": 1,
                    "compute_seconds": {"median": 0.3, "min": 0.3, "max": 0.3},
                    "excess_seconds": {},
                    "meets_target": True,
                }
            ],
        }
    )
    assert "On Old CPU (measured 2026-01-02): wall / bound 1.20 at 4 steps" in text
    assert behind == ["**Orchestration on Old CPU, 4 steps: wall/bound 1.20** (target 1.10)."]
    machine_line = document._machine(
        {
            "orchestration": {
                **mine,
                "machine": {
                    "cpu": "New CPU",
                    "cores": 2,
                    "memory": "1 GiB",
                    "os": "Linux",
                    "python": "3.11",
                },
            },
            "tokens": {"machine": {"cpu": "Old CPU"}},
        },
        tmp_path,
    )
    assert (
        "CPU by section: New CPU: orchestration; Old CPU: orchestration's second figures, tokens"
        in machine_line
    )


def test_docqa_says_whether_the_confidence_tracks_the_answer() -> None:
    def row(recall: float, level: str, parts: list[str], off: float | None) -> dict[str, object]:
        return {"recall_report": recall, "confidence": level, "parts": parts, "off_topic": off}

    rows = [
        row(1.0, "high", ["answered"], 0.0),
        row(0.5, "high", ["answered", "answered"], 0.2),  # high, but too few key facts
        row(0.2, "low", ["not_answered"], 0.6),
        row(0.0, "high", ["answered"], None),  # high though it states none: the goal is missed
    ]
    found = docqa.calibration(rows)  # type: ignore[arg-type]
    assert found["high"] == 3 and found["high_covered"] == round(1 / 3, 3)
    assert found["low_coverage"] == 2 and found["low_not_high"] == 0.5
    assert found["parts_answered"] == 0.8 and found["off_topic_share"] == round(0.8 / 3, 3)
    assert found["confidence"] == {"high": 3, "low": 1}


def test_a_simulated_call_waits_for_its_prompt_then_streams_at_the_decode_rate() -> None:
    # issue #45: a call's time grows with what it reads and writes, and a stream's consumer
    # sees the text arrive over time, not all at once
    import math
    import time

    from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

    from bench.sim.model import SimulatedChatModel
    from bench.sim.profiles import CHUNK_TOKENS, SPEEDUP

    # slow enough that timing holds on a loaded machine: a sleep may end late, never early
    slow = Profile(name="t", model="t", base=1.0, prefill=5_000, decode=100, source="")
    model = SimulatedChatModel(scenario=Scenario(plan_steps=3), latency_profile=slow)
    system = SystemMessage("You answer questions directly.")
    asked = f"What limits grid batteries? {os.getpid()}"
    short: list[BaseMessage] = [system, HumanMessage(asked)]
    long: list[BaseMessage] = [system, HumanMessage(asked + " filler" * 8_000)]

    async def stream(messages: list[BaseMessage]) -> list[float]:
        start = time.perf_counter()
        arrivals = []
        async for chunk in model.astream(messages):
            if chunk.text:
                arrivals.append(time.perf_counter() - start)
        return arrivals

    count("load the tokenizer first: its loading is no call's time")
    arrivals = asyncio.run(stream(short))
    record = model.trace.records[-1]
    assert record.completion_tokens > 4 * CHUNK_TOKENS
    first = slow.first_token(record.prompt_tokens)
    decoding = slow.decoding(record.completion_tokens)
    assert record.cost == pytest.approx(first + decoding)
    assert len(arrivals) == math.ceil(record.completion_tokens / CHUNK_TOKENS)
    late = 0.1  # what a loaded machine may add
    assert first <= record.first - record.start < first + late
    assert first + decoding / len(arrivals) <= arrivals[0] < first + decoding / 2
    assert first + decoding <= arrivals[-1] < first + decoding + late
    # a long prompt takes longer to its first token, by its tokens at the prefill rate
    asyncio.run(stream(long))
    longer = model.trace.records[-1]
    extra = (longer.prompt_tokens - record.prompt_tokens) / slow.prefill / SPEEDUP
    assert extra > 0.1
    assert first + extra <= longer.first - longer.start < first + extra + late


def test_the_bound_counts_each_call_for_its_own_time_and_a_group_for_its_longest() -> None:
    from bench.sim.trace import CallRecord, critical_path

    def call(
        ns: str, name: str, cost: float, items: tuple[str, ...] = (), start: float = 0.0
    ) -> CallRecord:
        return CallRecord(
            "model", "s", name, ns, ns, start=start, end=start + cost, cost=cost, items=items
        )

    judged = [call("verify:1", "VerdictBatch", 0.5, ("a",)), call("verify:1", "VerdictBatch", 2.0)]
    assert critical_path(judged)["main"] == pytest.approx(2.0)  # judged side by side
    again = [*judged, call("verify:1", "VerdictBatch", 0.25, ("a",), start=2.0)]  # a 2nd look
    assert critical_path(again)["main"] == pytest.approx(2.25)
    # a paragraph judged while the writer streams did not wait for the writer's last word
    written = CallRecord("model", "s", "report", "w", "synthesize:1", start=0.0, end=1.0, cost=1.0)
    beside = CallRecord(
        "model", "s", "VerdictBatch", "j", "synthesize:1", start=0.5, end=1.3, cost=0.8
    )
    assert critical_path([written, beside])["main"] == pytest.approx(1.3)
    after = CallRecord("model", "s", "VerdictBatch", "j", "verify:2", start=1.0, end=1.8, cost=0.8)
    assert critical_path([written, after])["main"] == pytest.approx(1.8)
