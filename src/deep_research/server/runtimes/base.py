"""The runtime that serves the graph, behind one thin adapter: langgraph-api or Aegra.

The server's own code (auth, input checks, the run cap, purge, the routes) is written against
the project's database and this module, never against one runtime's internals. What differs
between the runtimes, and what each adapter does about it:

- **Authentication.** langgraph-api passes the ``@auth.authenticate`` handler the parameters
  it names (our handler names ``headers``: a dict of bytes); Aegra passes the request's headers
  as a dict of strings, positionally. :func:`authorization_header` reads both.
- **Run creation.** langgraph-api's ``threads.create_run`` value keeps the run's request under
  ``kwargs`` and lets the handler change it in place; Aegra's value is the request itself,
  flat, and Aegra takes a changed ``context`` or ``config`` only from the dict the handler
  returns. :meth:`Runtime.run_request` reads either shape into a :class:`RunRequest`, and
  :meth:`Runtime.admit_run` hands the changed context back the way the runtime takes it.
- **Thread updates.** langgraph-api builds the ``threads.update`` value itself (a run's
  cancellation carries ``action``); Aegra's is the request's JSON body plus the path's ids,
  so a body can hold any key, and only its exact shapes are taken for a metadata change or a
  run's cancellation (:meth:`Runtime.thread_update`).
- **The routes' app.** langgraph-api mounts our app beside its own and puts our middleware
  outside its own; Aegra serves our app as the server itself, its own middleware added
  outside ours. :meth:`Runtime.adapt_app` puts things right before the app serves anything
  (langgraph-api: nothing to do; Aegra: see :mod:`deep_research.server.runtimes.aegra`).
- **Runs, threads, checkpoints, store.** langgraph-api's runs and threads are read and deleted
  through its own API in process (``langgraph_sdk.get_client()`` with no URL); its
  checkpointer and store are the project's factories on ``DEEP_RESEARCH_DATABASE_URL``
  (langgraph.json's ``checkpointer.path`` and ``store.path``). Aegra ignores those two paths
  and keeps runs, threads, checkpoints and the store in its own PostgreSQL database: its
  adapter (:mod:`deep_research.server.runtimes.aegra`) reads and deletes them there, through Aegra's
  own objects in process.

Which runtime this is is decided by which server imported us
(:func:`deep_research.server.runtimes.select.current_runtime`); a
process that is neither (tests, the Python API) gets langgraph-api's adapter, whose in-process
calls then fail as they always did outside a server.

Identity is the server's alone: the graph takes the user from the authenticated user the
runtime puts in the run's configurable (``langgraph_auth_user``, set by both runtimes over
whatever a client sent), never from a ``user_id`` a client sent (see
:func:`deep_research.persistence.recorder.run_scope`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from fastapi import FastAPI
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

ThreadUpdate = Literal["metadata", "run", "state"]
"""What a thread update changes: its metadata, one of its runs (a cancellation), its state."""


@dataclass(frozen=True)
class Stores:
    """The checkpointer and the content store the served graph writes to."""

    checkpointer: BaseCheckpointSaver[str]
    store: BaseStore


@dataclass
class RunRequest:
    """What a run creation asks for, read from either runtime's handler value."""

    input: Any = None
    command: dict[str, Any] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    webhook: str | None = None
    run_id: str | None = None
    """The run's id, when the runtime has chosen it before the handler (langgraph-api)."""
    thread_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """The rest of the request, as the runtime passed it."""

    def as_kwargs(self) -> dict[str, Any]:
        """The request in langgraph-api's ``kwargs`` shape, which the run checks read."""
        return {
            "input": self.input,
            "command": self.command,
            "config": self.config,
            "context": self.context,
            "webhook": self.webhook,
        }


MetadataOwner = Literal["threads", "assistants"]
"""What holds metadata that an update merges into."""


class Runtime(Protocol):
    """What the server's code needs of the runtime that serves it."""

    name: str

    def run_request(self, value: Mapping[str, Any]) -> RunRequest:
        """The run creation that a ``threads.create_run`` handler value describes."""
        ...

    def admit_run(
        self, value: Mapping[str, Any], request: RunRequest, owner: str
    ) -> dict[str, Any]:
        """What the ``threads.create_run`` handler returns, with ``request``'s context applied."""
        ...

    def thread_update(self, value: Mapping[str, Any]) -> ThreadUpdate:
        """What a ``threads.update`` handler value changes: metadata, a run, or the state."""
        ...

    async def active_runs(self, user_id: str) -> set[str]:
        """The ids of ``user_id``'s pending and running runs, on every instance."""
        ...

    async def stored_metadata(
        self, resource: MetadataOwner, resource_id: str
    ) -> dict[str, Any] | None:
        """The metadata a thread or an assistant has now, or ``None`` if there is none."""
        ...

    async def run_status(self, thread_id: str, run_id: str) -> str | None:
        """The run's status, or ``None`` when the runtime has not stored it."""
        ...

    async def owned_threads(self, user_id: str) -> list[str]:
        """The ids of the runtime's threads ``user_id`` owns."""
        ...

    async def cancel_runs(self, thread_id: str) -> None:
        """Cancel the thread's pending and running runs."""
        ...

    async def busy(self, thread_id: str) -> bool:
        """Whether a run of the thread is still pending or running."""
        ...

    async def forget_threads(
        self, user_id: str, threads: Sequence[str], *, all_owned: bool = False
    ) -> None:
        """Delete the runtime's records of ``threads`` (and every thread of ``user_id``)."""
        ...

    def stores(self) -> AbstractAsyncContextManager[Stores]:
        """The checkpointer and content store the served graph uses."""
        ...

    def adapt_app(self, app: FastAPI) -> None:
        """Adapt our routes' app to the runtime once it has built it, before it serves."""
        ...


def authorization_header(headers: Mapping[Any, Any] | None) -> str | None:
    """The ``Authorization`` header from either runtime's headers (bytes or str, any case)."""
    return request_header(headers, "authorization")


def request_header(headers: Mapping[Any, Any] | None, wanted: str) -> str | None:
    """The header named ``wanted`` (lower-case) from either runtime's headers, or ``None``."""
    for key, value in (headers or {}).items():
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if name.lower() == wanted:
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return None
