"""PDF: pypdf's text of each page, its bookmarks as headings, and where each page starts.

Text is taken in pypdf's plain mode, which follows the order the page draws its text: a
typesetter draws a column whole before the next, so columns are read one after the other
(the layout mode would interleave their lines). Wrapped lines are joined into paragraphs
(a word hyphenated at a line's end is joined whole), so that a sentence is one line of the
corpus text. A bookmark becomes a heading at the paragraph of its page that it names, or at
the top of its page.

Malformed files are rejected by pypdf or by the caller's translation of its errors; pypdf
caps what one stream may decompress to (75 MB), and the page count is checked before any
page is read.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents._text import DocumentLimits, DocumentText, TextBuilder, clean

_BULLET = re.compile(r"^(?:[•▪◦‣·\-–—*]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s")
_HYPHENATED = re.compile(r"[^\W\d_]-$")
_STOPS = (".", "!", "?", ":", ";", "。", "！", "？", "：", "；")


def read_pdf(data: bytes, limits: DocumentLimits) -> DocumentText:
    """Read a PDF's pages, its bookmarks and its title.

    Raises:
        UnreadableDocumentError: ``encrypted`` (a password is needed), ``too_large`` (more
            pages than the limit), ``no_text`` (no page has a text layer), ``unreadable``.
    """
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, LimitReachedError, PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
    except PdfReadError as exc:
        raise UnreadableDocumentError("unreadable", f"not a readable PDF: {exc}") from None
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")  # many PDFs are encrypted with an empty user password
        except (DependencyError, NotImplementedError, PdfReadError) as exc:
            raise UnreadableDocumentError("encrypted", f"encrypted ({exc})") from None
        if not opened:
            raise UnreadableDocumentError("encrypted", "encrypted with a password")
    count = len(reader.pages)
    if count > limits.max_pages:
        raise UnreadableDocumentError(
            "too_large", f"{count:,} pages (more than {limits.max_pages:,})"
        )
    marks = _bookmarks(reader)
    builder = TextBuilder(limits)
    opening: str | None = None
    for number, page in enumerate(reader.pages):
        builder.page()
        try:
            extracted = page.extract_text()
            paragraphs = list(_paragraphs(extracted))
        except LimitReachedError as exc:  # a stream that unpacks past pypdf's caps: a bomb
            raise UnreadableDocumentError(
                "too_large", f"page {number + 1} decompresses past pypdf's limit ({exc})"
            ) from None
        if number == 0:
            opening = _opening_title(extracted)
        for level, title in marks.get(number, []):
            at = _named(paragraphs, title)
            if at is None:
                builder.heading(title, level)
                continue
            for paragraph in paragraphs[:at]:
                builder.block(paragraph)
            builder.heading(title, level)
            rest = paragraphs[at][len(title) :].strip() if _same(paragraphs[at], title) else ""
            paragraphs = ([rest] if rest else []) + paragraphs[at + 1 :]
        for paragraph in paragraphs:
            builder.block(paragraph)
    first_mark = next((t for ts in marks.values() for _, t in ts), None)
    return builder.build(_title(reader) or opening or first_mark, kind="page")


MAX_OPENING_TITLE = 100
"""Longest first line of a first page taken as the document's title (characters)."""


def _opening_title(text: str) -> str | None:
    """The first line of a first page, when it reads as a title.

    Most documents open with their title ("Shared MIME-info Database"); their first bookmark
    is a chapter ("1. Introduction"). A line is not taken when it is long, ends a sentence or a
    clause, has no letter, or is a section number's or an arXiv stamp's.
    """
    line = next((" ".join(ln.split()) for ln in text.split("\n") if ln.strip()), "")
    if (
        not line
        or len(line) > MAX_OPENING_TITLE
        or line[-1] in ".,;:"
        or not any(c.isalpha() for c in line)
        or re.match(r"(\d+(\.\d+)*\.?|[IVX]+\.)\s", line)
        or line.lower().startswith("arxiv:")
    ):
        return None
    return line


def _title(reader: Any) -> str | None:
    try:
        info = reader.metadata
        return str(info.title) if info is not None and info.title else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _bookmarks(reader: Any) -> dict[int, list[tuple[int, str]]]:
    """The outline's entries by 0-based page: (level from 1, title), in outline order."""
    marks: dict[int, list[tuple[int, str]]] = {}

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                number = reader.get_destination_page_number(item)
                title = str(item.title or "")
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                continue
            if number is not None and number >= 0 and title.strip():
                marks.setdefault(number, []).append((min(level, 6), title.strip()))

    try:
        walk(reader.outline, 1)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError):
        return {}
    return marks


def _paragraphs(text: str) -> Iterator[str]:
    """The page's lines joined into paragraphs (see the module docstring)."""
    lines = [" ".join(line.split()) for line in clean(text).split("\n")]
    widest = max((len(line) for line in lines), default=0)
    current, previous = "", ""
    for line in lines:
        if not line:
            if current:
                yield current
            current = ""
        elif current and _breaks(previous, line, widest):
            yield current
            current = line
        elif current and _HYPHENATED.search(current) and line[:1].islower():
            current = current[:-1] + line
        else:
            current = f"{current} {line}" if current else line
        previous = line
    if current:
        yield current


def _breaks(previous: str, line: str, widest: int) -> bool:
    """Whether ``line`` opens a new paragraph after the line ``previous``.

    It does after a line that ends a sentence, before a list item, and after a short line
    (a paragraph's last, or a heading's): wrapped lines run nearly the page's width.
    """
    if previous.endswith(_STOPS) or _BULLET.match(line):
        return True
    return widest >= 30 and len(previous) < 0.6 * widest and not previous.endswith((",", "-"))


def _same(paragraph: str, title: str) -> bool:
    return paragraph.casefold().startswith(" ".join(title.split()).casefold())


def _named(paragraphs: list[str], title: str) -> int | None:
    """The paragraph that opens with the bookmark's title, if one does."""
    return next((n for n, p in enumerate(paragraphs) if _same(p, title)), None)
