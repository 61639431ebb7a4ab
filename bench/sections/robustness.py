"""Robustness: whole runs on a model whose replies are malformed, at 0 %, 10 % and 30 %.

Our graph runs on the simulated model (:class:`~bench.sim.model.SimulatedChatModel`) with a
share of its structured replies spoiled, each in one of the ways real endpoints misbehave:
verdicts about claim ids that were not given, output cut at the length limit, a refusal, an
empty reply, prose instead of the tool call, arguments that are not JSON, missing fields,
extra fields. Which replies are spoiled, and how, is drawn from a generator seeded by the run.

A run succeeds when it ends with a non-empty report whose every claim is judged (by the model
or, labelled as such, by the offline fallback). The section reports that share per fault
rate, with what the engine did to get there: re-asks (model calls beyond the fault-free run),
claims the offline checker judged, claims revision removed.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from statistics import median
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from bench import agent
from bench.common import log
from bench.sections import Options
from bench.sim.model import SimulatedChatModel
from bench.sim.requests import Scenario
from bench.sim.search import SimulatedSearch
from deep_research.engines import schemas
from deep_research.errors import DeepResearchError
from deep_research.persistence import make_serde

NAME = "robustness"
RATES = (0.0, 0.1, 0.3)
STEPS = 2
FAULTS = (
    "wrong_ids",
    "truncated",
    "refusal",
    "empty",
    "prose",
    "invalid_json",
    "missing_fields",
    "extra_fields",
)
_JSON_MODE = re.compile(r"JSON object for (\w+)")


def spoil(kind: str, reply: AIMessage) -> AIMessage:
    """``reply`` (a structured one) malformed the way ``kind`` says."""
    call = reply.tool_calls[0]
    name, args = call["name"], call["args"]
    usage = reply.usage_metadata
    if kind == "wrong_ids" and name == "VerdictBatch":
        verdicts = [{**v, "claim_id": f"claim_{i}"} for i, v in enumerate(args["verdicts"])]
        return AIMessage(
            "", tool_calls=[{**call, "args": {"verdicts": verdicts}}], usage_metadata=usage
        )
    if kind in ("truncated", "invalid_json"):
        text = json.dumps(args)
        broken = text[: len(text) // 2] if kind == "truncated" else text.replace('"', "'", 2)
        invalid = {"name": name, "args": broken, "id": call["id"], "error": None}
        meta = {"finish_reason": "length" if kind == "truncated" else "tool_calls"}
        return AIMessage(
            "",
            invalid_tool_calls=[{**invalid, "type": "invalid_tool_call"}],
            response_metadata=meta,
            usage_metadata=usage,
        )
    if kind == "refusal":
        return AIMessage("", additional_kwargs={"refusal": "I can't help."}, usage_metadata=usage)
    if kind in ("empty", "prose"):
        content = "" if kind == "empty" else "Let me explain this in prose instead."
        return AIMessage(content, usage_metadata=usage)
    extra = {**args, "note": "extra"} if kind == "extra_fields" else {}
    return AIMessage("", tool_calls=[{**call, "args": extra}], usage_metadata=usage)


class FaultyChatModel(SimulatedChatModel):
    """The simulated model, with ``share`` of its structured replies spoiled (seeded)."""

    share: float = 0.0
    seed: int = 0
    sent: list[str] = Field(default_factory=list)
    """The kind of every spoiled reply, in order."""
    drawn: Any = None

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.drawn is None:
            self.drawn = random.Random(self.seed)
        asked = _JSON_MODE.search(str(messages[-1].content)) if messages else None
        if asked and not kwargs.get("tools"):  # JSON mode: answer the schema as text
            tool = convert_to_openai_tool(getattr(schemas, asked.group(1)))
            result = await super()._agenerate(messages, stop, **{**kwargs, "tools": [tool]})
            reply = result.generations[0].message
            assert isinstance(reply, AIMessage)
            message = AIMessage(
                json.dumps(reply.tool_calls[0]["args"]), usage_metadata=reply.usage_metadata
            )
        else:
            result = await super()._agenerate(messages, stop, **kwargs)
            message = result.generations[0].message  # type: ignore[assignment]
            assert isinstance(message, AIMessage)
            if not message.tool_calls:
                return result
        if self.drawn.random() < self.share:
            kind = self.drawn.choice(FAULTS)
            self.sent.append(kind)
            message = (
                spoil(kind, message)
                if message.tool_calls
                else AIMessage("", usage_metadata=message.usage_metadata)
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


async def one_run(share: float, seed: int) -> dict[str, Any]:
    """One whole run at fault rate ``share``: whether it succeeded, and what it took."""
    model = FaultyChatModel(scenario=Scenario(plan_steps=STEPS), share=share, seed=seed)
    graph = agent.graph_for(model, [SimulatedSearch()], InMemorySaver(serde=make_serde()))
    try:
        state, wall = await agent.run(graph, STEPS)
    except DeepResearchError as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "faults": model.sent}
    report = state.get("report")
    claims = report.claims if report is not None else []
    ok = bool(report is not None and report.markdown.strip() and claims)
    ok = ok and all(c.verdict is not None for c in claims)
    return {
        "ok": ok,
        "wall": round(wall, 3),
        "faults": model.sent,
        "model_calls": report.metrics.model_calls if report else 0,
        "claims": len(claims),
        "fallback": report.verification.fallback if report else 0,
        "removed": report.verification.removed if report else 0,
    }


async def _main(options: Options) -> dict[str, Any]:
    runs = 2 if options.quick else 10
    rates: dict[str, Any] = {}
    for share in RATES:
        results = [await one_run(share, seed) for seed in range(runs)]
        ok = [r for r in results if r["ok"]]
        rates[f"{share:.0%}"] = {
            "share": share,
            "runs": runs,
            "succeeded": len(ok),
            "success_rate": round(len(ok) / runs, 3),
            "faults_sent": sum(len(r["faults"]) for r in results),
            "median_model_calls": median(r.get("model_calls", 0) for r in results),
            "median_claims": median(r.get("claims", 0) for r in results),
            "fallback_claims": sum(r.get("fallback", 0) for r in results),
            "removed_claims": sum(r.get("removed", 0) for r in results),
            "errors": sorted({r["error"] for r in results if "error" in r})[:5],
        }
        log(f"robustness {share:.0%}: {len(ok)}/{runs} runs with a judged, non-empty report")
    return {"steps": STEPS, "faults": list(FAULTS), "rates": rates}


def run(options: Options) -> dict[str, Any]:
    """Measure; returns the section's results."""
    return asyncio.run(_main(options))
