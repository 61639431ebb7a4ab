"""FACT as DRB computes it: statement-URL pairs, each URL read, support judged.

For one article (DRB's ``extract.py``, ``deduplicate.py``, ``validate.py`` and its statistics,
reproduced):

1. The judge extracts ``{"fact", "ref_idx", "url"}`` triplets from the article (with its
   citations) with DRB's extraction prompt; Markdown links are reduced to their titles in
   each fact.
2. Pairs are grouped by URL; where a URL has several statements the judge removes duplicates
   with DRB's deduplication prompt (a reply that is not a usable list keeps them all).
3. Each URL is read through the reader the run is given: for a real run, the project's web
   reader (SSRF guard, byte cap, timeouts, content-type checks; its own page cache in the run's
   folder). A URL that cannot be read is left out, as DRB leaves out a page it cannot scrape.
4. The judge marks each statement ``supported``, ``unsupported`` or ``unknown`` against the
   page with DRB's validation prompt (a reply of the wrong length is asked again, then the URL
   is left out).

Per task: ``citations`` = statements judged supported or unsupported, ``effective_citations``
= those supported, ``citation_accuracy`` = their share. Over tasks, as DRB: tasks with no
pair at all are left out; ``effective_citations`` is the mean per task and
``citation_accuracy`` is all supported over all judged.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bench.drb.data import Task
from bench.drb.judge import ATTEMPTS, Judge, json_of
from bench.drb.prompts import DrbPrompts
from deep_research.errors import SourceError
from deep_research.state import Document

URLS_AT_ONCE = 4
"""Cited URLs of one article read and judged at once (DRB validates in a process pool)."""
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")
_ESCAPES = {"\\>": ">", "\\<": "<", "\\+": "+", "\\~": "~"}
"""Escapes models write that JSON does not accept, undone before parsing (as DRB does)."""


class Reader(Protocol):
    """What reads a cited URL (the web reader, or a simulated web)."""

    async def read(self, url: str) -> Document:
        """The page at ``url``."""
        ...


def _unescape(text: str) -> str:
    for escaped, plain in _ESCAPES.items():
        text = text.replace(escaped, plain)
    return text


async def extract(
    judge: Judge, prompts: DrbPrompts, task: Task, article: str
) -> list[dict[str, str]]:
    """The article's statement-URL pairs; none when no reply parses."""
    prompt = prompts.fill("extract", task.language, report_text=article)
    for _ in range(ATTEMPTS):
        try:
            found = json_of(_unescape(await judge.ask(prompt)))
        except ValueError:
            continue
        if isinstance(found, list):
            return [
                {
                    "fact": _LINK.sub(r"[\1]", str(item["fact"])),
                    "ref_idx": str(item.get("ref_idx", "")),
                    "url": str(item["url"]).strip(),
                }
                for item in found
                if isinstance(item, dict) and item.get("fact") and item.get("url")
            ]
    return []


async def dedupe(judge: Judge, prompts: DrbPrompts, task: Task, facts: list[str]) -> list[str]:
    """``facts`` (one URL's) without duplicates, as the judge finds them."""
    if len(facts) < 2:
        return facts
    numbered = "\n".join(f"{i + 1}. {fact}" for i, fact in enumerate(facts))
    prompt = prompts.fill("dedupe", task.language, statements=numbered)
    for _ in range(ATTEMPTS):
        try:
            kept = json_of(await judge.ask(prompt))
        except ValueError:
            continue
        if (
            isinstance(kept, list)
            and kept
            and len(kept) <= len(facts)
            and all(isinstance(i, int) and 1 <= i <= len(facts) for i in kept)
        ):
            return [facts[i - 1] for i in kept]
        break
    return facts


async def validate(
    judge: Judge, prompts: DrbPrompts, task: Task, page: str, facts: list[str]
) -> list[str] | None:
    """One verdict per statement against ``page``; ``None`` when no reply was usable."""
    numbered = "\n".join(f"{i + 1}. {fact}" for i, fact in enumerate(facts))
    prompt = prompts.fill("validate", task.language, reference=page, statements=numbered)
    for _ in range(ATTEMPTS):
        try:
            found = json_of(await judge.ask(prompt))
        except ValueError:
            continue
        if not isinstance(found, list) or len(found) != len(facts):
            continue
        verdicts: dict[int, str] = {}
        for item in found:
            if isinstance(item, dict) and isinstance(item.get("idx"), int):
                verdicts[item["idx"] - 1] = str(item.get("result", "")).strip().lower()
        if sorted(verdicts) == list(range(len(facts))):
            return [verdicts[i] for i in range(len(facts))]
    return None


async def fact_task(
    judge: Judge, prompts: DrbPrompts, task: Task, article: str, reader: Reader
) -> dict[str, Any]:
    """Pairs, pages read, verdicts and the task's figures (see the module docstring)."""
    pairs = await extract(judge, prompts, task, article)
    grouped: dict[str, list[str]] = {}
    for pair in pairs:
        grouped.setdefault(pair["url"], []).append(pair["fact"])
    gate = asyncio.Semaphore(URLS_AT_ONCE)

    async def check(url: str, facts: list[str]) -> dict[str, Any]:
        async with gate:
            kept = await dedupe(judge, prompts, task, facts)
            try:
                page = (await reader.read(url)).text
            except SourceError as exc:
                return {"facts": kept, "error": f"not read: {exc}"}
            verdicts = await validate(judge, prompts, task, page, kept)
            if verdicts is None:
                return {"facts": kept, "error": "no usable validation reply"}
            return {"facts": kept, "verdicts": verdicts, "page_chars": len(page)}

    checked = await asyncio.gather(*(check(url, facts) for url, facts in grouped.items()))
    urls = dict(zip(grouped, checked, strict=True))
    return {"pairs": len(pairs), "urls": urls, **figures(urls)}


def figures(urls: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A task's ``citations``, ``effective_citations`` and ``citation_accuracy``."""
    verdicts = [v for entry in urls.values() for v in entry.get("verdicts", [])]
    judged = sum(1 for v in verdicts if v != "unknown")
    supported = sum(1 for v in verdicts if v == "supported")
    return {
        "citations": judged,
        "effective_citations": supported,
        "citation_accuracy": round(supported / judged, 4) if judged else None,
        "unknown": len(verdicts) - judged,
        "urls_not_read": sum(1 for entry in urls.values() if "error" in entry),
    }


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """FACT over tasks as DRB sums it (tasks with no pair left out); ``None``: no such task."""
    counted = [r for r in rows if r["pairs"]]
    if not counted:
        return None
    judged = sum(r["citations"] for r in counted)
    supported = sum(r["effective_citations"] for r in counted)
    return {
        "tasks": len(counted),
        "citations_per_task": round(judged / len(counted), 2),
        "effective_citations": round(supported / len(counted), 2),
        "citation_accuracy": round(supported / judged, 4) if judged else None,
    }
