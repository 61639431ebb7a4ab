"""Tokens per report: ours against open_deep_research, stage by stage, side by side.

Both agents research the same question with the same plan size against the same simulated
model and search, served over HTTP (:mod:`bench.sim.server`): our graph through its LLM
engine's ``ChatOpenAI``, the peer (``open-deep-research`` from PyPI, in its own virtualenv
``bench/.venv-peer``) through its own configuration. The server counts every request's prompt
and completion tokens and labels it with a stage common to both agents. Each repetition runs
every plan size for both agents, alternating, so wall-time ratios are measured side by side.

What a user waits for is measured on the same runs: the seconds from the question to the
report's first words (when the writer's model call gives its first token), to the complete
draft (its last token) and to the finished report (the run's end: for ours, after
verification), for ours, for ours with verification off (``verify=False``) and for the peer.
The simulation's model calls take as long as the latency profile makes them for their tokens
(:mod:`bench.sim.profiles`). *The price of trust* is our verified report's time over the same
run's without verification.

Settings of both: clarification allowed (the simulated model never asks), one research round,
every step researched at once, two queries per step, five results per query (the peer's
default). Our engine is given a 128k-token window (:data:`WINDOW`), which sizes how much it
reads and hands its writer. The peer is left at its defaults otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections import defaultdict
from statistics import median
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from bench import agent
from bench.common import BENCH_DIR, PEER_PYTHON, REPO_ROOT, log, summary
from bench.sections import Options
from bench.sim.profiles import READ_SECONDS, SEARCH_SECONDS, Profile, profile
from bench.sim.responder import STAGES, Scenario
from bench.sim.search import SimulatedSearch
from bench.sim.server import ServedCall, SimEndpoint, serve
from bench.sim.text import QUESTION
from bench.sim.trace import Trace
from deep_research.engines.llm import build_chat_model
from deep_research.persistence import make_serde

NAME = "tokens"
SIZES = (1, 4, 8, 16)
LATENCY = {"search": SEARCH_SECONDS, "read": READ_SECONDS}
"""Seconds per search and page read; model calls take their profile's time."""
WRITERS = {"ours": "report", "peer": "final_report"}
"""The model call that writes each agent's report."""
PEER_PACKAGE = "open-deep-research==0.0.16"
PEER_TIMEOUT = 600
WINDOW = 128_000
"""Our model's context window: a GPT-4o-class model, so that our engine reads as wide as it
would with a strong model (a pick is shown about 10,000 words of passages at extended depth)."""
_PASSED_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def by_stage(calls: list[ServedCall]) -> dict[str, dict[str, int]]:
    """Prompt tokens, completion tokens and model calls per stage."""
    out: dict[str, dict[str, int]] = {s: {"prompt": 0, "completion": 0, "calls": 0} for s in STAGES}
    for call in calls:
        if call.kind != "model":
            continue
        entry = out[call.stage]
        entry["prompt"] += call.prompt_tokens
        entry["completion"] += call.completion_tokens
        entry["calls"] += 1
    return out


def _total(stages: dict[str, dict[str, int]]) -> dict[str, int]:
    return {k: sum(s[k] for s in stages.values()) for k in ("prompt", "completion", "calls")}


def waits(calls: list[ServedCall], started: float, wall: float, writer: str) -> dict[str, float]:
    """Seconds from the question to the report's first words, to its complete draft, and to
    the finished report (``wall``), from the calls of one run started at ``started``.

    The writer's call is the last call named ``writer`` (an empty report is asked again).
    """
    written = [c for c in calls if c.kind == "model" and c.call == writer]
    if not written:
        return {"first_words": wall, "draft": wall, "report": wall}
    last = max(written, key=lambda c: c.start)
    return {"first_words": last.first - started, "draft": last.end - started, "report": wall}


async def _ours(sim: SimEndpoint, steps: int, run: int, *, verify: bool = True) -> dict[str, Any]:
    agent_name = "ours" if verify else "ours-unverified"
    model_name = Scenario(plan_steps=steps).model_name(agent_name, run)
    chat = build_chat_model(model_name, api_key="sim", base_url=sim.base_url)
    trace = Trace()
    search = SimulatedSearch(LATENCY["search"], LATENCY["read"], trace)
    graph = agent.graph_for(
        chat, [search], InMemorySaver(serde=make_serde()), name=model_name, window=WINDOW
    )
    started = time.perf_counter()
    state, wall = await agent.run(graph, steps, verify=verify)
    calls = sim.calls_of(model_name)
    return {
        "stages": by_stage(calls),
        "wall": wall,
        "waits": waits(calls, started, wall, WRITERS["ours"]),
        "usage": state["usage"].model_dump(),
        "searches": sum(1 for r in trace.records if r.kind == "search"),
    }


def peer_status() -> tuple[str | None, str]:
    """Why the peer cannot run (``None`` if it can), and its installed version."""
    if not PEER_PYTHON.exists():
        return (
            f"the peer's virtualenv is missing ({PEER_PYTHON.parent.parent}); `make bench` "
            f"creates it with `uv venv` and `uv pip install {PEER_PACKAGE}`"
        ), ""
    probe = (
        "import importlib.metadata as m, open_deep_research.deep_researcher; "
        "print(m.version('open-deep-research'))"
    )
    done = subprocess.run(
        [str(PEER_PYTHON), "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=_peer_env(None),
    )
    if done.returncode != 0:
        return f"open_deep_research does not import: {done.stderr.strip()[-300:]}", ""
    return None, done.stdout.strip()


def _peer_env(sim: SimEndpoint | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _PASSED_VARIABLES}
    env |= {"LANGSMITH_TRACING": "false", "NO_PROXY": "127.0.0.1", "PYTHONDONTWRITEBYTECODE": "1"}
    if sim is not None:
        env |= {"OPENAI_API_KEY": "sim", "OPENAI_BASE_URL": sim.base_url, "TAVILY_API_KEY": "sim"}
    return env


def _peer(sim: SimEndpoint, steps: int, run: int) -> tuple[list[ServedCall], float, dict[str, Any]]:
    model_name = Scenario(plan_steps=steps).model_name("peer", run)
    command = [str(PEER_PYTHON), str(BENCH_DIR / "peer" / "driver.py"), model_name, str(steps)]
    command += [sim.search_url, QUESTION]
    done = subprocess.run(
        command,
        cwd=REPO_ROOT,
        env=_peer_env(sim),
        capture_output=True,
        text=True,
        timeout=PEER_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"open_deep_research failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return sim.calls_of(model_name), float(result["wall"]), result


def _ratio(ours: float, peer: float) -> float | None:
    return round(ours / peer, 3) if peer else None


def _waits(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Each wait's median and spread over ``runs``."""
    return {k: summary([r["waits"][k] for r in runs], 3) for k in runs[0]["waits"]}


def _per_run(a: list[dict[str, Any]], b: list[dict[str, Any]], wait: str) -> dict[str, float]:
    """The ratio of a wait of ``a``'s runs to ``b``'s, run by run (side by side)."""
    return summary([x["waits"][wait] / y["waits"][wait] for x, y in zip(a, b, strict=False)], 3)


def _row(
    steps: int,
    ours: list[dict[str, Any]],
    peer: list[dict[str, Any]],
    unverified: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    o, p = ours[0]["stages"], peer[0]["stages"] if peer else None
    row: dict[str, Any] = {"plan_steps": steps, "ours": {"stages": o, "total": _total(o)}}
    row["ours"]["wall_seconds"] = summary([r["wall"] for r in ours], 3)
    row["ours"]["waits"] = _waits(ours)
    row["ours"]["agent_reported_usage"] = ours[0]["usage"]
    row["ours"]["searches"] = ours[0]["searches"]
    if unverified:
        u = unverified[0]["stages"]
        row["unverified"] = {
            "stages": u,
            "total": _total(u),
            "wall_seconds": summary([r["wall"] for r in unverified], 3),
            "waits": _waits(unverified),
        }
        row["price_of_trust"] = _per_run(ours, unverified, "report")
    if p is None:
        return row
    row["peer"] = {
        "stages": p,
        "total": _total(p),
        "wall_seconds": summary([r["wall"] for r in peer], 3),
        "waits": _waits(peer),
    }
    row["peer"]["searches"] = peer[0]["searches"]
    row["ratio"] = {
        "stages": {
            s: {k: _ratio(o[s][k], p[s][k]) for k in ("prompt", "completion")} for s in STAGES
        },
        "total": {k: _ratio(_total(o)[k], _total(p)[k]) for k in ("prompt", "completion")},
        "tokens": _ratio(
            _total(o)["prompt"] + _total(o)["completion"],
            _total(p)["prompt"] + _total(p)["completion"],
        ),
        "wall": summary([a["wall"] / b["wall"] for a, b in zip(ours, peer, strict=False)], 3),
        "first_words": _per_run(ours, peer, "first_words"),
        "draft": _per_run(ours, peer, "draft"),
    }
    if unverified:
        row["ratio"]["unverified_wall"] = _per_run(unverified, peer, "report")
    row["deterministic"] = all(r["stages"] == o for r in ours) and all(
        r["stages"] == p for r in peer
    )
    return row


Runs = dict[int, list[dict[str, Any]]]
"""Runs of one agent by plan size."""


async def _measure(
    sizes: tuple[int, ...],
    repeats: int,
    peer_ok: bool,
    model_profile: Profile,
    *,
    unverified_too: bool = True,
) -> tuple[Runs, Runs, Runs, list[str]]:
    """Every size, ``repeats`` times: ours, ours without verification, the peer, in turn."""
    ours: Runs = defaultdict(list)
    unverified: Runs = defaultdict(list)
    peer: Runs = defaultdict(list)
    with serve(model_profile, LATENCY["search"]) as sim, agent.plan_budget(max(sizes)):
        for repeat in range(repeats):
            for steps in sizes:
                log(f"tokens: repetition {repeat + 1}/{repeats}, {steps} steps")
                ours[steps].append(await _ours(sim, steps, repeat))
                if unverified_too:
                    unverified[steps].append(await _ours(sim, steps, repeat, verify=False))
                if peer_ok:
                    calls, wall, result = await asyncio.to_thread(_peer, sim, steps, repeat)
                    peer[steps].append(
                        {
                            "stages": by_stage(calls),
                            "wall": wall,
                            "waits": waits(calls, result["started"], wall, WRITERS["peer"]),
                            "searches": sum(1 for c in calls if c.kind == "search"),
                        }
                    )
        errors = sim.errors()
    return ours, unverified, peer, errors


def run(options: Options) -> dict[str, Any]:
    """Count tokens per stage for both agents at every plan size."""
    sizes = SIZES[:1] if options.quick else SIZES
    repeats = 1 if options.quick else min(options.repeats, 3)
    problem, version = peer_status()
    if problem:
        log(f"tokens: open_deep_research is not measured: {problem}")
    model_profile = profile(options.profile)
    ours, unverified, peer, errors = asyncio.run(
        _measure(sizes, repeats, problem is None, model_profile)
    )
    rows = [_row(steps, ours[steps], peer[steps], unverified[steps]) for steps in sizes]
    ratios = [r["ratio"]["tokens"] for r in rows if "ratio" in r]
    return {
        "peer": {"package": PEER_PACKAGE, "installed": version, "skipped": problem},
        "latency_seconds": LATENCY,
        "profile": model_profile.described(),
        "repeats": repeats,
        "stages": list(STAGES),
        "sizes": rows,
        "simulation_errors": errors,
        "median_token_ratio": median(ratios) if ratios else None,
    }
