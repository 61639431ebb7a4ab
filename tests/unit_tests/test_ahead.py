"""Model calls made ahead of the node that needs them: kept once, taken once, never lost."""

from __future__ import annotations

import asyncio

from deep_research.engines import Reply
from deep_research.report.ahead import Ahead, one_of, taken
from deep_research.state import TokenUsage


async def call_many(count: int, *, tokens: int) -> Reply[list[str]]:
    return Reply([f"verdict {n}" for n in range(count)], TokenUsage(prompt_tokens=tokens, calls=1))


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


async def test_a_look_leaves_the_call_for_its_taker_and_a_batch_is_counted_once() -> None:
    ahead = Ahead()
    batch = asyncio.create_task(call_many(2, tokens=30))
    first = ahead.start("t", "a", one_of(batch, 0))
    second = ahead.start("t", "b", one_of(batch, 1))

    assert ahead.peek("t", "a") is first and ahead.take("t", "a") is first  # still there
    replies = [await taken(task) for task in (first, second) if task is not None]
    assert [r.value for r in replies if r] == [["verdict 0"], ["verdict 1"]]
    # the batch's tokens once, on its first check, whichever checks are taken
    assert [r.usage.prompt_tokens for r in replies if r] == [30, 0]


async def test_a_full_register_cancels_the_oldest_and_a_taker_asks_again() -> None:
    ahead, never = Ahead(), asyncio.Event()
    oldest = ahead.start("t", "0", call(1, never))
    for n in range(1, Ahead.LIMIT + 1):
        ahead.start("t", str(n), call(1, never))
    await asyncio.sleep(0)

    assert ahead.take("t", "0") is None and oldest is not None and oldest.cancelled()
    assert await taken(oldest) is None  # a cancelled call gives nothing: the taker asks itself
    ahead.drain("t")


async def test_a_stopped_run_spends_nothing_more_until_a_later_run_opens_its_thread() -> None:
    # a cancelled run: its calls and the work that would ask more are cancelled, and an answer
    # landing after that (a rewrite whose verdict would be asked next) starts nothing
    ahead, never = Ahead(), asyncio.Event()
    running = ahead.start("t", "rewrite", call(30, never))
    work = asyncio.create_task(never.wait())
    ahead.keep("t", work)
    other = ahead.start("u", "other", call(40, never))
    ahead.stop("t")
    await asyncio.sleep(0)

    assert running is not None and running.cancelled() and work.cancelled()
    late = call(50)
    assert ahead.start("t", "verdict", late) is None  # refused, and never run
    assert late.cr_frame is None  # closed, not left pending
    later_work = asyncio.create_task(never.wait())
    ahead.keep("t", later_work)
    await asyncio.sleep(0)
    assert later_work.cancelled()
    assert other is not None and not other.done()  # another thread's run goes on
    # the thread's next question asks ahead again
    ahead.open("t")
    assert ahead.start("t", "verdict", call(60)) is not None
    for scope in ("t", "u"):
        ahead.drain(scope)
