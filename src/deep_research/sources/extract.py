"""Page text from fetched bytes: trafilatura for HTML, pypdf for PDF when it is installed.

HTML is reduced to its main content by trafilatura (scripts, styles, navigation, headers,
footers and boilerplate dropped) and rendered from trafilatura's document tree as plain text
in which headings are ``#`` lines, so that evidence spans know their section. Paragraphs,
list items (``- ``), table rows and quotes each become their own block. Newlines are
normalized and control characters stripped from every result.

Extraction is CPU work on possibly large pages: call :func:`extract_page` through
``asyncio.to_thread`` from async code.
"""

from __future__ import annotations

import importlib
import io
from dataclasses import dataclass
from typing import Any

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.sources.local import clean_text

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
PDF_TYPE = "application/pdf"
MAX_TITLE_CHARS = 300


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """The readable text of a page and what is known about it."""

    title: str | None
    text: str
    language: str | None
    """The page's declared language (``<html lang>``), if any."""
    content_type: str


def pdf_supported() -> bool:
    """True when the optional PDF parser (``pypdf``, extra ``pdf``) is importable.

    It imports the parser rather than searching the path: the import system's file access is
    what the LangGraph dev server's blocking-call detector tolerates on the event loop.
    """
    try:
        importlib.import_module("pypdf")
    except ImportError:
        return False
    return True


def supported_types() -> frozenset[str]:
    """Content types the fetcher reads; others are skipped before their body is read."""
    return HTML_TYPES | TEXT_TYPES | ({PDF_TYPE} if pdf_supported() else frozenset())


def extract_page(body: bytes, content_type: str, charset: str | None = None) -> ExtractedPage:
    """Turn a fetched body into text.

    Args:
        body: The bytes as received.
        content_type: The media type, lower-case, without parameters.
        charset: The charset the server declared, if any.

    Raises:
        FetchSkippedError: the type is not supported, or the page has no readable text.
        SourceError: the body could not be parsed.
    """
    if content_type in HTML_TYPES:
        page = _html(body, charset)
    elif content_type in TEXT_TYPES:
        page = _plain(body, charset, content_type)
    elif content_type == PDF_TYPE:
        page = _pdf(body)
    else:
        raise FetchSkippedError(f"content type {content_type} is not supported")
    if not page.text.strip():
        raise FetchSkippedError("the page has no readable text")
    return page


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


def _title(title: str | None) -> str | None:
    cleaned = " ".join((title or "").split())[:MAX_TITLE_CHARS]
    return cleaned or None


def _html(body: bytes, charset: str | None) -> ExtractedPage:
    import trafilatura  # imported on first use: runs without web pages never pay for it

    # A declared charset wins; otherwise trafilatura detects it from the bytes.
    tree = trafilatura.load_html(_decode(body, charset) if charset else body)
    if tree is None:
        raise SourceError("the page is not parseable HTML")
    language = tree.get("lang") or tree.get("xml:lang")
    result = trafilatura.bare_extraction(
        tree,
        include_comments=False,
        include_tables=True,
        include_formatting=False,
        include_links=False,
        include_images=False,
        with_metadata=True,
    )
    if result is None or isinstance(result, dict) or result.body is None:
        raise FetchSkippedError("no main content could be extracted from the page")
    text = clean_text("\n\n".join(_blocks(result.body)))
    language = language or result.language
    return ExtractedPage(
        title=_title(result.title),
        text=text,
        language=language.strip() if isinstance(language, str) and language.strip() else None,
        content_type="text/html",
    )


def _blocks(body: Any) -> list[str]:
    """Render trafilatura's document tree (head, p, list/item, table/row/cell, quote...)."""
    blocks: list[str] = []
    for element in body:
        tag = element.tag
        if tag == "head":
            rend = str(element.get("rend") or "h2")
            level = int(rend[1]) if len(rend) == 2 and rend[1] in "123456" else 2
            blocks.append(f"{'#' * level} {_inline(element)}")
        elif tag == "list":
            items = [f"- {_inline(item)}" for item in element.findall("item")]
            blocks.append("\n".join(item for item in items if item != "- "))
        elif tag == "table":
            rows = [
                " | ".join(_inline(c) for c in row.findall("cell"))
                for row in element.findall("row")
            ]
            blocks.append("\n".join(row for row in rows if row.strip(" |")))
        elif tag == "code":
            lines = "".join(element.itertext()).split("\n")
            blocks.append("\n".join(line.rstrip() for line in lines))
        else:
            blocks.append(_inline(element))
    return [block for block in blocks if block.strip().lstrip("#").strip()]


def _inline(element: Any) -> str:
    return " ".join(" ".join(element.itertext()).split())


def _plain(body: bytes, charset: str | None, content_type: str) -> ExtractedPage:
    text = clean_text(_decode(body, charset))
    first = next((line for line in text.split("\n") if line.strip()), "")
    return ExtractedPage(
        title=_title(first.lstrip("#")), text=text, language=None, content_type=content_type
    )


def _pdf(body: bytes) -> ExtractedPage:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        raise FetchSkippedError(
            "PDF needs the optional parser: install deep-research[pdf] (pypdf)"
        ) from None
    try:
        reader = PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
        title = reader.metadata.title if reader.metadata is not None else None
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"the PDF could not be parsed: {exc}") from exc
    text = clean_text("\n\n".join(page.strip() for page in pages if page.strip()))
    if not title:
        title = next((line for line in text.split("\n") if line.strip()), None)
    return ExtractedPage(title=_title(title), text=text, language=None, content_type=PDF_TYPE)
