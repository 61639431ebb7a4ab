"""Real document files for the tests and the bench, made here with the libraries the readers use.

PDFs are written object by object (no PDF library is needed to make one): each page is a list of
text lines placed at given points, in Helvetica or, for non-Latin text, in a CID font whose
``ToUnicode`` map lets a reader extract the characters (no glyphs are embedded: the text layer is
what the tests read). DOCX and PPTX files are made with python-docx and python-pptx, EPUB files
with :mod:`zipfile`, exactly as the format asks.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class PdfLine:
    """One line of text on a PDF page, its baseline starting at ``(x, y)`` (points)."""

    x: float
    y: float
    text: str
    size: float = 11


@dataclass
class PdfPage:
    """A page: its text lines, and whether it also paints a filled box (an "image")."""

    lines: list[PdfLine] = field(default_factory=list)
    painted: bool = False


def _pdf_string(text: str) -> bytes:
    data = text.encode("cp1252")
    return b"(" + data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _cid_string(text: str) -> bytes:
    return b"<" + "".join(f"{ord(c):04X}" for c in text).encode() + b">"


_TO_UNICODE = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
1 beginbfrange
<0000> <FFFF> <0000>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
"""


def pdf_bytes(
    pages: Sequence[PdfPage],
    *,
    title: str | None = None,
    outline: Sequence[tuple[str, int]] = (),
    cid_font: bool = False,
) -> bytes:
    """A PDF of ``pages``; ``outline`` is (title, 0-based page) bookmarks, in order.

    With ``cid_font`` the text is drawn in a CID font (any Unicode character of the BMP),
    otherwise in Helvetica (Windows-1252 characters).
    """
    objects: list[bytes] = []  # object n is objects[n - 1]

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in at the end
    pages_id = add(b"")
    if cid_font:
        cmap = add(b"<< /Length %d >>\nstream\n" % len(_TO_UNICODE) + _TO_UNICODE + b"endstream")
        descriptor = add(
            b"<< /Type /FontDescriptor /FontName /NoGlyphs /Flags 4 /FontBBox [0 0 1000 1000]"
            b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>"
        )
        cid = add(
            b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /NoGlyphs"
            b" /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>"
            b" /FontDescriptor %d 0 R /DW 1000 /CIDToGIDMap /Identity >>" % descriptor
        )
        font = add(
            b"<< /Type /Font /Subtype /Type0 /BaseFont /NoGlyphs /Encoding /Identity-H"
            b" /DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (cid, cmap)
        )
    else:
        font = add(
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
        )
    encode = _cid_string if cid_font else _pdf_string
    page_ids: list[int] = []
    for page in pages:
        ops = [b"0.5 g 72 300 200 200 re f"] if page.painted else []
        for line in page.lines:
            ops.append(
                b"BT /F1 %g Tf %g %g Td %s Tj ET" % (line.size, line.x, line.y, encode(line.text))
            )
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page_ids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)
            )
        )
    kids = b" ".join(b"%d 0 R" % n for n in page_ids)
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    extra = b""
    if outline:
        root = add(b"")
        items = [add(b"") for _ in outline]
        for n, ((name, page_index), item) in enumerate(zip(outline, items, strict=True)):
            links = b""
            if n > 0:
                links += b" /Prev %d 0 R" % items[n - 1]
            if n + 1 < len(items):
                links += b" /Next %d 0 R" % items[n + 1]
            objects[item - 1] = b"<< /Title %s /Parent %d 0 R /Dest [%d 0 R /Fit]%s >>" % (
                _pdf_string(name),
                root,
                page_ids[page_index],
                links,
            )
        objects[root - 1] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (
            items[0],
            items[-1],
            len(items),
        )
        extra = b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R%s >>" % (pages_id, extra)
    info = add(b"<< /Title %s >>" % _pdf_string(title)) if title else None
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (n, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % at for at in offsets))
    trailer = b"/Size %d /Root %d 0 R" % (len(objects) + 1, catalog)
    if info:
        trailer += b" /Info %d 0 R" % info
    out.write(b"trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref))
    return out.getvalue()


def text_page(*paragraphs: str, top: float = 740, x: float = 72, width: int = 80) -> PdfPage:
    """A page of one column: each paragraph wrapped at ``width`` characters, a blank line apart."""
    lines: list[PdfLine] = []
    y = top
    for paragraph in paragraphs:
        for line in _wrap(paragraph, width):
            lines.append(PdfLine(x, y, line))
            y -= 14
        y -= 8
    return PdfPage(lines)


def two_column_page(left: str, right: str, *, width: int = 38) -> PdfPage:
    """A page of two columns side by side, each wrapped at ``width`` characters.

    The left column's lines are all drawn before the right column's, as a typesetter writes
    them; a reader that follows the drawing order reads each column whole.
    """
    lines = [PdfLine(54, 740 - 14 * n, text) for n, text in enumerate(_wrap(left, width))]
    lines += [PdfLine(320, 740 - 14 * n, text) for n, text in enumerate(_wrap(right, width))]
    return PdfPage(lines)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return [*lines, current] if current else lines


def encrypted_pdf(plain: bytes, password: str = "secret") -> bytes:
    """``plain`` encrypted with a user password (RC4-128: pypdf needs no extra package)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(plain)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(blocks: Sequence[tuple[str, object]], *, title: str | None = None) -> bytes:
    """A DOCX of ``blocks``: ``("h1".."h3", text)`` headings, ``("p", text)`` paragraphs and
    ``("table", rows)`` tables (a list of rows of cell texts)."""
    from docx import Document

    document = Document()
    if title:
        document.core_properties.title = title
    for kind, value in blocks:
        if kind.startswith("h"):
            document.add_heading(str(value), level=int(kind[1:]))
        elif kind == "p":
            document.add_paragraph(str(value))
        else:
            rows = [list(row) for row in value]  # type: ignore[attr-defined]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = str(cell)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_bytes(slides: Sequence[tuple[str, Sequence[str]]], *, notes: Sequence[str] = ()) -> bytes:
    """A PPTX of ``slides``, each (title, bullet lines), with speaker ``notes`` by slide."""
    from pptx import Presentation

    deck = Presentation()
    layout = deck.slide_layouts[1]  # "Title and Content"
    for n, (title, bullets) in enumerate(slides):
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        for i, bullet in enumerate(bullets):
            paragraph = body.paragraphs[0] if i == 0 else body.add_paragraph()
            paragraph.text = bullet
        if n < len(notes):
            slide.notes_slide.notes_text_frame.text = notes[n]
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def epub_bytes(
    chapters: Sequence[tuple[str, str]],
    *,
    title: str = "A book",
    language: str = "en",
    extra: dict[str, bytes] | None = None,
    spine_hrefs: Sequence[str] | None = None,
) -> bytes:
    """An EPUB 3 of ``chapters`` (title, HTML body); ``extra`` adds raw members, and
    ``spine_hrefs`` replaces the chapter files the spine lists (to plant odd links)."""
    names = [f"chapter{n + 1}.xhtml" for n in range(len(chapters))]
    hrefs = list(spine_hrefs) if spine_hrefs is not None else names
    manifest = "".join(
        f'<item id="c{n}" href="{href}" media-type="application/xhtml+xml"/>'
        for n, href in enumerate(hrefs)
    )
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(len(hrefs)))
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">urn:test</dc:identifier><dc:title>{title}</dc:title>'
        f"<dc:language>{language}</dc:language></metadata>"
        f"<manifest>{manifest}</manifest><spine>{spine}</spine></package>"
    )
    container = (
        '<?xml version="1.0"?><container version="1.0"'
        ' xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        book.writestr("META-INF/container.xml", container)
        book.writestr("OEBPS/content.opf", opf)
        for name, (heading, body) in zip(names, chapters, strict=True):
            book.writestr(
                f"OEBPS/{name}",
                '<?xml version="1.0" encoding="utf-8"?>'
                f'<html xmlns="http://www.w3.org/1999/xhtml" lang="{language}"><head>'
                f"<title>{heading}</title></head><body><h1>{heading}</h1>{body}</body></html>",
            )
        for name, data in (extra or {}).items():
            book.writestr(name, data)
    return out.getvalue()


def write(folder: Path, name: str, data: bytes | str) -> Path:
    """Write ``data`` to ``folder/name`` (text as UTF-8) and return the path."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path
