"""What a document reader returns, the text builder the readers share, and page maps."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from deep_research.errors import UnreadableDocumentError
from deep_research.state.models import Document, EvidenceSpan, PageKind

SkipReason = Literal["unsupported", "encrypted", "no_text", "too_large", "unreadable"]
"""Why a corpus file was not read."""

SKIP_REASONS: dict[SkipReason, str] = {
    "unsupported": "unsupported format",
    "encrypted": "encrypted",
    "no_text": "no extractable text (a scanned document?)",
    "too_large": "too large",
    "unreadable": "unreadable",
}
"""Each reason as the command line and the report word it."""


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass(frozen=True)
class DocumentLimits:
    """What one document may hold before it is skipped as ``too_large``."""

    max_pages: int = 2_000
    """Pages of a PDF, slides of a presentation."""
    max_chars: int = 20_000_000
    """Characters of extracted text."""
    max_zip_entries: int = 10_000
    """Members of a DOCX, PPTX or EPUB (each is a zip archive)."""
    max_unpacked_bytes: int = 256 * 1024 * 1024
    """Uncompressed bytes of all the members of such an archive, as its directory declares."""
    max_ratio: int = 200
    """Largest compression ratio of a member over 1 MiB (a zip bomb's are in the thousands)."""


@dataclass(frozen=True)
class DocumentText:
    """A document's text, with headings as ``#`` lines, and where its pages start."""

    title: str | None
    text: str
    language: str | None = None
    pages: tuple[int, ...] = ()
    """Offset in ``text`` at which page (or slide) ``n`` starts, at index ``n - 1``."""
    page_kind: PageKind | None = None


@dataclass
class TextBuilder:
    """Builds a document's text block by block, each block a paragraph or a heading line."""

    limits: DocumentLimits
    parts: list[str] = field(default_factory=list)
    length: int = 0
    pages: list[int] = field(default_factory=list)
    body_chars: int = 0
    """Characters of body text (not headings) added: zero means no extractable text."""

    def page(self) -> None:
        """Start the next page (or slide) here."""
        self.pages.append(self.length)

    def heading(self, text: str, level: int = 1) -> None:
        """Add a heading line of ``level`` (1 to 6) unless ``text`` is blank."""
        line = " ".join(_CONTROL.sub(" ", text).split()).lstrip("#").strip()
        if line:
            self._add(f"{'#' * max(1, min(level, 6))} {line}")

    def block(self, text: str) -> None:
        """Add a paragraph, a table row or a list item: its lines kept, spaces tidied.

        Lines of an extracted chapter that are ``#`` headings already stay headings.
        """
        lines = [_SPACES.sub(" ", line).strip() for line in clean(text).split("\n")]
        kept = [line for line in lines if line]
        if kept:
            self.body_chars += sum(len(line) for line in kept if not line.startswith("#"))
            self._add("\n".join(kept))

    def _add(self, block: str) -> None:
        if self.length:
            self.parts.append("\n\n")
            self.length += 2
        self.parts.append(block)
        self.length += len(block)
        if self.length > self.limits.max_chars:
            raise UnreadableDocumentError(
                "too_large", f"more than {self.limits.max_chars:,} characters of text"
            )

    def build(
        self, title: str | None, *, language: str | None = None, kind: PageKind | None = None
    ) -> DocumentText:
        """The document, or ``no_text`` when no body text was added.

        Raises:
            UnreadableDocumentError: nothing but headings (or nothing at all) was found.
        """
        if not self.body_chars:
            raise UnreadableDocumentError(
                "no_text", "no extractable text (a scanned document, or images only?)"
            )
        title = " ".join((title or "").split())[:300] or None
        pages = tuple(self.pages) if kind else ()
        return DocumentText(title, "".join(self.parts), language, pages, kind)


def clean(text: str) -> str:
    """Newlines normalized to LF, control characters other than newline and tab dropped."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text.replace("\x0b", "\n").replace("\x0c", "\n"))


def page_map(kind: PageKind, starts: tuple[int, ...]) -> str:
    """The page map as stored with a document: ``page:0,1830,3702``."""
    return f"{kind}:{','.join(map(str, starts))}"


def parse_page_map(value: str | None) -> tuple[PageKind, list[int]] | None:
    """Read a map of :func:`page_map` (``None`` when absent or malformed)."""
    name, _, numbers = (value or "").partition(":")
    kind: PageKind
    if name == "page":
        kind = "page"
    elif name == "slide":
        kind = "slide"
    else:
        return None
    try:
        starts = [int(n) for n in numbers.split(",") if n]
    except ValueError:
        return None
    return (kind, starts) if starts else None


def page_at(value: str | None, offset: int) -> tuple[PageKind, int] | None:
    """The page (or slide), numbered from 1, on which ``offset`` of the text stands.

    Example:
        >>> page_at("page:0,120,250", 130)
        ('page', 2)
    """
    parsed = parse_page_map(value)
    if parsed is None:
        return None
    kind, starts = parsed
    number = bisect.bisect_right(starts, offset)
    return (kind, number) if number else None


def with_pages(spans: Sequence[EvidenceSpan], documents: Iterable[Document]) -> list[EvidenceSpan]:
    """``spans``, each quote of a PDF or a presentation given the page or slide it starts on.

    The page comes from the page map its document was read with (metadata ``pages``); spans
    of other documents are returned as they are.
    """
    maps = {d.id: d.metadata["pages"] for d in documents if d.metadata.get("pages")}
    paged = []
    for span in spans:
        found = page_at(maps.get(span.document_id), span.start)
        if found is not None:
            span = span.model_copy(update={"page_kind": found[0], "page": found[1]})
        paged.append(span)
    return paged
