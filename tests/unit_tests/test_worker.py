"""The compute worker: jobs off the event loop, one at a time, in the order asked for."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time

import pytest

from deep_research import worker


async def test_jobs_run_one_at_a_time_in_the_order_asked() -> None:
    """The first job asked for ends first: jobs do not share the interpreter by turns."""
    spans: dict[int, tuple[float, float]] = {}

    def job(n: int) -> int:
        started = time.perf_counter()
        time.sleep(0.02)
        spans[n] = (started, time.perf_counter())
        return n

    results = await asyncio.gather(*(worker.in_turn(job, n) for n in range(4)))

    assert results == [0, 1, 2, 3]
    ordered = [spans[n] for n in range(4)]
    for (_, end), (start, _) in zip(ordered, ordered[1:], strict=False):
        assert end <= start, "a job started before the one asked for earlier ended"


async def test_the_event_loop_runs_while_a_job_computes() -> None:
    release = threading.Event()
    job = asyncio.ensure_future(worker.in_turn(release.wait, 5))
    await asyncio.sleep(0)  # the loop is free while the job waits in the worker
    assert not job.done()
    release.set()
    assert await job is True
    assert threading.current_thread() is threading.main_thread()


async def test_a_job_sees_the_callers_context_variables() -> None:
    run_id = contextvars.ContextVar[str]("run_id")
    run_id.set("run-1")
    assert await worker.in_turn(run_id.get) == "run-1"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
async def test_a_forked_child_has_a_worker_of_its_own() -> None:
    """A child forked after the worker started still runs jobs (its parent's thread is gone)."""
    assert await worker.in_turn(int, "1") == 1  # the worker thread exists now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fresh event loop, a job, its answer down the pipe
        try:
            answer = asyncio.run(asyncio.wait_for(worker.in_turn(str, 42), 5))
            os.write(write, answer.encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        assert pipe.read() == "42"
    assert os.waitstatus_to_exitcode(status) == 0
