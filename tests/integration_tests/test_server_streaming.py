"""The report's tokens stream from the server on ``messages``, with a (scripted) model.

``langgraph dev`` runs on the LLM engine, pointed by ``OPENAI_BASE_URL`` at a scripted
OpenAI-compatible endpoint on 127.0.0.1 (:mod:`tests.integration_tests.fake_openai`).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from tests.integration_tests.fake_openai import REPORT, TITLE, scripted_openai
from tests.integration_tests.server_process import langgraph_dev

pytestmark = pytest.mark.server

RUN_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def llm_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, list[Any], Path]]:
    """A server whose model is the scripted endpoint.

    Yields its URL, the model's requests and the server's working folder.
    """
    with scripted_openai() as (base_url, requests):
        env = {
            "DEEP_RESEARCH_MODEL": "scripted-model",
            "OPENAI_API_KEY": "test-key",
            "OPENAI_BASE_URL": base_url,
        }
        workdir = Path(tmp_path_factory.mktemp("langgraph-llm"))
        with langgraph_dev(workdir, env) as url:
            yield url, requests, workdir


async def test_synthesis_tokens_stream_on_messages_with_the_custom_events(
    llm_server: tuple[str, list[Any], Path],
) -> None:
    url, requests, workdir = llm_server
    tokens: list[str] = []
    events: list[str] = []
    async with get_client(url=url, api_key=None) as client:
        thread = (await client.threads.create())["thread_id"]

        async def collect() -> None:
            async for part in client.runs.stream(
                thread,
                "deep_research",
                input={
                    "messages": [{"role": "user", "content": "Describe Hornsdale Power Reserve"}]
                },
                context={"depth": "light", "system_instructions": "Write for engineers."},
                stream_mode=["messages-tuple", "custom"],
            ):
                assert part.event != "error", part.data
                if part.event == "messages":
                    chunk, metadata = part.data
                    if metadata.get("langgraph_node") == "synthesize":
                        tokens.append(chunk["content"])
                elif part.event == "custom":
                    events.append(part.data["type"])

        await asyncio.wait_for(collect(), RUN_TIMEOUT)
        report = (await client.threads.get_state(thread))["values"]["report"]

    assert len([t for t in tokens if t]) > 3  # streamed in pieces, not as one message
    assert "".join(tokens).startswith(REPORT.strip()[:40])
    synthesis = [i for i, t in enumerate(events) if t == "synthesis_progress"]
    assert synthesis and synthesis[-1] < events.index("claim_verified")
    assert events[-1] == "research_completed"
    assert report["extractive"] is False and report["config"]["engine"] == "scripted-model"
    systems = [str(r["messages"][0]["content"]) for r in requests]
    plans = [s for r, s in zip(requests, systems, strict=True) if _tool(r) == "ResearchPlan"]
    judges = [s for r, s in zip(requests, systems, strict=True) if _tool(r) == "VerdictBatch"]
    missing = [p for p in plans if "Write for engineers." not in p]
    sequence = [_tool(r) for r in requests]
    assert plans and not missing, (sequence, [m[-200:] for m in missing])
    assert judges and not any("Write for engineers." in s for s in judges)
    assert sequence.count("ChatTitle") == 1
    with sqlite3.connect(workdir / ".data" / "deep_research.sqlite") as db:
        (title,) = db.execute("SELECT title FROM chats WHERE thread_id = ?", (thread,)).fetchone()
    assert title == TITLE


def _tool(request: dict[str, Any]) -> str | None:
    tools = request.get("tools") or []
    return str(tools[0]["function"]["name"]) if tools else None
