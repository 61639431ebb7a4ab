"""Documentation questions: what the offline agent finds in a corpus nobody here wrote.

The corpus is Debian's ``git-doc`` package (the HTML manual pages of git), copied into a
temporary folder and indexed as a local corpus; ``bench/docqa/questions.json`` holds 15
questions, the pages that answer each, and the key facts those pages state (checked to be in
the pages' extracted text). For each question the offline graph runs in-process, and the
section reports:

* **page recall**: the share of questions for which a page that answers it was read;
* **key-fact recall** of (a) the text of the pages read, (b) the evidence handed to the
  writer (the findings' quotes), (c) the report: the share of key facts whose words appear,
  in order, in that text (lower-cased, punctuation as spaces);
* the **supported share** of the report's checked claims.

The package is installed with ``apt-get install git-doc`` when missing (the bench may install
what it measures); without it the section says so and measures nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import statistics
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from bench.common import BENCH_DIR, log
from bench.sections import Options
from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.persistence.checkpointer import make_serde
from deep_research.sources.local import LocalCorpus

NAME = "docqa"
QUESTIONS = BENCH_DIR / "docqa" / "questions.json"


def normalized(text: str) -> str:
    """Lower case, every run of non-alphanumerics one space."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def recall(facts: list[str], text: str) -> float:
    """The share of ``facts`` whose normalized words appear in ``text``."""
    haystack = normalized(text)
    return sum(1 for fact in facts if normalized(fact) in haystack) / len(facts)


def _ensure_package(spec: dict[str, Any]) -> Path | None:
    folder = Path(spec["folder"])
    if not folder.is_dir() and shutil.which("apt-get"):
        log(f"installing {spec['package']} (apt-get)")
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", spec["package"]],
            check=False,
            capture_output=True,
            timeout=600,
        )
    return folder if folder.is_dir() else None


async def _ask(corpus: LocalCorpus, question: str) -> dict[str, Any]:
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        config,
        context=Context(allow_clarification=False),
    )
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


async def _measure(corpus: LocalCorpus, item: dict[str, Any]) -> dict[str, Any]:
    state = await _ask(corpus, item["question"])
    report = state["report"]
    read = [s for s in state["sources"] if s.crawl_status == "ok"]
    names = {s.url.rsplit("/", 1)[-1] for s in read}
    pages_text = "\n".join([(await corpus.read(s.url)).text for s in read])
    chosen = {i for f in state["findings"] for i in f.evidence_ids}
    evidence = "\n".join(e.quote for e in state["evidence"] if e.id in chosen)
    summary = report.verification
    return {
        "question": item["question"],
        "answer_page_read": bool(names & set(item["pages"])),
        "facts": len(item["facts"]),
        "recall_pages": recall(item["facts"], pages_text),
        "recall_evidence": recall(item["facts"], evidence),
        "recall_report": recall(item["facts"], report.markdown),
        "claims": summary.total,
        "supported": summary.supported,
        "sections": [s.title for s in report.sections],
    }


def run(options: Options) -> dict[str, Any]:
    """Run every question (three with ``--quick``); see the module docstring."""
    spec = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    folder = _ensure_package(spec)
    if folder is None:
        return {"skipped": f"the {spec['package']} package is not installed and could not be"}
    items = spec["questions"][:3] if options.quick else spec["questions"]
    with tempfile.TemporaryDirectory(prefix="bench-docqa-") as tmp:
        root = Path(tmp) / "corpus"
        root.mkdir()
        for page in sorted(folder.glob("*.html")):
            shutil.copy(page, root / page.name)
        corpus = LocalCorpus(root, Path(tmp) / "index.sqlite")
        rows = [asyncio.run(_measure(corpus, item)) for item in items]
    for row in rows:
        log(
            f"{row['question'][:50]}: page {'yes' if row['answer_page_read'] else 'no'}, "
            f"facts pages {row['recall_pages']:.2f} evidence {row['recall_evidence']:.2f} "
            f"report {row['recall_report']:.2f}"
        )
    claims = sum(r["claims"] for r in rows)
    return {
        "corpus": spec["corpus"],
        "questions": len(rows),
        "page_recall": round(sum(r["answer_page_read"] for r in rows) / len(rows), 3),
        "fact_recall": {
            key: round(statistics.mean(r[f"recall_{key}"] for r in rows), 3)
            for key in ("pages", "evidence", "report")
        },
        "supported_share": round(sum(r["supported"] for r in rows) / claims, 3) if claims else None,
        "rows": rows,
    }
