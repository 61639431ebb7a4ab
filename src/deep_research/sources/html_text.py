"""Plain text from an HTML page, with the standard library's ``html.parser``.

Page furniture (scripts, styles, navigation, headers, footers, asides, forms) is dropped.
Headings become Markdown-style ``#`` lines, so that later code can tell which section a quote
stands in; paragraphs, list items (``- ``) and other blocks each stand on their own lines,
separated by blank lines. ``<pre>`` keeps its line breaks and indentation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

SKIPPED_TAGS = frozenset(
    {
        "script",
        "style",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "noscript",
        "template",
        "svg",
        "iframe",
    }
)
"""Elements whose whole content is left out of the text."""

BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "body",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "hr",
        "html",
        "main",
        "ol",
        "p",
        "section",
        "summary",
        "table",
        "tr",
        "ul",
    }
)
"""Elements that start and end a block of text."""

_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class HtmlText:
    """The text of an HTML page and its title."""

    title: str | None
    """The ``<title>``, else the first ``<h1>``, else ``None``."""
    text: str
    """Blocks of text separated by blank lines; headings as ``#`` lines."""


def html_to_text(html: str) -> HtmlText:
    """Extract the readable text and the title of an HTML page.

    Args:
        html: The page's markup, already decoded.

    Returns:
        The title and the text; see the module docstring for the layout of the text.
    """
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    parser.flush()
    return HtmlText(title=parser.title or parser.first_h1, text="\n\n".join(parser.blocks))


class _TextParser(HTMLParser):
    """Collects blocks of text; see :func:`html_to_text`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.title: str | None = None
        self.first_h1: str | None = None
        self._parts: list[str] = []
        self._prefix = ""
        self._heading = 0
        self._pre = 0
        self._skip: list[str] = []
        self._title_parts: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED_TAGS:
            if not self._skip:
                self.flush()
            self._skip.append(tag)
        elif self._skip:
            return
        elif tag == "title":
            self._title_parts = [] if self.title is None else None
        elif tag in _HEADINGS:
            self.flush()
            self._heading = _HEADINGS[tag]
            self._prefix = "#" * self._heading + " "
        elif tag == "li":
            self.flush()
            self._prefix = "- "
        elif tag == "pre":
            self.flush()
            self._pre += 1
        elif tag == "br":
            self._parts.append("\n")
        elif tag in ("td", "th"):
            self._parts.append(" ")
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED_TAGS:
            if tag in self._skip:
                # Close the innermost open element of that name, and what it left open.
                del self._skip[len(self._skip) - 1 - self._skip[::-1].index(tag) :]
        elif self._skip:
            return
        elif tag == "title":
            if self._title_parts is not None:
                self.title = " ".join("".join(self._title_parts).split()) or None
            self._title_parts = None
        elif tag in _HEADINGS:
            text = self.flush()
            if self._heading == 1 and self.first_h1 is None and text:
                self.first_h1 = text
            self._heading = 0
            self._prefix = ""
        elif tag == "li":
            self.flush()
            self._prefix = ""
        elif tag == "pre":
            self.flush()
            self._pre = max(0, self._pre - 1)
        elif tag in BLOCK_TAGS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._title_parts is not None:
            self._title_parts.append(data)
        elif self._pre:
            self._parts.append(data)
        else:
            self._parts.append(_WHITESPACE.sub(" ", data))

    def flush(self) -> str:
        """End the current block: append it to ``blocks`` unless empty, and return its text."""
        raw = "".join(self._parts)
        self._parts.clear()
        if self._pre:
            text = "\n".join(line.rstrip() for line in raw.split("\n")).strip("\n")
        else:
            lines = [" ".join(line.split()) for line in raw.split("\n")]
            text = (" " if self._heading else "\n").join(line for line in lines if line)
        if not text.strip():
            return ""
        self.blocks.append(self._prefix + text)
        self._prefix = ""
        return text
