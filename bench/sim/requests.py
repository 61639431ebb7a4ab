"""What the simulated model is asked and what it answers: scenarios, requests, replies.

Every reply is labelled with a stage common to both agents, so that token counts can be
compared stage by stage: clarify, plan, research (choosing queries), reading (summarizing
pages), notes, reflect, report, verify.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.sim import text

STAGES = ("clarify", "plan", "research", "reading", "notes", "reflect", "report", "verify")

SECTION_SENTENCES = 4
"""Sentences per report section (one section per plan step, plus a summary of three)."""

SUMMARY_SHARE = 0.27
"""A page summary's length relative to the page (the peer's prompt asks for 25-30 percent)."""

COMPRESS_SHARE = 0.6
"""Length of a researcher's cleaned-up findings relative to the search results it read (the
peer's prompt asks to keep all information, verbatim)."""


@dataclass(frozen=True)
class Scenario:
    """What the simulated model decides: the plan size, the queries, which claims are wrong."""

    plan_steps: int = 4
    queries_per_step: int = 2
    flag_every: int = 5
    """Every n-th report sentence states a figure no evidence has (0: none), so that verify
    finds it unsupported and revise rewrites it."""

    def model_name(self, agent: str, run: int = 0) -> str:
        """A model name that carries the scenario to the HTTP simulation."""
        return f"{agent}-n{self.plan_steps}-q{self.queries_per_step}-f{self.flag_every}-r{run}"

    @classmethod
    def from_model_name(cls, name: str) -> tuple[str, Scenario]:
        """The agent and scenario a :meth:`model_name` carries (defaults if it carries none)."""
        match = re.search(r"([a-z]+)-n(\d+)-q(\d+)-f(\d+)-r\d+", name)
        if match is None:
            return name, cls()
        agent, n, q, f = match.groups()
        return agent, cls(plan_steps=int(n), queries_per_step=int(q), flag_every=int(f))


@dataclass
class Request:
    """An OpenAI chat request."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    response_format: dict[str, Any] | None = None

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered."""
        return [str(t.get("function", t).get("name", "")) for t in self.tools or []]

    @property
    def schema_name(self) -> str | None:
        """Name of the JSON schema the reply must fill, if any."""
        if self.response_format and self.response_format.get("type") == "json_schema":
            return str(self.response_format["json_schema"].get("name", ""))
        return None

    def content(self, role: str | None = None) -> str:
        """All message text (of one role), joined."""
        return "\n\n".join(
            str(m.get("content") or "") for m in self.messages if role in (None, m.get("role"))
        )

    @property
    def has_tool_results(self) -> bool:
        """True when tool results were sent back (a later turn of a tool loop)."""
        return any(m.get("role") == "tool" for m in self.messages)


@dataclass
class Reply:
    """The simulated answer, with the stage it belongs to."""

    stage: str
    call: str
    """The schema, tool or kind of text asked for."""
    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """``{"id", "name", "arguments"}`` with arguments as JSON text."""
    items: tuple[str, ...] = ()
    """Claim ids judged (verify), for dependency analysis."""


def call(name: str, args: Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """A tool call with JSON arguments."""
    return {"id": f"call_{name}_{index}", "name": name, "arguments": json.dumps(args)}


def tool(stage: str, name: str, args: Mapping[str, Any], **kw: Any) -> Reply:
    """A reply that calls one tool."""
    return Reply(stage=stage, call=name, tool_calls=[call(name, args)], **kw)


def json_reply(stage: str, name: str, value: Mapping[str, Any]) -> Reply:
    """A reply whose text is a JSON object (a ``json_schema`` response)."""
    return Reply(stage=stage, call=name, content=json.dumps(value))


def step_title(index: int) -> str:
    """Title of plan step ``index`` (0-based)."""
    aspect = text.ASPECTS[index % len(text.ASPECTS)]
    return f"{aspect[:1].upper()}{aspect[1:]} for LFP and NMC"


def words(r: Any, subjects: list[str], n: int) -> str:
    """About ``n`` words of prose about ``subjects``."""
    return " ".join(text.prose(r, subjects, n))
