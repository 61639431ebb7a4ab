"""The documents of a local corpus: PDF, Word, PowerPoint, EPUB and reStructuredText.

Each reader turns a file's bytes into the corpus's plain text, in which the document's own
outline (PDF bookmarks, Word heading styles, slide titles, EPUB chapters, reStructuredText
sections) becomes ``#`` heading lines, and records where each page (PDF) or slide (PPTX)
starts, so that a quote can name its page. A file that cannot be read raises
:class:`~deep_research.errors.UnreadableDocumentError` with one of :data:`SKIP_REASONS`.
See docs/local-corpus.md.
"""

from deep_research.sources.documents._read import (
    DOCUMENT_TYPES,
    documents_supported,
    read_document,
)
from deep_research.sources.documents._text import (
    SKIP_REASONS,
    DocumentLimits,
    DocumentText,
    SkipReason,
    page_at,
    page_map,
    parse_page_map,
    with_pages,
)

__all__ = [
    "DOCUMENT_TYPES",
    "SKIP_REASONS",
    "DocumentLimits",
    "DocumentText",
    "SkipReason",
    "documents_supported",
    "page_at",
    "page_map",
    "parse_page_map",
    "read_document",
    "with_pages",
]
