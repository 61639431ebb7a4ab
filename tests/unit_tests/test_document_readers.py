"""The document readers: text, outline headings and page maps of real files, and their limits.

Every file here is made by the test with the libraries the readers use (tests/documents.py):
hand-written PDFs, python-docx, python-pptx and zip-packed EPUBs.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents import (
    DocumentLimits,
    page_at,
    page_map,
    read_document,
    with_pages,
)
from deep_research.state import Document, EvidenceSpan
from deep_research.text import sentences
from tests.documents import (
    PdfLine,
    PdfPage,
    docx_bytes,
    encrypted_pdf,
    epub_bytes,
    pdf_bytes,
    pptx_bytes,
    text_page,
    two_column_page,
)

LEFT = "The left column opens the study. " + " ".join(
    f"Left sentence {n} reports {n + 10} megawatts." for n in range(12)
)
RIGHT = "The right column closes the study. " + " ".join(
    f"Right sentence {n} reports {n + 50} hours." for n in range(12)
)


def _reason(suffix: str, data: bytes, limits: DocumentLimits | None = None) -> str:
    with pytest.raises(UnreadableDocumentError) as caught:
        read_document(suffix, data, limits)
    return caught.value.reason


# --- PDF ------------------------------------------------------------------------------------


def test_a_pdf_gives_its_pages_where_they_start_and_its_bookmarks_as_headings() -> None:
    data = pdf_bytes(
        [
            text_page("Overview", "Batteries shift solar power into the evening peak."),
            text_page("Intro text before the costs.", "Costs", "A pack cost 139 dollars in 2023."),
            text_page("Fire codes require spacing between containers."),
        ],
        title="Storage handbook",
        outline=[("Overview", 0), ("Costs", 1), ("Safety", 2)],
    )
    document = read_document(".pdf", data)
    assert document.title == "Storage handbook"
    assert document.page_kind == "page" and len(document.pages) == 3
    text = document.text
    # each page's text starts where its map says
    for number, needle in [(1, "Batteries shift"), (2, "Intro text"), (3, "Fire codes")]:
        offset = text.index(needle)
        assert page_at(page_map("page", document.pages), offset) == ("page", number)
    # a bookmark stands at the paragraph it names, or at the top of its page
    assert text.index("# Costs") > text.index("Intro text before the costs.")
    assert text.index("# Safety") < text.index("Fire codes")
    found = {s.text: s.section for s in sentences(text)}
    assert found["A pack cost 139 dollars in 2023."] == "Costs"
    assert found["Fire codes require spacing between containers."] == "Safety"
    assert "Costs\n" not in text.replace("# Costs", "")  # the named paragraph became the heading


def test_a_pdf_without_a_title_is_named_by_its_opening_line_before_its_first_bookmark() -> None:
    # a reference reads "Grid Storage Field Guide", not "1. Introduction"
    def guide(first: str) -> bytes:
        return pdf_bytes(
            [text_page(first, "1. Introduction", "Batteries shift solar power into the evening.")],
            outline=[("1. Introduction", 0)],
        )

    assert read_document(".pdf", guide("Grid Storage Field Guide")).title == (
        "Grid Storage Field Guide"
    )
    # a first line that is a sentence, a section number's or a stamp is no title
    for first in ("Batteries are cheaper than they were.", "2.1 Scope", "arXiv:2101.00001v1"):
        assert read_document(".pdf", guide(first)).title == "1. Introduction", first


def test_a_two_column_pdf_is_read_one_column_after_the_other() -> None:
    document = read_document(".pdf", pdf_bytes([two_column_page(LEFT, RIGHT)]))
    text = document.text
    # every sentence of each column is whole (no line of the other column inside it)
    for sentence in ("Left sentence 7 reports 17 megawatts.", "Right sentence 7 reports 57 hours."):
        assert sentence in text
    assert text.index("Left sentence 11") < text.index("The right column closes")
    # wrapped lines are joined: a sentence is one line of the text
    assert all("\n" not in s.text for s in sentences(text))


def test_a_word_hyphenated_at_a_line_end_is_joined_whole() -> None:
    page = PdfPage(
        [
            PdfLine(72, 700, "The operator measured the round-trip effi-"),
            PdfLine(72, 686, "ciency of the plant at eighty-five percent over the year."),
        ]
    )
    text = read_document(".pdf", pdf_bytes([page])).text
    assert "round-trip efficiency of the plant" in text


def test_a_pdf_without_a_text_layer_is_skipped_as_no_text() -> None:
    scanned = pdf_bytes([PdfPage(painted=True), PdfPage(painted=True)])
    assert _reason(".pdf", scanned) == "no_text"


def test_an_encrypted_pdf_is_skipped_as_encrypted_unless_its_password_is_empty() -> None:
    plain = pdf_bytes([text_page("Confidential tariff figures for 2024.")])
    assert _reason(".pdf", encrypted_pdf(plain, "secret")) == "encrypted"
    opened = read_document(".pdf", encrypted_pdf(plain, ""))
    assert "Confidential tariff figures" in opened.text


def test_a_pdf_over_the_page_cap_is_too_large_and_a_broken_one_unreadable() -> None:
    data = pdf_bytes([text_page(f"Page {n} text.") for n in range(5)])
    assert _reason(".pdf", data, DocumentLimits(max_pages=4)) == "too_large"
    assert _reason(".pdf", b"%PDF-1.7\nthis is not a pdf body") == "unreadable"
    assert _reason(".pdf", data[: len(data) // 3]) == "unreadable"


def test_non_latin_text_of_a_pdf_is_extracted() -> None:
    line = "储能电站在二零二三年装机四十吉瓦。"
    data = pdf_bytes([PdfPage([PdfLine(72, 700, line)])], cid_font=True)
    assert line in read_document(".pdf", data).text


# --- DOCX -----------------------------------------------------------------------------------


def test_a_docx_keeps_its_heading_styles_as_headings_and_its_tables_as_rows() -> None:
    data = docx_bytes(
        [
            ("h1", "Costs"),
            ("p", "Pack prices fell again in 2023."),
            ("table", [["Year", "Price ($/kWh)"], ["2022", "161"], ["2023", "139"]]),
            ("h2", "Регионы"),
            ("p", "Цены в Европе снизились на 12 процентов."),
        ],
        title="Battery prices",
    )
    document = read_document(".docx", data)
    assert document.title == "Battery prices"
    assert document.pages == () and document.page_kind is None
    assert "# Costs" in document.text and "## Регионы" in document.text
    assert "Year | Price ($/kWh)\n\n2022 | 161\n\n2023 | 139" in document.text
    found = {s.text: s.section for s in sentences(document.text)}
    assert found["2023 | 139"] == "Costs"
    assert found["Цены в Европе снизились на 12 процентов."] == "Регионы"


def test_an_empty_docx_has_no_text_and_a_broken_one_is_unreadable() -> None:
    assert _reason(".docx", docx_bytes([("h1", "Only a heading")])) == "no_text"
    assert _reason(".docx", b"PK\x03\x04 not really a zip") == "unreadable"


def _replace_member(data: bytes, name: str, edit: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            body = source.read(item.filename)
            target.writestr(item, edit if item.filename == name else body)
    return out.getvalue()


def test_an_external_entity_planted_in_a_docx_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRETVALUE")
    data = docx_bytes([("p", "placeholder")])
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        body = package.read("word/document.xml").decode()
    doctype = f'<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    planted = body.replace("?>", f"?>{doctype}", 1).replace("placeholder", "Leak: &xxe; end.")
    text = read_document(".docx", _replace_member(data, "word/document.xml", planted.encode())).text
    assert "Leak" in text  # the part was read, its entity left unresolved
    assert "TOPSECRETVALUE" not in text


# --- PPTX -----------------------------------------------------------------------------------


def test_a_pptx_gives_each_slide_its_title_as_heading_and_its_number() -> None:
    data = pptx_bytes(
        [
            ("Market size", ["Installed capacity reached 42 GW in 2023.", "Growth was 40%."]),
            ("Outlook", ["Prices keep falling."]),
        ],
        notes=["The figures come from the annual survey."],
    )
    document = read_document(".pptx", data)
    assert document.title == "Market size"
    assert document.page_kind == "slide" and len(document.pages) == 2
    pages = page_map("slide", document.pages)
    assert page_at(pages, document.text.index("Prices keep falling")) == ("slide", 2)
    assert page_at(pages, document.text.index("annual survey")) == ("slide", 1)
    found = {s.text: s.section for s in sentences(document.text)}
    assert found["Installed capacity reached 42 GW in 2023."] == "Market size"
    assert found["The figures come from the annual survey."] == "Market size (notes)"


def test_an_external_entity_planted_in_a_slide_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRETVALUE")
    data = pptx_bytes([("Title", ["placeholder"])])
    name = "ppt/slides/slide1.xml"
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        body = package.read(name).decode()
    doctype = f'<!DOCTYPE p:sld [<!ENTITY xxe SYSTEM "file://{secret}">]>'
    planted = body.replace("?>", f"?>{doctype}", 1).replace("placeholder", "Leak &xxe; end")
    text = read_document(".pptx", _replace_member(data, name, planted.encode())).text
    assert "Leak" in text  # the slide was read, its entity left unresolved
    assert "TOPSECRETVALUE" not in text


# --- EPUB -----------------------------------------------------------------------------------


def test_an_epub_reads_its_chapters_in_spine_order_with_their_headings() -> None:
    data = epub_bytes(
        [
            (
                "Efficiency",
                "<p>Round-trip efficiency of lithium-ion packs is about 85 percent.</p>",
            ),
            ("成本", "<p>二零二三年电池组价格下降了百分之十四。</p>"),
        ],
        title="Storage primer",
        language="en",
    )
    document = read_document(".epub", data)
    assert document.title == "Storage primer" and document.language == "en"
    assert document.text.index("# Efficiency") < document.text.index("# 成本")
    found = {s.text: s.section for s in sentences(document.text)}
    assert found["Round-trip efficiency of lithium-ion packs is about 85 percent."] == "Efficiency"
    assert found["二零二三年电池组价格下降了百分之十四。"] == "成本"


def test_an_epub_link_out_of_the_book_reads_nothing_outside_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.xhtml"
    secret.write_text("<html><body><p>TOPSECRETVALUE outside the book.</p></body></html>")
    depth = "../" * 12
    data = epub_bytes(
        [("One", "<p>Inside the book there is one chapter of plain text.</p>"), ("Two", "")],
        spine_hrefs=["chapter1.xhtml", f"{depth}{str(secret).lstrip('/')}"],
    )
    data = _replace_member(data, "OEBPS/chapter2.xhtml", b"")  # keep the archive well formed
    document = read_document(".epub", data)
    assert "Inside the book" in document.text and "TOPSECRETVALUE" not in document.text


def test_an_epub_whose_package_declares_entities_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRETVALUE")
    data = epub_bytes([("One", "<p>Some text of the chapter.</p>")])
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        opf = book.read("OEBPS/content.opf").decode()
    planted = opf.replace(
        "?>", f'?><!DOCTYPE package [<!ENTITY xxe SYSTEM "file://{secret}">]>', 1
    ).replace("A book", "&xxe;")
    assert _reason(".epub", _replace_member(data, "OEBPS/content.opf", planted.encode())) == (
        "unreadable"
    )


def test_zip_bombs_are_refused_before_anything_is_unpacked() -> None:
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("OEBPS/huge.xhtml", b"\0" * (50 * 1024 * 1024))  # packs to ~50 KB
    assert len(bomb.getvalue()) < 200_000
    for suffix in (".epub", ".docx", ".pptx"):
        assert _reason(suffix, bomb.getvalue()) == "too_large"
    crowded = io.BytesIO()
    with zipfile.ZipFile(crowded, "w") as archive:
        for n in range(30):
            archive.writestr(f"part{n}.xml", "<a/>")
    assert _reason(".docx", crowded.getvalue(), DocumentLimits(max_zip_entries=20)) == "too_large"
    small = DocumentLimits(max_unpacked_bytes=1000)
    assert _reason(".epub", epub_bytes([("One", "<p>" + "word " * 400 + "</p>")]), small) == (
        "too_large"
    )


# --- reStructuredText -----------------------------------------------------------------------


def test_rst_sections_become_headings() -> None:
    source = (
        "Storage guide\n=============\n\nAn introduction to storage.\n\n"
        "Costs\n-----\n\nA pack cost 139 dollars per kWh.\n\n"
        "* a bullet about safety codes\n\n"
        "+------+-------+\n| Year | Price |\n+======+=======+\n| 2023 | 139   |\n+------+-------+\n"
    )
    document = read_document(".rst", source.encode())
    assert document.title == "Storage guide"
    found = {s.text: s.section for s in sentences(document.text)}
    assert found["A pack cost 139 dollars per kWh."] == "Costs"
    assert found["a bullet about safety codes"] == "Costs"
    assert "2023 | 139" in document.text


def test_rst_directives_never_read_another_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRETVALUE")
    source = (
        "Title\n=====\n\nVisible text of the guide.\n\n"
        f".. include:: {secret}\n\n"
        f".. raw:: html\n   :file: {secret}\n\n"
        f".. csv-table:: Leak\n   :file: {secret}\n\n"
        ".. raw:: html\n\n   <p>raw html</p>\n"
    )
    text = read_document(".rst", source.encode()).text
    assert "Visible text of the guide." in text
    assert "TOPSECRETVALUE" not in text and "raw html" not in text


# --- dispatch and page maps -----------------------------------------------------------------


def test_an_unknown_suffix_is_unsupported() -> None:
    assert _reason(".xlsx", b"PK") == "unsupported"


def test_spans_of_a_paged_document_get_the_page_they_start_on() -> None:
    text = "first page text. second page text."
    pdf = Document(
        id="doc_pdf",
        url="file:///c/m.pdf",
        title="M",
        text=text,
        metadata={"pages": page_map("page", (0, 17))},
    )
    web = Document(id="doc_web", url="https://example.org/", title="W", text=text)

    def span(document: Document, start: int) -> EvidenceSpan:
        end = text.index(".", start) + 1
        return EvidenceSpan(
            id=f"ev{start}{document.id}",
            url=document.url,
            document_id=document.id,
            step_id="s01",
            quote=text[start:end],
            start=start,
            end=end,
        )

    paged = with_pages([span(pdf, 0), span(pdf, 17), span(web, 17)], [pdf, web])
    assert [(s.page, s.locator) for s in paged] == [(1, "p. 1"), (2, "p. 2"), (None, None)]
    exported = paged[1].model_dump(mode="json", by_alias=True)
    assert exported["page"] == 2 and exported["pageKind"] == "page"
    assert "page" not in paged[2].model_dump(mode="json", by_alias=True)


def test_a_pdf_whose_page_decompresses_like_a_bomb_is_too_large() -> None:
    import zlib

    packed = zlib.compress(b"BT /F1 11 Tf 72 700 Td (x) Tj ET\n" + b" " * (100 * 1024 * 1024), 9)
    assert len(packed) < 200_000
    stream = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed
    plain = pdf_bytes([text_page("Placeholder text.")])
    start = plain.index(b"<< /Length")
    end = plain.index(b"\nendstream", start)
    bomb = plain[:start] + stream + plain[end:]  # pypdf rebuilds the shifted cross-references
    assert _reason(".pdf", bomb) == "too_large"
