"""JSON from providers, read within bounds of size and depth.

A search engine, a scholarly API or an MCP tool may answer with JSON nested thousands of
levels deep: Python's ``json`` module then raises ``RecursionError``, which is no
``ValueError``, and would end the run in a traceback instead of one failed source. So the
text's nesting is measured first, without recursion, and JSON deeper than
:data:`MAX_JSON_DEPTH` or longer than :data:`MAX_JSON_BYTES` is refused with a
:class:`JsonLimitError` (a ``ValueError``, which the providers already turn into a
:class:`~deep_research.errors.SourceError`).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted (the APIs we read nest under 10)."""

MAX_JSON_BYTES = 16 * 1024 * 1024
"""Largest JSON text accepted, in bytes (an API page of results is well under 1 MiB)."""

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
"""A string (skipped whole, brackets inside included) or a bracket."""


class JsonLimitError(ValueError):
    """JSON too large or too deeply nested to be read."""


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar)."""
    depth = deepest = 0
    for match in _TOKEN.finditer(text):
        token = match[0]
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def loads_bounded(
    data: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, max_bytes: int = MAX_JSON_BYTES
) -> Any:
    """``json.loads(data)``, refused when too large or too deep.

    Raises:
        JsonLimitError: ``data`` is over ``max_bytes`` or nested over ``max_depth``.
        ValueError: it is not JSON (``json.JSONDecodeError``, ``UnicodeDecodeError``).
    """
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JsonLimitError(f"the JSON is {size} bytes long; the limit is {max_bytes}")
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    depth = json_depth(text)
    if depth > max_depth:
        raise JsonLimitError(f"the JSON is nested {depth} levels deep; the limit is {max_depth}")
    return json.loads(text)


def check_depth(value: Any, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``value`` (already decoded), unless its lists and dicts nest over ``max_depth``.

    Walks without recursion, so a value nested deeper than Python's recursion limit is
    refused rather than crashing whoever prints or walks it.

    Raises:
        JsonLimitError: it nests too deep.
    """
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list | tuple):
            if depth + 1 > max_depth:
                raise JsonLimitError(f"the value is nested over {max_depth} levels deep")
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return value
