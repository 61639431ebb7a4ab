"""The web app's live-view reducer (web/src/progress.ts), tested with Node's own test runner.

``npm run test`` in web/ compiles the reducer with the project's TypeScript and runs
web/tests/progress.test.mjs with ``node --test``: that a stream joined again (a reload, a retried
connection) shows no draft text twice, and that a long draft keeps its end. Needs Node.js and
web/node_modules (``make web``); skipped locally without them, a failure under CI.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"

pytestmark = pytest.mark.web


def test_the_live_views_reducer_passes_its_node_tests() -> None:
    npm = shutil.which("npm")
    if npm is None or not (WEB / "node_modules" / ".bin" / "tsc").exists():
        pytest.skip("Node.js or web/node_modules is missing: run `make web`")
    done = subprocess.run(
        [npm, "run", "--silent", "test"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
