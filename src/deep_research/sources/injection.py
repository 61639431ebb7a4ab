"""Spotting page text that tries to instruct the agent (prompt injection).

Fetched text is data: every prompt fences it as such (see
:func:`deep_research.engines.llm.prompts.fence`). On top of that, text that addresses the agent
("ignore previous instructions", chat-template tokens, tool-call look-alikes) is flagged on its
:class:`~deep_research.state.models.Source`, and sentences that do so are never selected as
evidence, so they never reach a prompt even as quoted data.

Detection is a list of patterns: it catches the common phrasings, not every possible one; the
fence is the defence, the flag is the alarm.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FLAG_PREFIX = "prompt_injection:"
"""Flags are ``prompt_injection:<kind>``."""

_PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    # kind, words one of which every match contains, pattern
    (
        "instruction_override",
        ("ignore", "disregard", "forget", "override", "bypass"),
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|of)\s+)*"
            r"(?:(?:the|your|my|these)\s+)?(?:previous|prior|above|earlier|preceding|foregoing"
            r"|system|original|initial)\s+(?:instructions?|prompts?|rules|directions|guidelines"
            r"|directives|messages?)\b"
            r"|\b(?:ignore|disregard|forget)\s+(?:all\s+)?your\s+(?:instructions|rules|guidelines)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "agent_address",
        (
            "if you are",
            "note to",
            "note for",
            "message to",
            "message for",
            "instruction",
            "you are now",
            "from now on",
        ),
        re.compile(
            r"\bif you are an? (?:ai|llm|large language model|language model|ai assistant"
            r"|ai agent|chatbot)\b"
            r"|\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|llm|language model"
            r"|ai assistant|ai agent)s?\b"
            r"|\byou are now (?:dan\b|in (?:developer|god|jailbreak) mode"
            r"|an? (?:unrestricted|unfiltered|jailbroken)\b)"
            r"|\bfrom now on,? you (?:will|must|shall) (?:ignore|obey|only|always|never)\b"
            r"|\bnew (?:system )?instructions\s*:",
            re.IGNORECASE,
        ),
    ),
    (
        "prompt_exfiltration",
        ("system prompt", "instructions"),
        re.compile(
            r"\b(?:reveal|print|show|repeat|output|leak)\s+(?:me\s+)?(?:your|the)\s+"
            r"(?:system prompt|hidden instructions|initial instructions|instructions above)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "chat_markup",
        ("<|", "inst]", "sys>>"),
        re.compile(
            r"<\|(?:im_start|im_end|system|assistant|user|endoftext)\|>|\[/?INST\]|<</?SYS>>",
            re.IGNORECASE,
        ),
    ),
    (
        "tool_call_markup",
        ("tool_call", "function_call", "tool_use", "invoke"),
        re.compile(
            r"</?(?:tool_call|function_call|tool_use|function_calls|(?:\w+:)?invoke)\b[^>]*>"
            r"|[\"'](?:tool_calls|function_call|tool_use)[\"']\s*:",
            re.IGNORECASE,
        ),
    ),
)


_NOT_LOWERED = "\u0130\u0131\u017f"
"""``İ``, ``ı`` and ``ſ``: ``re.IGNORECASE`` takes them for ``i``, ``i`` and ``s``, and
:meth:`str.lower` does not turn them into those letters. Every other character that
``re.IGNORECASE`` takes for an ASCII letter is lowered to that letter."""


def _kinds(text: str) -> Iterator[str]:
    """The kinds of instruction in ``text``, in :data:`_PATTERNS` order.

    The patterns are slow to search, so a pattern whose words are all absent from the
    lowered text is not searched: it cannot match (unless the text holds a character of
    :data:`_NOT_LOWERED`, when every pattern is searched).
    """
    lowered = text.lower()
    screened = text.isascii() or not any(c in text for c in _NOT_LOWERED)
    for kind, words, pattern in _PATTERNS:
        if screened and not any(word in lowered for word in words):
            continue
        if pattern.search(text):
            yield kind


def injection_flags(text: str) -> list[str]:
    """Return ``prompt_injection:<kind>`` for each kind of instruction the text contains.

    Args:
        text: Page text.

    Returns:
        The flags, sorted; empty for ordinary text.
    """
    return sorted(f"{FLAG_PREFIX}{kind}" for kind in _kinds(text))


def is_instruction(text: str) -> bool:
    """True when ``text`` (a sentence) addresses the agent in any of the flagged ways."""
    return next(_kinds(text), None) is not None
