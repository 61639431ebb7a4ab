"""MCP servers the tests start: real servers written with the ``mcp`` SDK."""
