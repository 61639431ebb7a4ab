"""``ask`` in a real pseudo-terminal draws its live view; on a pipe or with --plain, lines.

Each test runs the command line as a separate process, offline on the sample corpus, with its
standard error on a pseudo-terminal (``pty``) or a pipe, and reads what it wrote there.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

QUESTION = "What did Hornsdale Power Reserve cost?"
CURSOR_UP = re.compile(r"\x1b\[\d*A")
"""The control sequence a view redrawn in place sends (move the cursor up)."""


def _ask(tmp_path: Path, *flags: str, terminal: bool) -> tuple[int, str]:
    """Run ``deep-research ask`` offline; stderr on a pseudo-terminal or a pipe."""
    command = [sys.executable, "-m", "deep_research.cli", "ask", QUESTION, "--model", "offline"]
    command += ["--no-clarify", "--out", str(tmp_path / "out"), *flags]
    env = {**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm-256color"}
    if not terminal:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
        return done.returncode, done.stderr
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=secondary, env=env
    )
    os.close(secondary)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    os.close(primary)
    return process.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")


def test_in_a_real_terminal_ask_draws_the_live_view_in_place(tmp_path: Path) -> None:
    status, screen = _ask(tmp_path, terminal=True)
    assert status == 0, screen
    assert CURSOR_UP.search(screen)  # redrawn in place, not printed line after line
    assert "searches" in screen and "evidence" in screen  # the plan's table
    assert "━" in screen and re.search(r"claims \d+/\d+ \(pass 1\)", screen)
    assert "now: done" in screen and "✓ " in screen and " supported" in screen
    assert "→ researching" not in screen  # no plain lines
    assert (tmp_path / "out" / "report.html").is_file()


def test_plain_lines_on_a_pipe_and_with_plain_in_a_terminal(tmp_path: Path) -> None:
    status, piped = _ask(tmp_path, terminal=False)
    assert status == 0, piped
    assert "→ researching s01: What did Hornsdale Power Reserve cost" in piped
    assert "verification pass 1:" in piped and "\x1b[" not in piped
    assert re.search(r"^confidence: (high|medium|low) \(\d+ limitations? stated\) — ", piped, re.M)

    status, plain = _ask(tmp_path, "--plain", terminal=True)
    assert status == 0, plain
    assert "→ researching s01" in plain and not CURSOR_UP.search(plain) and "━" not in plain
