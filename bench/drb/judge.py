"""The judge: a chat model asked DRB's prompts as DRB asks them, its tokens counted.

DRB sends each filled prompt as the user message with an empty system prompt and reads the
reply as text (JSON in a Markdown fence or bare). :class:`Judge` does the same and adds up
the tokens the model reports, so that a run knows what it spent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

ATTEMPTS = 3
"""Times a prompt is asked before a reply that does not parse is given up."""

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


@dataclass
class Usage:
    """Tokens spent: prompt and completion, and calls made."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def add(self, prompt: int, completion: int) -> None:
        """Count one call."""
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.calls += 1

    def as_dict(self) -> dict[str, int]:
        """The counts, for a results file."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
        }


@dataclass
class Judge:
    """A chat model answering DRB's prompts; ``usage`` grows with every call."""

    model: BaseChatModel
    name: str
    usage: Usage = field(default_factory=Usage)

    async def ask(self, prompt: str) -> str:
        """The model's text reply to ``prompt`` sent as DRB sends it (user message only)."""
        reply = await self.model.ainvoke([HumanMessage(prompt)])
        meta = getattr(reply, "usage_metadata", None) or {}
        self.usage.add(int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
        return reply.text


def json_of(text: str) -> Any:
    """The JSON value of a reply: a fenced block's content, else the text from its first
    bracket to its last.

    Raises:
        ValueError: no JSON value there (``json.JSONDecodeError`` is a ``ValueError``).
    """
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        raise ValueError("the reply holds no JSON")
    start = min(starts)
    end = body.rfind("}" if body[start] == "{" else "]")
    return json.loads(body[start : end + 1])
