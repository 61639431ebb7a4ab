"""Model calls made ahead of the node that needs them: kept once, taken once, never lost."""

from __future__ import annotations

import asyncio

from deep_research.engines import Reply
from deep_research.report.ahead import Ahead, taken
from deep_research.state import TokenUsage


async def call(tokens: int, wait: asyncio.Event | None = None) -> Reply[str]:
    if wait is not None:
        await wait.wait()
    return Reply("answer", TokenUsage(prompt_tokens=tokens, calls=1))


async def test_a_call_is_taken_once_and_only_in_its_own_scope() -> None:
    ahead = Ahead()
    task = ahead.start("thread-1", "k", call(10))

    assert ahead.start("thread-1", "k", call(99)) is None  # one call per request
    assert ahead.take("thread-2", "k") is None  # another run's
    assert ahead.take("thread-1", "k") is task and ahead.take("thread-1", "k") is None
    reply = await taken(task) if task is not None else None
    assert reply is not None and reply.value == "answer"


async def test_what_nobody_took_is_counted_and_what_still_runs_is_stopped() -> None:
    # the tokens of a call asked ahead and never needed were spent all the same
    ahead, never = Ahead(), asyncio.Event()
    ahead.start("t", "done", call(10))
    ahead.start("t", "taken", call(20))
    running = ahead.start("t", "running", call(30, never))
    other = ahead.start("u", "other", call(40))
    ahead.take("t", "taken")
    await asyncio.sleep(0)

    assert ahead.drain("t") == TokenUsage(prompt_tokens=10, calls=1)
    await asyncio.sleep(0)
    assert running is not None and running.cancelled()
    assert other is not None and ahead.take("u", "other") is other  # another run's stays


async def test_asked_again_ahead_the_same_call_is_kept_for_the_taker() -> None:
    ahead = Ahead()
    first = ahead.get_or_start("t", "k", lambda: call(10))

    assert ahead.get_or_start("t", "k", lambda: call(99)) is first
    assert ahead.take("t", "k") is first


async def test_a_full_register_cancels_the_oldest_and_a_taker_asks_again() -> None:
    ahead, never = Ahead(), asyncio.Event()
    oldest = ahead.start("t", "0", call(1, never))
    for n in range(1, Ahead.LIMIT + 1):
        ahead.start("t", str(n), call(1, never))
    await asyncio.sleep(0)

    assert ahead.take("t", "0") is None and oldest is not None and oldest.cancelled()
    assert await taken(oldest) is None  # a cancelled call gives nothing: the taker asks itself
    ahead.drain("t")
