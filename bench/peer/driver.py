"""Run open_deep_research once against the simulation; runs in the peer's own virtualenv.

``bench/.venv-peer/bin/python bench/peer/driver.py MODEL STEPS SEARCH_URL`` with
``OPENAI_BASE_URL`` pointing at the simulation. The peer is configured through its own
``Configuration`` fields (models, concurrency, search API); its model calls go to the
simulation through its ordinary ``init_chat_model("openai:…")``. Tavily's client has no
base-URL setting the peer exposes, so the ``AsyncTavilyClient`` class the peer imported is
replaced by one that asks the simulation's Tavily-like endpoint; nothing of the peer's own
code is changed. Prints one JSON line: wall time, start time and report length.

Only the standard library and the peer's dependencies are used here.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import httpx
import open_deep_research.utils as peer_utils  # type: ignore[import-not-found]

MODEL, STEPS, SEARCH_URL = sys.argv[1], int(sys.argv[2]), sys.argv[3]
QUESTION = sys.argv[4] if len(sys.argv) > 4 else ""


class SimulatedTavilyClient:
    """``AsyncTavilyClient.search`` answered by the simulation."""

    def __init__(self, api_key: str | None = None, **_: Any) -> None:
        self.api_key = api_key

    async def search(self, query: str, **params: Any) -> dict[str, Any]:
        async with httpx.AsyncClient(trust_env=False, timeout=60) as http:
            response = await http.post(SEARCH_URL, json={"query": query, "run": MODEL, **params})
            response.raise_for_status()
            result: dict[str, Any] = response.json()
            return result


peer_utils.AsyncTavilyClient = SimulatedTavilyClient

from open_deep_research.deep_researcher import (  # type: ignore[import-not-found]  # noqa: E402
    deep_researcher,
)


async def main() -> None:
    config = {
        "configurable": {
            "thread_id": "bench",
            "research_model": f"openai:{MODEL}",
            "summarization_model": f"openai:{MODEL}",
            "compression_model": f"openai:{MODEL}",
            "final_report_model": f"openai:{MODEL}",
            "search_api": "tavily",
            "allow_clarification": True,
            "max_concurrent_research_units": max(1, STEPS),
        }
    }
    start = time.perf_counter()
    result = await deep_researcher.ainvoke(
        {"messages": [{"role": "user", "content": QUESTION}]}, config
    )
    wall = time.perf_counter() - start
    report = str(result.get("final_report", ""))
    ok = "Error" not in report[:80]
    # ``started``: time.perf_counter, the system's monotonic clock, which the simulation's
    # server records its calls on too (the bench measures the report's first words by it)
    print(json.dumps({"wall": wall, "started": start, "report_chars": len(report), "ok": ok}))


asyncio.run(main())
