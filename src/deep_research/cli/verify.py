"""``deep-research verify [FILE]``: judge claims against evidence passages, as JSON lines.

Each input line is ``{"claim": str, "evidence": [str, ...]}`` (other keys are ignored; blank
lines are skipped), read from FILE or from stdin (no FILE, or ``-``). Each output line, in
input order, is::

    {"verdict": "SUPPORTED", "confidence": 0.9, "evidence_index": 0, "start": 4, "end": 61,
     "reasoning": "..."}

``evidence_index`` is the 0-based passage the verdict relied on and ``start``/``end`` the span
within it (all three ``null`` when there is none). The verifier is the graph's
(:func:`deep_research.report.verify.verify_claims`), with the configured engine
(offline unless a model is configured) or the one ``--model`` names. A malformed line stops
the command before any claim is judged, with one line naming it and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from deep_research.engines import load_engine
from deep_research.errors import InvalidInputError
from deep_research.report.verify import verify_claims
from deep_research.settings import get_settings

EXPECTED = '{"claim": str, "evidence": [str, ...]}'


def parse_line(number: int, line: str) -> tuple[str, list[str]]:
    """The claim and evidence passages of input line ``number`` (1-based).

    Raises:
        InvalidInputError: the line is not JSON of the expected shape.
    """
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"line {number}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"line {number}: expected an object {EXPECTED}")
    claim, evidence = data.get("claim"), data.get("evidence")
    if not isinstance(claim, str) or not claim.strip():
        raise InvalidInputError(f"line {number}: 'claim' must be a non-empty string ({EXPECTED})")
    if not isinstance(evidence, list) or not all(isinstance(p, str) for p in evidence):
        raise InvalidInputError(f"line {number}: 'evidence' must be a list of strings ({EXPECTED})")
    return claim, evidence


def read_items(lines: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Every claim with its evidence; blank lines are skipped.

    Raises:
        InvalidInputError: a line is malformed, or the input is not UTF-8 text.
    """
    items = []
    try:
        for number, line in enumerate(lines, 1):
            if line.strip():
                items.append(parse_line(number, line))
    except UnicodeDecodeError:
        raise InvalidInputError("the input is not UTF-8 text") from None
    return items


def _read(path: Path | None, stdin: TextIO) -> list[tuple[str, list[str]]]:
    if path is None or str(path) == "-":  # "-" is standard input, as the convention goes
        return read_items(stdin)
    try:
        with path.open(encoding="utf-8") as lines:
            return read_items(lines)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from None


async def run_verify(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Judge every input line's claim and print one JSON line per claim; returns 0.

    Raises:
        InvalidInputError: the input cannot be read or a line is malformed.
        DeepResearchError: the engine cannot be built or fails.
    """
    items = _read(args.file, stdin or sys.stdin)
    settings = get_settings()  # judging is all it does: the judge's model, when one is set
    engine = load_engine(args.model or settings.judge_model or settings.engine_model)
    judgements = (await verify_claims(engine, items)).value
    out = stdout or sys.stdout
    for judgement in judgements:
        out.write(json.dumps(judgement.as_json(), ensure_ascii=False) + "\n")
    out.flush()
    return 0
