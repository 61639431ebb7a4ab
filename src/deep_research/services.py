"""What nodes need besides state and context: the engine, the source providers, the recorder.

``build_graph`` binds one :class:`Services` to every node. Left empty, it resolves the engine
and the providers per run from the run's context and the process settings, so that the same
compiled graph serves the CLI, Studio and the server; tests pass their own. The recorder
writes what each node did to the domain store; left empty, it is the SQL recorder when
``DEEP_RESEARCH_DATABASE_URL`` is set and a null recorder otherwise.

Nodes do not record: :func:`recording` binds a node to its services and, once it returns (or
pauses at an ``interrupt()``), records its rows, projected from its update and the events it
emitted (:mod:`deep_research.persistence.projection`), with those events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime

from deep_research.context import Context
from deep_research.engines import Engine, Instructable, load_engine
from deep_research.errors import ModelNotAllowedError
from deep_research.events import RecordedEvent, take_events
from deep_research.persistence.content import get_document_text, put_documents
from deep_research.persistence.legacy import has_legacy_evidence, resolve_legacy_evidence
from deep_research.persistence.projection import project
from deep_research.persistence.recorder import (
    Batch,
    NullRecorder,
    Recorder,
    default_recorder,
    run_scope,
)
from deep_research.persistence.records import (
    MessageKind,
    MessageRecord,
    SessionStatus,
    SessionUpdate,
)
from deep_research.persistence.scratch import drop_round_stages
from deep_research.report.ahead import Ahead
from deep_research.report.judging import InFlight
from deep_research.report.verify import Memo
from deep_research.settings import get_settings
from deep_research.sources import SourceProvider, load_sources
from deep_research.sources.base import Inventoried
from deep_research.sources.inventory import limitation_text
from deep_research.sources.pool import chat_pool
from deep_research.state.models import Document


@dataclass(frozen=True)
class Services:
    """Engine, sources and recorder for every run of a graph; ``None`` means resolve per run."""

    engine: Engine | None = None
    sources: Sequence[SourceProvider] | None = None
    recorder: Recorder | None = None
    served: bool = False
    """Runs come from a server's users: their corpus folders must lie inside the operator's
    corpus roots (see :func:`deep_research.sources.load_sources`)."""
    memo: Memo = field(default_factory=Memo, compare=False, repr=False)
    """What the verifier's checks worked out, kept from one verify or revise pass to the next
    (pure functions of texts, bounded; see :class:`~deep_research.report.verify.Memo`)."""
    in_flight: InFlight = field(default_factory=InFlight, compare=False, repr=False)
    """Claims judged while a report was written, still being judged when its synthesize
    returned: the verify after it waits for them (see :mod:`deep_research.report.judging`)."""
    ahead: Ahead = field(default_factory=Ahead, compare=False, repr=False)
    """Rewrites and verdicts asked for before the node that needs them asks (see
    :mod:`deep_research.report.ahead`)."""

    def engine_for(self, context: Context) -> Engine:
        """The engine a run uses, following the context's system instructions if it can."""
        engine = self.engine
        if engine is None:
            settings = get_settings()
            picked = (context.model, context.judge_model, context.notes_model)
            for model in picked if self.served else ():
                if model and model not in settings.served_models:
                    raise ModelNotAllowedError(model_refusal(model))
            engine = load_engine(
                context.model or settings.engine_model,
                judge_model=context.judge_model or settings.judge_model,
                notes_model=context.notes_model or settings.notes_model,
                **sampling_of(context),
            )
        if context.system_instructions and isinstance(engine, Instructable):
            return engine.with_instructions(context.system_instructions)
        return engine

    async def sources_for(self, context: Context) -> list[SourceProvider]:
        """The providers a run searches (resolved in a worker thread: it touches the disk)."""
        if self.sources is not None:
            return list(self.sources)
        return await asyncio.to_thread(
            load_sources, context.sources, context.corpus_dir, served=self.served
        )

    async def unread_files(self, context: Context) -> list[str]:
        """A limitation per searched folder whose skipped files could matter to the report.

        See :func:`~deep_research.sources.inventory.limitation_text`.
        """
        notes = []
        for provider in await self.sources_for(context):
            if isinstance(provider, Inventoried):
                inventory = await asyncio.to_thread(provider.inventory)
                if (text := limitation_text(inventory)) is not None:
                    notes.append(text)
        return notes

    def recorder_for(self) -> Recorder:
        """The recorder a run writes to (see the module docstring)."""
        return self.recorder if self.recorder is not None else default_recorder()

    async def load_run_ids(self, runtime: Runtime[Any], question_nr: int) -> None:
        """Make the node's events carry their session's ids (see :mod:`deep_research.events`).

        The recorder remembers them when it writes; this reads them for a run resumed in a
        process that has not written this question yet.
        """
        recorder = self.recorder_for()
        if question_nr < 1 or isinstance(recorder, NullRecorder):
            return
        scope = run_scope(runtime, question_nr)
        if scope is not None:
            await recorder.load_run_ids(scope)

    async def record(
        self,
        runtime: Runtime[Any],
        question_nr: int,
        batch: Batch | None = None,
        events: Sequence[RecordedEvent] | None = None,
    ) -> None:
        """Record a batch and the task's events in the domain store.

        Nothing is written when there is neither (or no domain store).

        Args:
            runtime: the node's runtime (it identifies the thread and the task).
            question_nr: the number of the chat's question the run is answering.
            batch: the rows to write.
            events: the events to write with them; by default, those the task emitted since
                they were last taken.
        """
        events = take_events(runtime) if events is None else events
        if batch is None and not events:
            return
        recorder = self.recorder_for()
        scope = run_scope(runtime, question_nr)
        if isinstance(recorder, NullRecorder) or scope is None:
            return
        batch = batch or Batch()
        await recorder.write(scope, replace(batch, events=[*batch.events, *events]))

    async def start_question(
        self, runtime: Runtime[Any], question_nr: int, question: str, mode: str
    ) -> None:
        """Open the question's research session and record its message.

        clarify calls it before its first event, which then names the new session.
        """
        session = SessionUpdate(
            question=question, status=SessionStatus.IN_PROGRESS, query_mode=mode
        )
        message = MessageRecord(MessageKind.QUESTION, question, query_mode=mode)
        await self.record(runtime, question_nr, Batch(session=session, messages=[message]))

    async def keep_documents(self, runtime: Runtime[Any], documents: Sequence[Document]) -> None:
        """Keep the pages' text in the content store, if the run has one.

        They are noted under the run's thread in the same batch, so a purge finds them even
        before their sources are recorded (see
        :func:`~deep_research.persistence.content.put_documents`).

        Raises:
            ChatClosedError: the run's chat is deleted or was purged.
        """
        if runtime.store is not None:
            info = runtime.execution_info
            thread_id = str(info.thread_id) if info is not None and info.thread_id else None
            await put_documents(runtime.store, documents, thread_id=thread_id)

    def chat_pool(self, state: Any, runtime: Runtime[Any]) -> list[SourceProvider]:
        """The chat's pool as a source provider, reading the content store, if the run has one.

        The pool reads its texts through the store's reader handed to it here: a provider
        does not touch the store (see :mod:`deep_research.sources.pool`).
        """
        store = runtime.store
        return chat_pool(state, partial(get_document_text, store) if store is not None else None)

    async def end_round(self, runtime: Runtime[Any]) -> None:
        """Drop the researchers' kept stages: their records are the graph's now."""
        await drop_round_stages(runtime)

    def stop_asking_ahead(self, runtime: Runtime[Any]) -> None:
        """Cancel what was asked ahead for the run of ``runtime`` (it was cancelled).

        Nothing would take those calls, and each answer would start the next (a rewrite's
        verdict): left alone, a cancelled run would go on spending tokens.
        """
        scope = ahead_scope(runtime)
        self.ahead.stop(scope)
        self.in_flight.drop(scope)


Node = Callable[..., Awaitable[dict[str, Any]]]


def ahead_scope(runtime: Runtime[Any]) -> str:
    """The scope of a run's calls made ahead (:class:`~deep_research.report.ahead.Ahead`).

    Its thread; "" without a checkpointer, where concurrent runs share it.
    """
    info = runtime.execution_info
    return str(info.thread_id) if info is not None and info.thread_id else ""


def recording(node: Node, services: Services) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``node`` bound to ``services``, its rows and events recorded when it returns or pauses.

    A thread written before evidence carried its quotes has them cut from the stored pages
    before the node reads the state (:mod:`deep_research.persistence.legacy`).
    """
    bound = partial(node, services=services)
    name = node.__name__

    async def run(state: Any, runtime: Runtime[Context]) -> dict[str, Any]:
        if has_legacy_evidence(getattr(state, "evidence", ())):
            evidence = await resolve_legacy_evidence(runtime.store, state.evidence)
            state = replace(state, evidence=evidence)
        await services.load_run_ids(runtime, state.question_nr)
        try:
            update = await bound(state, runtime)
        except GraphInterrupt:
            await _record(services, runtime, name, state, None, state.question_nr)
            raise
        except asyncio.CancelledError:  # the run was cancelled or stopped
            services.stop_asking_ahead(runtime)
            raise
        # clarify starts the next question: its rows and last events belong to the new one
        nr = update.get("question_nr", state.question_nr)
        await _record(services, runtime, name, state, update, nr)
        return update

    run.__name__ = name
    return run


async def _record(
    services: Services,
    runtime: Runtime[Any],
    node: str,
    state: Any,
    update: dict[str, Any] | None,
    question_nr: int,
) -> None:
    """Record the node's rows (:func:`~deep_research.persistence.projection.project`)."""
    events = take_events(runtime)
    batch = project(node, state, update, events, has_store=runtime.store is not None)
    await services.record(runtime, question_nr, batch, events)


def model_refusal(model: str) -> str:
    """Why a served run may not use ``model``."""
    return (
        f"model {model!r} is not offered on this server; the operator lists the models runs"
        " may pick in DEEP_RESEARCH_ALLOWED_MODELS"
    )


def sampling_of(context: Context) -> dict[str, Any]:
    """The run's sampling settings: the context's, else the process settings'."""
    settings = get_settings()
    fields = ("temperature", "seed", "writer_max_tokens", "judge_max_tokens", "notes_max_tokens")
    return {
        name: getattr(context, name)
        if getattr(context, name) is not None
        else getattr(settings, name)
        for name in fields
    }


def context_of(runtime: Runtime[Any]) -> Context:
    """The run's context, or the defaults when the caller passed none."""
    context = runtime.context
    return context if isinstance(context, Context) else Context()
