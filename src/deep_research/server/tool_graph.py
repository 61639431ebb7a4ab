"""The agent as a tool: ``research`` takes a question, mode and depth and returns the report.

``langgraph.json`` serves it as the graph ``research`` beside ``deep_research``. The LangGraph
server lists every assistant as an MCP tool at ``/mcp`` (with the graph's description and its
input schema), so MCP clients can call the agent; they authenticate as any other client does.
A tool call cannot answer questions, so the run never asks for clarification or plan review.

The graph has one node that runs the served research graph on the question as a subgraph
(same thread, same checkpointer and store, the same recording), and returns the report's
Markdown, its references and its verification note.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field

from deep_research.context import Context
from deep_research.server.graph import graph as research_graph
from deep_research.server.inputs import ToolInput
from deep_research.state import InputState

DESCRIPTION = (
    "Research a question in depth: plan it, search the configured sources, read them, and "
    "write a report with numbered citations in which every claim was checked against the "
    "quoted evidence. Returns the report (Markdown), its references and a verification note."
)


class ToolOutput(BaseModel):
    """What the tool returns."""

    report: str = Field(default="", description="The report in Markdown, with citations [n].")
    references: list[dict[str, Any]] = Field(
        default_factory=list, description="The numbered references: number, title, url."
    )
    verification: str = Field(default="", description="What checking the claims found.")


class ToolState(ToolInput, ToolOutput):
    """The tool graph's state: its input and its output."""


async def research(state: ToolState) -> dict[str, Any]:
    """Run the research graph on the question; return its report's parts."""
    context = Context(
        mode=state.mode, depth=state.depth, allow_clarification=False, review_plan=False
    )
    result = await research_graph.ainvoke(
        InputState(messages=[HumanMessage(state.question)]), context=context
    )
    report = result.get("report")
    if report is None:
        return {"report": "", "verification": "the run ended without a report"}
    summary = report.verification
    return {
        "report": report.markdown,
        "references": [
            {"number": r.number, "title": r.title, "url": r.url} for r in report.references
        ],
        "verification": (
            f"{summary.total} claims checked: {summary.supported} supported, "
            f"{summary.partial} partially supported, {summary.unsupported} unsupported, "
            f"{summary.contradicted} contradicted"
            if summary.total
            else "no claim could be checked"
        ),
    }


def build_tool_graph() -> Any:
    """The one-node tool graph (compiled without a checkpointer: the server brings one)."""
    builder = StateGraph(ToolState, input_schema=ToolInput, output_schema=ToolOutput)
    builder.add_node(research)
    builder.add_edge(START, "research")
    builder.add_edge("research", END)
    return builder.compile(name="research")


graph = build_tool_graph()
