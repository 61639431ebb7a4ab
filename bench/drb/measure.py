"""Run one DRB task through the whole graph and measure its report."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from bench.drb.data import Task
from bench.drb.web import TaskWeb
from deep_research.context import Context, Depth
from deep_research.engines.llm import LLMEngine
from deep_research.graph import build_graph
from deep_research.persistence import make_serde
from deep_research.sources import SourceProvider
from deep_research.state import InputState, Report
from deep_research.text import word_count

MALFORMED = re.compile(
    r"[:：;；]\.(?=\s|$)"  # a period after a colon
    r"|\*\*\.(?=\s|$)"  # a period after a bold-only label
    r"|[。！？]\s?\."  # a period after a CJK full stop
    r"|(?<!\.)\.\.(?!\.)"  # a doubled period (an ellipsis is fine)
    r"|[\u3400-\u9fff] \[\d+\]"  # a space before a key in CJK text
    r"|[。！？]\[\d+\]",  # a key after the full stop instead of before it
    re.M,
)
"""Punctuation the draft normalization must never produce."""


@dataclass(frozen=True)
class TaskResult:
    """What one task's report shows."""

    id: int
    language: str
    depth: str
    evidence_spans: int
    references: int
    claims: int
    supported: int
    removed: int
    corrected: int
    synthesis_kept: int
    uncited_kept: int
    malformed: int
    length: int
    """Words of the report body (two CJK characters count one, see ``word_count``)."""
    markdown: str

    def row(self) -> dict[str, Any]:
        """The result without its Markdown."""
        data = asdict(self)
        data.pop("markdown")
        return data


def body_of(markdown: str) -> str:
    """The report between its H1 and its reference list."""
    body = markdown.split("\n## ", 1)[-1] if "\n## " in markdown else markdown
    return re.split(r"\n## (?:References|Références|参考文献)\n", "## " + body)[0]


def measure(task: Task, report: Report, depth: str) -> TaskResult:
    """The figures of one task's report."""
    claims = report.claims
    return TaskResult(
        id=task.id,
        language=task.language,
        depth=depth,
        evidence_spans=report.metrics.evidence_spans,
        references=len(report.references),
        claims=len(claims),
        supported=report.verification.supported,
        removed=report.verification.removed,
        corrected=report.verification.corrected,
        synthesis_kept=sum(1 for c in claims if c.claim_type == "synthesis"),
        uncited_kept=sum(1 for c in claims if not c.citation_keys),
        malformed=len(MALFORMED.findall(report.markdown)),
        length=word_count(body_of(report.markdown)),
        markdown=report.markdown,
    )


async def ask(
    task: Task,
    model: BaseChatModel,
    *,
    depth: str = "light",
    sources: Sequence[SourceProvider] | None = None,
) -> Report:
    """Ask ``task``'s prompt with ``model``, searching ``sources`` (``None``: :class:`TaskWeb`).

    The sources are always explicit: the run's context never chooses them, so that a run
    cannot fall back on the bundled sample corpus unnoticed.
    """
    graph = build_graph(
        engine=LLMEngine(model, name=getattr(model, "model_name", None) or "model"),
        sources=list(sources) if sources is not None else [TaskWeb(task)],
        checkpointer=InMemorySaver(serde=make_serde()),
    )
    out = await graph.ainvoke(
        InputState(messages=[HumanMessage(task.prompt)]),
        {"configurable": {"thread_id": uuid.uuid4().hex}},
        context=Context(allow_clarification=False, depth=cast(Depth, depth)),
    )
    report: Report = out["report"]
    return report


async def run_task(task: Task, model: BaseChatModel, *, depth: str = "light") -> TaskResult:
    """Ask ``task``'s prompt with ``model`` on the simulated web, and measure its report."""
    return measure(task, await ask(task, model, depth=depth), depth)
