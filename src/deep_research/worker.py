"""The agent's own computing, off the event loop and one job at a time.

Pure computing that takes a while (ranking a step's pages' passages) runs in a worker thread,
so that the event loop goes on serving the other researchers' requests. Python runs one
thread's code at a time, though: several such jobs in threads of their own take turns every
few milliseconds, and each of them ends only near the end of them all. When a plan's
researchers read their pages at the same moment, every one of them would then ask the model
for its evidence late, and come back at once to compete again. One worker thread runs the
jobs in the order they were asked for instead: the first researcher goes on to its model call
while the others' jobs wait, and the last one is no later than it would have been.

The worker is the process's, as the interpreter lock it works around is; a process forked
from this one starts a worker of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def _worker() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="deep-research-compute")


_WORKER = _worker()


def _after_fork() -> None:
    global _WORKER  # the parent's thread does not exist in the child
    _WORKER = _worker()


if hasattr(os, "register_at_fork"):  # POSIX; Windows does not fork
    os.register_at_fork(after_in_child=_after_fork)


async def in_turn(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in the compute worker, after the jobs asked for before it.

    Like :func:`asyncio.to_thread`, the call sees the caller's context variables; cancelling
    the caller does not stop a job already running.
    """
    call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_WORKER, call)
