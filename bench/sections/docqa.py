"""Documentation questions: evidence and answers on corpora nobody here wrote.

Each ``bench/docqa/<corpus>.json`` names a Debian documentation package (git-doc,
postgresql-doc-15, sqlite3-doc, apache2-doc, rsyslog-doc) and holds two splits of questions,
each with the pages that answer it and the key facts those pages state (verbatim phrases,
checked to be in the pages' extracted text: tests/bench_tests/test_docqa_sets.py): ``dev``, the
questions the engine may be tuned on, and ``test``, written from the pages before any tuning and
never tuned on (a split may be empty: rsyslog-doc's dev split is, its test split being held out
from every choice of rule). The corpus is every HTML
page the package installs (``dpkg -L``), copied with their paths into a temporary folder and
indexed as a local corpus. Each question runs three times in-process: on the offline engine;
with the evidence picked by the LLM engine on the simulated model (:mod:`bench.sim`; every other
task stays offline, so that only the picking differs); and on the LLM path as a strong model
would run it at a 128k window (:class:`~bench.sim.strong.StrongRun`: the offline plan and
queries, the LLM engine's pick, notes and writer answered by a stand-in that quotes generously
and never sees the key facts, a plumbing measure). For each corpus and split the section
reports:

* **page recall**: the share of questions for which a page that answers it was read, and
  **pages cited**: the share whose report cites one;
* **key-fact recall** of (a) the text of the pages read, (b) the passages shown to the engine
  to pick evidence from, (c) the evidence handed to the writer (the findings' quotes), (d) the
  report: the share of key facts whose words appear, in order, in that text (lower-cased,
  punctuation as spaces); on the LLM path also (e) the quotes the stand-in picked, the
  evidence handed to the writer being the quotes its prompt held, and the **funnel**: of the
  key facts the pages read hold, the share handed to the writer (counted over all questions);
* the passage tokens shown per question, the quotes picked and those dropped (not found
  verbatim in their passage);
* the **supported share** of the report's checked claims.

``bench/docqa/sample.json`` asks the bundled sample corpus (ours, and tuned on) in the same
way, dev split only, so that a change made for other corpora is seen not to cost it.

A package that is missing is installed with ``apt-get install --no-install-recommends`` (the
bench may install what it measures, and only that: apache2-doc recommends the apache2 server);
when that fails, that corpus is reported as skipped, with the reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fcntl
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from bench.common import BENCH_DIR, log
from bench.sections import Options
from bench.sim.model import SimulatedChatModel
from bench.sim.strong import StrongRun, writer_quotes
from deep_research.context import Context
from deep_research.engines import Engine, OfflineEngine, Reply, locate_quotes
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import PickedQuote
from deep_research.graph import build_graph
from deep_research.persistence import make_serde
from deep_research.report import off_subject, report_evidence
from deep_research.sources import SAMPLE_CORPUS
from deep_research.sources.local import LocalCorpus, iter_corpus_files
from deep_research.state import Passage, PlanStep, State

NAME = "docqa"
UNSEAL = "DOCQA_UNSEAL"
"""The environment variable that lets a set marked ``"sealed": true`` run. A held-out set is
sealed from the day it is written until the run that reports it, so that no run made while
rules are being chosen (a helper's, a quick check's) sees it."""
QUESTION_SETS = BENCH_DIR / "docqa"
SPLITS = ("dev", "test")
ONLY = "DOCQA_ONLY"
"""The environment variable that narrows a run while rules are being chosen: comma-separated
corpus names, splits and pickers (``apache2-doc,dev,offline``); a kind left unnamed is run
whole. A narrowed run's figures are for the person choosing; the section's results are made
by the whole run."""


def narrowed(names: Sequence[str], only: str | None) -> list[str]:
    """Those of ``names`` that ``only`` (:data:`ONLY`'s value) names; all when it names none."""
    wanted = {w.strip() for w in (only or "").split(",") if w.strip()}
    return [n for n in names if n in wanted] or list(names)


def normalized(text: str) -> str:
    """Lower case, every run of non-alphanumerics one space."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def recall(facts: list[str], text: str) -> float:
    """The share of ``facts`` whose normalized words appear in ``text``."""
    haystack = normalized(text)
    return sum(1 for fact in facts if normalized(fact) in haystack) / len(facts)


def _installed(package: str) -> bool:
    done = subprocess.run(["dpkg", "-s", package], check=False, capture_output=True)
    return done.returncode == 0


def package_pages(package: str) -> tuple[Path | None, list[Path], str | None]:
    """Every HTML page a Debian package installs, installing the package when missing.

    Returns:
        The folder that holds them all (their common root), the pages, and why there are none
        when there are none.
    """
    if not shutil.which("dpkg"):
        return None, [], "dpkg is not available (not a Debian system)"
    if not _installed(package):
        if not shutil.which("apt-get"):
            return None, [], f"{package} is not installed and apt-get is not available"
        log(f"installing {package} (apt-get)")
        done = subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", package],
            check=False,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
            return None, [], f"`apt-get install {package}` failed: {reason}"
    listed = subprocess.run(
        ["dpkg", "-L", package], check=True, capture_output=True, text=True
    ).stdout.split("\n")
    pages = sorted(Path(line) for line in listed if line.endswith(".html") and Path(line).is_file())
    if not pages:
        return None, [], f"the {package} package holds no HTML pages"
    return Path(os.path.commonpath(pages if len(pages) > 1 else [pages[0].parent])), pages, None


class ShownPassages(OfflineEngine):
    """The offline engine, keeping every passage the researchers showed it."""

    def __init__(self, picker: Engine | None = None) -> None:
        super().__init__()
        self.shown: list[Passage] = []
        self.quotes = 0
        self.dropped = 0
        """Quotes picked, and those not found verbatim in their passages."""
        self.picker = picker
        """Where picks come from instead (the LLM engine on the simulated model)."""

    async def pick_evidence(
        self, question: str, step: PlanStep, queries: Sequence[str], passages: Sequence[Passage]
    ) -> Reply[list[PickedQuote]]:
        self.shown.extend(passages)
        if self.picker is not None:
            reply = await self.picker.pick_evidence(question, step, queries, passages)
        else:
            reply = await super().pick_evidence(question, step, queries, passages)
        self.quotes += len(reply.value)
        self.dropped += locate_quotes(reply.value, passages, step).dropped
        return reply


async def _ask(corpus: LocalCorpus, question: str, engine: Engine) -> dict[str, Any]:
    graph = build_graph(
        engine=engine, sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    await graph.ainvoke(
        {"messages": [HumanMessage(question)]},
        config,
        context=Context(allow_clarification=False),
    )
    values: dict[str, Any] = (await graph.aget_state(config)).values
    return values


PICKERS = ("offline", "sim", "strong")
"""The runs of each question: the offline engine, the simulated model's picks, and the LLM
path on the strong model's stand-in (:class:`~bench.sim.strong.StrongRun`)."""


async def _measure(corpus: LocalCorpus, item: dict[str, Any], picker: str) -> dict[str, Any]:
    engine: ShownPassages | StrongRun
    if picker == "strong":
        engine = StrongRun()
    else:
        simulated = LLMEngine(SimulatedChatModel(), name="simulated") if picker == "sim" else None
        engine = ShownPassages(simulated)
    state = await _ask(corpus, item["question"], engine)
    report = state["report"]
    read = [s for s in state["sources"] if s.crawl_status == "ok"]
    answering = {f"/{page}" for page in item["pages"]}  # paths under the corpus's root
    pages_text = "\n".join([(await corpus.read(s.url)).text for s in read])
    if isinstance(engine, StrongRun):  # what the writer's prompts held
        evidence = "\n".join(q for p in engine.stand_in.written_from for q in writer_quotes(p))
    else:
        chosen = {i for f in state["findings"] for i in f.evidence_ids}
        evidence = "\n".join(e.quote for e in state["evidence"] if e.id in chosen)
    summary = report.verification
    usage = state["usage"]
    in_pages = [fact for fact in item["facts"] if recall([fact], pages_text)]
    return {
        "question": item["question"],
        "answer_page_read": any(s.url.endswith(page) for s in read for page in answering),
        "answer_page_cited": any(
            r.url.endswith(page) for r in report.references for page in answering
        ),
        "facts": len(item["facts"]),
        "recall_pages": recall(item["facts"], pages_text),
        "recall_passages": recall(item["facts"], "\n".join(p.text for p in engine.shown)),
        "recall_picked": (
            recall(item["facts"], "\n".join(engine.picked))
            if isinstance(engine, StrongRun)
            else None
        ),
        "recall_evidence": recall(item["facts"], evidence),
        "recall_report": recall(item["facts"], report.markdown),
        "facts_in_pages": len(in_pages),
        "facts_in_pages_to_writer": sum(1 for fact in in_pages if recall([fact], evidence)),
        "passage_tokens": sum(p.tokens for p in engine.shown),
        "quotes": engine.quotes,
        "dropped": engine.dropped,
        "pick_tokens": usage.prompt_tokens + usage.completion_tokens,
        "picks_dropped": dict(usage.picks_dropped),
        "evidence_left_out": usage.evidence_left_out,
        "claims": summary.total,
        "supported": summary.supported,
        "sections": [s.title for s in report.sections],
        "confidence": report.confidence.level if report.confidence else None,
        "parts": [p.status for p in report.confidence.parts] if report.confidence else [],
        "off_topic": off_topic(as_state(state)),
    }


def as_state(values: dict[str, Any]) -> State:
    """A run's state values, as the :class:`~deep_research.state.State` a node sees."""
    known = {f.name for f in dataclasses.fields(State)}
    return State(**{name: value for name, value in values.items() if name in known})


def off_topic(state: State) -> float | None:
    """The share of the report's checked sentences on no subject of the question.

    A sentence is on a part's subject as the judgement of the parts reads it
    (:func:`~deep_research.report.off_subject`: read under its page's title and section
    heading, it states half of what the part asks about, with the names the pages' titles
    give), from what finalize judges with: the evidence the writer was offered and the pages'
    titles.
    """
    report = state.report
    if report is None or not report.claims:
        return None
    titles = {s.url: s.title for s in state.sources if s.title}
    off = off_subject(state.research_question, report.claims, report_evidence(state), titles)
    return len(off) / len(report.claims)


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    claims = sum(r["claims"] for r in rows)
    in_pages = sum(r["facts_in_pages"] for r in rows)
    in_pages_to_writer = sum(r["facts_in_pages_to_writer"] for r in rows)
    return {
        "questions": len(rows),
        "page_recall": round(sum(r["answer_page_read"] for r in rows) / len(rows), 3),
        "pages_cited": round(sum(r["answer_page_cited"] for r in rows) / len(rows), 3),
        "fact_recall": {
            key: round(statistics.mean(r[f"recall_{key}"] for r in rows), 3)
            for key in ("pages", "passages", "picked", "evidence", "report")
            if all(r[f"recall_{key}"] is not None for r in rows)
        },
        "pages_to_writer": round(in_pages_to_writer / in_pages, 3) if in_pages else None,
        "passage_tokens_per_question": round(statistics.mean(r["passage_tokens"] for r in rows)),
        "model_tokens_per_question": round(statistics.mean(r["pick_tokens"] for r in rows)),
        "quotes": sum(r["quotes"] for r in rows),
        "quotes_dropped": sum(r["dropped"] for r in rows),
        "evidence_left_out": sum(r["evidence_left_out"] for r in rows),
        "picks_dropped": dict(sum((Counter(r["picks_dropped"]) for r in rows), Counter())),
        "supported_share": round(sum(r["supported"] for r in rows) / claims, 3) if claims else None,
        **calibration(rows),
        "rows": rows,
    }


HIGH_COVERAGE = 0.6
"""Key-fact coverage a report marked ``high`` should reach (goal: 0.9 of them do)."""

LOW_COVERAGE = 0.3
"""Key-fact coverage below which a report must not be marked ``high`` (goal: none is)."""


def calibration(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether the confidence tracks the answer, and how much of the report is off-topic.

    ``high_covered``: of the reports marked high, the share whose report states at least
    :data:`HIGH_COVERAGE` of the key facts; ``low_not_high``: of the reports stating fewer
    than :data:`LOW_COVERAGE`, the share not marked high (``None`` when there is none);
    ``parts_answered``: the share of the questions' parts judged answered;
    ``off_topic_share``: the mean share of report sentences on no subject of the question.
    """
    high = [r for r in rows if r["confidence"] == "high"]
    low = [r for r in rows if r["recall_report"] < LOW_COVERAGE]
    parts = [status for r in rows for status in r["parts"]]
    off = [r["off_topic"] for r in rows if r["off_topic"] is not None]
    return {
        "confidence": dict(Counter(r["confidence"] for r in rows)),
        "high": len(high),
        "high_covered": (
            round(sum(r["recall_report"] >= HIGH_COVERAGE for r in high) / len(high), 3)
            if high
            else None
        ),
        "low_coverage": len(low),
        "low_not_high": (
            round(sum(r["confidence"] != "high" for r in low) / len(low), 3) if low else None
        ),
        "parts_answered": (
            round(sum(s == "answered" for s in parts) / len(parts), 3) if parts else None
        ),
        "off_topic_share": round(statistics.mean(off), 3) if off else None,
    }


def run(options: Options) -> dict[str, Any]:
    """Run every corpus's dev and test questions (two per split with ``--quick``)."""
    corpora: dict[str, Any] = {}
    only = os.environ.get(ONLY)
    names = narrowed([path.stem for path in sorted(QUESTION_SETS.glob("*.json"))], only)
    for path in [QUESTION_SETS / f"{name}.json" for name in names]:
        spec = json.loads(path.read_text(encoding="utf-8"))
        if spec.get("sealed") and not os.environ.get(UNSEAL):  # its pages are not even read
            root, pages, reason = None, [], f"a sealed held-out set: run it with {UNSEAL}=1"
        elif spec["package"] is None:  # the bundled sample corpus
            root, pages, reason = SAMPLE_CORPUS, list(iter_corpus_files(SAMPLE_CORPUS)), None
        else:
            root, pages, reason = package_pages(spec["package"])
        if root is None or reason is not None:
            log(f"{path.stem}: skipped, {reason}")
            corpora[path.stem] = {"corpus": spec["corpus"], "skipped": reason}
            continue
        splits = {
            split: spec[split][:2] if options.quick else spec[split]
            for split in narrowed(SPLITS, only)
            if spec[split]
        }
        corpora[path.stem] = {
            "corpus": spec["corpus"],
            "package": spec["package"],
            "pages": len(pages),
            "splits": _run_corpus(path.stem, root, pages, splits),
        }
    return {"corpora": corpora}


def _run_corpus(
    name: str, root: Path, pages: list[Path], splits: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    # a fixed path: page URLs, and so evidence ids (which break ties in relevance), are the
    # same from run to run
    tmp = Path(tempfile.gettempdir()) / "deep-research-bench-docqa"
    with (tmp.parent / f"{tmp.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two bench runs at once take turns on the fixed path
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            copy = tmp / name
            for page in pages:
                target = copy / page.relative_to(root)
                target.parent.mkdir(parents=True, exist_ok=True)
                # a link is copied as a link, as the package installs it (apache2-doc's language
                # folders link untranslated pages to the English ones): the corpus sees what a
                # user indexing the installed folder sees
                shutil.copy(page, target, follow_symlinks=False)
            corpus = LocalCorpus(copy, tmp / "index.sqlite")
            for split, items in splits.items():
                results[split] = {}
                for picker in narrowed(PICKERS, os.environ.get(ONLY)):
                    rows = [asyncio.run(_measure(corpus, item, picker)) for item in items]
                    for row in rows:
                        log(
                            f"{name} {split} {picker} {row['question'][:40]}: page "
                            f"{'cited' if row['answer_page_cited'] else 'no'}, facts pages "
                            f"{row['recall_pages']:.2f} passages {row['recall_passages']:.2f} "
                            f"evidence {row['recall_evidence']:.2f} "
                            f"report {row['recall_report']:.2f}"
                        )
                    results[split][picker] = _summary(rows)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return results
