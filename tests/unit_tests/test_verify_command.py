"""``deep-research verify``: JSON lines of claims and evidence in, one verdict line each out."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from deep_research.cli import main

EVIDENCE = [
    "Hornsdale Power Reserve is in South Australia.",
    "Hornsdale Power Reserve was expanded in 2020. "
    "The upgraded server delivers 300 tokens/s on a single GPU.",
]
LINES = [
    {"claim": "The upgraded server delivers 300 tokens/s on a single GPU.", "evidence": EVIDENCE},
    {"claim": "The upgraded server delivers 3,000 tokens/s on a single GPU.", "evidence": EVIDENCE},
    {"claim": "Hornsdale Power Reserve was expanded in 2019 [2].", "evidence": EVIDENCE},
    {"claim": "Flywheels power forty remote cities across Norway.", "evidence": EVIDENCE},
    {"claim": "Hornsdale is large.", "evidence": [], "id": "extra keys are ignored"},
]


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(row) for row in rows) + "\n\n"  # a trailing blank line


def _results(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def _check(results: list[dict[str, object]]) -> None:
    assert [r["verdict"] for r in results] == [
        "SUPPORTED",
        "CONTRADICTED",
        "CONTRADICTED",
        "UNSUPPORTED",
        "UNSUPPORTED",
    ]
    for result in results:
        assert set(result) == {
            "verdict",
            "confidence",
            "evidence_index",
            "start",
            "end",
            "reasoning",
        }
    first, wrong = results[0], results[1]
    assert first["evidence_index"] == 1
    assert EVIDENCE[1][first["start"] : first["end"]] == (  # type: ignore[misc]
        "The upgraded server delivers 300 tokens/s on a single GPU."
    )
    assert wrong["evidence_index"] == 1 and "300 tokens/s" in str(wrong["reasoning"])
    assert results[2]["evidence_index"] == 1 and "2020" in str(results[2]["reasoning"])
    assert (results[4]["evidence_index"], results[4]["start"], results[4]["end"]) == (None,) * 3


def test_verify_reads_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "claims.jsonl"
    source.write_text(_jsonl(LINES), encoding="utf-8")
    assert main(["verify", str(source), "--model", "offline"]) == 0
    _check(_results(capsys.readouterr().out))


@pytest.mark.parametrize("argv", [["verify"], ["verify", "-"]])
def test_verify_reads_stdin_with_no_file_or_a_dash(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(_jsonl(LINES)))
    assert main(argv) == 0
    _check(_results(capsys.readouterr().out))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not valid JSON"),
        ('["a list"]', "line 2: expected an object"),
        ('{"claim": "", "evidence": []}', "line 2: 'claim' must be a non-empty string"),
        (
            '{"claim": "x", "evidence": "one string"}',
            "line 2: 'evidence' must be a list of strings",
        ),
        ('{"claim": "x", "evidence": [1, 2]}', "line 2: 'evidence' must be a list of strings"),
    ],
)
def test_a_bad_line_is_named_in_one_line_and_nothing_is_judged(
    line: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(LINES[0]) + "\n" + line + "\n"))
    assert main(["verify"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"deep-research: error: {message}")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "/nonexistent/claims.jsonl"]) == 2
    assert "cannot read /nonexistent/claims.jsonl" in capsys.readouterr().err


def test_a_real_process_reports_a_bad_line_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "deep_research.cli", "verify"],
        input=json.dumps(LINES[0]) + "\n{oops\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("deep-research: error: line 2: not valid JSON")
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_readme_promise_power_is_not_energy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = {"claim": "The battery stores 150 MWh.", "evidence": ["A 150 MW battery."]}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(line) + "\n"))
    assert main(["verify", "-"]) == 0
    (result,) = _results(capsys.readouterr().out)
    assert result["verdict"] == "CONTRADICTED" and "150 MW" in str(result["reasoning"])
