"""The agent as a tool: ``research`` takes a question, mode and depth and returns the report.

``langgraph.json`` serves it as the graph ``research`` beside ``deep_research``; our MCP
endpoint (:mod:`deep_research.server.mcp_endpoint`) runs it for each ``research`` tool call,
through the server's API, as the caller. A tool call cannot answer questions, so the run never
asks for clarification or plan review.

The graph has one node that runs the served research graph on the question as a subgraph
(same thread, same checkpointer and store, the same recording), and returns the report's
Markdown, its references and its verification note.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from deep_research.context import Context
from deep_research.server.graph import graph as research_graph
from deep_research.server.inputs import TOOL_DESCRIPTION, ToolInput, ToolOutput
from deep_research.state import InputState

DESCRIPTION = TOOL_DESCRIPTION
"""The graph's description (langgraph.json repeats it for Studio)."""


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
