"""What a real local server does that stand-ins did not, faked at the HTTP transport.

llama.cpp's server (issue 42) stalls a stream, cuts one without a ``finish_reason`` when
another request arrives, answers a replayed tool call (``content: null``) with HTTP 500 and
sends no token usage while streaming. Each test fakes one of those behind ``ChatOpenAI`` on
an httpx mock transport and checks what the engine makes of it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from deep_research.engines.llm import LLMEngine
from deep_research.engines.llm.providers import build_chat_model
from deep_research.engines.llm.replies import STREAM_RETRIES, StoppedEarlyError
from deep_research.engines.schemas import StepNotes
from deep_research.errors import EngineError
from deep_research.state.models import EvidenceSpan, PlanStep

STEP = PlanStep(id="s1", title="Solar", intent="capacity")
EVIDENCE = [
    EvidenceSpan(
        id="ev_1",
        url="https://example.org/1",
        document_id="doc_1",
        step_id="s1",
        quote="Capacity doubled in 2024.",
        start=0,
        end=25,
    )
]
Handler = Callable[[httpx.Request], httpx.Response]


def sse(
    *,
    text: str = "",
    arguments: str | None = None,
    name: str = "StepNotes",
    finish: str | None = "stop",
    usage: bool = False,
) -> bytes:
    """A streamed chat completion: text or one tool call, ending as ``finish`` says."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "smollm2"}
    delta: dict[str, Any] = {"role": "assistant", "content": text}
    if arguments is not None:
        call = {"index": 0, "id": "call_1", "type": "function"}
        delta = {"role": "assistant", "content": None, "tool_calls": [{**call, "function": {}}]}
        delta["tool_calls"][0]["function"] = {"name": name, "arguments": arguments}
    events: list[dict[str, Any]] = [{"choices": [{"index": 0, "delta": delta}]}]
    if finish is not None:
        events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if usage:
        tokens = {"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50}
        events.append({"choices": [], "usage": tokens})
    lines = [f"data: {json.dumps({**head, **event})}\n\n" for event in events]
    return "".join([*lines, "data: [DONE]\n\n"]).encode()


def streamed(body: bytes) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


class Server:
    """A scripted endpoint: the n-th request gets the n-th handler's response (the last repeats)."""

    def __init__(self, *handlers: Handler) -> None:
        self.handlers = handlers
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        handler = self.handlers[min(len(self.requests), len(self.handlers)) - 1]
        return handler(request)


def chat_model(client: httpx.AsyncClient) -> ChatOpenAI:
    """The model :func:`build_chat_model` makes, without the client's own retries."""
    built = build_chat_model(
        "smollm2", api_key="sk-test", base_url="http://local.test/v1", http_async_client=client
    )
    assert isinstance(built, ChatOpenAI)
    options = built.model_dump(include={"model_name", "streaming", "stream_usage"})
    return ChatOpenAI(
        **options,
        api_key=SecretStr("sk-test"),
        base_url="http://local.test/v1",
        http_async_client=client,
        max_retries=0,  # the faults under test, not the client's own retries
    )


NOTES_CALL = json.dumps({"notes": "Capacity doubled [E1].", "sufficient": True})


async def test_a_stalled_stream_is_one_engine_error_not_a_traceback() -> None:
    """Issue 42 (1): langchain-openai's StreamChunkTimeoutError escaped as a crash."""

    async def stall() -> AsyncIterator[bytes]:
        yield sse(text="Solar")[:60]  # a first piece, then nothing more
        await asyncio.sleep(30)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=stall(), headers={"content-type": "text/event-stream"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        model = chat_model(client)
        model.stream_chunk_timeout = 0.2
        engine = LLMEngine(model, name="smollm2")
        with pytest.raises(EngineError) as raised:
            await engine.write_report("q", "brief", [STEP], EVIDENCE)

    message = str(raised.value)
    assert "stopped sending its reply" in message
    assert "\n" not in message


async def test_a_server_error_on_a_re_ask_falls_back_instead_of_ending_the_run() -> None:
    """Issue 42 (2): the re-ask after a bad answer got HTTP 500 and the run stopped."""
    bad = streamed(sse(arguments=json.dumps({"notes": "Cites [E7].", "sufficient": True})))
    server = Server(lambda _: bad, lambda _: httpx.Response(500, json={"error": "boom"}))
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        engine = LLMEngine(chat_model(client), name="smollm2")
        reply = await engine.notes("q", STEP, EVIDENCE)

    assert reply.fallback  # the offline notes stand in
    assert len(server.requests) == 2
    # and the re-ask was one that common servers take: no assistant message with content null
    for message in server.requests[1]["messages"]:
        assert message.get("content") is not None
        assert message["role"] in ("system", "user", "assistant")


async def test_the_first_request_failing_still_stops_the_task() -> None:
    """Only a re-ask falls back: a server failing the first request is an error to resume."""
    server = Server(lambda _: httpx.Response(500, json={"error": "boom"}))
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        engine = LLMEngine(chat_model(client), name="smollm2")
        with pytest.raises(EngineError, match="HTTP 500"):
            await engine.notes("q", STEP, EVIDENCE)


async def test_a_tool_call_stream_without_finish_reason_is_asked_again() -> None:
    """A stream cut by another request (no finish_reason) is retried, never read as an answer."""
    cut = streamed(sse(arguments=NOTES_CALL, finish=None))
    whole = streamed(sse(arguments=NOTES_CALL, finish="tool_calls"))
    server = Server(lambda _: cut, lambda _: whole)
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        reply = await LLMEngine(chat_model(client), name="smollm2").notes("q", STEP, EVIDENCE)

    assert reply.value == StepNotes.model_validate_json(NOTES_CALL)
    assert not reply.fallback
    assert len(server.requests) == 2


async def test_a_report_stream_without_finish_reason_is_retried_then_an_error() -> None:
    """Cut every time: an error to resume from, not a fragment of a report."""
    cut = streamed(sse(text="The capacity dou", finish=None))
    server = Server(lambda _: cut)
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        engine = LLMEngine(chat_model(client), name="smollm2")
        with pytest.raises(StoppedEarlyError, match="before the model finished"):
            await engine.write_report("q", "brief", [STEP], EVIDENCE)

    assert len(server.requests) == STREAM_RETRIES + 1


async def test_a_report_stream_cut_once_is_written_from_the_next_reply() -> None:
    text = "Capacity doubled in 2024 [E1]."
    cut = streamed(sse(text=text[:10], finish=None))
    whole = streamed(sse(text=text))
    server = Server(lambda _: cut, lambda _: whole)
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        reply = await LLMEngine(chat_model(client), name="smollm2").write_report(
            "q", "brief", [STEP], EVIDENCE
        )

    assert reply.value == text
    assert len(server.requests) == 2


@pytest.mark.parametrize("report", [True, False], ids=["streamed-report", "structured"])
async def test_usage_the_server_does_not_send_is_estimated_and_says_so(report: bool) -> None:
    """Issue 42 (6): no usage while streaming left every count at 0."""
    body = sse(text="Capacity doubled in 2024 [E1].") if report else sse(arguments=NOTES_CALL)
    server = Server(lambda _: streamed(body))
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        engine = LLMEngine(chat_model(client), name="smollm2")
        if report:
            usage = (await engine.write_report("q", "brief", [STEP], EVIDENCE)).usage
        else:
            usage = (await engine.notes("q", STEP, EVIDENCE)).usage

    sent = sum(len(m["content"]) for m in server.requests[0]["messages"])
    assert usage.calls == 1
    assert usage.estimated_calls == 1
    assert usage.prompt_tokens >= sent // 4  # the estimate errs high
    assert usage.completion_tokens > 0


async def test_usage_the_server_sends_is_taken_as_it_is() -> None:
    server = Server(lambda _: streamed(sse(arguments=NOTES_CALL, usage=True)))
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        reply = await LLMEngine(chat_model(client), name="smollm2").notes("q", STEP, EVIDENCE)

    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (40, 10)
    assert reply.usage.estimated_calls == 0
