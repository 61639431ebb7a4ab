"""Documents: how long the local corpus takes to index a large PDF, DOCX, PPTX and EPUB.

Each file is made here with the test suite's makers (tests/documents.py): a 500-page PDF of
prose, a Word file and a presentation of about the same text, and an EPUB of chapters. Each
is indexed alone into a fresh index, in a fresh child process (the median of the repeats),
which reports the seconds of :meth:`LocalCorpus.index` and its peak resident memory above
what the process held once the readers were imported. Figures per MB of file make sizes
comparable; the text extracted per page shows the reader read every page.
"""

from __future__ import annotations

import importlib
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, log, summary
from bench.sections import Options

NAME = "documents"
PAGES = 500
"""Pages of the large PDF (the issue's figure)."""
WORDS = (
    "storage battery grid capacity megawatt hour cost price lithium sodium inverter "
    "frequency reserve market tariff cycle efficiency degradation warranty safety code"
).split()


def _prose(seed: int, sentences: int) -> list[str]:
    """Sentences of varied words and figures, reproducible from ``seed``."""
    out = []
    for n in range(sentences):
        words = [WORDS[(seed * 7 + n * 3 + k * 5) % len(WORDS)] for k in range(14)]
        figure = f"{seed * 13 + n} units in 20{n % 30:02d}"
        out.append(f"{' '.join(words).capitalize()} reached {figure}.")
    return out


def make_files(folder: Path, pages: int) -> dict[str, Path]:
    """The large documents, written into ``folder`` (one per kind)."""
    from tests.documents import docx_bytes, epub_bytes, pdf_bytes, pptx_bytes, text_page, write

    paragraphs = [" ".join(_prose(page, 4)) for page in range(pages)]
    pdf = pdf_bytes(
        [
            text_page(f"Section {n + 1}", paragraphs[n], paragraphs[(n + 1) % pages])
            for n in range(pages)
        ],
        title="A large manual",
        outline=[(f"Section {n + 1}", n) for n in range(0, pages, 10)],
    )
    blocks: list[tuple[str, object]] = []
    for n, paragraph in enumerate(paragraphs):
        if n % 10 == 0:
            blocks.append(("h1", f"Section {n + 1}"))
        blocks.append(("p", paragraph))
    slides = [(f"Slide {n + 1}", _prose(n, 3)) for n in range(pages // 5)]
    chapters = [
        (f"Chapter {n + 1}", "".join(f"<p>{p}</p>" for p in paragraphs[n * 10 : n * 10 + 10]))
        for n in range(pages // 10)
    ]
    return {
        "pdf": write(folder, "manual.pdf", pdf),
        "docx": write(folder, "manual.docx", docx_bytes(blocks)),
        "pptx": write(folder, "deck.pptx", pptx_bytes(slides)),
        "epub": write(folder, "book.epub", epub_bytes(chapters)),
    }


def _child(path: str) -> None:
    """Index the folder holding only ``path`` and print seconds and memory as JSON."""
    from deep_research.sources.local import LocalCorpus

    file = Path(path)
    for library in ("pypdf", "docx", "pptx", "defusedxml"):  # loaded before the baseline
        importlib.import_module(library)

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch, "corpus")
        folder.mkdir()
        shutil.copyfile(file, folder / file.name)  # a link out of the corpus is not followed
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        corpus = LocalCorpus(folder.resolve(), Path(scratch, "index.sqlite"))
        stats = corpus.index()
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        inventory = corpus.inventory()
        chars = len(corpus._query_all("SELECT text FROM documents", ())[0][0]) if stats.added else 0
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_mb": (after - before) / 1024,
                "added": stats.added,
                "skipped": [s.reason for s in inventory.skipped],
                "chars": chars,
            }
        )
    )


def _index(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.sections.documents", str(path)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(options: Options) -> dict[str, Any]:
    """Index each large document ``options.repeats`` times; figures per file and per MB."""
    pages = 20 if options.quick else PAGES
    repeats = 1 if options.quick else max(options.repeats, 1)
    kinds = {}
    with tempfile.TemporaryDirectory() as scratch:
        files = make_files(Path(scratch), pages)
        for kind, path in files.items():
            runs = [_index(path) for _ in range(repeats)]
            if any(r["added"] != 1 for r in runs):
                raise RuntimeError(f"{path.name} was not indexed: {runs[0]['skipped']}")
            megabytes = path.stat().st_size / 1e6
            seconds = [r["seconds"] for r in runs]
            peak = statistics.median(r["peak_mb"] for r in runs)
            kinds[kind] = {
                "file_mb": round(megabytes, 3),
                "seconds": summary(seconds),
                "seconds_per_mb": round(statistics.median(seconds) / megabytes, 3),
                "peak_mb": round(peak, 1),
                "peak_mb_per_file_mb": round(peak / megabytes, 1),
                "characters": runs[0]["chars"],
            }
            median = statistics.median(seconds)
            log(f"documents: {kind} {megabytes:.2f} MB indexed in {median:.2f} s")
    return {"pages": pages, "repeats": repeats, "kinds": kinds}


if __name__ == "__main__":
    _child(sys.argv[1])
