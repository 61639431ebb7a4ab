"""The server's own HTTP routes (``langgraph.json`` → ``http.app``), read from the domain store.

Chats with their messages, research sessions with their sources, evidence, claims, verdicts
and events, reports as JSON, Markdown and a self-contained HTML page, feedback on messages, and
preferences. The routes are mounted in the LangGraph server beside its API, behind the same
custom auth (``http.enable_custom_route_auth``), and every read is scoped by the authenticated
user through :mod:`deep_research.persistence.queries`: another user's ids answer 404, like ids
that do not exist. Their OpenAPI description is merged into the server's ``/openapi.json`` and
``/docs``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Annotated, Any, TypeVar, get_args

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp

from deep_research.context import Depth, Mode
from deep_research.engines import learn_windows
from deep_research.errors import DatabaseUnavailableError, NotFoundError, StoreError
from deep_research.ids import THREAD_ID
from deep_research.persistence import queries
from deep_research.persistence import repository as repo
from deep_research.persistence.preferences import (
    Preferences,
    get_user_preferences,
    put_user_preferences,
)
from deep_research.persistence.tables import (
    Base,
    Chat,
    Citation,
    Claim,
    EvidenceSpan,
    ResearchEvent,
    Source,
)
from deep_research.report.build import article_markdown
from deep_research.report.html import render_html
from deep_research.server.auth import owner_id
from deep_research.server.bodies import RequestBodies
from deep_research.server.cors import CORSPolicy, allowed_origins
from deep_research.server.database import (
    StoreDisabledError,
    close_domain_stores,
    in_domain_session,
    server_database_url,
)
from deep_research.server.mcp_endpoint import mcp
from deep_research.server.purge import (
    ChatNotDeletedError,
    RunsStillActiveError,
    purge_chat,
    purge_user,
    stop_runs,
)
from deep_research.server.runtimes.select import current_runtime
from deep_research.server.schemas import (
    ChatDetail,
    ChatRename,
    ChatSummary,
    CitationOut,
    ClaimOut,
    EventOut,
    EvidenceOut,
    FeedbackIn,
    FeedbackOut,
    IterationOut,
    Options,
    PurgeOut,
    SessionDetail,
    SessionSummary,
    SourceOut,
    SubStepOut,
)
from deep_research.server.tokens import current_verifier
from deep_research.server.webapp import WebApp
from deep_research.settings import get_settings
from deep_research.state import Report

ThreadId = Annotated[
    str, Path(pattern=f"^{THREAD_ID.pattern}$", max_length=128, description="a chat's thread id")
]
"""A thread id in a path: letters, digits, ``-`` and ``_`` (others are 422; see ``ids``)."""

RowId = Annotated[int, Path(ge=1, le=2**63 - 1, description="a row id")]
"""A row id in a path: a positive 64-bit integer (larger ones are 422, not a database error)."""

logger = logging.getLogger(__name__)

Row = TypeVar("Row", bound=Base)
Shown = TypeVar("Shown", bound=BaseModel)

RETRY_AFTER_SECONDS = 10
"""The ``Retry-After`` of a 503 answered while the database is unreachable."""


@asynccontextmanager
async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
    """Load the settings, say how requests are authenticated and who may call; close the store.

    The settings are built here, off the event loop, so that no request handler is the first to
    build them (that reads the environment and resolves the data folder: blocking calls, which
    ``langgraph dev`` refuses inside a request); so are the context windows the served models'
    servers state (blocking HTTP), which every run's engine reads.
    """
    settings = await asyncio.to_thread(get_settings)
    # the windows the model servers state: asked now, off the loop, not inside a run
    await asyncio.to_thread(learn_windows, sorted(settings.served_models))
    verifier = current_verifier()
    origins = allowed_origins(settings)
    if verifier.open:
        logger.warning(
            "deep-research auth is OFF: no DEEP_RESEARCH_AUTH_TOKENS or DEEP_RESEARCH_AUTH_SECRET"
            " is set, so every request acts as user %r. Set one before exposing this server.",
            settings.user_id,
        )
    else:
        schemes = [f"{len(verifier.tokens)} token(s)"] if verifier.tokens else []
        schemes += [f"JWTs of {len(verifier.secrets)} secret(s)"] if verifier.secrets else []
        logger.info("deep-research auth is on: bearer %s", " and ".join(schemes))
    logger.info("deep-research CORS allows %s", ", ".join(origins))
    try:
        yield
    finally:
        await close_domain_stores()


class RoutesApp(FastAPI):
    """FastAPI, adapted to the runtime that serves it (:meth:`Runtime.adapt_app`).

    The runtime builds the app first (Aegra adds its own middleware and routes to it); the
    middleware stack is built on the app's first call (its lifespan), before any request.
    """

    def build_middleware_stack(self) -> ASGIApp:
        """Adapt the app to its runtime, then build the stack as FastAPI does."""
        current_runtime().adapt_app(self)
        return super().build_middleware_stack()


class _AsciiJSON(JSONResponse):
    """JSON escaped to ASCII: a lone surrogate a request sent is echoed, not a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


app = RoutesApp(
    title="Deep Research",
    summary="Chats, research sessions, reports, feedback and preferences of the signed-in user.",
    version="1",
    lifespan=lifespan,
)
"""The custom routes' app."""

app.add_api_route("/mcp", mcp, methods=["GET", "POST", "DELETE"], include_in_schema=False)
"""The MCP endpoint, ours on every runtime (langgraph.json: ``http.disable_mcp``)."""

app.add_middleware(WebApp)  # the page's files at /app, answered before authentication
app.add_middleware(RequestBodies)  # every request's body within its cap; /mcp refusals
app.add_middleware(CORSPolicy)  # outermost: it answers the whole server's CORS


def current_user(request: Request) -> str:
    """The user the request acts as (set by the server's auth middleware).

    Raises:
        HTTPException: 401 when the request went through no authentication.
    """
    user = request.scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        raise HTTPException(status_code=401, detail="not authenticated")
    return owner_id(user)


User = Annotated[str, Depends(current_user)]
"""Every route's transaction runs in :func:`in_domain_session`: it ends (committed or rolled
back) before the response is sent, so a database lost by then still answers 503, not a 200
followed by a broken connection; and it ends even when the request is cancelled, so a SQLite
file is never left locked."""


@app.exception_handler(RequestValidationError)
async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with the errors, as FastAPI answers them.

    Text a client sent that is not valid Unicode (an escaped lone surrogate in JSON) is echoed
    escaped, rather than failing the answer with 500.
    """
    return _AsciiJSON({"detail": jsonable_encoder(exc.errors())}, status_code=422)


@app.exception_handler(NotFoundError)
async def _not_found(_request: Request, exc: NotFoundError) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=404)


@app.exception_handler(DatabaseUnavailableError)
async def _database_unavailable(_request: Request, exc: DatabaseUnavailableError) -> JSONResponse:
    logger.error("deep-research route failed: %s", exc)  # the database's address stays here
    return JSONResponse(
        {"detail": "the database is unreachable; try again later"},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


@app.exception_handler(ChatNotDeletedError)
@app.exception_handler(RunsStillActiveError)
async def _not_deleted(_request: Request, exc: StoreError) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=409)


@app.exception_handler(StoreDisabledError)
async def _no_store(_request: Request, exc: StoreDisabledError) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=503)


@app.get("/chats", tags=["chats"])
async def list_chats(
    user: User,
    include_deleted: bool = False,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[ChatSummary]:
    """Your chats, most recently active first."""

    async def read(store: AsyncSession) -> list[ChatSummary]:
        chats = await queries.list_chats(
            store, user_id=user, include_deleted=include_deleted, limit=limit
        )
        return [ChatSummary.model_validate(chat) for chat in chats]

    return await in_domain_session(read)


@app.get("/chats/{thread_id}", tags=["chats"])
async def get_chat(thread_id: ThreadId, user: User) -> ChatDetail:
    """A chat with its messages and research sessions."""

    async def read(store: AsyncSession) -> ChatDetail:
        chat = await queries.get_chat(store, user_id=user, thread_id=thread_id)
        messages = await queries.list_messages(store, user_id=user, thread_id=thread_id)
        sessions = await queries.list_sessions(store, user_id=user, thread_id=thread_id)
        return ChatDetail.model_validate(
            {
                **ChatSummary.model_validate(chat).model_dump(),
                "messages": messages,
                "sessions": sessions,
            }
        )

    return await in_domain_session(read)


@app.patch("/chats/{thread_id}", tags=["chats"])
async def rename_chat(thread_id: ThreadId, change: ChatRename, user: User) -> ChatSummary:
    """Give your chat another title."""

    async def rename(session: AsyncSession) -> ChatSummary:
        chat = await repo.rename_chat(
            session, user_id=user, thread_id=thread_id, title=change.title
        )
        return ChatSummary.model_validate(chat)

    return await in_domain_session(rename)


@app.delete("/chats/{thread_id}", tags=["chats"], status_code=204)
async def delete_chat(thread_id: ThreadId, user: User) -> None:
    """Delete your chat: hidden and closed to new questions, restorable until purged.

    Its runs in progress are cancelled, and the answer waits until they have ended.
    """

    async def delete(session: AsyncSession) -> None:
        await repo.soft_delete_chat(session, user_id=user, thread_id=thread_id)

    await in_domain_session(delete)
    await stop_runs([thread_id])


@app.post("/chats/{thread_id}/restore", tags=["chats"])
async def restore_chat(thread_id: ThreadId, user: User) -> ChatSummary:
    """Bring back a chat deleted within the recovery window."""
    window = timedelta(days=get_settings().chat_recovery_days)

    async def restore(session: AsyncSession) -> ChatSummary:
        await repo.restore_chat(session, user_id=user, thread_id=thread_id, window=window)
        chat = await queries.get_chat(session, user_id=user, thread_id=thread_id)
        return ChatSummary.model_validate(chat)

    return await in_domain_session(restore)


@app.post("/chats/{thread_id}/purge", tags=["chats"])
async def purge_deleted_chat(thread_id: ThreadId, user: User) -> PurgeOut:
    """Erase your deleted chat for good (409 while it is not deleted).

    Its runs still in progress are cancelled and waited for first. Its rows, every
    checkpoint of its thread and the page text no other chat refers to go.
    """
    erased = await purge_chat(user_id=user, thread_id=thread_id)
    return PurgeOut(threads=list(erased.threads), documents=erased.documents)


@app.post("/me/purge", tags=["chats"])
async def purge_my_data(user: User) -> PurgeOut:
    """Erase everything you left on this server.

    Every chat (deleted or not) with its checkpoints and page text, your preferences and
    feedback, and the items of your own store namespaces go.
    """
    erased = await purge_user(user_id=user)
    return PurgeOut(threads=list(erased.threads), documents=erased.documents, items=erased.items)


@app.get("/sessions/{session_id}", tags=["sessions"])
async def get_session(session_id: RowId, user: User) -> SessionDetail:
    """A research session: status, plan, classification and verification summary."""

    async def read(store: AsyncSession) -> SessionDetail:
        found = await queries.get_session(store, user_id=user, session_id=session_id)
        chat = await store.get_one(Chat, found.chat_id)
        return SessionDetail.model_validate(
            SessionSummary.model_validate(found).model_dump()
            | {
                "thread_id": chat.thread_id,
                "brief": found.brief,
                "plan": found.plan,
                "classification": found.classification,
                "verification": found.verification,
                "has_report": found.report is not None,
            }
        )

    return await in_domain_session(read)


ITERATION_FIELDS = ("iteration_nr", "steps", "decision", "reasoning")


@app.get("/sessions/{session_id}/iterations", tags=["sessions"])
async def list_iterations(session_id: RowId, user: User) -> list[IterationOut]:
    """The research rounds, each with its steps' instructions, tools, notes and citations."""

    async def read(store: AsyncSession) -> list[IterationOut]:
        rounds = await queries.list_iterations(store, user_id=user, session_id=session_id)
        return [
            IterationOut.model_validate(
                {
                    **{k: getattr(r, k) for k in ITERATION_FIELDS},
                    "sub_steps": [SubStepOut.model_validate(s) for s in steps],
                }
            )
            for r, steps in rounds
        ]

    return await in_domain_session(read)


@app.get("/sessions/{session_id}/sources", tags=["sessions"])
async def list_sources(session_id: RowId, user: User) -> list[SourceOut]:
    """Every source the session consulted, cited or not, with how reading it went."""
    return await _session_rows(user, session_id, Source, SourceOut)


@app.get("/sessions/{session_id}/evidence", tags=["sessions"])
async def list_evidence(session_id: RowId, user: User) -> list[EvidenceOut]:
    """The evidence spans the researchers selected."""
    return await _session_rows(user, session_id, EvidenceSpan, EvidenceOut)


@app.get("/sessions/{session_id}/claims", tags=["sessions"])
async def list_claims(session_id: RowId, user: User) -> list[ClaimOut]:
    """The report's claims, in order, with verdicts and citations."""

    async def read(store: AsyncSession) -> list[ClaimOut]:
        claims = await queries.list_session_rows(
            store, user_id=user, session_id=session_id, model=Claim
        )
        links = await queries.list_session_rows(
            store, user_id=user, session_id=session_id, model=Citation
        )
        by_claim: dict[str, list[Citation]] = {}
        for link in links:
            by_claim.setdefault(link.claim_id, []).append(link)
        return [
            ClaimOut.model_validate(claim).model_copy(
                update={
                    "citations": [
                        CitationOut.model_validate(link)
                        for link in by_claim.get(claim.claim_id, [])
                    ]
                }
            )
            for claim in claims
        ]

    return await in_domain_session(read)


@app.get("/sessions/{session_id}/events", tags=["sessions"])
async def list_events(session_id: RowId, user: User) -> list[EventOut]:
    """The session's progress events, in the order they happened."""
    return await _session_rows(user, session_id, ResearchEvent, EventOut)


async def _session_rows(
    user: str, session_id: int, model: type[Row], out: type[Shown]
) -> list[Shown]:
    """The rows of ``model`` of one of ``user``'s sessions, each as ``out`` shows it."""

    async def read(store: AsyncSession) -> list[Shown]:
        rows = await queries.list_session_rows(
            store, user_id=user, session_id=session_id, model=model
        )
        return [out.model_validate(row) for row in rows]

    return await in_domain_session(read)


async def _report(user: str, session_id: int) -> dict[str, Any]:
    async def read(store: AsyncSession) -> dict[str, Any]:
        found = await queries.get_session(store, user_id=user, session_id=session_id)
        if found.report is None:
            raise NotFoundError(f"research session {session_id} has no report yet ({found.status})")
        return found.report

    return await in_domain_session(read)


@app.get("/sessions/{session_id}/report", tags=["reports"])
async def get_report(session_id: RowId, user: User) -> dict[str, Any]:
    """The session's report as JSON (schema ``v1``, camelCase: what ``report.json`` holds)."""
    return await _report(user, session_id)


@app.get(
    "/sessions/{session_id}/report.md",
    tags=["reports"],
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {}}}},
)
async def get_report_markdown(session_id: RowId, user: User) -> PlainTextResponse:
    """The session's report as Markdown, with its numbered references."""
    report = await _report(user, session_id)
    return PlainTextResponse(str(report.get("markdown", "")), media_type="text/markdown")


@app.get(
    "/sessions/{session_id}/report.article.md",
    tags=["reports"],
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {}}}},
)
async def get_report_article(session_id: RowId, user: User) -> PlainTextResponse:
    """The session's report as an article (what ``report.article.md`` holds).

    The title, body and numbered references with their URLs, without the verification marks,
    their notes, the Limitations section or the verification line.
    """
    report = Report.model_validate(await _report(user, session_id))
    return PlainTextResponse(article_markdown(report), media_type="text/markdown")


REPORT_PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
}
"""Headers of a report's page: it loads nothing, posts nothing, is framed by no one and is
cached by no shared cache (it is one user's)."""


@app.get(
    "/reports/{session_id}.html",
    tags=["reports"],
    response_class=HTMLResponse,
    responses={200: {"content": {"text/html": {}}}},
)
async def get_report_html(session_id: RowId, user: User) -> HTMLResponse:
    """The session's report as one self-contained page (what ``report.html`` holds).

    Every claim is highlighted by its verdict, and clicking it shows its evidence; the page
    needs no network. Only the report's owner gets it; other ids answer 404.
    """
    report = Report.model_validate(await _report(user, session_id))
    return HTMLResponse(render_html(report), headers=REPORT_PAGE_HEADERS)


@app.get("/messages/{message_id}/feedback", tags=["feedback"])
async def get_feedback(message_id: RowId, user: User) -> FeedbackOut:
    """Your feedback on a message."""

    async def read(store: AsyncSession) -> FeedbackOut:
        found = await queries.get_feedback(store, user_id=user, message_id=message_id)
        return FeedbackOut.model_validate(found)

    return await in_domain_session(read)


@app.put("/messages/{message_id}/feedback", tags=["feedback"])
async def put_feedback(message_id: RowId, feedback: FeedbackIn, user: User) -> FeedbackOut:
    """Rate a message of one of your chats (replacing an earlier rating of yours)."""

    async def write(store: AsyncSession) -> FeedbackOut:  # committed before the response
        values = feedback.model_dump()
        await repo.upsert_feedback(store, user_id=user, message_id=message_id, **values)
        found = await queries.get_feedback(store, user_id=user, message_id=message_id)
        await store.refresh(found)
        return FeedbackOut.model_validate(found)

    return await in_domain_session(write)


@app.get("/options", tags=["preferences"])
async def get_options(user: User) -> Options:
    """What a run on this server may choose: models, sources, modes and depths.

    The web app offers these; a run that picks anything else is refused as before.
    """
    settings = get_settings()
    sources = ["auto", "local"]
    sources += ["tavily"] if settings.tavily_api_key is not None else []
    sources += ["searxng"] if settings.searxng_url else []
    sources += ["mcp"] if settings.mcp_config is not None else []
    sources += ["academic", "pubmed", "europepmc", "openalex", "clinicaltrials"]
    return Options(
        user=user,
        models=sorted(settings.served_models),
        default_model=settings.engine_model,
        sources=sources,
        modes=list(get_args(Mode)),
        depths=list(get_args(Depth)),
        store=server_database_url() is not None,
    )


@app.get("/preferences", tags=["preferences"])
async def get_preferences(user: User) -> Preferences:
    """Your preferences: the defaults of your runs' mode, depth and system instructions."""
    return await in_domain_session(lambda store: get_user_preferences(store, user_id=user))


@app.put("/preferences", tags=["preferences"])
async def put_preferences(preferences: Preferences, user: User) -> Preferences:
    """Replace your preferences; they apply to the runs you start from now on."""

    async def write(store: AsyncSession) -> None:  # committed before the response is sent
        await put_user_preferences(store, user_id=user, preferences=preferences)

    await in_domain_session(write)
    return preferences
