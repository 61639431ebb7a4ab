"""Word (DOCX) with python-docx and PowerPoint (PPTX) with python-pptx.

Both formats are zip packages of XML: the caller checks the package's directory first
(:func:`~deep_research.sources.documents._zip.checked_zip`), and both libraries parse their
XML with entity resolution switched off (``resolve_entities=False``), so an external entity
planted in a part is never read. Neither library follows a relationship to an external
target (a linked template, a linked image): only the package's own parts are read.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import Any

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents._text import DocumentLimits, DocumentText, TextBuilder
from deep_research.text.words import TABLE_CELLS

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)


def read_docx(data: bytes, limits: DocumentLimits) -> DocumentText:
    """Read a Word document in body order: heading styles become headings, tables rows.

    Raises:
        UnreadableDocumentError: ``no_text`` or ``too_large`` (see :class:`TextBuilder`).
    """
    from docx import Document
    from docx.table import Table

    document = Document(io.BytesIO(data))
    # a paragraph's style looked up by python-docx scans every style each time (90% of the
    # reading time of a long document): their names are read once
    names = {style.style_id: style.name or "" for style in document.styles}
    builder = TextBuilder(limits)
    first_heading: str | None = None
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            for line in _rows(block.rows):
                builder.block(line)
            continue
        level = _heading_level(names.get(block._p.style or "", ""))
        if level is None:
            builder.block(block.text)
        else:
            builder.heading(block.text, level)
            first_heading = first_heading or block.text.strip() or None
    title = document.core_properties.title or first_heading
    language = document.core_properties.language or None
    return builder.build(title, language=language)


def _heading_level(style: str) -> int | None:
    if style.strip().lower() == "title":
        return 1
    match = _HEADING_STYLE.match(style.strip())
    return int(match.group(1)) if match else None


def _rows(rows: Iterable[Any]) -> Iterator[str]:
    """Each table row as one line, its cells joined by `` | `` (a merged cell once)."""
    for row in rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell is the same XML element in each column
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            yield TABLE_CELLS.join(cells)


def read_pptx(data: bytes, limits: DocumentLimits) -> DocumentText:
    """Read a presentation slide by slide, each slide's title a heading.

    Under the title come the slide's texts and tables, top to bottom, then its speaker
    notes under ``<title> (notes)``.

    Raises:
        UnreadableDocumentError: ``too_large`` (more slides than the page limit) or
            ``no_text``.
    """
    from pptx import Presentation

    deck = Presentation(io.BytesIO(data))
    if len(deck.slides) > limits.max_pages:
        raise UnreadableDocumentError(
            "too_large", f"{len(deck.slides):,} slides (more than {limits.max_pages:,})"
        )
    builder = TextBuilder(limits)
    titles: list[str] = []
    for number, slide in enumerate(deck.slides, 1):
        builder.page()
        heading = slide.shapes.title
        title = " ".join(heading.text_frame.text.split()) if heading is not None else ""
        title = title or f"Slide {number}"
        titles.append(title)
        builder.heading(title, 1)
        skip = heading.shape_id if heading is not None else None
        for text in _shape_texts(slide.shapes, skip):
            builder.block(text)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                builder.heading(f"{title} (notes)", 2)
                builder.block(notes.text)
    return builder.build(deck.core_properties.title or next(iter(titles), None), kind="slide")


def _shape_texts(shapes: Iterable[Any], skip: int | None) -> Iterator[str]:
    """The text of each shape, top to bottom and left to right, groups opened."""
    ordered = sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))
    for shape in ordered:
        if shape.shape_id == skip:
            continue
        if getattr(shape, "shapes", None) is not None:  # a group
            yield from _shape_texts(shape.shapes, skip)
        elif getattr(shape, "has_table", False) and shape.has_table:
            yield from _rows(shape.table.rows)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            lines = [paragraph.text for paragraph in shape.text_frame.paragraphs]
            yield "\n".join(lines)
