"""The graph served by a real ``langgraph dev`` on 127.0.0.1, driven through the SDK.

The server (see :mod:`tests.integration_tests.server_process`) runs on the offline engine and
the bundled sample corpus, with no auth configured: open, as for local use.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from deep_research.sources import SAMPLE_CORPUS
from tests.integration_tests.server_process import langgraph_dev

pytestmark = pytest.mark.server

GRAPH_ID = "deep_research"
RUN_TIMEOUT = 120.0
QUESTION = "How do LFP and NMC batteries compare for grid storage?"
CONTEXT: dict[str, Any] = {"allow_clarification": False, "depth": "light"}
INPUT: dict[str, Any] = {"messages": [{"role": "user", "content": QUESTION}]}


@pytest.fixture(scope="module")
def server_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's working folder: its log and its data directory."""
    return tmp_path_factory.mktemp("langgraph-dev")


@pytest.fixture(scope="module")
def server_url(server_dir: Path) -> Iterator[str]:
    """Start ``langgraph dev`` on a free port (auth open), yield its URL, and stop it."""
    with langgraph_dev(server_dir) as url:
        yield url


async def test_an_open_server_says_so_and_acts_as_the_local_user(
    client: LangGraphClient, server_url: str, server_dir: Path
) -> None:
    log = (server_dir / "server.log").read_text(errors="replace")
    assert "deep-research auth is OFF" in log and "'local'" in log
    thread = await client.threads.create()
    assert thread["metadata"]["owner"] == "local"


@pytest.fixture
async def client(server_url: str) -> AsyncIterator[LangGraphClient]:
    """An SDK client of the server (no API key), closed after the test."""
    async with get_client(url=server_url, api_key=None) as sdk:
        yield sdk


async def _wait_run(client: LangGraphClient, thread: str, **kwargs: Any) -> dict[str, Any]:
    """``runs.wait`` on the graph, within ``RUN_TIMEOUT``; returns the run's output."""
    output = await asyncio.wait_for(client.runs.wait(thread, GRAPH_ID, **kwargs), RUN_TIMEOUT)
    assert isinstance(output, dict), output
    return output


async def _final_values(client: LangGraphClient, thread: str) -> dict[str, Any]:
    """The values of a thread whose run has finished (nothing left to run)."""
    state = await client.threads.get_state(thread)
    assert not state["next"], state["next"]
    values = state["values"]
    assert isinstance(values, dict)
    return values


def _corpus_files() -> set[Path]:
    return {path.resolve() for path in SAMPLE_CORPUS.iterdir() if path.is_file()}


async def test_run_writes_a_verified_report(client: LangGraphClient) -> None:
    thread = (await client.threads.create())["thread_id"]
    output = await _wait_run(client, thread, input=INPUT, context=CONTEXT)
    assert "__interrupt__" not in output
    assert (await client.threads.get(thread))["status"] == "idle"

    values = await _final_values(client, thread)
    report = values["report"]
    assert report["question"] == QUESTION
    assert report["extractive"] is True
    # the state's spans carry their quotes (the server's content store holds the pages), and
    # the report's citations the quotes they cite
    assert values["evidence"] and all(span["quote"] for span in values["evidence"])
    assert report["citations"] and all(c["quote"] for c in report["citations"])
    references = report["references"]
    assert len(references) >= 3
    corpus = _corpus_files()
    for reference in references:
        # served documents are named relative to the corpus root (the sample corpus here)
        assert reference["url"] == f"corpus:///{quote(reference['location'])}"
        assert (SAMPLE_CORPUS / reference["location"]).resolve() in corpus
    claims = report["claims"]
    assert claims and all(claim["verdict"] for claim in claims)
    summary = report["verification"]
    judged = sum(summary[k] for k in ("supported", "partial", "unsupported", "contradicted"))
    assert judged >= len(claims) and summary["passes"] >= 1
    assert summary["supported"] >= 1


async def test_ambiguous_question_asks_then_resumes(client: LangGraphClient) -> None:
    thread = (await client.threads.create())["thread_id"]
    context = CONTEXT | {"allow_clarification": True}
    question = {"messages": [{"role": "user", "content": "batteries"}]}
    paused = await _wait_run(client, thread, input=question, context=context)
    interrupts = paused["__interrupt__"]
    assert len(interrupts) == 1
    assert interrupts[0]["value"]["type"] == "clarification"
    assert interrupts[0]["value"]["question"]
    assert (await client.threads.get(thread))["status"] == "interrupted"
    assert (await client.threads.get_state(thread))["next"] == ["ask_clarification"]

    done = await _wait_run(
        client, thread, command={"resume": "costs of grid batteries"}, context=context
    )
    assert "__interrupt__" not in done
    assert done["report"]["references"]
    values = await _final_values(client, thread)
    assert values["clarification"] == "costs of grid batteries"
    assert (await client.threads.get(thread))["status"] == "idle"


async def test_custom_stream_reports_progress_in_order(client: LangGraphClient) -> None:
    thread = (await client.threads.create())["thread_id"]
    events: list[dict[str, Any]] = []

    async def collect() -> None:
        async for part in client.runs.stream(
            thread,
            GRAPH_ID,
            input=INPUT,
            context=CONTEXT,
            stream_mode=["custom"],
        ):
            assert part.event != "error", part.data
            if part.event == "custom":
                events.append(part.data)

    await asyncio.wait_for(collect(), RUN_TIMEOUT)
    types = [event["type"] for event in events]
    assert types[0] == "research_started"
    assert types[-1] == "research_completed"
    order = [
        "research_started",
        "plan_created",
        "step_started",
        "claim_verified",
        "verification_summary",
        "research_completed",
    ]
    firsts = [types.index(name) for name in order]
    assert firsts == sorted(firsts), types
    assert types.count("research_started") == types.count("plan_created") == 1
    assert types.count("verification_summary") == 1
    assert max(i for i, t in enumerate(types) if t == "step_started") < types.index(
        "claim_verified"
    )
    planned = next(e for e in events if e["type"] == "plan_created")["data"]["steps"]
    started = [e["data"]["step_id"] for e in events if e["type"] == "step_started"]
    assert {step["id"] for step in planned} <= set(started)
    last_claim = max(i for i, t in enumerate(types) if t == "claim_verified")
    assert last_claim < types.index("research_completed")
