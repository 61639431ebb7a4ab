"""Gzip-compressed files of a format the corpus reads are read as that format.

Debian ships much of ``/usr/share/doc`` compressed (``changelog.html.gz``, ``README.md.gz``):
pointed at such a folder, a user used to get "nothing in the corpus folder could be read".
A compressed file is never read past the corpus's size limit once uncompressed: a small file
can hold gigabytes.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.local import CorpusLimits, LocalCorpus, format_suffix, gunzipped


def _gzip(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()))


async def test_a_compressed_page_is_found_read_and_counted_as_its_format(tmp_path: Path) -> None:
    root = tmp_path / "doc"
    _gzip(
        root / "changelog.html.gz",
        "<html><head><title>Release notes</title></head><body><main><h1>Release notes</h1>"
        "<p>Version 3 adds the zeppelin mooring mast.</p></main></body></html>",
    )
    _gzip(root / "guide.md.gz", "# Mooring guide\n\nA zeppelin is moored to a mast by its nose.\n")
    _gzip(root / "README.gz", "No format is named by this file's inner name.\n")
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")

    results = await corpus.search("zeppelin mooring", 5)

    assert {Path(r.url).name: r.title for r in results} == {
        "changelog.html.gz": "Release notes",
        "guide.md.gz": "Mooring guide",
    }
    page = await corpus.read(next(r.url for r in results if r.url.endswith(".html.gz")))
    assert page.content_type == "text/html"
    assert page.text == "# Release notes\n\nVersion 3 adds the zeppelin mooring mast."
    inventory = corpus.inventory()
    assert inventory.read == {"HTML": 1, "MD": 1}
    assert [(s.path, s.kind, s.reason) for s in inventory.skipped] == [
        ("README.gz", "GZ", "unsupported")
    ]


async def test_a_compressed_file_too_large_once_uncompressed_or_broken_is_skipped(
    tmp_path: Path,
) -> None:
    root = tmp_path / "doc"
    _gzip(root / "bomb.txt.gz", "zeppelin " * 100_000)  # 900 kB from about 2 kB
    (root / "broken.txt.gz").write_bytes(b"this is not gzip data")
    whole = gzip.compress(b"zeppelin notes, cut short")
    (root / "cut.txt.gz").write_bytes(whole[: len(whole) // 2])
    _gzip(root / "small.txt.gz", "Notes\nA zeppelin notebook.\n")
    corpus = LocalCorpus(root, tmp_path / "index.sqlite", CorpusLimits(max_file_bytes=10_000))

    assert corpus.index().added == 1
    skipped = {s.path: (s.reason, s.detail) for s in corpus.inventory().skipped}
    assert skipped["bomb.txt.gz"] == ("too_large", "larger than 10,000 bytes uncompressed")
    assert skipped["broken.txt.gz"][0] == "unreadable"
    assert skipped["cut.txt.gz"] == ("unreadable", "a gzip file cut short")
    assert [Path(r.url).name for r in await corpus.search("zeppelin", 5)] == ["small.txt.gz"]


def test_every_member_of_a_gzip_file_is_read_and_the_limit_holds_across_them() -> None:
    two = gzip.compress(b"first ") + gzip.compress(b"second")
    assert gunzipped(two, 100) == b"first second"
    with pytest.raises(UnreadableDocumentError) as raised:
        gunzipped(two, 8)
    assert raised.value.reason == "too_large"


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        ("page.html.gz", ".html"),
        ("Notes.MD.GZ", ".md"),
        ("README.gz", ".gz"),
        ("changelog.Debian.gz", ".gz"),
        ("paper.pdf", ".pdf"),
    ],
)
def test_a_compressed_file_s_format_is_its_inner_name_s(name: str, suffix: str) -> None:
    assert format_suffix(Path(name)) == suffix
