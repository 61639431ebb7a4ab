"""EPUB: the chapters of the spine, in order, each extracted as the corpus's HTML files are.

An EPUB is a zip package: its directory is checked before anything is read (zip bombs), its
package document is parsed with defusedxml (no DTD, no entity: an external entity is
refused, never read), and a chapter is read only as a member of the archive, by a name
resolved inside it: a link that climbs out of the archive (``../../secret``) or names an
absolute path names no member and is left out. Nothing outside the file is ever opened.
"""

from __future__ import annotations

import logging
import posixpath
import zipfile
from xml.etree.ElementTree import Element

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents._text import DocumentLimits, DocumentText, TextBuilder
from deep_research.sources.documents._zip import checked_zip, read_member

logger = logging.getLogger(__name__)

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def read_epub(data: bytes, limits: DocumentLimits) -> DocumentText:
    """Read an EPUB's chapters in spine order; each chapter's headings are kept.

    Raises:
        UnreadableDocumentError: ``unreadable`` (no package document, or unsafe XML),
            ``too_large``, ``encrypted`` (DRM) or ``no_text``.
    """
    from deep_research.sources.html import extract_html_file

    archive = checked_zip(data, limits)
    names = set(archive.namelist())
    if "META-INF/encryption.xml" in names and _drm(archive):
        raise UnreadableDocumentError("encrypted", "its chapters are encrypted (DRM)")
    container = _xml(read_member(archive, "META-INF/container.xml"))
    rootfile = container.find(f".//{_CONTAINER}rootfile")
    opf_name = rootfile.get("full-path", "") if rootfile is not None else ""
    package = _xml(read_member(archive, _inside(opf_name) or "?"))
    metadata = package.find(f"{_OPF}metadata")
    title = _text(metadata, f"{_DC}title")
    language = _text(metadata, f"{_DC}language")
    items = {item.get("id", ""): item for item in package.iterfind(f"{_OPF}manifest/{_OPF}item")}
    builder = TextBuilder(limits)
    base = posixpath.dirname(opf_name)
    for number, ref in enumerate(package.iterfind(f"{_OPF}spine/{_OPF}itemref"), 1):
        item = items.get(ref.get("idref", ""))
        if item is None or item.get("media-type") not in _CHAPTER_TYPES:
            continue
        name = _inside(posixpath.join(base, item.get("href", "").split("#")[0]))
        if name is None or name not in names:
            logger.warning("EPUB chapter %r is not in the book: left out", item.get("href"))
            continue
        page = extract_html_file(read_member(archive, name).decode("utf-8", errors="replace"))
        if not page.text.lstrip().startswith("#"):  # a chapter with no heading of its own
            builder.heading(page.title or f"Chapter {number}", 1)
        builder.block(page.text)
    return builder.build(title, language=language)


def _inside(name: str) -> str | None:
    """``name`` normalized as a member name, or ``None`` when it leaves the archive."""
    normal = posixpath.normpath(name)
    if not name or normal.startswith(("/", "../")) or normal == "..":
        return None
    return normal


def _xml(data: bytes) -> Element:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    try:
        root: Element = fromstring(data, forbid_dtd=True)
    except (DefusedXmlException, ParseError) as exc:
        raise UnreadableDocumentError("unreadable", f"unsafe or malformed XML: {exc}") from None
    return root


def _text(parent: Element | None, tag: str) -> str | None:
    found = parent.find(tag) if parent is not None else None
    return (found.text or "").strip() or None if found is not None else None


def _drm(archive: zipfile.ZipFile) -> bool:
    """Whether ``META-INF/encryption.xml`` encrypts content (not only obfuscated fonts)."""
    listing = read_member(archive, "META-INF/encryption.xml")
    return b"EncryptedData" in listing and b"obfuscation" not in listing.lower()
