"""What a local corpus read and what it skipped, by kind and reason, and how that is said.

Indexing never skips a file without a word: every file of the folder is either indexed or
recorded as skipped with its reason (:data:`~deep_research.sources.documents.SKIP_REASONS`).
The command line shows :func:`summary_line` before a run; the report states
:func:`limitation_text` among its limitations when a skipped file could have mattered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from deep_research.sources.documents import SKIP_REASONS, SkipReason

DOCUMENT_LIKE = frozenset(
    {
        ".doc", ".docm", ".dot", ".odt", ".rtf", ".pages", ".ppt", ".pps", ".odp", ".key",
        ".xls", ".xlsx", ".ods", ".csv", ".tsv", ".json", ".xml", ".tex", ".org", ".adoc",
        ".mobi", ".azw", ".azw3", ".djvu", ".xps", ".ps", ".eml", ".msg", ".markdown", ".txt",
    }
)  # fmt: skip
"""Suffixes of files people write text in: an unread one of these could matter to a report
(an image, an archive or a program's file is only counted)."""

_SHOWN = 3
"""File names shown per kind and reason; the rest are counted."""


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file of the corpus folder that was not indexed."""

    path: str
    """Its path relative to the corpus folder."""
    kind: str
    """Its format, from its suffix: ``PDF``, ``XLSX``, ``(none)``."""
    reason: SkipReason
    detail: str = ""


@dataclass(frozen=True)
class CorpusInventory:
    """The corpus as indexed: documents read by kind, files skipped with their reasons."""

    read: dict[str, int] = field(default_factory=dict)
    """Indexed documents by kind (``PDF``: 12)."""
    skipped: tuple[SkippedFile, ...] = ()
    copies: int = 0
    """Indexed documents that copy another (same title and text), left out of searches."""

    @property
    def total_read(self) -> int:
        """How many documents are indexed."""
        return sum(self.read.values())

    def mattering(self) -> list[SkippedFile]:
        """The skipped files a reader of the report should hear of.

        Any document the corpus could not read (encrypted, scanned, too large, broken), and
        files of text formats it does not read (a spreadsheet, an old Word file), but not
        images or programs.
        """
        return [
            s
            for s in self.skipped
            if s.reason != "unsupported" or f".{s.kind.lower()}" in DOCUMENT_LIKE
        ]


def kind_of(suffix: str) -> str:
    """The kind named for a suffix: ``.pdf`` gives ``PDF``."""
    return suffix.lstrip(".").upper() or "(none)"


def _groups(skipped: Sequence[SkippedFile]) -> list[str]:
    """``2 PDF encrypted (a.pdf, b.pdf)``, one per kind and reason, the largest first."""
    counted = Counter((s.kind, s.reason) for s in skipped)
    parts = []
    for (kind, reason), count in counted.most_common():
        names = [s.path for s in skipped if (s.kind, s.reason) == (kind, reason)]
        shown = ", ".join(names[:_SHOWN]) + (
            f", +{len(names) - _SHOWN} more" if count > _SHOWN else ""
        )
        parts.append(f"{count} {kind} {SKIP_REASONS[reason]} ({shown})")
    return parts


def summary_line(inventory: CorpusInventory) -> str:
    """One line: what was read by kind, what was skipped by kind and reason.

    Example:
        >>> skipped = (SkippedFile("a.xlsx", "XLSX", "unsupported"),)
        >>> summary_line(CorpusInventory({"PDF": 2}, skipped))
        'corpus: read 2 documents (2 PDF); skipped 1 file: 1 XLSX unsupported format (a.xlsx)'
    """
    total = inventory.total_read
    kinds = ", ".join(
        f"{n} {kind}" for kind, n in sorted(inventory.read.items(), key=lambda i: -i[1])
    )
    line = f"corpus: read {total} document{'' if total == 1 else 's'}" + (
        f" ({kinds})" if kinds else ""
    )
    if inventory.copies:
        copies = inventory.copies
        line += (
            f", {copies} of them {'a copy' if copies == 1 else 'copies'} of another (the same"
            " title and words: one document in two files), searched once"
        )
    if inventory.skipped:
        count = len(inventory.skipped)
        line += f"; skipped {count} file{'' if count == 1 else 's'}: " + "; ".join(
            _groups(inventory.skipped)
        )
    return line


def nothing_read(folder: str, inventory: CorpusInventory) -> str:
    """The one line that stops a run over a folder none of whose files could be read."""
    if not inventory.skipped:
        return f"nothing to read in the corpus folder {folder}: it holds no file"
    return (
        f"nothing in the corpus folder {folder} could be read: "
        + "; ".join(_groups(inventory.skipped))
        + " (formats read: docs/local-corpus.md)"
    )


def limitation_text(inventory: CorpusInventory) -> str | None:
    """The report's limitation naming the corpus files that were not read, if any matter."""
    mattering = inventory.mattering()
    if not mattering:
        return None
    count = len(mattering)
    return (
        f"{count} file{'' if count == 1 else 's'} of the local corpus could not be read, so "
        f"{'its' if count == 1 else 'their'} content is not in this report: "
        + "; ".join(_groups(mattering))
        + "."
    )
