"""A local corpus of real documents: indexed, searched and read with their pages; every file
it does not read is reported with its reason; ``ask`` over such a folder cites pages."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import deep_research.sources.local as local
from deep_research.cli import main
from deep_research.sources.documents import page_at
from deep_research.sources.inventory import CorpusInventory, SkippedFile, limitation_text
from deep_research.sources.local import LocalCorpus
from tests.documents import (
    PdfPage,
    docx_bytes,
    encrypted_pdf,
    epub_bytes,
    pdf_bytes,
    pptx_bytes,
    text_page,
    two_column_page,
    write,
)


def _mixed_folder(root: Path) -> Path:
    """A folder of every kind the corpus reads, and of files it cannot read."""
    write(
        root,
        "manual.pdf",
        pdf_bytes(
            [
                text_page(
                    "Introduction",
                    "A battery energy storage system is a group of batteries connected to the "
                    "grid that stores electricity for later use.",
                ),
                two_column_page(
                    "Installed costs. The installed cost of a four-hour battery system fell to "
                    "300 dollars per kilowatt-hour in 2023.",
                    "Lifetime. Most lithium-ion systems are warranted for ten to fifteen years "
                    "of daily cycling.",
                ),
            ],
            title="Grid battery manual",
            outline=[("Introduction", 0), ("Costs and lifetime", 1)],
        ),
    )
    write(
        root,
        "deck.pptx",
        pptx_bytes([("Storage market", ["Installed capacity reached 42 GW in 2023."])]),
    )
    write(
        root,
        "prices.docx",
        docx_bytes([("h1", "Prices"), ("table", [["Year", "Price"], ["2023", "139"]])]),
    )
    write(root, "book.epub", epub_bytes([("Efficiency", "<p>Efficiency is near 85 percent.</p>")]))
    write(root, "guide.rst", "Guide\n=====\n\nPumped hydro stores water uphill.\n")
    write(root, "notes.md", "# Notes\n\nFlow batteries use liquid electrolytes.\n")
    write(root, "locked.pdf", encrypted_pdf(pdf_bytes([text_page("Hidden tariff.")])))
    write(root, "scan.pdf", pdf_bytes([PdfPage(painted=True)]))
    write(root, "sheet.xlsx", b"PK\x03\x04")
    write(root, "photo.png", b"\x89PNG")
    return root


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(_mixed_folder(tmp_path / "docs"), tmp_path / "index.sqlite")


def test_every_file_is_indexed_or_reported_with_its_reason(corpus: LocalCorpus) -> None:
    stats = corpus.index()
    assert (stats.added, stats.skipped) == (6, 4)
    inventory = corpus.inventory()
    assert inventory.read == {"PDF": 1, "PPTX": 1, "DOCX": 1, "EPUB": 1, "RST": 1, "MD": 1}
    assert {(s.path, s.kind, s.reason) for s in inventory.skipped} == {
        ("locked.pdf", "PDF", "encrypted"),
        ("scan.pdf", "PDF", "no_text"),
        ("sheet.xlsx", "XLSX", "unsupported"),
        ("photo.png", "PNG", "unsupported"),
    }
    # what matters to a report: the unreadable PDFs and the spreadsheet, not the image
    assert {s.path for s in inventory.mattering()} == {"locked.pdf", "scan.pdf", "sheet.xlsx"}


async def test_a_pdf_is_searched_and_read_with_its_page_map(corpus: LocalCorpus) -> None:
    hits = await corpus.search("installed cost four-hour battery", 3)
    assert hits and hits[0].title == "Grid battery manual"
    document = await corpus.read(hits[0].url)
    assert document.metadata["pages"].startswith("page:0,")
    assert "# Costs and lifetime" in document.text
    slides = await corpus.search("installed capacity GW", 3)
    deck = await corpus.read(next(h.url for h in slides if h.url.endswith("deck.pptx")))
    assert deck.metadata["pages"] == "slide:0"


def test_a_skipped_file_is_read_again_only_when_it_changes(
    corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus.index()
    calls: list[str] = []
    real = local.read_document

    def counting(suffix: str, data: bytes, limits: object = None) -> object:
        calls.append(suffix)
        return real(suffix, data, limits)  # type: ignore[arg-type]

    monkeypatch.setattr(local, "read_document", counting)
    again = corpus.index()
    assert calls == [] and (again.unchanged, again.skipped) == (6, 4)
    scan = corpus.root / "scan.pdf"
    scan.write_bytes(pdf_bytes([text_page("The scan was replaced by a text PDF.")]))
    third = corpus.index()
    assert calls == [".pdf"] and (third.updated, third.added, third.skipped) == (0, 1, 3)
    assert "scan.pdf" not in {s.path for s in corpus.inventory().skipped}
    scan.unlink()
    fourth = corpus.index()
    assert fourth.removed == 1 and len(corpus.inventory().skipped) == 3


def test_a_link_out_of_the_corpus_is_reported_unreadable(tmp_path: Path) -> None:
    outside = write(tmp_path, "outside.md", "# Outside\n\nSecret outside the corpus.\n")
    root = tmp_path / "docs"
    write(root, "inside.md", "# Inside\n\nText inside.\n")
    (root / "link.md").symlink_to(outside)
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")
    skipped = corpus.inventory().skipped
    assert [(s.path, s.reason) for s in skipped] == [("link.md", "unreadable")]


def test_the_limitation_names_unread_documents_only_when_they_matter() -> None:
    images = CorpusInventory({"PDF": 1}, (SkippedFile("a.png", "PNG", "unsupported"),))
    assert limitation_text(images) is None
    scanned = CorpusInventory(
        {"PDF": 1},
        tuple(SkippedFile(f"scan{n}.pdf", "PDF", "no_text") for n in range(5)),
    )
    text = limitation_text(scanned)
    assert text is not None and text.startswith("5 files of the local corpus could not be read")
    assert "5 PDF no extractable text" in text and "+2 more" in text


def _ask(question: str, corpus: Path, out: Path) -> int:
    return main(
        ["ask", question, "--corpus", str(corpus), "--depth", "light", "--no-clarify"]
        + ["--out", str(out), "--plain"]
    )


def test_ask_over_a_folder_of_documents_cites_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _mixed_folder(tmp_path / "docs")
    out = tmp_path / "out"
    question = "What does a four-hour battery energy storage system cost to install?"
    assert _ask(question, folder, out) == 0
    err = capsys.readouterr().err
    assert "corpus: read 6 documents" in err and "1 PDF encrypted (locked.pdf)" in err
    data = json.loads((out / "report.json").read_text())
    manual = next(r for r in data["references"] if r["location"].endswith("manual.pdf"))
    assert manual["locators"] and all(w.startswith("p. ") for w in manual["locators"])
    cited = [c for c in data["citations"] if c["referenceNumber"] == manual["number"]]
    assert cited and all(c["locator"].startswith("p. ") for c in cited)
    costs = next(c for c in cited if "300 dollars" in c["quote"])
    assert costs["locator"] == "p. 2"
    markdown = (out / "report.md").read_text()
    listed = next(line for line in markdown.splitlines() if "manual.pdf" in line)
    assert "(p. 2)" in listed or "(pp. " in listed
    html = (out / "report.html").read_text()
    assert 'class="pages">(p' in html and '"locator": "p. 2"' in html
    unread = [lim["text"] for lim in data["limitations"] if "local corpus" in lim["text"]]
    assert unread and "locked.pdf" in unread[0] and "photo.png" not in unread[0]
    assert "locked.pdf" in markdown.split("## Limitations", 1)[1]


def test_ask_over_a_folder_with_nothing_readable_stops_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    write(folder, "locked.pdf", encrypted_pdf(pdf_bytes([text_page("Hidden tariff.")])))
    write(folder, "scan.pdf", pdf_bytes([PdfPage(painted=True)]))
    out = tmp_path / "out"
    assert _ask("What is a battery?", folder, out) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("deep-research: error")]
    assert len(lines) == 1
    assert "nothing in the corpus folder" in lines[0] and "encrypted (locked.pdf)" in lines[0]
    assert "no extractable text" in lines[0] and not out.exists()


def test_the_page_cap_setting_skips_longer_documents_as_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deep_research.settings import get_settings
    from deep_research.sources import load_sources

    folder = tmp_path / "docs"
    write(folder, "short.pdf", pdf_bytes([text_page("One page of text.")] * 2))
    write(folder, "long.pdf", pdf_bytes([text_page("Another page of text.")] * 3))
    monkeypatch.setenv("DEEP_RESEARCH_CORPUS_MAX_PAGES", "2")
    get_settings.cache_clear()
    [corpus] = load_sources("local", str(folder))
    assert isinstance(corpus, LocalCorpus)
    inventory = corpus.inventory()
    assert inventory.read == {"PDF": 1}
    assert [(s.path, s.reason, s.detail) for s in inventory.skipped] == [
        ("long.pdf", "too_large", "3 pages (more than 2)")
    ]


async def test_the_live_view_shows_what_the_corpus_read_and_skipped(tmp_path: Path) -> None:
    from rich.console import Console

    from deep_research.cli.ask import preflight
    from deep_research.cli.live import LiveProgress
    from deep_research.context import make_context

    folder = _mixed_folder(tmp_path / "docs")
    screen = io.StringIO()
    view = LiveProgress(Console(file=screen, width=400, color_system=None))
    await preflight(make_context(sources="local", corpus_dir=str(folder)), view)
    shown = screen.getvalue()
    assert "corpus: read 6 documents" in shown
    assert "1 PDF no extractable text (a scanned document?) (scan.pdf)" in shown
    assert "1 XLSX unsupported format (sheet.xlsx)" in shown


async def test_an_unreadable_folder_beside_a_web_source_is_shown_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deep_research.cli.ask import preflight
    from deep_research.cli.progress import ProgressPrinter
    from deep_research.context import make_context
    from deep_research.settings import get_settings

    folder = tmp_path / "docs"
    write(folder, "scan.pdf", pdf_bytes([PdfPage(painted=True)]))
    monkeypatch.setenv("DEEP_RESEARCH_SEARXNG_URL", "http://127.0.0.1:9")  # never contacted
    get_settings.cache_clear()
    stream = io.StringIO()
    context = make_context(sources="local+searxng", corpus_dir=str(folder))
    await preflight(context, ProgressPrinter(stream=stream))
    assert "corpus: read 0 documents; skipped 1 file: 1 PDF no extractable text" in (
        stream.getvalue()
    )


async def test_a_500_page_pdf_is_indexed_whole_and_its_last_page_cited(tmp_path: Path) -> None:
    pages = [text_page(f"Page {n + 1} reports {n * 3} megawatts.") for n in range(500)]
    pages[499] = text_page("The closing page names the Zephyrine reservoir, 812 megawatts.")
    folder = tmp_path / "docs"
    write(folder, "long.pdf", pdf_bytes(pages, title="A long report"))
    corpus = LocalCorpus(folder, tmp_path / "index.sqlite")
    [hit] = await corpus.search("Zephyrine reservoir", 1)
    document = await corpus.read(hit.url)
    starts = document.metadata["pages"].removeprefix("page:").split(",")
    assert len(starts) == 500
    at = document.text.index("Zephyrine")
    assert page_at(document.metadata["pages"], at) == ("page", 500)
