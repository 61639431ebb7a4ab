"""Model calls made ahead of the node that needs them (issue #45).

After the draft, verification is a chain of round trips: a claim's verdict, its second look at
uncited alternates, its rewrite by revise, the rewrite's verdict by the next verify. A call
whose request is already known need not wait for the nodes between: a claim's rewrite is known
once its verdict is (the alternates can only make it a re-citation), and the rewrite's verdict
once the rewrite is back. Such calls start early and wait here, in :class:`Ahead`, under a key
that digests everything the engine is asked (:func:`judge_key`, and revise's ``request_key``);
the node that needs one takes it by its own request's key. A request that turns out different
(the alternates supported the claim, another edit changed the sentence) finds nothing and is
sent as before, so the verdicts, rewrites and report are those of the plain order; only sooner.

A call nobody takes is counted at the run's end (:meth:`Ahead.drain`): the tokens were spent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Coroutine, Sequence
from dataclasses import asdict
from typing import Any, Protocol

from deep_research.engines import ClaimCheck, Reply
from deep_research.state import Claim, TokenUsage

UNJUDGED = {"id", "position_start", "position_end", "verdict", "confidence", "reasoning"}
UNJUDGED |= {"reason", "evidence_id", "checked_by"}
"""A claim's fields that its judge is not asked about: its id and place, and a verdict."""


class Ahead:
    """Model calls started early, each waiting for the node that will ask the same.

    Keyed by a scope (the run's thread) and a request's digest. Bounded: past :data:`LIMIT`
    calls, the oldest are cancelled and forgotten (a node that wanted one sends its request).
    A scope is stopped when its run ends (:meth:`drain`) or is cancelled (:meth:`stop`): what
    still runs for it is cancelled, and nothing more starts for it until a node of a later run
    on the thread opens it again (:meth:`open`), so a cancelled run spends no more tokens.
    """

    LIMIT = 2048

    def __init__(self) -> None:
        """Start empty."""
        self._calls: dict[tuple[str, str], asyncio.Task[Reply[Any]]] = {}
        self._work: dict[asyncio.Task[Any], str] = {}
        self._stopped: dict[str, None] = {}
        """Scopes whose run ended or was cancelled (bounded, oldest forgotten first)."""

    def open(self, scope: str) -> None:
        """Let calls start for ``scope`` (a node of a run on its thread asks ahead)."""
        self._stopped.pop(scope, None)

    def start(
        self, scope: str, key: str, call: Coroutine[Any, Any, Reply[Any]]
    ) -> asyncio.Task[Reply[Any]] | None:
        """Start ``call`` for whoever asks ``key`` in ``scope``.

        ``None`` (and ``call`` is not run) if one is already kept, or ``scope`` is stopped.
        """
        if (scope, key) in self._calls or scope in self._stopped:
            call.close()
            return None
        task = self._calls[scope, key] = asyncio.create_task(call)
        while len(self._calls) > self.LIMIT:
            self._calls.pop(next(iter(self._calls))).cancel()
        return task

    def keep(self, scope: str, task: asyncio.Task[Any]) -> None:
        """Hold ``task`` (work that asks calls ahead for ``scope``) until it is done."""
        if scope in self._stopped:
            task.cancel()
            return
        self._work[task] = scope
        task.add_done_callback(lambda done: self._work.pop(done, None))

    def peek(self, scope: str, key: str) -> asyncio.Task[Reply[Any]] | None:
        """The call kept for ``key`` in ``scope``, left kept."""
        return self._calls.get((scope, key))

    def take(self, scope: str, key: str) -> asyncio.Task[Reply[Any]] | None:
        """The call kept for ``key`` in ``scope``, once."""
        return self._calls.pop((scope, key), None)

    def stop(self, scope: str) -> None:
        """Cancel what runs for ``scope`` and start nothing more for it until it is opened."""
        self.drain(scope)

    def drain(self, scope: str) -> TokenUsage:
        """What the calls of ``scope`` nobody took cost; the scope is stopped (:meth:`stop`)."""
        self._stopped[scope] = None
        while len(self._stopped) > self.LIMIT:
            self._stopped.pop(next(iter(self._stopped)))
        for task in [t for t, s in self._work.items() if s == scope]:
            task.cancel()
        spent = TokenUsage()
        for key in [k for k in self._calls if k[0] == scope]:
            task = self._calls.pop(key)
            if not task.done():
                task.cancel()
            elif not task.cancelled() and task.exception() is None:
                spent = spent + task.result().usage
        return spent


async def one_of(batch: asyncio.Task[Reply[list[Any]]], index: int) -> Reply[list[Any]]:
    """The answer to the ``index``-th check of a judging of several, alone.

    The judging's cost is the first check's, so that it is counted once, whichever are taken.
    """
    reply = await batch
    return Reply([reply.value[index]], reply.usage if index == 0 else TokenUsage())


async def taken(task: asyncio.Task[Reply[Any]]) -> Reply[Any] | None:
    """The reply of a call taken from :class:`Ahead`; ``None`` if it failed or was cancelled."""
    await asyncio.wait([task])
    if task.cancelled() or task.exception() is not None:
        return None
    return task.result()


def judge_key(check: ClaimCheck) -> str:
    """A digest of everything a judge is shown of ``check``.

    The claim without its id, place or verdict, its evidence and its table cell.
    """
    asked = {
        "claim": check.claim.model_dump(mode="json", exclude=UNJUDGED),
        "evidence": [span.model_dump(mode="json") for span in check.evidence],
        "cell": asdict(check.cell) if check.cell is not None else None,
    }
    return "verdict:" + hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


class Speculation(Protocol):
    """What verify_draft tells, and asks, of the calls made ahead."""

    def judged(self, claim: Claim, draft: str) -> None:
        """``claim`` of ``draft`` has its first verdict (before its alternates are tried)."""

    def judge_ahead(self, draft: str, judge_from: int) -> None:
        """Judge, ahead of verify, the claims of ``draft`` from ``judge_from`` on."""

    def verdicts(self, checks: Sequence[ClaimCheck]) -> list[asyncio.Task[Reply[Any]] | None]:
        """For each check, the call already made for a verdict on exactly it, if any.

        Each call's reply is a list of one :class:`~deep_research.engines.schemas.ClaimVerdict`.
        """
