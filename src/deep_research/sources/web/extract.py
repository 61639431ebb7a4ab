"""Page text from fetched bytes, by content type: HTML, plain text and PDF.

HTML and text are read by :mod:`deep_research.sources.html` (trafilatura for HTML). A PDF is
read by the local corpus's PDF reader (:mod:`deep_research.sources.documents`): wrapped lines
joined into paragraphs, bookmarks as headings, and where each page starts kept with the page,
so that a quote from a fetched PDF names its page as one from a PDF on disk does. PDFs need
the optional parser (``pypdf``, extra ``pdf`` or ``documents``); without it they are skipped
before their body is read.

Extraction is CPU work on possibly large pages: call :func:`extract_page` through
``asyncio.to_thread`` from async code.
"""

from __future__ import annotations

import importlib

from deep_research.errors import FetchSkippedError, SourceError, UnreadableDocumentError
from deep_research.sources.documents import page_map, read_document
from deep_research.sources.html import (
    HTML_TYPES,
    TEXT_TYPES,
    ExtractedPage,
    extract_html,
    extract_plain,
)

PDF_TYPE = "application/pdf"


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
        page = extract_html(body, charset)
    elif content_type in TEXT_TYPES:
        page = extract_plain(body, charset, content_type)
    elif content_type == PDF_TYPE:
        page = _pdf(body)
    else:
        raise FetchSkippedError(f"content type {content_type} is not supported")
    if not page.text.strip():
        raise FetchSkippedError("the page has no readable text")
    return page


def _pdf(body: bytes) -> ExtractedPage:
    if not pdf_supported():
        raise FetchSkippedError("PDF needs the optional parser: install deep-research[pdf] (pypdf)")
    try:
        document = read_document(".pdf", body)
    except UnreadableDocumentError as exc:
        if exc.reason in ("no_text", "encrypted", "too_large"):
            raise FetchSkippedError(f"the PDF was not read: {exc.detail}") from None
        raise SourceError(f"the PDF could not be parsed: {exc.detail}") from None
    pages = page_map(document.page_kind, document.pages) if document.page_kind else None
    # no title in its metadata or bookmarks: its first line, as a reader would name it
    first = next((line for line in document.text.split("\n") if line.strip()), "")
    title = document.title or " ".join(first.lstrip("#").split())[:300] or None
    return ExtractedPage(
        title=title, text=document.text, language=None, content_type=PDF_TYPE, pages=pages
    )
