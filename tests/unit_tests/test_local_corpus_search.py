"""Local corpus queries: connections kept open and reused, re-indexing under open readers,
snippets, and BM25 ranking over the k best rows only."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from deep_research.sources.local import _RANK_SQL, READERS_KEPT, LocalCorpus
from deep_research.sources.snippets import SNIPPET_WORDS
from deep_research.sources.sqlite_readers import ReaderPool


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    root = tmp_path / "corpus"
    _write(root / "batteries.md", "# Grid batteries\n\nBatteries store energy for the grid.\n")
    _write(root / "hydro.md", "# Pumped hydro\n\nReservoirs store energy as water.\n")
    for i in range(6):  # BM25 gives terms in more than half the documents almost no weight
        _write(root / f"filler{i}.txt", f"Filler {i}\nGardening and cooking soups, note {i}.")
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")
    corpus.index()
    return corpus


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[sqlite3.Connection]:
    """Every SQLite connection opened from now on."""
    connections: list[sqlite3.Connection] = []
    connect = sqlite3.connect

    def recording_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connections.append(connect(*args, **kwargs))
        return connections[-1]

    monkeypatch.setattr(sqlite3, "connect", recording_connect)
    return connections


def _is_open(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return False
    return True


async def test_queries_reuse_one_connection(
    corpus: LocalCorpus, opened: list[sqlite3.Connection]
) -> None:
    for _ in range(20):
        assert await corpus.search("grid batteries", 5)
    await corpus.read((corpus.root / "hydro.md").as_uri())

    assert len(opened) == 1


async def test_readers_cannot_write(corpus: LocalCorpus, opened: list[sqlite3.Connection]) -> None:
    await corpus.search("grid", 5)

    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        opened[0].execute("DELETE FROM meta")  # documents: its triggers need the indexer


async def test_concurrent_queries_have_their_own_connections(
    corpus: LocalCorpus, opened: list[sqlite3.Connection]
) -> None:
    results = await asyncio.gather(*(corpus.search("reservoirs", 3) for _ in range(12)))

    assert all([r.title for r in hits] == ["Pumped hydro"] for hits in results)
    assert sum(_is_open(conn) for conn in opened) <= READERS_KEPT


def test_a_connection_in_use_is_never_lent_twice_and_idle_ones_are_capped(
    corpus: LocalCorpus, opened: list[sqlite3.Connection]
) -> None:
    pool = ReaderPool(corpus.index_path, keep=1)
    with pool.connection() as first, pool.connection() as second:
        assert first is not second  # two queries at once, two connections
    with pool.connection() as again:
        assert again in (first, second)  # an idle one is reused
    assert len(opened) == 2
    assert sum(_is_open(conn) for conn in opened) == 1  # keep=1: the other was closed
    pool.close()
    assert not any(_is_open(conn) for conn in opened)


async def test_close_closes_every_connection_and_later_queries_reopen(
    corpus: LocalCorpus, opened: list[sqlite3.Connection]
) -> None:
    await asyncio.gather(*(corpus.search("grid", 3) for _ in range(4)))
    assert any(_is_open(conn) for conn in opened)

    corpus.close()

    assert not any(_is_open(conn) for conn in opened)
    assert [r.title for r in await corpus.search("grid", 3)] == ["Grid batteries"]
    corpus.close()
    assert not any(_is_open(conn) for conn in opened)


async def test_reindexing_is_seen_by_open_readers(
    corpus: LocalCorpus, opened: list[sqlite3.Connection]
) -> None:
    assert [r.title for r in await corpus.search("reservoirs", 3)] == ["Pumped hydro"]
    _write(corpus.root / "hydro.md", "# Pumped hydro\n\nTurbines pump water uphill.\n")
    (corpus.root / "batteries.md").unlink()

    corpus.index()  # writes through a connection of its own while the reader stays open

    assert await corpus.search("reservoirs", 3) == []
    assert [r.title for r in await corpus.search("turbines", 3)] == ["Pumped hydro"]
    assert await corpus.search("batteries", 3) == []
    readers = [conn for conn in opened if _is_open(conn)]
    assert len(readers) == 1  # the same reader throughout; the writer is closed


async def test_rebuilt_index_is_seen_by_open_readers(corpus: LocalCorpus) -> None:
    assert await corpus.search("reservoirs", 3)
    with closing(sqlite3.connect(corpus.index_path)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE key = 'schema_version'")

    stats = corpus.index()  # drops and recreates every table

    assert stats.added == 8
    assert [r.title for r in await corpus.search("reservoirs", 3)] == ["Pumped hydro"]


async def test_snippet_is_cut_around_an_inflected_query_term(tmp_path: Path) -> None:
    words = " ".join(f"word{i}" for i in range(80))
    _write(tmp_path / "c" / "long.md", f"# Notes\n\n{words} Batteries (charged) {words}\n")
    corpus = LocalCorpus(tmp_path / "c", tmp_path / "i.sqlite")

    [result] = await corpus.search("battery charging", 5)

    words_before = "…word75 word76 word77 word78 word79 Batteries (charged) word0"
    assert result.snippet.startswith(words_before)
    assert result.snippet.endswith("…")
    assert len(result.snippet.split()) == SNIPPET_WORDS


async def test_snippet_of_a_title_match_is_the_start_of_the_text(tmp_path: Path) -> None:
    _write(tmp_path / "c" / "a.md", "# Zeppelins\n\n## History\n\nAirships flew over the sea.\n")
    corpus = LocalCorpus(tmp_path / "c", tmp_path / "i.sqlite")

    [result] = await corpus.search("zeppelin", 5)

    assert result.snippet == "Zeppelins History Airships flew over the sea."


async def test_ranking_equals_bm25_over_all_matching_rows(tmp_path: Path) -> None:
    # The k best are picked before the join: the order must be BM25's over every match.
    rng = random.Random(7)
    vocabulary = [f"term{i}" for i in range(60)]
    weights = [1 / (rank + 1) for rank in range(60)]
    for i in range(60):
        title = " ".join(rng.choices(vocabulary, weights, k=2))
        body = " ".join(rng.choices(vocabulary, weights, k=rng.randint(20, 120)))
        _write(tmp_path / "c" / f"d{i:02d}.md", f"# {title}\n\n{body}\n")
    corpus = LocalCorpus(tmp_path / "c", tmp_path / "i.sqlite")

    for query in ("term13 term29", "term45", "term5 term20 term41", "term17 term30"):
        ours = [r.url for r in await corpus.search(query, 10)]
        with closing(sqlite3.connect(corpus.index_path)) as conn:
            everything = conn.execute(
                "SELECT d.url FROM documents_fts JOIN documents AS d ON d.id = documents_fts.rowid"
                " WHERE documents_fts MATCH ? ORDER BY bm25(documents_fts, 5.0, 1.0)",
                (query.replace(" ", " OR "),),
            ).fetchall()
        assert len(everything) > 10
        assert ours == [url for (url,) in everything[:10]], query


def test_leaving_copies_out_reads_the_copies_index_not_every_document(
    corpus: LocalCorpus,
) -> None:
    # copy_of follows a document's text in its row: read from the rows, leaving the copies out
    # read every document, text and all, for each query (14 ms at 10,000 documents, 1 ms
    # without); the partial index of the copies holds them alone
    with closing(sqlite3.connect(corpus.index_path)) as conn:
        plan = [str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {_RANK_SQL}", ("x", 10))]
    assert any("INDEX documents_copies" in step for step in plan)
    assert not any(step.strip() == "SCAN documents" for step in plan)
