"""Local corpus: indexing throughput and query latency, our SQLite FTS5 index against bm25s.

Generated Markdown documents (1,000 and 10,000; about 400 words each, Zipf-distributed
vocabulary, a title, sections, figures) are written to a folder. Ours: ``LocalCorpus.index``
(read, hash, parse, insert into FTS5 in one transaction) and ``LocalCorpus.search`` as the
agent calls it (a thread, a pooled connection, BM25 with the title weighted five times, a
snippet cut from each of the k best texts). bm25s: the same files read and parsed, tokenized
with the same stopwords and the Porter stemmer (FTS5's ``porter`` tokenizer), BM25 with
FTS5's parameters (Robertson, k1 1.2, b 0.75) over title and body. Agreement: for each
query, the share of our top 10 that bm25s also ranks in its top 10, and how often both rank
the same document first.

numpy (which bm25s uses) runs in a child process with ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` unset, as this machine's notes ask for benchmarks; the BLAS kernel it
then loads is recorded.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, log, percentile
from bench.sections import Options
from bench.sim import text

NAME = "corpus"
SIZES = (1000, 10000)
QUERIES = 200
DOC_WORDS = 400
VOCABULARY = 6000
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_SYLLABLES = ("ka", "lo", "mer", "tin", "sa", "ve", "ron", "dal", "qui", "bor", "en", "ta", "lum")


def vocabulary() -> list[str]:
    """Pseudo-words, most frequent first."""
    r = text.rng("vocabulary")
    words: dict[str, None] = {}
    while len(words) < VOCABULARY:
        words.setdefault("".join(r.choice(_SYLLABLES) for _ in range(r.randint(2, 4))))
    return list(words)


def write_corpus(root: Path, n: int) -> int:
    """Write ``n`` Markdown documents; return their total size in bytes."""
    words = vocabulary()
    weights = [1 / (rank + 1) for rank in range(len(words))]
    total = 0
    for i in range(n):
        r = text.rng("doc", i)
        topic = r.choices(words[50:], weights=weights[50:], k=4)
        body = []
        for heading in ("Background", "Findings", "Discussion"):
            filler = r.choices(words, weights=weights, k=DOC_WORDS // 6)
            prose = text.prose(r, [" ".join(topic[:2]), " ".join(topic[2:])], DOC_WORDS // 6)
            body.append(f"## {heading}\n\n{' '.join(prose)} {' '.join(filler)}.")
        document = f"# {' '.join(topic).title()} report {i}\n\n" + "\n\n".join(body) + "\n"
        path = root / f"d{i // 1000:02d}" / f"doc-{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document)
        total += len(document.encode())
    return total


def queries(n: int) -> list[str]:
    """Queries of two or three mid-frequency words."""
    words = vocabulary()
    r = text.rng("queries")
    return [" ".join(r.sample(words[50:1500], r.randint(2, 3))) for _ in range(n)]


def _ours(root: Path, index: Path, asked: list[str]) -> tuple[dict[str, Any], list[list[str]]]:
    from deep_research.sources.local import LocalCorpus

    corpus = LocalCorpus(root, index)
    start = time.perf_counter()
    stats = corpus.index()
    seconds = time.perf_counter() - start
    latencies: list[float] = []
    ranked: list[list[str]] = []

    async def search_all() -> None:
        for query in asked:
            begin = time.perf_counter()
            hits = await corpus.search(query, 10)
            latencies.append((time.perf_counter() - begin) * 1000)
            ranked.append([h.url.rsplit("/", 1)[-1] for h in hits])

    asyncio.run(search_all())
    corpus.close()
    return {
        "index_seconds": round(seconds, 3),
        "documents": stats.added,
        "index_bytes": index.stat().st_size,
        "query_ms": _latency(latencies),
        "query_ms_breakdown": _breakdown(index, asked),
    }, ranked


def _breakdown(index: Path, asked: list[str]) -> dict[str, dict[str, float]]:
    """Where a query's time goes: its SQL alone on one open connection, then the ranking alone.

    The SQL ranks by BM25 and then reads the k best texts; the rest of a query's time is the
    worker thread, the snippets and the result objects.
    """
    import sqlite3

    from deep_research.sources import local

    out: dict[str, dict[str, float]] = {}
    with closing(sqlite3.connect(index)) as conn:
        for name, sql in (("open_connection", local._SEARCH_SQL), ("no_snippet", local._RANK_SQL)):
            latencies = []
            for query in asked:
                begin = time.perf_counter()
                conn.execute(sql, (local.build_match_query(query), 10)).fetchall()
                latencies.append((time.perf_counter() - begin) * 1000)
            out[name] = _latency(latencies)
    return out


def _bm25s(root: Path, asked: list[str]) -> tuple[dict[str, Any], list[list[str]]]:
    import bm25s  # type: ignore[import-untyped]
    import Stemmer  # type: ignore[import-not-found]

    from deep_research.sources.local import STOPWORDS, iter_corpus_files, parse_file

    stemmer = Stemmer.Stemmer("porter")
    stopwords = sorted(STOPWORDS)
    start = time.perf_counter()
    names: list[str] = []
    documents: list[str] = []
    for path in iter_corpus_files(root):
        parsed = parse_file(path, path.read_bytes())
        names.append(path.name)
        documents.append(f"{parsed.title}\n{parsed.text}")
    tokens = bm25s.tokenize(documents, stopwords=stopwords, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="robertson", k1=1.2, b=0.75)
    retriever.index(tokens, show_progress=False)
    seconds = time.perf_counter() - start
    latencies: list[float] = []
    ranked: list[list[str]] = []
    for query in asked:
        begin = time.perf_counter()
        query_tokens = bm25s.tokenize(
            [query], stopwords=stopwords, stemmer=stemmer, show_progress=False
        )
        ids, scores = retriever.retrieve(query_tokens, k=10, show_progress=False)
        latencies.append((time.perf_counter() - begin) * 1000)
        ranked.append([names[i] for i, s in zip(ids[0], scores[0], strict=True) if s > 0])
    return {"index_seconds": round(seconds, 3), "query_ms": _latency(latencies)}, ranked


def _latency(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 3),
        "p95": round(percentile(values, 95), 3),
        "max": round(max(values), 3),
    }


def agreement(ours: list[list[str]], theirs: list[list[str]]) -> dict[str, float]:
    """Mean overlap of the top 10s (share of ours that bm25s also returns) and top-1 match."""
    overlaps = [len(set(a) & set(b)) / len(a) for a, b in zip(ours, theirs, strict=True) if a]
    firsts = [a[0] == b[0] for a, b in zip(ours, theirs, strict=True) if a and b]
    return {
        "overlap_at_10": round(sum(overlaps) / max(1, len(overlaps)), 3),
        "top1_same": round(sum(firsts) / max(1, len(firsts)), 3),
        "queries_with_results": len(overlaps),
    }


def measure(sizes: list[int], n_queries: int) -> dict[str, Any]:
    """Everything, in this process (the worker)."""
    import numpy  # noqa: F401  (so that threadpoolctl sees its BLAS)
    from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

    rows = []
    asked = queries(n_queries)
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
            root = Path(tmp) / "docs"
            size = write_corpus(root, n)
            ours, ours_ranked = _ours(root, Path(tmp) / "index.sqlite", asked)
            theirs, their_ranked = _bm25s(root, asked)
        for result in (ours, theirs):
            result["docs_per_second"] = round(n / result["index_seconds"], 1)
            result["mb_per_second"] = round(size / 1e6 / result["index_seconds"], 2)
        rows.append(
            {
                "documents": n,
                "corpus_mb": round(size / 1e6, 2),
                "ours": ours,
                "bm25s": theirs,
                "agreement": agreement(ours_ranked, their_ranked),
                "query_p50_ratio": round(ours["query_ms"]["p50"] / theirs["query_ms"]["p50"], 2),
                "index_time_ratio": round(ours["index_seconds"] / theirs["index_seconds"], 2),
            }
        )
    blas = [
        {k: info.get(k) for k in ("internal_api", "architecture", "num_threads", "version")}
        for info in threadpool_info()
    ]
    return {"queries": n_queries, "doc_words": DOC_WORDS, "sizes": rows, "blas": blas}


def run(options: Options) -> dict[str, Any]:
    """Index and query both engines in a child process without the OpenBLAS overrides."""
    sizes = [200] if options.quick else list(SIZES)
    n_queries = 20 if options.quick else QUERIES
    log(f"corpus: {', '.join(map(str, sizes))} documents, {n_queries} queries")
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-m", "bench.sections.corpus", json.dumps([sizes, n_queries])],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the corpus worker failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    result["unset_variables"] = [name for name in BLAS_VARIABLES if name in os.environ]
    return result


if __name__ == "__main__":
    worker_sizes, worker_queries = json.loads(sys.argv[1])
    print(json.dumps(measure(worker_sizes, worker_queries)))
