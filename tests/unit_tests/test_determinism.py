"""Ranking does not depend on Python's string hashing, which changes from process to process.

Sums of floats taken in set order round differently under another ``PYTHONHASHSEED``, and a
tie broken differently picks other evidence: a resumed run (a new process) could then write a
different report than the one it resumes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from deep_research.text import words as text

TEXT_MODULE = Path(text.__file__)

# text.py needs only the standard library: load it alone, without the package's imports.
SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("text", sys.argv[1])
text = importlib.util.module_from_spec(spec)
sys.modules["text"] = text
spec.loader.exec_module(text)
BM25, content_tokens = text.BM25, text.content_tokens
docs = [content_tokens(t) for t in (
    "Lithium iron phosphate cells last longer than NMC cells in grid storage",
    "NMC cells store more energy per kilogram than lithium iron phosphate",
    "Grid storage batteries cycle daily; phosphate chemistry tolerates heat",
    "Hornsdale Power Reserve uses lithium-ion cells for grid frequency control",
)]
bm25 = BM25(docs)
query = content_tokens("lithium phosphate NMC grid storage cells energy heat frequency")
print([repr(bm25.score(query, i)) for i in range(len(docs))])
"""


def _scores(seed: str) -> str:
    env = os.environ | {"PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(TEXT_MODULE)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_bm25_scores_are_bit_identical_under_any_hash_seed() -> None:
    scores = {_scores(seed) for seed in ("0", "1", "2", "3", "4", "5")}
    assert len(scores) == 1, scores


def test_bm25_from_the_query_terms_counts_scores_as_from_whole_token_lists() -> None:
    # passage ranking counts only the query's terms (sources/passages.py): the same floats
    docs = [
        text.content_tokens(t)
        for t in (
            "Lithium iron phosphate cells last longer than NMC cells in grid storage",
            "NMC cells store more energy per kilogram than lithium iron phosphate",
            "Grid storage batteries cycle daily; phosphate chemistry tolerates heat",
            "",
        )
    ]
    query = text.content_tokens("lithium phosphate cells heat frequency")
    counts = [{t: doc.count(t) for t in set(query) if t in doc} for doc in docs]
    whole = text.BM25(docs)
    counted = text.BM25.from_counts(counts, [len(doc) for doc in docs])
    assert [counted.score(query, i) for i in range(4)] == [whole.score(query, i) for i in range(4)]
    assert whole.score(query, 0) > 0
