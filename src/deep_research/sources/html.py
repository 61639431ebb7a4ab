"""Readable text from HTML and plain text: trafilatura for HTML, line clean-up for both.

HTML is reduced to its main content by trafilatura (scripts, styles, navigation, headers,
footers and boilerplate dropped) and rendered from trafilatura's document tree as plain text
in which headings are ``#`` lines, so that evidence spans know their section. Paragraphs,
list items (``- ``), table rows and quotes each become their own block. Newlines are
normalized and control characters stripped from every result. Fetched pages go through
:func:`extract_html` and :func:`extract_plain` (the web reader's
:func:`~deep_research.sources.web.extract.extract_page` chooses by type, and reads PDFs with the
local corpus's PDF reader); the local corpus's HTML files and EPUB chapters through
:func:`extract_html_file`, the same extractor tuned for whole documents.

Extraction is CPU work on possibly large pages: call these functions through
``asyncio.to_thread`` from async code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from deep_research.errors import FetchSkippedError, SourceError
from deep_research.text.words import TABLE_CELLS

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
MAX_TITLE_CHARS = 300

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NAVIGATION = re.compile(
    r"nav|nav[-_]?(?:bar|header|footer|igation|list)|breadcrumbs?|menu|toc|toctree[-_]wrapper"
    r"|sphinxsidebar(?:wrapper)?|sidebar|related",
    re.IGNORECASE,
)
"""A ``class`` or ``id`` word that marks an element as a site's or a manual's navigation
(DocBook's ``navheader``, ``navfooter`` and ``toc``, Sphinx's ``sphinxsidebar`` and ``related``,
a site's ``navbar`` or ``breadcrumb``)."""
_DOCUMENT = re.compile(r"<(?:html|body)[\s>]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ExtractedPage:
    """The readable text of a page and what is known about it."""

    title: str | None
    text: str
    language: str | None
    """The page's declared language (``<html lang>``), if any."""
    content_type: str
    author: str | None = None
    """The page's author(s) as its metadata names them (``Jane Doe; John Roe``)."""
    date: str | None = None
    """The page's publication date (ISO ``YYYY-MM-DD``), as trafilatura found it."""
    site_name: str | None = None
    """The site's name (``og:site_name`` and the like)."""
    pages: str | None = None
    """Where each page starts, for a PDF (a page map, ``page:0,1830,3702``), else ``None``."""


def clean_text(text: str) -> str:
    """Normalize newlines to LF and strip control characters other than newline and tab."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


def _title(title: str | None) -> str | None:
    cleaned = " ".join((title or "").split())[:MAX_TITLE_CHARS]
    return cleaned or None


def extract_html_file(html: str) -> ExtractedPage:
    """Extract the text of an HTML file of the local corpus with the extractor of web pages.

    A file is a document that someone chose, not a web page, so a few things differ from
    :func:`extract_page`. A page that marks no main content (no ``<main>`` or ``<article>``)
    has its body taken as the main content: trafilatura keeps headings only inside a content
    container, and would otherwise return bare paragraphs. Short pages keep their extracted
    text: trafilatura would replace text under 250 characters by a whole-page dump, navigation
    and footer included. A page is never skipped: when trafilatura finds no main content, the
    text is the page's visible text, possibly empty. The title is the ``<title>``, else the
    first ``<h1>``; trafilatura's metadata pass (which mostly looks for a date) is skipped.

    Args:
        html: The file's markup, already decoded.
    """
    import trafilatura

    if not _DOCUMENT.search(html):  # a fragment ("<p>x</p>"), which trafilatura rejects
        html = f"<html><body>{html}</body></html>"
    tree = trafilatura.load_html(html)
    if tree is None:  # nothing to parse (an empty file)
        return ExtractedPage(title=None, text="", language=None, content_type="text/html")
    tree = _prepared(tree)
    h1 = tree.find(".//h1")
    title = tree.findtext(".//title") or (h1.text_content() if h1 is not None else None)
    body = tree.find("body")
    if body is not None and tree.find(".//main") is None and tree.find(".//article") is None:
        main = body.makeelement("main")
        main.text, body.text = body.text, None
        main.extend(list(body))
        body.append(main)
    result = _extract(tree, _file_config(), with_metadata=False)
    text = _render(result.body) if result is not None else ""
    if not text.strip():
        text = clean_text(trafilatura.html2txt(_without_navigation(tree), clean=True))
    return ExtractedPage(
        title=_title(title), text=text, language=_language(tree, None), content_type="text/html"
    )


_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figure"),
        *("footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main"),
        *("nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul"),
    }
)
"""Elements that are blocks of their own: a ``<div>`` holding one is no paragraph."""


def _prepared(tree: Any) -> Any:
    """``tree`` made readable to trafilatura, which would otherwise lose or move its text.

    - A ``<pre>`` holds its text in a ``<code>``: trafilatura read a bare ``<pre>`` (DocBook's
      ``programlisting`` and ``synopsis``) as a quotation, its lines run into one.
    - Markup inside a ``<code>`` is reduced to its text: trafilatura moved code inside code
      (PostgreSQL's ``<code class="literal"><code class="function">pg_notify</code>(...)``)
      out of its sentence ("use the function . ... than the pg_notify(text, text)NOTIFY").
    - An anchor with no text and nothing inside (``<a id="sect.apt-update"></a>``, a link
      target) is left out: opening a heading, it made trafilatura drop the heading.
    - A ``<div>`` with text of its own and no block inside is a paragraph (``<p>``): of such a
      div (DocBook's Publican output, the Debian Administrator's Handbook among others:
      ``<div class="para">``), trafilatura read the inline elements and the text after them,
      not the text before the first; a chapter of 16,000 characters came out as 2,700.
    """
    for pre in list(tree.iter("pre")):
        if len(pre) == 1 and pre[0].tag == "code" and not (pre.text or "").strip():
            continue
        code = pre.makeelement("code", {})  # so that trafilatura keeps its lines
        code.text, pre.text = pre.text, None
        code.extend(list(pre))
        pre.append(code)
    for code in list(tree.iter("code")):
        if len(code) and code.getparent() is not None:  # inline markup inside code
            text = "".join(code.itertext())
            for child in list(code):
                code.remove(child)
            code.text = text
    for anchor in list(tree.iter("a")):
        if len(anchor) == 0 and not (anchor.text or "").strip() and anchor.getparent() is not None:
            anchor.drop_tree()  # its tail stays
    for div in tree.iter("div"):
        if any(isinstance(e.tag, str) and e.tag in _BLOCK_TAGS for e in div.iterdescendants()):
            continue
        if (div.text or "").strip() or any((child.tail or "").strip() for child in div):
            div.tag = "p"
    return tree


def _without_navigation(tree: Any) -> Any:
    """``tree`` without its navigation.

    Left out: ``<nav>``, ``role="navigation"`` and elements whose ``class`` or ``id`` names
    navigation (:data:`_NAVIGATION`). For the visible-text fallback of a page without main
    content, which would otherwise read a manual's chapter index page as "BRIN Indexes Prev Up
    Part VII. Internals Home Next" (PostgreSQL's navigation header), quotable as sentences. A
    page that is only navigation has no text.
    """
    for element in list(tree.iter()):
        if not isinstance(element.tag, str) or element.getparent() is None:
            continue  # a comment or processing instruction; or the root, or already left out
        words = f"{element.get('class') or ''} {element.get('id') or ''}".split()
        if (
            element.tag == "nav"
            or element.get("role") == "navigation"
            or any(_NAVIGATION.fullmatch(word) for word in words)
        ):
            element.drop_tree()  # its tail (the text after it) stays
    return tree


@cache
def _file_config() -> Any:
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "0")  # no whole-page rescue of short pages
    return config


def extract_html(body: bytes, charset: str | None) -> ExtractedPage:
    """The main content of a fetched HTML page, with its title, language and byline.

    Raises:
        SourceError: the body is not parseable HTML.
        FetchSkippedError: the page has no main content.
    """
    import trafilatura  # imported on first use: runs without web pages never pay for it
    from trafilatura.settings import DEFAULT_CONFIG

    # A declared charset wins; otherwise trafilatura detects it from the bytes.
    tree = trafilatura.load_html(_decode(body, charset) if charset else body)
    if tree is None:
        raise SourceError("the page is not parseable HTML")
    result = _extract(_prepared(tree), DEFAULT_CONFIG, with_metadata=True)
    if result is None:
        raise FetchSkippedError("no main content could be extracted from the page")
    return ExtractedPage(
        title=_title(result.title),
        text=_render(result.body),
        language=_language(tree, result.language),
        content_type="text/html",
        author=_title(getattr(result, "author", None)),
        date=_title(getattr(result, "date", None)),
        site_name=_title(getattr(result, "sitename", None)),
    )


def _extract(tree: Any, config: Any, *, with_metadata: bool) -> Any:
    """Run trafilatura on a parsed page.

    Returns:
        trafilatura's document (body, title, language...), or ``None`` without main content.
    """
    import trafilatura

    result = trafilatura.bare_extraction(
        tree,
        include_comments=False,
        include_tables=True,
        include_formatting=False,
        include_links=False,
        include_images=False,
        with_metadata=with_metadata,
        config=config,
    )
    if result is None or isinstance(result, dict) or result.body is None:
        return None
    return result


def _language(tree: Any, detected: str | None) -> str | None:
    """The page's declared language (``<html lang>``), else what trafilatura found."""
    language = tree.get("lang") or tree.get("xml:lang") or detected
    return language.strip() if isinstance(language, str) and language.strip() else None


def _render(body: Any) -> str:
    return clean_text("\n\n".join(_blocks(body)))


def _blocks(body: Any) -> list[str]:
    """Render trafilatura's document tree (head, p, list/item, table/row/cell, quote...).

    Only a heading is written as a ``#`` line: a line of any other block that would read as one
    (a shell prompt, ``# apt install``; a comment in a configuration example) is indented, as
    Markdown indents code.
    """
    blocks: list[str] = []
    for element in body:
        tag = element.tag
        if tag == "head":
            rend = str(element.get("rend") or "h2")
            level = int(rend[1]) if len(rend) == 2 and rend[1] in "123456" else 2
            blocks.append(f"{'#' * level} {_inline(element)}")
            continue
        if tag == "list":
            items = [_item_text(item) for item in element.findall("item")]
            block = "\n".join(f"- {item}" for item in items if item)
        elif tag == "table":
            rows = [
                TABLE_CELLS.join(_inline(c) for c in row.findall("cell"))
                for row in element.findall("row")
            ]
            block = "\n".join(row for row in rows if row.strip(" |"))
        elif tag == "code":
            lines = "".join(element.itertext()).split("\n")
            block = "\n".join(line.rstrip() for line in lines)
        else:
            block = _inline(element)
        blocks.append(_HASH_LINE.sub("    #", block))
    return [block for block in blocks if block.strip().lstrip("#").strip()]


_HASH_LINE = re.compile(r"^#", re.MULTILINE)
"""A line of a block that opens with ``#``, which would read as a heading."""


_SEPARATE = frozenset({"lb", "p", "head", "list", "item", "quote", "table", "row", "cell"})
"""trafilatura's elements that stand apart from the text around them (a line break, a block);
the others (``code``, ``hi``, ``ref``...) mark words inside a sentence."""


def _inline(element: Any) -> str:
    """The text of ``element`` on one line.

    Inline markup adds no space: "(<code>HEAD</code>)" is "(HEAD)", not "( HEAD )", and a
    word split by markup stays one word. A line break or a nested block adds one.
    """
    return " ".join(_joined(element).split())


_PARAGRAPHS = frozenset({"p", "head", "quote"})
"""Blocks inside a list item that are paragraphs of their own."""

_ENDS_SENTENCE = (".", ":", ";", "!", "?", "。", "：", "！", "？")
"""Marks after which a list item's next paragraph needs no colon to stand apart."""


def _item_text(item: Any) -> str:
    """A list item's text on one line, a label of its own paragraph followed by a colon.

    An item of several paragraphs whose first is a label ("<li><p><b>Maximum length of a
    string</b></p><p>The maximum number of bytes ...") reads "Maximum length of a string: The
    maximum number of bytes ...", as the page sets the label apart; run together without it,
    the label opened the next paragraph's first sentence.
    """
    parts = [item.text or ""]
    for child in item:
        if not isinstance(child.tag, str):  # a comment or processing instruction
            parts[-1] += child.tail or ""
        elif child.tag in _PARAGRAPHS:
            parts += [_joined(child), child.tail or ""]
        else:
            text = _joined(child)
            parts[-1] += (f" {text} " if child.tag in _SEPARATE else text) + (child.tail or "")
    text = ""
    for part in [" ".join(p.split()) for p in parts if p.strip()]:
        text = f"{text}{' ' if text.endswith(_ENDS_SENTENCE) else ': '}{part}" if text else part
    return text


def _joined(element: Any) -> str:
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):  # not a comment or processing instruction
            text = _joined(child)
            parts.append(f" {text} " if child.tag in _SEPARATE else text)
        parts.append(child.tail or "")
    return "".join(parts)


def extract_plain(body: bytes, charset: str | None, content_type: str) -> ExtractedPage:
    """A fetched text or Markdown page; its first non-blank line is its title."""
    text = clean_text(_decode(body, charset))
    first = next((line for line in text.split("\n") if line.strip()), "")
    return ExtractedPage(
        title=_title(first.lstrip("#")), text=text, language=None, content_type=content_type
    )
