"""Real deep-research reports keep their structure through verify, revise and finalize.

The drafts are the 100 reports a leading system wrote for DRB's tasks (English and Chinese,
with headings, numbered and nested lists, code blocks and mind maps in fences), read at test
time from the shared data folder beside the repository, never copied here. Each sentence is
given its own synthetic citation key (every fifth sentence two), so that every sentence of
the verified draft says which sentence of the input it comes from. A small table built from
the report's own sentences is added, since these reports hold none.

* With a judge that supports everything, every line comes back: each heading, list item, table
  row and paragraph, with its words and punctuation, and every code block byte for byte.
* With a judge that rejects 30 % of claims (chosen by their text), revision removes and
  rewrites, and still: code blocks come back byte for byte; every sentence left stays on a line
  of the kind it was on (the same list marker, the same heading, a row with the same cells);
  a rewrite keeps all its sentence's keys; rows are removed whole or revised cell by cell (each
  cell as it was, rewritten in its cell, or emptied to a dash), never collapsed; no
  punctuation is damaged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from deep_research.report.build import article_markdown
from deep_research.state import EvidenceSpan, Report
from deep_research.verification.blocks import cells
from tests.unit_tests.scripted_judge import ScriptedJudge, make_state, rejecting, run_verification

REPO = Path(__file__).resolve().parents[2]
PEER = Path("data/drb/peer/claude-3-7-sonnet-latest.cleaned.jsonl")


def _shared_roots() -> list[Path]:
    """``../shared`` beside the repository, and beside the main checkout of a git worktree."""
    roots = [REPO.parent / "shared"]
    dot_git = REPO / ".git"
    if dot_git.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        gitdir = Path(dot_git.read_text(encoding="utf-8").split(":", 1)[1].strip())
        roots.append(gitdir.parents[2].parent / "shared")
    return roots


PEER_FILE = next((r / PEER for r in _shared_roots() if (r / PEER).is_file()), None)
pytestmark = pytest.mark.skipif(
    PEER_FILE is None, reason=f"the DRB peer reports are not in ../shared/{PEER} (absent locally)"
)

_FENCE = re.compile(r"\s*(```|~~~)")
_HEADING = re.compile(r"#{1,6}\s")
_BREAK = re.compile(r"\s*([-*_])(?:\s*\1){2,}\s*")
_STOP = re.compile(
    r"(?<=[.!?])(?=\s)|(?<=[.!?][\"'”’)])(?=\s)|(?<=[。！？])(?![」』”’）)])|(?<=[。！？][」』”’）])"
)
_LIST = re.compile(r"\s*(?:[-*+]|\d+\.)\s+")
_MARKERS = re.compile(r"(?:\s*\[@[A-Za-z0-9_]+\])+")
_ID = re.compile(r"\[@(ev_\d+_\d+x?)\]")
_DAMAGE = ("..", "。.", ".。", ":.", "：。", " .", ",.", "，。", "、。", "；。", ";.")
"""Punctuation that revision must never create (counted against the input, which may hold some)."""


@dataclass
class Draft:
    """A peer report turned into a writer's draft, and what each key says about its origin."""

    article: str
    text: str
    evidence: list[EvidenceSpan]
    fences: list[str]
    lines: dict[int, str] = field(default_factory=dict)
    """Input line number -> the line (without markers) for every line given keys."""
    keys_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each key -> all the keys of its sentence."""
    sentence_of: dict[str, str] = field(default_factory=dict)
    """Each key -> its sentence, as written in the input."""


def _span(key: str, number: int, sentence: str) -> EvidenceSpan:
    """Evidence quoting the sentence (its figures stated, so the figure rule lets it pass)."""
    quote = _MARKERS.sub("", sentence).strip()
    url = f"https://peer.example/{number % 5}"
    return EvidenceSpan(
        id=key,
        url=url,
        document_id=f"doc_{number % 5}",
        step_id="s01",
        quote=quote,
        start=0,
        end=len(quote),
    )


def _table(sentences: list[str]) -> list[str]:
    """A table of the report's own sentences: number, sentence, a word count."""
    rows = ["| # | Finding | Words |", "|---|---|---|"]
    for number, sentence in enumerate(sentences, start=1):
        rows.append(f"| {number} | {sentence} | {len(sentence.split())} |")
    return rows


def _fences(lines: list[str]) -> tuple[list[str], set[int]]:
    """The fenced blocks of ``lines`` (each as its text) and the line numbers inside them."""
    blocks, inside, start = [], set(), None
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            if start is None:
                start = number
            else:
                blocks.append("\n".join(lines[start : number + 1]))
                inside.update(range(start, number + 1))
                start = None
    if start is not None:
        blocks.append("\n".join(lines[start:]))
        inside.update(range(start, len(lines)))
    return blocks, inside


def make_draft(article: str) -> Draft:
    """Give every sentence of ``article`` (outside code, headings and breaks) its own key."""
    source = article.replace("\r\n", "\n").split("\n")
    plain = [s for line in source[:40] for s in _STOP.split(line) if len(s.split()) > 3]
    candidates = [s.strip() for s in plain if "|" not in s and not _LIST.match(s)]
    source += ["", "## Figures at a glance", "", *_table(candidates[:3])]
    fences, inside = _fences(source)
    draft = Draft(article=article, text="", evidence=[], fences=fences)
    out, number = [], 0
    for line_no, line in enumerate(source):
        stripped = line.strip()
        skip = not stripped or line_no in inside or _HEADING.match(line) or _BREAK.fullmatch(line)
        if skip or stripped.startswith((">", "|---")) or stripped == "| # | Finding | Words |":
            out.append(line)
            continue
        draft.lines[line_no] = line
        if stripped.startswith("|"):  # a table row: its keys go in its last cell
            number += 1
            key = f"ev_{line_no}_{number}"
            draft.keys_of[key], draft.sentence_of[key] = (key,), line
            draft.evidence.append(_span(key, number, line))
            out.append(line.rstrip()[:-1].rstrip() + f" [@{key}] |")
            continue
        item = _LIST.match(line)
        pieces = [item.group(0)] if item else []
        for piece in _STOP.split(line[item.end() :] if item else line):
            if not piece.strip():
                pieces.append(piece)
                continue
            number += 1
            keys = (f"ev_{line_no}_{number}",) + (
                (f"ev_{line_no}_{number}x",) if number % 5 == 0 else ()
            )
            for key in keys:
                draft.keys_of[key], draft.sentence_of[key] = keys, piece
                draft.evidence.append(_span(key, number, piece))
            pieces.append(piece + "".join(f" [@{key}]" for key in keys))
        out.append("".join(pieces))
    draft.text = "\n".join(out)
    return draft


def _squeeze(text: str) -> str:
    """Text without markers, reference numbers, spacing, or a final stop: what words it holds."""
    text = _MARKERS.sub("", text)
    text = re.sub(r"\[\d+\]", "", text)
    text = re.sub(r"\s+", "", text)
    return re.sub(r"[.。…]+", ".", text).rstrip(".")  # an ellipsis alone is no sentence


def _kind(line: str) -> str:
    """What a line is: a heading, a list item (by its marker and indent), a row, or prose."""
    if _HEADING.match(line):
        return "heading"
    if line.strip().startswith("|"):
        return f"row of {line.strip().strip('|').count('|') + 1} cells"
    item = _LIST.match(line)
    indent = len(line) - len(line.lstrip())
    return f"item {item.group(0)!r}" if item else f"prose indented by {indent}"


def _cell_problems(row: str, before: str) -> list[str]:
    """What a revised row changed beyond revising its cells, each in its own place."""
    now, then = cells(_MARKERS.sub("", row)), cells(_MARKERS.sub("", before))
    if len(now) != len(then):
        return [f"a row of {len(then)} cells has {len(now)}: {row[:80]!r}"]
    return [
        f"cell not revised in place: {old[:30]!r} -> {new[:30]!r}"
        for new, old in zip(now, then, strict=True)
        if _squeeze(new) not in (_squeeze(old), "—", "reportedly" + _squeeze(old))
    ]


def _headings(lines: list[str]) -> list[str]:
    _, inside = _fences(lines)
    return [line for n, line in enumerate(lines) if n not in inside and _HEADING.match(line)]


def _damage(text: str) -> Counter[str]:
    return Counter({mark: text.count(mark) for mark in _DAMAGE})


def structure_problems(draft: Draft, final: str, report: str, *, rewritten: bool) -> list[str]:
    """What the verified draft ``final`` (and ``report.md``) changed of the input's structure.

    Without ``rewritten`` (a judge that supports everything) every keyed line must come back
    with its words; with it, each sentence left must still stand on a line of its own kind.
    """
    problems = [f"code block changed or lost: {f[:60]!r}" for f in draft.fences if f not in report]
    source = draft.text.split("\n")
    kept = _headings(final.split("\n"))
    if not rewritten and kept != _headings(source):
        problems.append("headings differ")
    problems += [f"heading not in the input: {h!r}" for h in kept if h not in _headings(source)]
    seen: list[int] = []
    for line in final.split("\n"):
        ids = _ID.findall(line)
        if not ids:
            continue
        origins = {int(i.split("_")[1]) for i in ids}
        if len(origins) != 1:
            problems.append(f"sentences of several lines joined: {line[:80]!r}")
            continue
        (origin,) = origins
        seen.append(origin)
        before = draft.lines[origin]
        if _kind(line) != _kind(before):
            problems.append(f"{_kind(before)} became {_kind(line)}: {line[:80]!r}")
        if not rewritten and _squeeze(line) != _squeeze(before):
            problems.append(f"line changed: {before[:60]!r} -> {line[:60]!r}")
        for run in _MARKERS.finditer(line):  # a sentence's keys go together (or re-cited)
            found = set(_ID.findall(run.group(0)))
            lost = {k for key in found for k in draft.keys_of[key] if key[-1] != "x"} - found
            if lost:
                problems.append(f"keys {sorted(lost)} lost from {sorted(found)}")
        if rewritten and line.strip().startswith("|"):
            problems += _cell_problems(line, before)
        elif rewritten:
            item = _LIST.match(line)
            chunks = _MARKERS.split(line[item.end() :] if item else line)
            bodies = [_squeeze(b).lstrip(".!?。！？").removeprefix("Reportedly,") for b in chunks]
            for body in filter(None, bodies):
                body = body.replace("|reportedly", "|").lower()  # "Moreover," may go: lower
                if body.strip("|") and body not in _squeeze(before).lower():
                    problems.append(f"text not from its line: {body[:60]!r}")
    if seen != sorted(seen):
        problems.append("lines out of order")
    if not rewritten and len(set(seen)) != len(draft.lines):
        problems.append(f"{len(draft.lines) - len(set(seen))} keyed lines lost")
    more = _damage(final) - _damage(draft.article)
    problems += [f"damaged punctuation {mark!r} x{n}" for mark, n in more.items()]
    return problems


def article_problems(draft: Draft, report: Report) -> list[str]:
    """What report.article.md lost of the report's body, or kept of its verification text."""
    article = article_markdown(report)
    problems = [
        f"code block not in the article: {f[:60]!r}" for f in draft.fences if f not in article
    ]
    headings = _headings(report.markdown.split("\n"))  # ..., Limitations, References
    if _headings(article.split("\n")) != headings[:-2] + headings[-1:]:
        problems.append("the article's headings differ from the report body's")
    problems += [
        f"{text!r} in the article" for text in ("[^v", "*Verification:") if text in article
    ]
    return problems


def _peer_reports() -> list[dict[str, Any]]:
    assert PEER_FILE is not None
    with PEER_FILE.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


async def _verify_all(reject_percent: int) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for peer in _peer_reports():
        draft = make_draft(peer["article"])
        engine = ScriptedJudge(rejecting(reject_percent))
        state = await run_verification(make_state(draft.text, draft.evidence), engine)
        assert state.report is not None
        if reject_percent:
            assert engine.rewritten, f"report {peer['id']}: the judge rejected nothing"
        problems = structure_problems(
            draft, state.draft, state.report.markdown, rewritten=bool(reject_percent)
        )
        found[peer["id"]] = problems + article_problems(draft, state.report)
    return found


def _summary(problems: dict[int, list[str]]) -> str:
    broken = {k: v for k, v in problems.items() if v}
    return f"{len(problems) - len(broken)} of {len(problems)} intact; " + "; ".join(
        f"report {k}: {v[:3]}" for k, v in list(broken.items())[:5]
    )


async def test_with_a_judge_that_supports_everything_every_line_comes_back() -> None:
    problems = await _verify_all(0)
    assert len(problems) == 100
    assert not any(problems.values()), _summary(problems)


async def test_with_a_judge_that_rejects_30_percent_the_structure_stays_intact() -> None:
    problems = await _verify_all(30)
    assert len(problems) == 100
    assert not any(problems.values()), _summary(problems)
