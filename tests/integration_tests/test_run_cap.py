"""The run cap holds across server processes that share a database.

Two processes admit runs for one user at the same moment, each with its own (simulated)
server that knows nothing of the other's runs: together they admit exactly the cap. Without
the per-user lock both would count the same free slots. Then two real servers on one
PostgreSQL answer 429 over one cap.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from deep_research.persistence.db import ensure_schema
from deep_research.server.run_cap import RENEW_SECONDS
from tests.integration_tests import run_cap_driver
from tests.integration_tests.server_process import langgraph_dev
from tests.integration_tests.test_mcp_endpoint import mcp_call

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_two_processes_sharing_the_database_admit_the_cap_between_them(
    database_url: str,
) -> None:
    ensure_schema(database_url)  # as each server does at start
    start = time.time() + 3  # both are up and waiting by then
    command = [sys.executable, "-m", run_cap_driver.__name__, database_url, str(start), "5"]
    admitted = []
    with ExitStack() as processes:
        replicas = [
            processes.enter_context(
                subprocess.Popen(
                    command,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=REPO_ROOT,
                )
            )
            for _ in range(2)
        ]
        for replica in replicas:
            out, err = replica.communicate(timeout=60)
            assert replica.returncode == 0, err
            admitted.append(int(out.strip()))
    assert sum(admitted) == run_cap_driver.CAP, admitted


@pytest.mark.server
@pytest.mark.postgres
async def test_two_servers_on_one_database_answer_429_over_one_cap(
    postgres_url: str, tmp_path: Path
) -> None:
    """Two ``langgraph dev`` replicas, one PostgreSQL: a user's runs on both count together.

    Each replica keeps its own runs (in memory, as ``langgraph dev`` does); only the shared
    table tells one about the other's. An MCP tool call over the cap is refused too. Once a
    run ends, the other replica admits again.
    """
    cap, token = 2, "erin-token-run-cap-0123456789abcdef"
    env = {
        "DEEP_RESEARCH_DATABASE_URL": postgres_url,
        "DEEP_RESEARCH_AUTH_TOKENS": f"{token}=erin",
        "DEEP_RESEARCH_MAX_RUNS_PER_USER": str(cap),
    }
    headers = {"Authorization": f"Bearer {token}"}
    with (
        langgraph_dev(tmp_path / "a", env) as url_a,
        langgraph_dev(tmp_path / "b", env) as url_b,
    ):
        async with (
            get_client(url=url_a, api_key=None, headers=headers) as a,
            get_client(url=url_b, api_key=None, headers=headers) as b,
        ):
            queued: list[tuple[LangGraphClient, str, str]] = []
            try:
                for replica in (a, b):  # one run waiting ten minutes on each replica
                    queued.append(await _queue_run(replica))
                for replica in (a, b):
                    with pytest.raises(httpx.HTTPStatusError) as over:
                        await _queue_run(replica)
                    assert over.value.response.status_code == 429
                    assert f"at most {cap} per user" in over.value.response.text
                # a tool call on /mcp is a run like any other: refused over the cap
                tool = await mcp_call(url_a, headers, "research", {"question": "Hi?"})
                assert tool.isError and f"at most {cap} per user" in tool.content[0].text
                replica, thread, run_id = queued.pop(0)  # a's run ends...
                await replica.runs.cancel(thread, run_id)
                deadline = time.monotonic() + RENEW_SECONDS * 4
                while True:  # ...and b admits again once a has said so (every few seconds)
                    try:
                        queued.append(await _queue_run(b))
                        break
                    except httpx.HTTPStatusError as refused:
                        assert refused.response.status_code == 429
                        assert time.monotonic() < deadline, "b still counts a's ended run"
                        await asyncio.sleep(0.5)
            finally:
                for replica, thread, run_id in queued:
                    await replica.runs.cancel(thread, run_id)


async def _queue_run(client: LangGraphClient) -> tuple[LangGraphClient, str, str]:
    """A run on a new thread that waits ten minutes before it starts (pending all along)."""
    thread = (await client.threads.create())["thread_id"]
    run = await client.runs.create(
        thread,
        "deep_research",
        input={"messages": [{"role": "user", "content": "Hi?"}]},
        after_seconds=600,
    )
    return client, thread, run["run_id"]
