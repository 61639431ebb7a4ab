"""The block structure of a draft: which lines are prose, which are kept byte for byte.

A report is more than sentences. Fenced code (mermaid diagrams included), display math, raw
HTML blocks, images, lines that hold only links, and thematic breaks state no sentence to
check: they are **verbatim**, never split into claims, never given a final mark, and come back
from verification byte for byte. Tables are read by their structure: a header line, a
separator line (``| --- | :-: |``), then data rows; only the cells of data rows are claims,
each cell that states something checked on its own and revised in its cell
(:mod:`deep_research.verification.citations`).

:func:`layout` reads the lines once; the rest of verification asks it what each line is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Layout", "cell_spans", "cells", "is_link_only", "layout"]

_FENCE = re.compile(r"\s*(`{3,}|~{3,})")
"""The opening of a fenced code block; the fence closes at a line of the same character, at
least as long, with nothing after it."""
_MATH = re.compile(r"\s*(\$\$|\\\[)")
"""Display math: ``$$`` (closed by ``$$``) or ``\\[`` (closed by ``\\]``)."""
_MATH_CLOSE = {"$$": "$$", "\\[": "\\]"}
_BLOCK_TAGS = (
    "address|article|aside|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|"
    "div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hr|html|iframe|legend|"
    "li|link|main|menu|nav|ol|optgroup|option|p|param|pre|script|section|style|summary|table|"
    "tbody|td|textarea|tfoot|th|thead|title|tr|ul"
)
_HTML = re.compile(
    rf"\s{{0,3}}(?:<!--|<\?|<![A-Za-z]|</?(?:{_BLOCK_TAGS})(?:[\s/>]|$)"
    r"|</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>\s*$)",
    re.I,
)
"""A line opening a raw HTML block, as CommonMark reads one: a comment, a block-level tag
(``<div>``, ``<details>``, ``<table>``...), or any other tag alone on its line. The block runs
to the next blank line. A line that only starts with an inline tag (``<b>Note</b>: …``) is
prose, checked like any other."""
_BREAK = re.compile(r"\s{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
"""A thematic break: ``---``, ``***``, ``___`` (or spaced)."""
_LIST_PREFIX = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+")
_LINK = re.compile(
    r"!?\[(?:[^\[\]]|!?\[[^\]]*\]\([^)]*\))*\]\([^)]*\)"  # [text](url), ![alt](src), [![a](b)](c)
    r"|!?\[[^\]]*\]\[[^\]]*\]"  # reference-style links and images
    r"|<[a-z][a-z0-9+.-]*:[^>\s]*>"  # <https://...>
    r"|\b(?:https?|ftp)://\S+",  # a bare URL
    re.I,
)
_LINK_MARKS = ("](", "][", "<", "://")
"""Text that every match of :data:`_LINK` holds, one of its forms each: a line with none of it
has no link (checked first, as the pattern's search of a long prose line is slow)."""
_LEFT_OVER = re.compile(r"[\s\-–—|·•,;:()]*")
"""What may stand between the links of a link-only line."""
_CODE_ONLY = re.compile(r"\s*(?:(?:[-*+]|\d+[.)])\s+)?`[^`]+`\s*")
"""A line (or list item) that is one inline code span: ```git status --short```."""
_SEPARATOR_CELL = re.compile(r"\s*:?-{1,}:?\s*")
_PIPE = re.compile(r"(?<!\\)\|")
"""A cell separator: a pipe not escaped by a backslash."""


def cell_spans(line: str) -> list[tuple[int, int]]:
    """Where the text of each cell of a table line sits: ``(start, end)``, spaces excluded.

    Outer pipes are optional; a pipe escaped by a backslash is text, not a separator.
    """
    cuts = [match.start() for match in _PIPE.finditer(line)]
    left, right = len(line) - len(line.lstrip()), len(line.rstrip())
    opening = cuts.pop(0) if cuts and cuts[0] == left else left - 1
    closing = cuts.pop() if cuts and cuts[-1] == right - 1 else right
    bounds = [opening, *cuts, closing]
    spans = []
    for before, after in zip(bounds, bounds[1:], strict=False):
        start, end = before + 1, after
        while start < end and line[start].isspace():
            start += 1
        while end > start and line[end - 1].isspace():
            end -= 1
        spans.append((start, end))
    return spans


def cells(line: str) -> list[str]:
    """The cells of a table line, stripped (outer pipes optional; an escaped pipe stays)."""
    return [line[start:end] for start, end in cell_spans(line)]


def _is_separator(line: str) -> bool:
    """A table's separator line: cells of dashes (with alignment colons), one pipe at least."""
    if not _PIPE.search(line):
        return False
    return all(_SEPARATOR_CELL.fullmatch(cell) for cell in cells(line))


def is_link_only(line: str) -> bool:
    """A line (or list item) that holds only images, links or URLs, and no words besides."""
    prefix = _LIST_PREFIX.match(line)
    rest = line[prefix.end() :] if prefix else line
    if not any(mark in rest for mark in _LINK_MARKS) or not _LINK.search(rest):
        return False
    return bool(_LEFT_OVER.fullmatch(_LINK.sub("", rest)))


@dataclass(frozen=True)
class Layout:
    """What each line of a text is, by 0-based line index."""

    verbatim: frozenset[int]
    """Lines kept byte for byte: code, math, HTML, images, link-only lines, breaks."""
    table_heads: frozenset[int]
    """The header and separator lines of tables (kept as written, not claims)."""
    rows: frozenset[int]
    """The data rows of tables."""
    tables: tuple[tuple[int, int], ...]
    """Each table as ``(header line, end)``: its lines are ``range(header, end)``."""

    def is_prose(self, index: int, line: str) -> bool:
        """Whether line ``index`` is prose: not blank, verbatim, a table, heading or quote."""
        if index in self.verbatim or index in self.table_heads or index in self.rows:
            return False
        stripped = line.strip()
        return bool(stripped) and not stripped.startswith(("#", ">", "|"))


def _block_end(lines: Sequence[str], start: int) -> int | None:
    """The index after the verbatim block opening at ``start``, or ``None`` if none opens."""
    line = lines[start]
    fence = _FENCE.match(line)
    if fence:
        mark = fence.group(1)
        for end in range(start + 1, len(lines)):
            closing = lines[end].strip()
            if closing.startswith(mark[0] * len(mark)) and not closing.strip(mark[0]):
                return end + 1
        return len(lines)  # an unclosed fence runs to the end, as Markdown renders it
    math = _MATH.match(line)
    if math:
        close = _MATH_CLOSE[math.group(1)]
        if close in line[math.end() :]:
            return start + 1  # $$ x $$ on one line
        for end in range(start + 1, len(lines)):
            if close in lines[end]:
                return end + 1
        return len(lines)
    if _HTML.match(line):
        end = start + 1
        while end < len(lines) and lines[end].strip():
            end += 1
        return end
    if _BREAK.fullmatch(line) or is_link_only(line) or _CODE_ONLY.fullmatch(line):
        return start + 1
    return None


_UNDERLINE = re.compile(r"\s{0,3}(?:=+|-+)\s*")


def _is_setext(lines: Sequence[str], index: int) -> bool:
    """Whether line ``index`` is a heading's text underlined by the next (``=====``).

    Only a line that starts a paragraph (a blank line or nothing before it) is read so.
    """
    line = lines[index]
    if index + 1 >= len(lines) or not line.strip() or not _UNDERLINE.fullmatch(lines[index + 1]):
        return False
    if index and lines[index - 1].strip():
        return False
    return not (line.lstrip().startswith(("#", ">", "|")) or _LIST_PREFIX.match(line))


def layout(lines: Sequence[str]) -> Layout:
    """Read the block structure of ``lines`` (a text split into lines)."""
    verbatim: set[int] = set()
    heads: set[int] = set()
    rows: set[int] = set()
    tables: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        end = _block_end(lines, index)
        if end is None and _is_setext(lines, index):
            end = index + 2  # a heading underlined with === or ---: no sentence to check
        if end is not None:
            verbatim.update(range(index, end))
            index = end
            continue
        line = lines[index]
        if _PIPE.search(line) and index + 1 < len(lines) and _is_separator(lines[index + 1]):
            heads.update((index, index + 1))
            end = index + 2
            while end < len(lines) and lines[end].strip() and _PIPE.search(lines[end]):
                rows.add(end)
                end += 1
            tables.append((index, end))
            index = end
            continue
        stripped = line.strip()
        if len(stripped) > 1 and stripped[0] == stripped[-1] == "|" and not _is_separator(line):
            rows.add(index)  # a row without a header: checked like one
        index += 1
    return Layout(frozenset(verbatim), frozenset(heads), frozenset(rows), tuple(tables))
