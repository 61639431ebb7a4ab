"""The simulated chat model: a LangChain ``BaseChatModel`` in front of the responder.

Every call counts prompt and completion tokens on the OpenAI form of the request, reports them
as ``usage_metadata`` (which our engine adds up), waits as long as its latency profile says a
real model would take for them (:mod:`bench.sim.profiles`: a time to the first token that grows
with the prompt, then the completion at a decode rate; ``asyncio.sleep``, so calls of parallel
branches overlap as they would against a real endpoint), and records the call in a
:class:`~bench.sim.trace.Trace`. A streamed call yields its text chunk by chunk as the decode
rate releases it, so its consumer sees the text arrive over time. Without a profile a call
takes a fixed ``latency``.

A real endpoint counts tokens on its own servers, so the asynchronous path counts them in a
worker thread, and the time that took is part of the call's wait (tiktoken releases the GIL):
the simulation's bookkeeping is not charged to the agent's event loop. The threads are the
simulation's own, so they take no place in the pool that the agent's ``asyncio.to_thread``
calls share.

For the same reason answers are worked out once per scenario and request and replayed after
(:data:`_ANSWERS`): a provider works them out on its own machines, but the simulator works
them out in the agent's interpreter, under its lock (finding the passages to quote in an
evidence prompt takes milliseconds), where that time would count as the agent's. The answers
are a function of the request, so a replay is the same answer; a run after a warm-up run asks
nothing new, and its calls cost the agent what a client's are: the request serialized (its
digest) and the reply parsed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from bench.sim import tokens
from bench.sim.profiles import CHUNK_TOKENS, Profile
from bench.sim.responder import Reply, Request, Scenario, respond
from bench.sim.trace import CallRecord, Trace, current_ns
from deep_research.testing import FakeToolChatModel, message_chunks


def _counting_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="sim-tokens")


_COUNTING = _counting_pool()
"""Threads that count the tokens of asynchronous calls."""


def _fresh_pool_after_fork() -> None:
    """A forked child (the resume section's) has none of its parent's threads: start anew."""
    global _COUNTING
    _COUNTING = _counting_pool()


os.register_at_fork(after_in_child=_fresh_pool_after_fork)

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}

_ANSWERS: dict[tuple[str, str, str], tuple[Reply, tuple[int, int] | None]] = {}
"""Answers worked out, by responder, scenario and request digest, with their token counts
once counted (see the module docstring)."""

MAX_ANSWERS = 50_000
"""Answers kept before the replay cache starts anew (a bench run asks a few thousand)."""


def openai_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The OpenAI chat form of LangChain messages (what ChatOpenAI would send)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        entry: dict[str, Any] = {"role": _ROLES.get(message.type, message.type)}
        entry["content"] = message.text
        if isinstance(message, AIMessage) and message.tool_calls:
            entry["tool_calls"] = [
                {
                    "id": call.get("id"),
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
                }
                for call in message.tool_calls
            ]
        if isinstance(message, ToolMessage):
            entry["tool_call_id"] = message.tool_call_id
        out.append(entry)
    return out


def request_key(request: Request) -> str:
    """A digest of what a request asks (stable across processes)."""
    payload = json.dumps([request.messages, request.tool_names], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def usage(prompt: int, completion: int) -> UsageMetadata:
    """LangChain usage metadata."""
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def _message(reply: Reply, prompt: int, completion: int) -> AIMessage:
    calls = [
        {"name": c["name"], "args": json.loads(c["arguments"]), "id": c["id"]}
        for c in reply.tool_calls
    ]
    return AIMessage(
        content=reply.content, tool_calls=calls, usage_metadata=usage(prompt, completion)
    )


class SimulatedChatModel(FakeToolChatModel):
    """A chat model that answers by :func:`~bench.sim.responder.respond` after ``latency``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    scenario: Scenario = Field(default_factory=Scenario)
    latency: float = 0.0
    """Seconds each call takes when there is no ``profile``."""
    latency_profile: Profile | None = None
    """How long a call takes for its tokens (``None``: the fixed ``latency``)."""
    trace: Trace = Field(default_factory=Trace)
    stream_pieces: int = 8
    """Chunks of a streamed reply whose profile writes it at once."""

    @property
    def _llm_type(self) -> str:
        return "simulated"

    def _start(
        self, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> tuple[Request, Reply, CallRecord, tuple[str, str, str]]:
        """The request, its answer, the call's record, and the answer's key in the cache."""
        request = Request(messages=openai_messages(messages), tools=kwargs.get("tools"))
        key = request_key(request)
        answer = (type(self).__qualname__, repr(self.scenario), key)
        if answer not in _ANSWERS:
            if len(_ANSWERS) >= MAX_ANSWERS:
                _ANSWERS.clear()
            _ANSWERS[answer] = (self._respond(request), None)
        reply = _ANSWERS[answer][0]
        record = self.trace.start(
            CallRecord(
                kind="model",
                stage=reply.stage,
                call=reply.call,
                key=key,
                ns=current_ns(),
                start=time.perf_counter(),
                items=reply.items,
            )
        )
        return request, reply, record, answer

    def _respond(self, request: Request) -> Reply:
        """The simulated answer to ``request`` (subclasses answer other scenarios)."""
        return respond(request, self.scenario)

    @staticmethod
    def _count(request: Request, reply: Reply) -> tuple[int, int]:
        """Prompt and completion tokens of one call."""
        prompt = tokens.prompt_tokens(request.messages, request.tools)
        calls = [{"function": c} for c in reply.tool_calls]
        return prompt, tokens.completion_tokens(reply.content, calls)

    @classmethod
    def _counted(cls, request: Request, answer: tuple[str, str, str]) -> tuple[int, int]:
        """The call's tokens: counted the first time its answer is given, then kept with it."""
        reply, counted = _ANSWERS.get(answer) or (None, None)
        if counted is not None:
            return counted
        assert reply is not None
        counted = cls._count(request, reply)
        _ANSWERS[answer] = (reply, counted)
        return counted

    def timing(self, prompt: int, completion: int) -> tuple[float, float]:
        """Seconds to the first token, and from it to the last, of a call of these tokens."""
        if self.latency_profile is None:
            return self.latency, 0.0
        return self.latency_profile.first_token(prompt), self.latency_profile.decoding(completion)

    def reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        """The simulated reply, after the simulated latency (see :meth:`_generate`)."""
        message = self._generate(messages, **kwargs).generations[0].message
        assert isinstance(message, AIMessage)
        return message

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        request, reply, record, answer = self._start(messages, kwargs)
        prompt, completion = self._counted(request, answer)
        first, decoding = self.timing(prompt, completion)
        time.sleep(max(0.0, record.start + first - time.perf_counter()))
        record.first = time.perf_counter()
        time.sleep(max(0.0, record.first + decoding - time.perf_counter()))
        self.trace.end(
            record, prompt_tokens=prompt, completion_tokens=completion, cost=first + decoding
        )
        return ChatResult(generations=[ChatGeneration(message=_message(reply, prompt, completion))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        _, reply, record, _, (prompt, completion) = await self._first_token(messages, kwargs)
        await _sleep_until(record.first + self.timing(prompt, completion)[1])
        self.trace.end(
            record,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=sum(self.timing(prompt, completion)),
        )
        return ChatResult(generations=[ChatGeneration(message=_message(reply, prompt, completion))])

    async def _first_token(
        self, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> tuple[Request, Reply, CallRecord, tuple[str, str, str], tuple[int, int]]:
        """Start a call and wait until its first token; its tokens are counted meanwhile."""
        request, reply, record, answer = self._start(messages, kwargs)
        counted = await asyncio.get_running_loop().run_in_executor(
            _COUNTING, self._counted, request, answer
        )
        await _sleep_until(record.start + self.timing(*counted)[0])
        record.first = time.perf_counter()
        return request, reply, record, answer, counted

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        result = self._generate(messages, stop, **kwargs)
        yield from self._chunks(result.generations[0].message)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        _, reply, record, _, (prompt, completion) = await self._first_token(messages, kwargs)
        decoding = self.timing(prompt, completion)[1]
        chunks = list(self._chunks(_message(reply, prompt, completion), completion))
        for i, chunk in enumerate(chunks, 1):
            # each chunk comes when the decode rate has written it
            await _sleep_until(record.first + decoding * i / len(chunks))
            yield chunk
        self.trace.end(
            record,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=sum(self.timing(prompt, completion)),
        )

    def _chunks(self, message: BaseMessage, completion: int = 0) -> Iterator[ChatGenerationChunk]:
        """The reply in chunks: one per :data:`CHUNK_TOKENS` written at a decode rate."""
        assert isinstance(message, AIMessage)
        pieces = self.stream_pieces
        if self.latency_profile is not None and self.latency_profile.decode:
            pieces = max(1, math.ceil(completion / CHUNK_TOKENS))
        return message_chunks(message, pieces)


async def _sleep_until(moment: float) -> None:
    """Sleep until ``moment`` (``time.perf_counter``), at once if it has passed."""
    await asyncio.sleep(max(0.0, moment - time.perf_counter()))
