"""Conformance with agent-chat-ui: the server driven exactly as that chat front end drives it.

agent-chat-ui (langchain-ai/agent-chat-ui) streams runs with ``stream_mode`` ``["values",
"messages-tuple", "custom"]`` and ``stream_subgraphs: true``, sends the user's text as a human
message whose content is a list of parts (``[{"type": "text", "text": ...}]``), keeps the
values of the root namespace as the chat, ignores ``custom`` events, answers interrupts in
LangChain's human-in-the-loop shape with ``submit({}, {command: {resume: {decisions}}})``, and
lists threads with ``threads.search``. Through the Python SDK against a real ``langgraph dev``
(the session's ``auth_server``), these tests check what a user of it sees:

* the clarifying question arrives as an AI message, with an interrupt the UI gives reply
  controls to; a reply typed as a new message answers it; a decision answers it too;
* progress shows as a message while the run works, and is gone from the chat after it;
* the report's ``$`` are escaped in the chat copy;
* the researcher subgraph's ``values`` events (namespace ``researcher:<task>``) carry no
  ``messages`` key, and every root ``values`` event does: a client that keeps the root
  namespace's values, as agent-chat-ui does, never sees the chat blank.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.integration_tests.conftest import AuthServer

pytestmark = pytest.mark.server

GRAPH = "deep_research"
STREAM_MODES = ["values", "messages-tuple", "custom"]


def _human(text: str) -> dict[str, Any]:
    return {"type": "human", "content": [{"type": "text", "text": text}]}


async def _stream(client: LangGraphClient, thread_id: str, **kwargs: Any) -> list[Any]:
    """One run streamed as agent-chat-ui streams it; its events."""
    return [
        part
        async for part in client.runs.stream(
            thread_id,
            GRAPH,
            stream_mode=STREAM_MODES,  # type: ignore[arg-type]
            stream_subgraphs=True,
            **kwargs,
        )
    ]


def _root_values(events: list[Any]) -> list[dict[str, Any]]:
    return [e.data for e in events if e.event == "values"]


async def _ask(client: LangGraphClient) -> tuple[str, dict[str, Any]]:
    """A new thread whose first message, too short to research, makes the agent ask."""
    thread_id = (await client.threads.create())["thread_id"]
    events = await _stream(client, thread_id, input={"messages": [_human("batteries")]})
    messages = _root_values(events)[-1]["messages"]
    assert [m["type"] for m in messages] == ["human", "ai"]
    state = await client.threads.get_state(thread_id)
    [interrupt] = state["tasks"][0]["interrupts"]
    return thread_id, interrupt["value"]


@pytest.fixture
async def alice(auth_server: AuthServer) -> AsyncIterator[LangGraphClient]:
    client = get_client(url=auth_server.url, headers=auth_server.headers("alice"))
    try:
        yield client
    finally:
        await client.aclose()


async def test_a_reply_typed_as_a_message_answers_the_question(
    alice: LangGraphClient, auth_server: AuthServer
) -> None:
    thread_id, asked = await _ask(alice)
    # the keys the CLI, Studio and the web app read, and the human-in-the-loop shape
    assert asked["type"] == "clarification" and asked["question"]
    [action] = asked["action_requests"]
    assert isinstance(action["name"], str) and isinstance(action["args"], dict)
    assert asked["review_configs"][0]["action_name"] == action["name"]
    assert asked["question"] in action["description"]

    events = await _stream(
        alice, thread_id, input={"messages": [_human("the cost of Hornsdale Power Reserve")]}
    )
    roots = _root_values(events)
    assert roots and all(values.get("messages") for values in roots)
    final = roots[-1]
    kinds = [(m["type"], m.get("name")) for m in final["messages"]]
    assert kinds == [("human", None), ("ai", None), ("human", None), ("ai", None)]
    assert final["messages"][1]["content"] == asked["question"]
    state = (await alice.threads.get_state(thread_id))["values"]
    assert state["clarification"] == "the cost of Hornsdale Power Reserve"
    assert state["question_nr"] == 1  # answered, not researched as a fresh question

    # progress: a message while the run worked, in the values and the messages streams
    progress = {
        m["content"]
        for values in roots
        for m in values["messages"]
        if m["type"] == "ai" and m.get("name") == "progress"
    }
    assert any(line.startswith("Researching ") for line in progress), progress
    streamed = [e.data for e in events if e.event.startswith("messages")]
    assert any(
        isinstance(part, list) and part and part[0].get("name") == "progress" for part in streamed
    )
    # the researchers' subgraph values have no messages; the root ones always do
    subgraph = [e.data for e in events if e.event.startswith("values|researcher")]
    assert subgraph and not any("messages" in values for values in subgraph)

    # the chat copy of the report escapes $ (A$15 million); the report keeps it
    report = final["report"]["markdown"]
    assert "A$" in report
    answer = final["messages"][-1]["content"]
    assert "A\\$" in answer and "$" not in answer.replace("\\$", "")

    found = await alice.threads.search(metadata={"graph_id": GRAPH}, limit=100)
    assert thread_id in [t["thread_id"] for t in found]

    # the domain store keeps the same chat: one session, the answer a clarification
    async with auth_server.http("alice") as http:
        chat = (await http.get(f"/chats/{thread_id}")).raise_for_status().json()
    turns = [(m["role"], m["is_clarification"]) for m in chat["messages"]]
    assert turns == [("user", False), ("assistant", True), ("user", True), ("assistant", False)]
    assert [s["status"] for s in chat["sessions"]] == ["completed"]


async def test_a_decision_answers_the_question(alice: LangGraphClient) -> None:
    """The reply controls: ``submit({}, {command: {resume: {decisions: [...]}}})``."""
    thread_id, asked = await _ask(alice)
    decision = {
        "type": "edit",
        "edited_action": {
            "name": asked["action_requests"][0]["name"],
            "args": {"answer": "the cost of Hornsdale Power Reserve"},
        },
    }
    events = await _stream(
        alice, thread_id, input={}, command={"resume": {"decisions": [decision]}}
    )
    final = _root_values(events)[-1]
    assert final["report"] is not None
    state = (await alice.threads.get_state(thread_id))["values"]
    assert state["clarification"] == "the cost of Hornsdale Power Reserve"
    assert [m["type"] for m in final["messages"]] == ["human", "ai", "human", "ai"]
