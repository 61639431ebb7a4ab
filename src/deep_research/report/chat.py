r"""The chat copy of a report: Markdown that chat clients' extensions do not misread.

Chat front ends render Markdown with extensions beyond CommonMark: agent-chat-ui typesets
``$...$`` as mathematics (so "A$15 million ... A$8 million" becomes italic run-together
text) and GitHub-flavoured ``~text~`` as strikethrough. The report's chat message (the
assistant message a run adds to ``messages``) therefore escapes ``$`` and ``~`` with a
backslash, a CommonMark escape of ASCII punctuation: a CommonMark renderer shows exactly what
it showed before, and the extensions see plain characters.

What CommonMark does not unescape is left alone: code (fenced, indented, inline spans),
autolinks (``<https://...>``), raw HTML, and bare URLs (which GitHub-flavoured renderers link).
A character already escaped stays as it is. The report itself (report.md, report.json, the
``report`` of the state) is not changed. :func:`chat_plain` undoes the escapes, for the
report message read back as the history of a follow-up (a model is asked in plain words).

Example:
    >>> print(chat_markdown("A$15 million, not ~A$8 million; `cost $x` stays."))
    A\$15 million, not \~A\$8 million; `cost $x` stays.
    >>> print(chat_plain(chat_markdown("A$15 million, `cost $x`")))
    A$15 million, `cost $x`
"""

from __future__ import annotations

import re
from collections.abc import Callable

ESCAPED = "$~"
"""The characters escaped outside code, autolinks, raw HTML and URLs."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_SKIPS = re.compile(
    r"(?P<code>(?P<ticks>`+).*?(?<!`)(?P=ticks)(?!`))"  # a code span
    r"|(?P<auto><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*>)"  # an autolink
    r"|(?P<html></?[A-Za-z][^<>]*>)"  # raw HTML (reports are inert; kept safe anyway)
    r"|(?P<url>\b(?:https?|ftp)://[^\s<>]+|\bwww\.[^\s<>]+)",  # a bare URL
    re.DOTALL,
)
_SPECIAL = re.compile(r"(\\*)([$~])")


def _escape_text(text: str) -> str:
    """Escape the characters of :data:`ESCAPED` not already escaped in plain ``text``."""

    def escape(match: re.Match[str]) -> str:
        slashes, char = match.group(1), match.group(2)
        return match.group(0) if len(slashes) % 2 else f"{slashes}\\{char}"

    return _SPECIAL.sub(escape, text)


def _unescape_text(text: str) -> str:
    """Drop the backslash of each escaped character of :data:`ESCAPED` in plain ``text``."""

    def unescape(match: re.Match[str]) -> str:
        slashes, char = match.group(1), match.group(2)
        return f"{slashes[:-1]}{char}" if len(slashes) % 2 else match.group(0)

    return _SPECIAL.sub(unescape, text)


def _inline(block: str, change: Callable[[str], str]) -> str:
    """``change`` a block of paragraph text, leaving code spans, autolinks, HTML and URLs."""
    parts: list[str] = []
    at = 0
    for match in _INLINE_SKIPS.finditer(block):
        parts.append(change(block[at : match.start()]))
        parts.append(match.group(0))
        at = match.end()
    parts.append(change(block[at:]))
    return "".join(parts)


def _is_indented_code(line: str, previous: str, in_code: bool) -> bool:
    """An indented code line: four spaces after a blank line or more code (when unsure, yes)."""
    indented = line.startswith(("    ", "\t")) and line.strip() != ""
    return indented and (in_code or previous.strip() == "")


def chat_markdown(markdown: str) -> str:
    """The report's Markdown with ``$`` and ``~`` escaped where CommonMark unescapes them."""
    return _paragraphs(markdown, _escape_text)


def chat_plain(markdown: str) -> str:
    """A chat copy with the escapes of :func:`chat_markdown` undone (it renders the same)."""
    return _paragraphs(markdown, _unescape_text)


def _paragraphs(markdown: str, change: Callable[[str], str]) -> str:
    """``markdown`` with paragraph text (not code) ``change``d, outside inline skips."""
    out: list[str] = []
    paragraph: list[str] = []
    fence: str | None = None
    in_code = False
    previous = ""

    def flush() -> None:
        if paragraph:
            out.append(_inline("".join(paragraph), change))
            paragraph.clear()

    for line in markdown.splitlines(keepends=True):
        if fence is not None:
            out.append(line)
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
        elif opened := _FENCE.match(line):
            flush()
            fence = opened.group(1)
            out.append(line)
        elif _is_indented_code(line, previous, in_code):
            flush()
            in_code = True
            out.append(line)
        else:
            in_code = in_code and line.strip() == ""
            paragraph.append(line)
            if line.strip() == "":
                flush()
        previous = line
    flush()
    return "".join(out)
