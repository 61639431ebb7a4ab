"""Which reader reads which suffix, and the one place their errors are translated."""

from __future__ import annotations

import importlib
import logging
import struct
import zipfile
import zlib
from collections.abc import Callable
from functools import cache

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents._text import DocumentLimits, DocumentText

logger = logging.getLogger(__name__)

DOCUMENT_TYPES = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".epub": "application/epub+zip",
    ".rst": "text/x-rst",
}
"""Document suffixes (lower-cased) the corpus reads with these readers, and their types."""

_LIBRARIES = {
    ".pdf": "pypdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".epub": "defusedxml",
    ".rst": "docutils",
}
"""The module each reader needs (all of them: extra ``documents``)."""


@cache
def documents_supported(suffix: str) -> bool:
    """Whether the reader of ``suffix`` has its library (extra ``documents``) installed."""
    try:
        importlib.import_module(_LIBRARIES[suffix])
    except ImportError:
        return False
    return True


def read_document(suffix: str, data: bytes, limits: DocumentLimits | None = None) -> DocumentText:
    """Read a document of a suffix of :data:`DOCUMENT_TYPES`.

    Args:
        suffix: The file's suffix, lower-cased (``.pdf``).
        data: The file's bytes.
        limits: Page, text and archive caps (default: :class:`DocumentLimits`).

    Raises:
        UnreadableDocumentError: the document was not read, with its reason:
            ``unsupported`` (its reader's library is not installed), ``encrypted``,
            ``no_text``, ``too_large`` or ``unreadable``.
    """
    limits = limits or DocumentLimits()
    if suffix not in DOCUMENT_TYPES:
        raise UnreadableDocumentError("unsupported", f"unsupported format {suffix or '(none)'}")
    if not documents_supported(suffix):
        raise UnreadableDocumentError(
            "unsupported",
            f"reading {suffix} files needs the optional readers: install deep-research[documents]",
        )
    reader = _reader(suffix)
    try:
        return reader(data, limits)
    except UnreadableDocumentError:
        raise
    except MemoryError:
        raise UnreadableDocumentError("too_large", "ran out of memory reading it") from None
    except RecursionError:
        raise UnreadableDocumentError("unreadable", "nested too deeply to read") from None
    # What the parsers raise on malformed input: a file someone saved badly is skipped with its
    # reason, never the end of the indexing.
    except _parse_errors() as exc:
        logger.debug("document reader failed", exc_info=True)
        detail = f"could not be parsed ({type(exc).__name__}: {exc})"[:300]
        raise UnreadableDocumentError("unreadable", detail) from None


@cache
def _parse_errors() -> tuple[type[BaseException], ...]:
    """The errors a reader raises on a malformed file (the optional parsers' own, if installed).

    Python's (``KeyError``, ``ValueError``, ``zipfile.BadZipFile``, ``struct.error``...); lxml's
    and ElementTree's syntax errors are ``SyntaxError``, defusedxml's refusals ``ValueError``.
    """
    errors: list[type[BaseException]] = [
        ValueError,
        KeyError,
        IndexError,
        TypeError,
        AttributeError,
        AssertionError,
        LookupError,
        SyntaxError,
        OSError,
        EOFError,
        zipfile.BadZipFile,
        struct.error,
        zlib.error,
    ]
    for module, name in (("pypdf.errors", "PyPdfError"), ("docutils", "ApplicationError")):
        try:
            errors.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


def _reader(suffix: str) -> Callable[[bytes, DocumentLimits], DocumentText]:
    if suffix == ".pdf":
        from deep_research.sources.documents._pdf import read_pdf

        return read_pdf
    if suffix in (".docx", ".pptx"):
        from deep_research.sources.documents._office import read_docx, read_pptx

        return _zipped(read_docx if suffix == ".docx" else read_pptx)
    if suffix == ".epub":
        from deep_research.sources.documents._epub import read_epub

        return read_epub
    from deep_research.sources.documents._rst import read_rst

    return lambda data, limits: read_rst(data.decode("utf-8", errors="replace"), limits)


def _zipped(
    read: Callable[[bytes, DocumentLimits], DocumentText],
) -> Callable[[bytes, DocumentLimits], DocumentText]:
    """``read``, after the zip package's directory passed its checks."""
    from deep_research.sources.documents._zip import checked_zip

    def checked(data: bytes, limits: DocumentLimits) -> DocumentText:
        checked_zip(data, limits).close()
        return read(data, limits)

    return checked
