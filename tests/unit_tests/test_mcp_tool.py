"""The MCP endpoint's tool: its declared schemas and the answer built from the graph's output."""

from __future__ import annotations

import jsonschema

from deep_research.server.inputs import TOOL_DESCRIPTION
from deep_research.server.mcp_endpoint import refusal, tool, tool_result

OUTPUT = {
    "report": "# Hornsdale\n\nIt cost A$90 million [1].\n\n## References\n\n1. Hornsdale.",
    "references": [{"number": 1, "title": "Hornsdale", "url": "https://example.org/h"}],
    "verification": "1 claims checked: 1 supported",
}


def test_the_tool_declares_its_input_and_output() -> None:
    declared = tool()
    assert declared.name == "research" and declared.description == TOOL_DESCRIPTION
    assert declared.inputSchema["required"] == ["question"]
    assert set(declared.outputSchema or {}) >= {"properties"}
    assert set((declared.outputSchema or {})["properties"]) == set(OUTPUT)


def test_the_answer_is_markdown_text_and_structured_content_of_the_schema() -> None:
    result = tool_result(OUTPUT)
    assert not result.isError
    [text] = result.content
    assert text.type == "text" and text.text.startswith(OUTPUT["report"])
    assert "1 claims checked" in text.text
    assert result.structuredContent == OUTPUT
    jsonschema.validate(result.structuredContent, tool().outputSchema or {})


def test_a_refusal_is_an_error_with_its_reason() -> None:
    refused = refusal("over the run cap")
    assert refused.isError and refused.content[0].text == "refused: over the run cap"
