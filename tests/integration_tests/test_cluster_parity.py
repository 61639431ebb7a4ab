"""The guarantees test_cluster.py checks on Aegra, checked on ``langgraph dev`` as well.

Identity comes only from the server's authentication on every runtime: a user id a client puts
in a run's config or context does not decide whose chat the run is recorded in.
"""

from __future__ import annotations

import pytest
from langgraph_sdk import get_client

from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server

QUESTION = "How do LFP and NMC batteries compare for grid storage?"


async def test_a_user_id_sent_in_config_or_context_is_not_trusted_on_langgraph_dev(
    auth_server: AuthServer,
) -> None:
    quick = {"allow_clarification": False, "depth": "light"}
    sent = [  # langgraph-api takes one or the other, not both
        {"context": {**quick, "user_id": "bob"}},
        {"config": {"configurable": {**quick, "user_id": "bob"}}},
    ]
    threads = []
    async with get_client(url=auth_server.url, headers=auth_server.headers("alice")) as alice:
        for settings in sent:
            thread = (await alice.threads.create())["thread_id"]
            await alice.runs.wait(
                thread,
                "deep_research",
                input={"messages": [{"role": "user", "content": QUESTION}]},
                **settings,
            )
            threads.append(thread)
    async with auth_server.http("alice") as http:
        for thread in threads:
            assert (await http.get(f"/chats/{thread}")).status_code == 200
    async with auth_server.http("bob") as http:
        for thread in threads:
            assert (await http.get(f"/chats/{thread}")).status_code == 404
        chats = (await http.get("/chats")).json()
    assert not set(threads) & {chat["thread_id"] for chat in chats}
