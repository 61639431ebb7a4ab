"""MCP servers as sources: the operator's search and read tools, one provider per server.

The operator lists servers in a JSON file (``DEEP_RESEARCH_MCP_CONFIG``) in the usual
``mcpServers`` shape, and says which of each server's tools plays which role::

    {"mcpServers": {
      "wiki": {
        "command": "python", "args": ["-m", "wiki_mcp"],           # stdio, or:
        "url": "http://127.0.0.1:9000/mcp",                        # streamable HTTP
        "headers": {"Authorization": "Bearer ..."},
        "search": {"tool": "search_pages", "arguments": {"query": "{query}", "limit": "{k}"}},
        "read": {"tool": "get_page", "arguments": {"id": "{id}"}},
        "timeout": 30
      }}}

A search tool answers with results (structured content, or JSON text): a list, or an object
with ``results``, of items with a ``url`` or an ``id``, a ``title``, and a ``snippet``,
``content`` or ``text``. A result's text, when the tool gives it, is the document (carried
with the result, as providers without a page cache do); otherwise the read tool is called
with the result's ``id`` (or ``url``) and its answer, text or ``{"title", "text"}``, is.

Every result and document names its server and tool: its URL is the item's own http(s) URL
when it has one, else ``mcp://SERVER/TOOL/ID``, and the provider is ``mcp:SERVER``. What a
tool returns is untrusted data like any web page (the researcher fences it and flags text
that tries to instruct the agent). Each call runs in a session of its own under a timeout; a
server that fails or times out is a :class:`SourceError`, which the researcher reports as an
``error`` event while the research goes on. Runs can only reach the servers in the
operator's file: nothing in a run's context names a command or a URL.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import anyio
import httpx
from mcp.shared.exceptions import McpError

from deep_research.errors import ConfigurationError, SourceError
from deep_research.sources.bounded_json import JsonLimitError, check_depth, loads_bounded
from deep_research.state.models import Document, SearchResult

DEFAULT_TIMEOUT = 30.0
"""Seconds one tool call may take, session start included."""

TRANSPORT_ERRORS = (
    OSError,
    httpx.HTTPError,
    McpError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)
"""How a server that is down, exits or breaks the protocol fails: a source error, not a crash.
A stdio server that exits before reading its input breaks the client's pipe, which anyio
reports as a broken stream, not an OSError. Anything else (a bug) propagates."""

MAX_TEXT_CHARS = 2_000_000
"""Longest document text kept from one tool answer."""


@dataclass(frozen=True)
class ToolRole:
    """A tool and the arguments to call it with (``{query}``, ``{k}``, ``{id}``, ``{url}``)."""

    tool: str
    arguments: Mapping[str, Any]

    def call_arguments(self, **values: Any) -> dict[str, Any]:
        """The arguments with their placeholders filled; ``"{k}"`` alone stays a number."""
        filled: dict[str, Any] = {}
        for name, template in self.arguments.items():
            if isinstance(template, str) and template.startswith("{") and template.endswith("}"):
                filled[name] = values.get(template[1:-1], template)
            elif isinstance(template, str):
                filled[name] = template.format_map({k: str(v) for k, v in values.items()})
            else:
                filled[name] = template
        return filled


@dataclass(frozen=True)
class McpServerConfig:
    """One configured server: how to connect, and its tools' roles."""

    name: str
    connection: Mapping[str, Any]
    search: ToolRole
    read: ToolRole | None = None
    timeout: float = DEFAULT_TIMEOUT


def _role(server: str, entry: Any, role: str) -> ToolRole | None:
    if entry is None:
        return None
    if isinstance(entry, str):
        entry = {"tool": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("tool"), str):
        raise ConfigurationError(f"MCP server {server!r}: {role!r} must name a tool")
    defaults = {"search": {"query": "{query}"}, "read": {"id": "{id}"}}[role]
    arguments = entry.get("arguments", defaults)
    if not isinstance(arguments, dict):
        raise ConfigurationError(f"MCP server {server!r}: {role}.arguments must be an object")
    return ToolRole(entry["tool"], arguments)


def _connection(name: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(entry.get("command"), str):
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigurationError(f"MCP server {name!r}: args must be a list of strings")
        connection: dict[str, Any] = {
            "transport": "stdio",
            "command": entry["command"],
            "args": args,
        }
        if isinstance(entry.get("env"), dict):
            connection["env"] = {str(k): str(v) for k, v in entry["env"].items()}
        if isinstance(entry.get("cwd"), str):
            connection["cwd"] = entry["cwd"]
        return connection
    url = entry.get("url")
    if isinstance(url, str) and urlsplit(url).scheme in {"http", "https"}:
        connection = {"transport": "streamable_http", "url": url}
        if isinstance(entry.get("headers"), dict):
            connection["headers"] = {str(k): str(v) for k, v in entry["headers"].items()}
        return connection
    raise ConfigurationError(
        f"MCP server {name!r} needs a `command` (stdio) or an http(s) `url` (streamable HTTP)"
    )


def parse_mcp_config(data: Any) -> list[McpServerConfig]:
    """The servers of an ``mcpServers`` document that have a search tool.

    Raises:
        ConfigurationError: the document is not of that shape, or an entry is invalid.
    """
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigurationError("the MCP configuration needs an `mcpServers` object")
    configs = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise ConfigurationError(f"MCP server {name!r} must be an object")
        search = _role(name, entry.get("search"), "search")
        if search is None:
            continue  # a server without a search role is not a source
        timeout = entry.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int | float) or not 0 < timeout <= 600:
            raise ConfigurationError(f"MCP server {name!r}: timeout must be 0-600 seconds")
        configs.append(
            McpServerConfig(
                name=str(name),
                connection=_connection(name, entry),
                search=search,
                read=_role(name, entry.get("read"), "read"),
                timeout=float(timeout),
            )
        )
    return configs


def load_mcp_config(path: str) -> tuple[McpServerConfig, ...]:
    """The servers of the configuration file at ``path``.

    Raises:
        ConfigurationError: the file cannot be read or is not a valid configuration.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(f"cannot read DEEP_RESEARCH_MCP_CONFIG {path}: {exc}") from None
    except ValueError as exc:
        raise ConfigurationError(f"DEEP_RESEARCH_MCP_CONFIG {path} is not JSON: {exc}") from None
    return tuple(parse_mcp_config(data))


@dataclass
class _Item:
    key: str
    url: str
    title: str
    snippet: str
    text: str | None


def _first(group: BaseExceptionGroup[Exception]) -> str:
    """The first failure a (nested) exception group holds, described."""
    leaf: Exception | BaseExceptionGroup[Exception] = group
    while isinstance(leaf, BaseExceptionGroup):
        leaf = leaf.exceptions[0]
    return str(leaf) or f"the connection broke ({type(leaf).__name__})"


def _payload(result: Any, who: str) -> Any:
    """The data of a tool's answer: its structured content, else its text as JSON or text.

    Raises:
        SourceError: the answer is too large or nested too deep to be read (``who`` says
            which tool's).
    """
    try:
        return _data(result)
    except JsonLimitError as exc:
        raise SourceError(f"{who} answered with unreadable JSON: {exc}") from None


def _data(result: Any) -> Any:
    structured = getattr(result, "structuredContent", None)
    if structured is not None:
        check_depth(structured)
        return structured.get("result", structured) if len(structured) == 1 else structured
    texts = [getattr(b, "text", "") for b in getattr(result, "content", []) or []]
    text = "\n".join(t for t in texts if t)
    try:
        return loads_bounded(text)
    except JsonLimitError:
        raise
    except ValueError:  # not JSON: the text itself
        return text


@dataclass
class McpSource:
    """A configured MCP server as a source provider; see the module docstring."""

    config: McpServerConfig
    name: str = field(init=False)
    """``mcp:SERVER``."""

    reads_own_results = True
    """The researcher reads this provider's results with it, whatever their URL scheme."""

    def __post_init__(self) -> None:
        self.name = f"mcp:{self.config.name}"

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Call the search tool; its items become results.

        Raises:
            SourceError: the server failed, timed out or answered with an error.
        """
        role = self.config.search
        answer = _payload(await self._call(role, query=query, k=k), f"{self.name}: {role.tool}")
        items = answer.get("results") if isinstance(answer, dict) else answer
        if not isinstance(items, list):
            raise SourceError(f"{self.name}: {role.tool} did not answer with a list of results")
        results: list[SearchResult] = []
        for raw in items[:k]:
            item = self._item(raw, role.tool)
            if item is None:
                continue
            results.append(
                SearchResult(
                    url=item.url,
                    title=item.title,
                    snippet=item.snippet,
                    score=1.0 / (1 + len(results)),
                    provider=self.name,
                    raw_content=item.text,
                )
            )
        return results

    async def read(self, url: str) -> Document:
        """The read tool's answer for ``url`` (results that carried their text need no read).

        Raises:
            SourceError: there is no read tool, or it failed or gave no text.
        """
        role = self.config.read
        if role is None:
            raise SourceError(f"{self.name} has no read tool for {url}")
        key = unquote(url.rsplit("/", 1)[-1]) if url.startswith("mcp://") else url
        answer = _payload(await self._call(role, id=key, url=url), f"{self.name}: {role.tool}")
        title = url
        if isinstance(answer, dict):
            title = str(answer.get("title") or url)
            answer = answer.get("text") or answer.get("content") or ""
        text = str(answer)[:MAX_TEXT_CHARS]
        if not text.strip():
            raise SourceError(f"{self.name} returned no text for {url}")
        digest = hashlib.sha256(text.encode()).hexdigest()
        return Document(
            id=f"doc_{digest[:16]}",
            url=url,
            title=title,
            text=text,
            metadata={"mcp_server": self.config.name, "sha256": digest},
        )

    def _item(self, raw: Any, tool: str) -> _Item | None:
        if not isinstance(raw, dict):
            return None
        own = raw.get("url")
        key = str(raw.get("id") or own or "").strip()
        if not key:
            return None
        if isinstance(own, str) and urlsplit(own).scheme in {"http", "https"}:
            url = own
        else:
            url = f"mcp://{quote(self.config.name, safe='')}/{quote(tool)}/{quote(key, safe='')}"
        text = raw.get("text") or raw.get("content")
        snippet = raw.get("snippet") or raw.get("summary") or (text or "")[:300]
        return _Item(
            key=key,
            url=url,
            title=str(raw.get("title") or key).strip(),
            snippet=str(snippet).strip(),
            text=str(text) if isinstance(text, str) and text.strip() else None,
        )

    async def _call(self, role: ToolRole, **values: Any) -> Any:
        from langchain_mcp_adapters.sessions import create_session

        arguments = role.call_arguments(**values)
        try:
            async with asyncio.timeout(self.config.timeout):
                connection: Any = dict(self.config.connection)
                async with create_session(connection) as session:
                    await session.initialize()
                    result = await session.call_tool(role.tool, arguments)
        # anyio task groups wrap a transport's failure in (nested) exception groups
        except* TimeoutError:
            raise SourceError(
                f"{self.name}: {role.tool} timed out after {self.config.timeout:g} s"
            ) from None
        except* TRANSPORT_ERRORS as group:
            raise SourceError(f"{self.name}: {role.tool} failed: {_first(group)}") from None
        if getattr(result, "isError", False):
            raise SourceError(
                f"{self.name}: {role.tool} answered with an error: {_payload(result, self.name)}"
            )
        return result


def mcp_sources(path: str, servers: set[str] | None = None) -> list[McpSource]:
    """Providers for the configured servers (all, or those named in ``servers``).

    Raises:
        ConfigurationError: the file is invalid, or a named server is not configured.
    """
    configs = {c.name: c for c in load_mcp_config(path)}
    if servers:
        unknown = servers - configs.keys()
        if unknown:
            raise ConfigurationError(
                f"no MCP server {', '.join(sorted(unknown))} in {path}; "
                f"configured: {', '.join(sorted(configs)) or 'none'}"
            )
        return [McpSource(configs[name]) for name in sorted(servers)]
    return [McpSource(config) for config in configs.values()]
