"""The local corpus: a folder of documents, searched with SQLite FTS5.

Markdown, text and HTML files are read here, HTML extracted as web pages are
(:func:`~deep_research.sources.html.extract_html_file`); PDF, Word, PowerPoint, EPUB and
reStructuredText by the readers of :mod:`deep_research.sources.documents`, which also give
where each page or slide starts (kept with the document, so that a quote names its page).

The index is a cache of the folder. :meth:`LocalCorpus.index` walks the folder, re-reads only
the files whose sha256 changed and drops the rows of files that disappeared, in one
transaction. Every other file is recorded as skipped, with its reason (unsupported format,
encrypted, no extractable text, too large, unreadable: :meth:`LocalCorpus.inventory`), so
nothing is left out without a word; a skipped file is read again only when it changes.
Search ranks with BM25, a title counting five times as much as the body.

Queries reuse a few read-only connections, each used by one thread at a time; indexing writes
through a connection of its own, and queries see each indexing pass once it commits (WAL).
One build runs at a time on an index, across instances and processes: the others wait on its
build lock (``INDEX.build-lock``), then find the index up to date.
The async methods run all their SQLite work in a thread; :meth:`LocalCorpus.close` closes
the connections kept open.
"""

from __future__ import annotations

import asyncio
import codecs
import fcntl
import hashlib
import logging
import os
import re
import sqlite3
import stat
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from deep_research.errors import (
    CorpusNotFoundError,
    CorpusTooLargeError,
    SourceError,
    UnreadableDocumentError,
)
from deep_research.sources.documents import (
    DOCUMENT_TYPES,
    DocumentLimits,
    page_map,
    read_document,
)
from deep_research.sources.html import clean_text, extract_html_file
from deep_research.sources.inventory import CorpusInventory, SkippedFile, kind_of
from deep_research.sources.snippets import make_snippet, term_stems
from deep_research.sources.sqlite_readers import ReaderPool
from deep_research.state.models import Document, SearchResult
from deep_research.text import words as textutil
from deep_research.text.inert import escaped_name
from deep_research.text.language import language_of
from deep_research.urls import normalize_url

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "11"
"""Version of the index schema and of the text extraction; an index of another version is
rebuilt from scratch (version 2: HTML extracted by trafilatura, documents have a language;
version 3: CJK characters indexed one by one, see :func:`spaced_cjk`; version 4: documents
(PDF, DOCX, PPTX, EPUB, reStructuredText) with their page maps, and the skipped files;
version 5: HTML's inline markup adds no space, "(HEAD)" not "( HEAD )"; a PDF with no title
in its metadata is named by its opening line before its first bookmark; version 6: a text
file that opens with mail headers is titled by its subject; a document that copies another is
marked, ``copy_of``, and left out of searches; version 7: the copies have an index of their own,
so that leaving them out does not read every document's row, text and all, for each query;
version 8: a name of words joined in camel case is indexed with its words, see
:func:`fts_text`; a file that is not UTF-8 is read in the charset it declares, see
:func:`decode_file`; version 9: a label that is an HTML list item's first paragraph is
followed by a colon, no longer run into the next paragraph's first sentence; version 10: a page
without main content, read by its visible text, leaves its navigation out; version 11: HTML
paragraphs written as ``<div>``, headings that open with an empty anchor and code inside code
are read whole and in order, and a line of code opening with ``#`` is indented, no heading,
see :func:`~deep_research.sources.html.extract_html_file`)."""

CONTENT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    **DOCUMENT_TYPES,
}
"""Indexed file suffixes (lower-cased) and the content type each stands for."""

COMPRESSED = ".gz"
"""A gzip-compressed file of an indexed format (``changelog.html.gz``, ``notes.md.gz``: Debian
ships much of ``/usr/share/doc`` so) is read as that format."""


def format_suffix(path: Path) -> str:
    """The suffix that names ``path``'s format, lower-cased: a compressed file's inner one.

    ``page.html.gz`` gives ``.html``; ``README.gz``, whose inner name names no format, ``.gz``.
    """
    suffix = path.suffix.lower()
    if suffix == COMPRESSED:
        inner = Path(path.stem).suffix.lower()
        if inner in CONTENT_TYPES:
            return inner
    return suffix


def uncompressed_name(path: Path) -> Path:
    """``path`` as the file it holds is named: ``page.html.gz`` gives ``page.html``."""
    compressed = path.suffix.lower() == COMPRESSED and format_suffix(path) != COMPRESSED
    return path.with_suffix("") if compressed else path


def gunzipped(data: bytes, max_bytes: int) -> bytes:
    """The bytes a gzip file holds, every member of it, at most ``max_bytes`` of them.

    Raises:
        UnreadableDocumentError: ``too_large`` past ``max_bytes`` (read no further: a small
            file can hold gigabytes), ``unreadable`` when it is not whole gzip data.
    """
    out = bytearray()
    rest = data
    try:
        while rest:
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += member.decompress(rest, max_bytes + 1 - len(out))
            if len(out) > max_bytes or member.unconsumed_tail:
                raise UnreadableDocumentError(
                    "too_large", f"larger than {max_bytes:,} bytes uncompressed"
                )
            if not member.eof:
                raise UnreadableDocumentError("unreadable", "a gzip file cut short")
            rest = member.unused_data
    except zlib.error as exc:
        raise UnreadableDocumentError("unreadable", f"not gzip data ({exc})") from None
    return bytes(out)


@dataclass(frozen=True)
class CorpusLimits:
    """What one corpus may hold (settings ``DEEP_RESEARCH_CORPUS_MAX_*``)."""

    max_file_bytes: int = 20 * 1024 * 1024
    """Larger files are skipped (and logged) rather than loaded whole into memory."""
    max_files: int = 20_000
    """More files than this stop the indexing with an error."""
    max_total_bytes: int = 1024 * 1024 * 1024
    """More bytes in all than this stop the indexing with an error."""
    documents: DocumentLimits = DocumentLimits()
    """Caps on one document's pages, text and zip package (larger ones are skipped)."""


READERS_KEPT = 4
"""Read-only connections kept open between queries (concurrent queries may open more)."""

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves""".split()
) | (textutil.STOPWORDS - {"vs", "versus", "compare", "explain", "describe", "show", "tell"})
"""Very common words (English, and the function words of French, Spanish and German), left out
of search queries."""

_FTS5_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
_MAX_QUERY_TERMS = 64
_WORD = re.compile(r"[^\W_]+")
_CJK_CHAR = re.compile(f"([{textutil.CJK_CLASS}])")
_MARKDOWN_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # ``id`` is the FTS rowid: an INTEGER PRIMARY KEY survives VACUUM, an implicit rowid may not.
    """CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL UNIQUE,
        sha256 TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        content_type TEXT NOT NULL,
        language TEXT,
        pages TEXT,
        indexed_at TEXT NOT NULL,
        copy_of INTEGER
    )""",
    # The copies, which every search leaves out: read from this index, not from the rows
    # (``copy_of`` follows the text, so reading it from a row reads the whole row).
    "CREATE INDEX documents_copies ON documents (id) WHERE copy_of IS NOT NULL",
    # Files that were not indexed, with why; ``sha256`` is NULL for an unsupported format
    # (never read), so that a skipped file is read again only when it changes.
    """CREATE TABLE skipped (
        path TEXT PRIMARY KEY,
        sha256 TEXT,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        detail TEXT NOT NULL
    )""",
    """CREATE VIRTUAL TABLE documents_fts USING fts5(
        title, text, content='documents', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
        INSERT INTO documents_fts (rowid, title, text)
        VALUES (new.id, fts_text(new.title), fts_text(new.text));
    END""",
    """CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
        INSERT INTO documents_fts (documents_fts, rowid, title, text)
        VALUES ('delete', old.id, fts_text(old.title), fts_text(old.text));
    END""",
    """CREATE TRIGGER documents_au AFTER UPDATE OF title, text ON documents BEGIN
        INSERT INTO documents_fts (documents_fts, rowid, title, text)
        VALUES ('delete', old.id, fts_text(old.title), fts_text(old.text));
        INSERT INTO documents_fts (rowid, title, text)
        VALUES (new.id, fts_text(new.title), fts_text(new.text));
    END""",
)

_RANK_SQL = """
    SELECT rowid AS id, bm25(documents_fts, 5.0, 1.0) AS rank FROM documents_fts
    WHERE documents_fts MATCH ?
      AND rowid NOT IN (SELECT id FROM documents WHERE copy_of IS NOT NULL)
    ORDER BY rank
    LIMIT ?
"""
"""The ``k`` best matches by BM25 (the title weighs five times the body), copies left out."""

COPY_SIMILARITY = 0.85
"""Share of their words two documents of one title have in common (of all the words either
has) from which the second is a copy of the first (:func:`_mark_copies`)."""

COPY_FIGURES = 0.5
"""Share of their words with a digit that a copy has in common with its original."""

# Rank first, then join: only the k best rows' text is read. A join, or FTS5's snippet(), in
# the ranking query itself runs for every matching row before the sort.
_SEARCH_SQL = f"""
    SELECT d.url, d.title, d.text, hit.rank, d.path, d.language
    FROM ({_RANK_SQL}) AS hit JOIN documents AS d ON d.id = hit.id
    ORDER BY hit.rank
"""

TRANSLATION_ROWS = 3
"""Matches read per result asked for, so that a page left out as another language's
translation of a better match (:meth:`LocalCorpus._search`) leaves room for the next."""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What one pass of :meth:`LocalCorpus.index` changed."""

    added: int
    updated: int
    removed: int
    unchanged: int
    skipped: int = 0
    """Files not indexed (see :meth:`LocalCorpus.inventory` for why)."""


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """A corpus file read and converted to the text that is indexed."""

    title: str
    text: str
    content_type: str
    """The file's original type; ``text`` is always plain (or Markdown) text."""
    language: str | None = None
    """The declared language of an HTML file (``<html lang>``), if any."""
    pages: str | None = None
    """Where the pages (PDF) or slides (PPTX) start in ``text``: see
    :func:`~deep_research.sources.documents.page_map`."""


class LocalCorpus:
    """A folder of documents, indexed in SQLite FTS5 and ranked by BM25.

    Documents are addressed by the ``file://`` URI of their absolute path. The first
    :meth:`search` or :meth:`read` of an instance brings the index up to date. Connections
    that queries keep open are closed by :meth:`close`, or when the instance is collected.
    """

    name = "local"
    """Provider name recorded on results and sources."""

    busy_timeout = 30.0
    """Seconds indexing waits for SQLite's write lock (builds wait on the build lock first)."""

    def __init__(self, root: Path, index_path: Path, limits: CorpusLimits | None = None) -> None:
        """Check the corpus folder; nothing is read or indexed yet.

        Args:
            root: The corpus folder, searched recursively.
            index_path: The SQLite file holding the index (see :func:`default_index_path`).
            limits: Caps on file size, file count and total bytes (defaults: CorpusLimits()).

        Raises:
            CorpusNotFoundError: ``root`` does not exist or is not a folder.
        """
        self.root = root.resolve()
        if not self.root.is_dir():
            raise CorpusNotFoundError(f"local corpus folder not found or not a folder: {root}")
        self.index_path = index_path
        self.limits = limits or CorpusLimits()
        self._indexed = False
        self._lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        self._readers = ReaderPool(index_path, keep=READERS_KEPT)

    def close(self) -> None:
        """Close the connections kept open for queries; a later query opens new ones."""
        self._readers.close()

    def index(self) -> IndexStats:
        """Bring the index up to date with the folder, re-reading only files that changed.

        Returns:
            How many documents were added, updated, removed and left unchanged.

        Raises:
            CorpusNotFoundError: the folder has disappeared since the corpus was created.
            SourceError: the index could not be written.
            CorpusTooLargeError: the folder holds more files or bytes than the limits allow.
        """
        if not self.root.is_dir():
            raise CorpusNotFoundError(f"local corpus folder not found or not a folder: {self.root}")
        try:
            self.index_path.parent.mkdir(parents=True, exist_ok=True)
            with self._build_lock(), self._connect() as conn:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    stats = self._sync(conn)
                    conn.execute("COMMIT")
                finally:  # whatever stopped the sync (an error, a cancellation): nothing half-done
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
        except (sqlite3.Error, OSError) as exc:
            raise SourceError(f"could not index {self.root} into {self.index_path}: {exc}") from exc
        self._indexed = True
        return stats

    async def search(self, query: str, k: int) -> list[SearchResult]:
        """Return at most ``k`` documents matching any significant word of ``query``, best first.

        Args:
            query: Free text; FTS5 syntax and very common words are ignored.
            k: Maximum number of results.

        Returns:
            Results whose ``score`` is the BM25 relevance (higher is better); an empty list
            when the query holds no searchable word.

        Raises:
            SourceError: the index could not be built or read.
        """
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        await self._ensure_indexed()
        return await asyncio.to_thread(self._search, terms, k, language_of(query))

    async def read(self, url: str) -> Document:
        """Return the indexed document at ``url``, the ``file://`` URI of a corpus file.

        Raises:
            SourceError: the URL is not a document of this corpus, or the index failed.
        """
        try:
            key = normalize_url(url)
        except ValueError as exc:
            raise SourceError(f"not a local corpus URL: {url!r}") from exc
        await self._ensure_indexed()
        rows = await asyncio.to_thread(
            self._query_all,
            "SELECT url, path, sha256, title, text, content_type, language, pages FROM documents"
            " WHERE url = ? OR path = ? LIMIT 1",
            (key, unquote(urlsplit(key).path)),
        )
        if not rows:
            raise SourceError(f"no document of the local corpus {self.root} at {url}")
        stored_url, path, file_sha256, title, text, content_type, language, pages = rows[0]
        text_sha256 = hashlib.sha256(text.encode()).hexdigest()
        metadata = {"path": path, "sha256": text_sha256, "file_sha256": file_sha256}
        if language:
            metadata["language"] = language
        if pages:
            metadata["pages"] = pages
        return Document(
            id=f"doc_{text_sha256[:16]}",
            url=stored_url,
            title=title,
            text=text,
            content_type=content_type,
            metadata=metadata,
        )

    def inventory(self) -> CorpusInventory:
        """What the index holds, by kind, and the files it skipped, with their reasons.

        Brings the index up to date first if this instance has not yet.

        Raises:
            SourceError: the index could not be built or read.
        """
        if not self._indexed:
            self.index()
        read: dict[str, int] = {}
        copies = 0
        for path, copy_of in self._query_all(
            "SELECT path, copy_of FROM documents ORDER BY path", ()
        ):
            kind = kind_of(format_suffix(Path(path)))
            read[kind] = read.get(kind, 0) + 1
            copies += copy_of is not None
        rows = self._query_all("SELECT path, kind, reason, detail FROM skipped ORDER BY path", ())
        skipped = tuple(
            SkippedFile(self._relative(path), kind, reason, detail)
            for path, kind, reason, detail in rows
        )
        return CorpusInventory(read=read, skipped=skipped, copies=copies)

    def _relative(self, path: str) -> str:
        relative = Path(path)
        if relative.is_relative_to(self.root):
            relative = relative.relative_to(self.root)
        return escaped_name(relative.as_posix())

    async def _ensure_indexed(self) -> None:
        if self._indexed:
            return
        # One lock per event loop: an instance may be cached and reused across ``asyncio.run``.
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock[0] is not loop:
            self._lock = (loop, asyncio.Lock())
        async with self._lock[1]:
            if not self._indexed:
                await asyncio.to_thread(self.index)

    @contextmanager
    def _build_lock(self) -> Iterator[None]:
        """Hold the index's build lock: one build at a time, across instances and processes.

        Researchers that find the index missing at once (several instances, the command line
        and a server, a run resumed after a kill mid-build) wait here for the one build, then
        find the index up to date, instead of timing out on SQLite's write lock ("database is
        locked") while a large corpus is read. A killed builder's lock is released by the
        system, and its transaction was never committed.
        """
        with open(self.index_path.with_name(self.index_path.name + ".build-lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """The connection that indexing writes through."""
        # Autocommit mode: transactions are opened and closed explicitly.
        conn = sqlite3.connect(self.index_path, timeout=self.busy_timeout, isolation_level=None)
        try:
            conn.create_function("fts_text", 1, fts_text, deterministic=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            yield conn
        finally:
            conn.close()

    def _search(self, terms: Sequence[str], k: int, language: str) -> list[SearchResult]:
        """The ``k`` best matches of ``terms``, one page of each set of translations.

        A page in a folder named by its declared language (``fr/mod/core.html``, ``lang="fr"``)
        and its translations in the folders beside it are one document in several languages
        (:func:`translation_key`): a query finds it once, in the language it is read in where
        the corpus has it (:func:`reading_language`), else in the language of its best match.
        Cited twice, it would count as two independent sources; cited in another language, the
        reader gets a page in a language they did not ask in.
        """
        found = self._query_all(_SEARCH_SQL, (match_expression(terms), k * TRANSLATION_ROWS))
        keyed = [(row, translation_key(row[4], row[5], self.root)) for row in found]
        firsts: dict[str, str] = {}  # each set of translations: its best match's language
        for row, key in keyed:
            if key is not None:
                firsts.setdefault(key, row[5])
        wanted = reading_language(language, list(firsts.values()))
        rows: list[tuple[str, str, str, float, str]] = []
        seen: set[str] = set()
        for (url, title, text, rank, path, declared), key in keyed:
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
                url, title, text = self._in_language(path, declared, wanted) or (url, title, text)
            rows.append((url, title, text, rank, path))
        rows = one_format_each(rows)
        stems = term_stems(terms)
        return [
            SearchResult(
                url=url,
                title=title,
                snippet=make_snippet(text, stems),
                score=-rank,
                provider=self.name,
            )
            for url, title, text, rank, _ in rows[:k]
        ]

    def _in_language(self, path: str, declared: str, language: str) -> tuple[str, str, str] | None:
        """The URL, title and text of the page at ``path`` translated into ``language``.

        ``None`` when the page is in ``language`` already, or the corpus has no such page.
        """
        if _primary(declared) == language:
            return None
        sibling = translation_path(path, declared, language, self.root)
        if sibling is None:
            return None
        rows = self._query_all(
            "SELECT url, title, text, language FROM documents WHERE path = ? AND copy_of IS NULL",
            (sibling,),
        )
        if not rows or _primary(rows[0][3] or "") != language:
            return None
        url, title, text, _ = rows[0]
        return url, title, text

    def _query_all(self, sql: str, params: tuple[object, ...]) -> list[tuple[Any, ...]]:
        try:
            with self._readers.connection() as conn:
                rows: list[tuple[Any, ...]] = conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise SourceError(f"could not query the index {self.index_path}: {exc}") from exc
        return rows

    def _sync(self, conn: sqlite3.Connection) -> IndexStats:
        _ensure_schema(conn)
        known: dict[str, tuple[int, str]] = {
            path: (rowid, sha)
            for rowid, path, sha in conn.execute("SELECT id, path, sha256 FROM documents")
        }
        was_skipped: dict[str, str | None] = dict(
            conn.execute("SELECT path, sha256 FROM skipped").fetchall()
        )
        seen: set[str] = set()
        still: set[str] = set()  # skipped before, unchanged since: their rows stay
        skips: list[tuple[str, str | None, str, str, str]] = []
        added = updated = unchanged = total = 0
        now = datetime.now(UTC).isoformat()
        for path in iter_folder(self.root):
            if second_name(path, self.root):  # indexed once, under the name it links to
                continue
            key = str(path)
            suffix = format_suffix(path)
            try:
                if suffix not in CONTENT_TYPES:
                    raise UnreadableDocumentError(
                        "unsupported", f"unsupported format {suffix or '(no suffix)'}"
                    )
                data = _read_bytes(path, self.root, self.limits.max_file_bytes)
                if path.suffix.lower() == COMPRESSED:
                    data = gunzipped(data, self.limits.max_file_bytes)
            except UnreadableDocumentError as exc:
                skips.append((key, None, kind_of(suffix), exc.reason, exc.detail))
                continue
            total += len(data)
            if len(seen) >= self.limits.max_files or total > self.limits.max_total_bytes:
                raise CorpusTooLargeError(
                    f"the corpus folder {self.root} holds more than "
                    f"{self.limits.max_files:,} files or {self.limits.max_total_bytes:,} bytes"
                    " (DEEP_RESEARCH_CORPUS_MAX_FILES, DEEP_RESEARCH_CORPUS_MAX_BYTES): choose"
                    " a smaller folder or raise the limits"
                )
            digest = hashlib.sha256(data).hexdigest()
            row = known.get(key)
            if row is not None and row[1] == digest:
                seen.add(key)
                unchanged += 1
                continue
            if row is None and was_skipped.get(key) == digest:  # skipped, for the same reason
                still.add(key)
                continue
            try:
                parsed = parse_file(path, data, self.limits.documents)
            except UnreadableDocumentError as exc:
                logger.info("skipping %s: %s", path, exc.detail)
                skips.append((key, digest, kind_of(suffix), exc.reason, exc.detail))
                continue
            seen.add(key)
            values = (
                digest,
                parsed.title,
                parsed.text,
                parsed.content_type,
                parsed.language,
                parsed.pages,
                now,
            )
            if row is None:
                conn.execute(
                    "INSERT INTO documents (sha256, title, text, content_type, language, pages,"
                    " indexed_at, path, url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, key, normalize_url(path.as_uri())),
                )
                added += 1
            else:
                conn.execute(
                    "UPDATE documents SET sha256 = ?, title = ?, text = ?, content_type = ?,"
                    " language = ?, pages = ?, indexed_at = ? WHERE id = ?",
                    (*values, row[0]),
                )
                updated += 1
        gone = [(known[path][0],) for path in known.keys() - seen]
        conn.executemany("DELETE FROM documents WHERE id = ?", gone)
        conn.executemany(
            "DELETE FROM skipped WHERE path = ?", [(p,) for p in was_skipped.keys() - still]
        )
        conn.executemany("INSERT OR REPLACE INTO skipped VALUES (?, ?, ?, ?, ?)", skips)
        if added or updated or gone:
            _mark_copies(conn)
        skipped = len(skips) + len(still)
        return IndexStats(
            added=added, updated=updated, removed=len(gone), unchanged=unchanged, skipped=skipped
        )


def _mark_copies(conn: sqlite3.Connection) -> None:
    """Mark each document that copies an earlier one as its copy; unmark the rest.

    A copy has the same title and :data:`COPY_SIMILARITY` of the same words: one document in
    two formats (git's manual as HTML and as its AsciiDoc source, a report as PDF and as Word).
    Of these the original is the one in the format read first (:data:`FORMATS_READ_FIRST`),
    then the first by path. Searches leave copies out, so a query's results are distinct
    documents; a copy can still be read by its URL.
    """
    by_title: dict[str, list[int]] = {}
    rows = conn.execute("SELECT id, title, path FROM documents").fetchall()
    # the original is the format read first (a Sphinx page, not its source), then by path
    rows.sort(key=lambda row: (_format_order(Path(row[2])), row[2]))
    for rowid, title, _ in rows:
        name = " ".join(str(title).casefold().split())
        if name:
            by_title.setdefault(name, []).append(rowid)
    marks: dict[int, int | None] = {}
    for ids in by_title.values():
        if len(ids) < 2:
            continue
        words: dict[int, set[str]] = {}
        for rowid in ids:
            (text,) = conn.execute("SELECT text FROM documents WHERE id = ?", (rowid,)).fetchone()
            words[rowid] = set(re.findall(r"\w+", text.casefold()))
        kept: list[int] = []
        for rowid in ids:
            original = next((k for k in kept if _similar(words[k], words[rowid])), None)
            marks[rowid] = original
            if original is None:
                kept.append(rowid)
    conn.execute("UPDATE documents SET copy_of = NULL WHERE copy_of IS NOT NULL")
    conn.executemany(
        "UPDATE documents SET copy_of = ? WHERE id = ?",
        [(original, rowid) for rowid, original in marks.items() if original is not None],
    )


def _similar(a: set[str], b: set[str]) -> bool:
    """Whether word sets ``a`` and ``b`` are one document's.

    They share :data:`COPY_SIMILARITY` of their union, and at least half of their words with a
    digit: two invoices or monthly reports of one template share most words but not their
    numbers. Sets of sizes further apart than the share cannot: they are not compared (a corpus
    of many files under one generic title, "Microsoft Word - Document1", compares few pairs).
    """
    small, large = sorted((len(a), len(b)))
    if not large or small / large < COPY_SIMILARITY:
        return False
    if len(a & b) / len(a | b) < COPY_SIMILARITY:
        return False
    figures_a, figures_b = ({w for w in words if any(c.isdigit() for c in w)} for words in (a, b))
    figures = figures_a | figures_b
    return not figures or len(figures_a & figures_b) / len(figures) >= COPY_FIGURES


def default_index_path(data_dir: Path, root: Path) -> Path:
    """Return where the index of the corpus at ``root`` lives inside ``data_dir``.

    The name carries a hash of the resolved folder, so two folders of the same name do not
    share an index. The parent folders are created by :meth:`LocalCorpus.index`.
    """
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:10]
    return data_dir / "indexes" / f"{root.name}-{digest}.sqlite"


_JOINED_NAME = re.compile(r"\b[A-Za-z][a-z]+(?:[A-Z][a-z]+)+\b")
"""A name of words joined in camel case: ``LimitRequestBody``, ``KeepAliveTimeout``."""


def fts_text(text: str | None) -> str | None:
    """``text`` as the full-text index reads it: CJK spaced, joined names followed by their words.

    CJK characters are spaced (:func:`spaced_cjk`); a name of words joined in camel case is
    followed by its words. A manual names a setting by its joined words (Apache's
    ``LimitRequestBody``) and a user asks with the words apart ("limit the size of a request
    body"): indexed as one token, the name matched no word of the question, and the core
    page, long, ranked below every short page that says "request" and "body".
    """
    spaced = spaced_cjk(text)
    if spaced is None:
        return None
    return _JOINED_NAME.sub(lambda m: f"{m.group(0)} {_split_name(m.group(0))}", spaced)


def _split_name(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def spaced_cjk(text: str | None) -> str | None:
    """``text`` with a space around every CJK character, so that FTS5 indexes each one.

    FTS5's ``unicode61`` tokenizer splits at spaces and punctuation, and Chinese or Japanese
    text has neither between words: a whole clause would be one token. Indexed one character
    at a time, a word is found as a phrase of its characters (see :func:`query_terms`).
    """
    return None if text is None else _CJK_CHAR.sub(r" \1 ", text)


def query_terms(query: str) -> list[str]:
    """Return the significant words of free text, lower-cased and once each (at most 64).

    FTS5 syntax and stopwords are left out. CJK text becomes its character bigrams, each a
    two-character phrase (``"比 亚"``) that matches the index of :func:`spaced_cjk`.
    """
    terms: dict[str, None] = {}
    for word in _WORD.findall(query):
        lowered = word.lower()
        if textutil.has_cjk(word):
            for token in textutil.tokens(word):
                terms.setdefault(" ".join(token) if textutil.has_cjk(token) else token)
        elif word not in _FTS5_OPERATORS and lowered not in STOPWORDS:
            terms.setdefault(lowered)
    return list(terms)[:_MAX_QUERY_TERMS]


def match_expression(terms: Sequence[str]) -> str:
    """The FTS5 query matching any of ``terms``: each quoted, joined by OR."""
    return " OR ".join(f'"{term}"' for term in terms)


def build_match_query(query: str) -> str | None:
    """Turn free text into a safe FTS5 query: its significant words, quoted, joined by OR.

    Returns:
        The FTS5 query, or ``None`` when no word is left (only syntax or stopwords).
    """
    terms = query_terms(query)
    return match_expression(terms) if terms else None


def parse_file(path: Path, data: bytes, limits: DocumentLimits | None = None) -> ParsedFile:
    """Decode a corpus file and extract its title and indexed text.

    Args:
        path: The file, whose suffix selects the format and whose stem is the fallback title.
        data: The file's bytes; text formats are decoded as UTF-8 with replacement characters.
        limits: Caps on a document's pages, text and zip package (default: DocumentLimits()).

    Raises:
        UnreadableDocumentError: a document (PDF, DOCX, ...) could not be read, with why.
    """
    suffix = format_suffix(path)
    content_type = CONTENT_TYPES[suffix]
    pages = None
    if suffix in DOCUMENT_TYPES:
        document = read_document(suffix, data, limits)
        text, title, language = document.text, document.title, document.language
        if document.page_kind is not None:
            pages = page_map(document.page_kind, document.pages)
    else:
        text, title, language = _parse_text(data, content_type)
    title = escaped_name(" ".join((title or "").split())[:300])  # printed and written
    return ParsedFile(
        title=title or escaped_name(uncompressed_name(path).stem),
        text=text,
        content_type=content_type,
        language=language,
        pages=pages,
    )


_DECLARED_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)"""
    rb"""|<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""",
    re.I,
)
"""A charset an HTML file declares in a ``<meta>`` element, or an XML file in its declaration."""


def decode_file(data: bytes) -> str:
    """The text of a file's bytes: UTF-8 where they are, else the charset the file declares.

    Apache's Korean manual pages are EUC-KR, declared in a ``<meta>`` element: read as UTF-8
    with every invalid byte replaced, their words became runs of replacement characters that
    an English report quoted. A file that declares nothing is UTF-8 with a few broken bytes
    (each replaced) when it opens with UTF-8's byte order mark or holds UTF-8's sequences for
    characters beyond ASCII; otherwise it is read as Windows-1252, the usual encoding of older
    Western text files (an "é" one byte, 0xE9), which reads any byte.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    found = _DECLARED_CHARSET.search(data[:4096])
    if found is not None:
        name = (found.group(1) or found.group(2)).decode("ascii")
        try:
            return data.decode(name, errors="replace")
        except LookupError:  # a charset Python does not know
            pass
    if data.startswith(codecs.BOM_UTF8) or _UTF8_SEQUENCE.search(data):
        return data.decode("utf-8-sig", errors="replace")
    return data.decode("cp1252", errors="replace")


_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
"""UTF-8's encoding of a character beyond ASCII, which a single-byte charset's text rarely holds."""


def _parse_text(data: bytes, content_type: str) -> tuple[str, str | None, str | None]:
    """The text, title and language of a Markdown, text or HTML file."""
    text = clean_text(decode_file(data))
    if content_type == "text/html":
        page = extract_html_file(text)
        return page.text, page.title, page.language
    if content_type == "text/markdown":
        return text, _markdown_title(text), None
    return text, _text_title(text), None


_HEADER = re.compile(r"([A-Za-z][A-Za-z-]*): ?(.*)")


def _text_title(text: str) -> str | None:
    """The first non-blank line of a text file; for a saved e-mail, its subject.

    A file that opens with mail headers ("From: ...", "Date: ...", "Subject: ...") is titled
    by its ``Subject``, not by the sender or the date on its first line.
    """
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    headers: dict[str, str] = {}
    for line in lines[first:]:
        if not line.strip():
            break
        if line[0] in " \t":  # a folded header's next line
            continue
        found = _HEADER.fullmatch(line.rstrip())
        if found is None:
            headers = {}
            break
        headers.setdefault(found.group(1).casefold(), found.group(2).strip())
    subject = headers.get("subject", "")
    if subject and {"from", "date"} & headers.keys():
        return subject
    return lines[first]


def iter_corpus_files(root: Path) -> Iterator[Path]:
    """Yield the indexable files under ``root`` in sorted order, skipping hidden entries.

    A symbolic link to another indexable file of the corpus is left out (:func:`second_name`).
    """
    for path in iter_folder(root):
        if format_suffix(path) in CONTENT_TYPES and not second_name(path, root):
            yield path


def _primary(language: str) -> str:
    """A language tag's primary subtag, lower case (``pt-BR`` gives ``pt``)."""
    return re.split(r"[-_]", language.strip().lower(), maxsplit=1)[0]


def _language_folder(path: str, declared: str | None, root: Path) -> tuple[Path, int] | None:
    """``path`` relative to ``root``, and where in it the folder named by ``declared`` is."""
    if not declared:
        return None
    try:
        relative = Path(path).relative_to(root)
    except ValueError:
        return None
    tag = declared.strip().lower().replace("_", "-")
    folders = [part.lower().replace("_", "-") for part in relative.parts[:-1]]
    return (relative, folders.index(tag)) if tag in folders else None


FORMATS_READ_FIRST = (".html", ".htm", ".xhtml", ".pdf", ".docx", ".pptx", ".epub", ".md", ".rst")
"""Of one document's formats side by side, the one a search gives: a rendered page before the
source it was made from (git-doc's ``git-reset.html`` before ``git-reset.txt``); any other
format (plain text) last."""

SAME_WORDS = 0.8
"""Share of the words of the shorter of two files of one name in one folder that the other
must hold for the two to be one document in two formats, not two documents that happen to
share a name (a source that includes other files, as git-diff.txt includes its options, holds
fewer words than the page made of it: 0.95 of them are in git-diff.html)."""


def one_format_each(
    rows: list[tuple[str, str, str, float, str]],
) -> list[tuple[str, str, str, float, str]]:
    """``rows`` (URL, title, text, rank, path; best first) with one format of each document.

    Files of one name in one folder (or a Sphinx page and its source in ``_sources``,
    :func:`_document_name`), the words of one nearly all in the other (:data:`SAME_WORDS`), are
    one document in several formats: Debian's git-doc installs each manual page as HTML and as
    the AsciiDoc it was made from, under titles that differ ("How to
    revert an existing commit" and "[HOWTO] Reverting an existing commit"). Found as two, both
    are quoted and the report counts them as two independent sources. The set keeps the place
    of its best match, in the format read first (:data:`FORMATS_READ_FIRST`).
    """
    kept: list[tuple[str, str, str, float, str]] = []
    by_name: dict[Path, list[int]] = {}  # a document's name: the kept rows of it
    words: dict[int, set[str]] = {}  # worked out only for files whose name another shares

    def words_of(n: int) -> set[str]:
        if n not in words:
            words[n] = set(textutil.content_tokens(kept[n][2]))
        return words[n]

    for row in rows:
        path = Path(row[4])
        name = _document_name(path)
        named = [n for n in by_name.get(name, []) if Path(kept[n][4]).name != path.name]
        mine = set(textutil.content_tokens(row[2])) if named else set()
        twin = next((n for n in named if _held(mine, words_of(n)) >= SAME_WORDS), None)
        if twin is None:
            by_name.setdefault(name, []).append(len(kept))
            kept.append(row)
        elif _format_order(path) < _format_order(Path(kept[twin][4])):
            url, title, text, _, where = row
            kept[twin] = (url, title, text, kept[twin][3], where)
            words[twin] = mine
    return kept


def _document_name(path: Path) -> Path:
    """What the formats of one document share: its path without its suffixes.

    A Sphinx build keeps each page's source beside the pages in ``_sources``
    (``_sources/configuration/filters.rst.txt`` for ``configuration/filters.html``): that
    folder is left out, and so are both of its suffixes.
    """
    parts = list(path.parts)
    if "_sources" in parts[:-1]:
        del parts[parts.index("_sources")]
        name = parts[-1].removesuffix(".txt")
        parts[-1] = Path(name).stem if Path(name).suffix in (".rst", ".md") else name
        return Path(*parts)
    return uncompressed_name(path).with_suffix("")


def _held(a: set[str], b: set[str]) -> float:
    """The share of the smaller of ``a`` and ``b`` that the other holds (0 if one is empty)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _format_order(path: Path) -> int:
    suffix = format_suffix(path)
    return (
        FORMATS_READ_FIRST.index(suffix)
        if suffix in FORMATS_READ_FIRST
        else len(FORMATS_READ_FIRST)
    )


def reading_language(asked: str, matched: Sequence[str]) -> str:
    """The language a query's translated pages are given in.

    ``asked``: the query's language (:func:`~deep_research.text.language.language_of`), which
    is English too when the query has no word that tells (``allow override directory``);
    ``matched``: the declared language of the best match of each set of translations, best
    first. A language the query tells other than English is taken; otherwise the one most of
    the sets were best matched in, so that a query in French words with nothing else to tell
    its language ("répertoires utilisateurs") is read in French, and one in English words in
    English, whichever shorter translation BM25 ranks first for one page.
    """
    if asked != "en" or not matched:
        return asked
    counts = Counter(_primary(language) for language in matched)
    return max(counts, key=lambda language: (counts[language], language == "en"))


def translation_key(path: str, declared: str | None, root: Path) -> str | None:
    """What a page shares with its translations: its path without its language's folder.

    ``en/mod/core.html`` (``lang="en"``) and ``fr/mod/core.html`` (``lang="fr"``) give
    ``*/mod/core.html``. ``None`` for a page in no folder named by its declared language.
    """
    found = _language_folder(path, declared, root)
    if found is None:
        return None
    relative, at = found
    return "/".join([*relative.parts[:at], "*", *relative.parts[at + 1 :]])


def translation_path(path: str, declared: str | None, language: str, root: Path) -> str | None:
    """Where the page at ``path`` would be in ``language``: its language's folder renamed."""
    found = _language_folder(path, declared, root)
    if found is None:
        return None
    relative, at = found
    return str(root.joinpath(*relative.parts[:at], language, *relative.parts[at + 1 :]))


def second_name(path: Path, root: Path) -> bool:
    """Whether ``path`` is a symbolic link to a file the corpus indexes under its own name.

    Such a link is a second name of one document (a manual's translations folder linking
    each untranslated page to the original, as Debian's apache2-doc does for ten languages):
    indexed under both, the document would be found, quoted and cited twice, and counted as
    two independent sources. A link to a hidden file, or to one out of the corpus, is not one.
    """
    if not path.is_symlink():
        return False
    try:
        target = path.resolve(strict=True)
        inside = target.relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):  # broken, looping, or out of the corpus
        return False
    return (
        target.is_file()
        and format_suffix(target) in CONTENT_TYPES
        and not any(part.startswith(".") for part in inside.parts)
    )


def iter_folder(root: Path) -> Iterator[Path]:
    """Yield every file under ``root`` in sorted order; hidden files and folders are left out."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath, name)


def _markdown_title(text: str) -> str | None:
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := _MARKDOWN_H1.match(line)):
            return match.group(1)
    return None


def _read_bytes(path: Path, root: Path, max_bytes: int) -> bytes:
    """The file's bytes, if it may be indexed.

    A corpus never reads outside its folder: a symbolic link is followed only when its
    target lies inside ``root``; anything but a regular file (a device, a FIFO, a socket) is
    skipped, and so is a file larger than ``max_bytes``.

    Raises:
        UnreadableDocumentError: ``too_large``, or ``unreadable`` (a link out of the corpus,
            not a regular file, an error of the system).
    """
    try:
        if path.is_symlink() and not path.resolve().is_relative_to(root):
            logger.warning("skipping %s: a link to %s, outside the corpus", path, path.resolve())
            raise UnreadableDocumentError("unreadable", "a link to a file outside the corpus")
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            logger.warning("skipping %s: not a regular file", path)
            raise UnreadableDocumentError("unreadable", "not a regular file")
        too_large = UnreadableDocumentError("too_large", f"larger than {max_bytes:,} bytes")
        if info.st_size > max_bytes:
            logger.warning("skipping %s: larger than %d bytes", path, max_bytes)
            raise too_large
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
        if len(data) > max_bytes:  # it grew, or its size was not what stat said
            logger.warning("skipping %s: larger than %d bytes", path, max_bytes)
            raise too_large
        return data
    except OSError as exc:
        logger.warning("skipping unreadable corpus file %s: %s", path, exc)
        raise UnreadableDocumentError("unreadable", exc.strerror or str(exc)) from None


def _ensure_schema(conn: sqlite3.Connection) -> None:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if has_meta:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is not None and row[0] == SCHEMA_VERSION:
            return
    for table in ("documents_fts", "documents", "skipped", "meta"):
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
