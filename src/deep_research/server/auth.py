"""Custom auth of the LangGraph server (``langgraph.json`` → ``auth.path``).

Authentication: a bearer token maps to a user id (:mod:`deep_research.server.tokens`); a
missing or unknown token is refused with 401. With no scheme configured the server is open,
and every request acts as ``DEEP_RESEARCH_USER_ID`` (``local``).

Authorization: every thread and assistant a user creates is stamped ``metadata.owner`` with
the user id, and every read, search, update, delete or run is filtered by it, so another
user's thread reads as not found (404). The server's own assistants (``created_by: system``)
can be read and run by everyone. The store API is limited to namespaces that start with the
user id, and never the content store's (``documents``, which no user id may be). Runs are
checked before the server stores anything (:func:`check_run_request`): the question must be
valid, a local corpus must lie inside ``DEEP_RESEARCH_CORPUS_ROOTS``, a model must be one the
operator offers, and the user must have fewer runs in progress than
``DEEP_RESEARCH_MAX_RUNS_PER_USER`` (:mod:`deep_research.server.run_cap`; 429). Crons are
refused, and so is anything no handler below covers.

Studio's no-token bypass of ``langgraph dev`` (the ``x-auth-scheme: langsmith`` header) is
switched off in langgraph.json (``auth.disable_studio_auth``), so with auth configured Studio
needs a token like any client (docs/server.md).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any, cast

from langgraph_sdk import Auth
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.errors import CorpusOutsideRootsError
from deep_research.persistence import queries
from deep_research.persistence.closed import is_closed
from deep_research.persistence.namespaces import RESERVED_NAMESPACE_ROOTS
from deep_research.persistence.preferences import (
    Preferences,
    apply_preferences,
    get_user_preferences,
)
from deep_research.server.database import in_domain_session, server_database_url
from deep_research.server.inputs import (
    CALLER_THREAD_ID,
    command_forbidden,
    command_problem,
    graph_of,
    input_problem,
    metadata_problem,
)
from deep_research.server.run_cap import run_limiter
from deep_research.server.runtimes.base import MetadataOwner, authorization_header, request_header
from deep_research.server.runtimes.select import current_runtime
from deep_research.server.tokens import current_verifier
from deep_research.services import model_refusal
from deep_research.settings import get_settings
from deep_research.sources import check_corpus_dir, corpus_roots

auth = Auth()
"""The server's ``Auth`` object."""

BEARER = "bearer"


def _unauthorized(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(
        status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"}
    )


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or ``None``."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == BEARER and token else None


def _api_key(headers: Mapping[Any, Any] | None) -> str | None:
    """The token of an ``X-Api-Key`` header, or ``None``."""
    token = (request_header(headers, "x-api-key") or "").strip()
    return token or None


def owner_id(user: Any) -> str:
    """The user id a request acts as: the token's user, or ``DEEP_RESEARCH_USER_ID`` when open.

    On an open server, Studio's user is the local user too, so that Studio, the SDK and the
    command line share one user's chats.
    """
    if current_verifier().open:
        return get_settings().user_id
    return str(user.identity)


@auth.authenticate
async def authenticate(headers: Mapping[Any, Any] | None) -> Auth.types.MinimalUserDict:
    """Map the request's bearer token to its user (any request, when the server is open).

    The token comes as ``Authorization: Bearer TOKEN``, or as ``X-Api-Key: TOKEN``, the header
    LangGraph's own clients send (agent-chat-ui, the SDK's ``api_key``). ``headers`` as either
    runtime passes them: langgraph-api by name (bytes), Aegra as its one positional argument
    (str).
    """
    verifier = current_verifier()
    if verifier.open:
        return {"identity": get_settings().user_id, "is_authenticated": True}
    token = bearer_token(authorization_header(headers)) or _api_key(headers)
    if token is None:
        raise _unauthorized("missing bearer token: send 'Authorization: Bearer TOKEN'")
    user_id = verifier.verify(token)
    if user_id is None:
        raise _unauthorized("invalid token")
    return {"identity": user_id, "is_authenticated": True}


def _stamp(value: Any, owner: str) -> None:
    """Set ``metadata.owner`` on a resource being created or updated.

    Ownership is written by the server, never taken from the caller: a ``created_by`` the
    caller sent (``system`` marks the server's own assistants, shared with everyone) is
    cleared to null, not just dropped, because Aegra lays the handler's metadata over the
    request's, where it would survive.
    """
    metadata = value.get("metadata")
    if metadata is None:
        metadata = value["metadata"] = {}
    if metadata.pop("created_by", None) is not None:
        metadata["created_by"] = None
    metadata["owner"] = owner


def _refuse(status: int, detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=status, detail=detail)


def _check_metadata(value: Any) -> None:
    """Refuse metadata over the size limit (422)."""
    problem = metadata_problem(value.get("metadata")) if isinstance(value, dict) else None
    if problem is not None:
        raise _refuse(422, problem)


async def _check_merged_metadata(
    value: Mapping[str, Any], resource: MetadataOwner, owner: str
) -> None:
    """Refuse an update whose metadata, merged into what is stored, is over the limit (422).

    Both runtimes merge an update's metadata into the stored one (one level deep): a cap on
    the request alone let 30 updates of 60 KB leave 1.8 MB. Another user's resource is not
    looked at (the server answers 404 for it, and the answer must not depend on its size).
    """
    update, key = value.get("metadata"), "thread_id" if resource == "threads" else "assistant_id"
    if not isinstance(update, dict) or not update or not value.get(key):
        return
    stored = await current_runtime().stored_metadata(resource, str(value[key]))
    if stored is None or stored.get("owner") != owner:
        return
    problem = metadata_problem({**stored, **update})
    if problem is not None:
        raise _refuse(422, f"with the metadata stored, {problem}")


async def check_run_request(kwargs: dict[str, Any], graph: str | None = None) -> None:
    """Refuse, before anything is stored, a run whose input, command or corpus is not acceptable.

    The input must fit the run's graph (``graph``: ``None`` when the request does not tell,
    then any served graph's), every human message of the input or of a command's ``update``
    must be a valid question, and with auth on a command may add messages only
    (:mod:`deep_research.server.inputs`): the graph would refuse bad input too, but only after
    the server appended it to the thread. A local corpus must lie inside the operator's corpus
    roots.

    Raises:
        HTTPException: 422 for bad input, 403 for a command that writes more than messages or
            a corpus outside the roots.
    """
    command = kwargs.get("command")
    forbidden = command_forbidden(command, auth=not current_verifier().open)
    if forbidden is not None:
        raise _refuse(403, forbidden)
    run_input = kwargs.get("input")
    if command is not None and run_input == {}:  # a resume as agent-chat-ui sends it
        run_input = None
    problem = input_problem(graph, run_input) or command_problem(command)
    if problem is not None:
        raise _refuse(422, problem)
    await check_context(kwargs.get("context"))
    config = kwargs.get("config")  # the runtime takes the context from here when none is given
    await check_context(config.get("configurable") if isinstance(config, dict) else None)


async def check_context(context: Any) -> None:
    """Refuse a context that picks a model not offered or a corpus outside the roots.

    Raises:
        HTTPException: 403.
    """
    if not isinstance(context, dict):
        return
    for key in ("model", "judge_model", "notes_model"):
        model = context.get(key)
        if model and str(model) not in get_settings().served_models:
            raise _refuse(403, model_refusal(str(model)))
    if context.get("corpus_dir"):
        folder, roots = str(context["corpus_dir"]), corpus_roots(get_settings())
        try:  # resolving links touches the disk: off the event loop
            await asyncio.to_thread(check_corpus_dir, folder, roots)
        except CorpusOutsideRootsError as exc:
            raise _refuse(403, str(exc)) from None


@auth.on
async def deny_everything_else(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> bool:
    """Refuse what no handler below covers (403)."""
    return False


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> dict[str, str]:
    """Read, search, update or delete only the user's threads; with auth on, not their state.

    An update is a change of metadata (which keeps its owner), an action on one of its runs
    (cancelling it), or a direct write of the thread's state (``update_state``); the runtime's
    adapter tells which (:meth:`~deep_research.server.runtimes.base.Runtime.thread_update`). A state
    write would store what the checks of :func:`create_run` refuse (a question, a budget), so
    it is refused when auth is configured; on an open, local server Studio's state editing
    keeps working.

    Raises:
        HTTPException: 403 for a direct state write on a server with auth.
    """
    owner = owner_id(ctx.user)
    _check_metadata(value)
    if ctx.action == "update":
        kind = current_runtime().thread_update(value)
        if kind == "state" and not current_verifier().open:
            raise _refuse(
                403,
                "writing a thread's state directly is not offered on this server:"
                " answer the thread's question or ask a new one",
            )
        if kind != "run" and value.get("metadata") is not None:
            _stamp(value, owner)
            await _check_merged_metadata(value, "threads", owner)
    return {"owner": owner}


@auth.on.threads.create
async def create_thread(
    ctx: Auth.types.AuthContext, value: Auth.types.ThreadsCreate
) -> dict[str, str]:
    """A new thread belongs to its creator.

    With auth on, the caller does not pick its id (see
    :mod:`deep_research.server.bodies`: the handler cannot tell a picked id from the one the
    server makes up).

    Nor is a thread created again under the id of a deleted or purged chat (its thread is
    closed, :mod:`deep_research.persistence.closed`), whatever the runtime: on Aegra, whose
    checkpointer does not look up closed threads, its runs would write under the old id.

    Raises:
        HTTPException: 422 for metadata too large, 409 for the id of a closed thread.
    """
    owner = owner_id(ctx.user)
    _check_metadata(value)
    _stamp(value, owner)
    await refuse_closed_thread(value.get("thread_id"))
    return {"owner": owner}


async def refuse_closed_thread(thread_id: Any) -> None:
    """Refuse to create a thread of the id of a closed one (a deleted or purged chat's).

    Raises:
        HTTPException: 409.
    """
    if not thread_id or server_database_url() is None:
        return

    async def closed(session: AsyncSession) -> bool:
        return await is_closed(session, thread_id=str(thread_id))

    if await in_domain_session(closed):
        raise _refuse(409, f"thread {thread_id} was closed (its chat deleted or purged)")


@auth.on.threads.create_run
async def create_run(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> dict[str, str]:
    """Run only on the user's threads that are not deleted chats, with their preferences.

    With auth on, a run does not create a thread of the id it names
    (``if_not_exists="create"``): a thread id the caller picks could be another user's, and
    the answer would tell that it exists.

    The run's request is read, and the changed context handed back, in the shape of the
    runtime serving us (:mod:`deep_research.server.runtimes.base`).
    """
    owner = owner_id(ctx.user)
    _check_metadata(value)
    _stamp(value, owner)  # a run may create its thread
    runtime = current_runtime()
    request = runtime.run_request(value)
    thread = request.thread_id
    if thread and value.get("if_not_exists") == "create" and not current_verifier().open:
        raise _refuse(422, CALLER_THREAD_ID)  # the same answer, taken or not
    if value.get("if_not_exists") == "create":
        await refuse_closed_thread(thread)
    await check_run_request(request.as_kwargs(), graph_of(value.get("assistant_id")))
    if server_database_url() is not None:

        async def read(session: AsyncSession) -> Preferences:
            if thread and await queries.is_deleted_chat(session, user_id=owner, thread_id=thread):
                raise _refuse(409, f"chat {thread} is deleted; restore it before asking again")
            return await get_user_preferences(session, user_id=owner)

        preferences = await in_domain_session(read)
        request.context = request.context or {}
        apply_preferences(preferences, request.context)
    request.run_id = request.run_id or str(uuid.uuid4())  # Aegra names its runs later
    await check_run_cap(owner, request.run_id, thread)
    return runtime.admit_run(value, request, owner)


async def check_run_cap(owner: str, run_id: str, thread_id: str | None) -> None:
    """Admit the run only while its user has fewer than ``DEEP_RESEARCH_MAX_RUNS_PER_USER``.

    Raises:
        HTTPException: 429 when the user's pending and running runs reach the cap.
    """
    cap = get_settings().max_runs_per_user
    if cap == 0:
        return
    active = await run_limiter.admit(owner, run_id, thread_id, cap)
    if active is not None:
        raise _refuse(
            429,
            f"too many runs: you have {active} pending or running (at most {cap} per user);"
            " wait for one to finish or cancel one",
        )


@auth.on.assistants
async def own_assistants(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> dict[str, Any]:
    """Create and change only one's own assistants; read and run the server's too."""
    owner = owner_id(ctx.user)
    if ctx.action in ("create", "update"):
        _check_metadata(value)
        _stamp(value, owner)
        if ctx.action == "update":
            await _check_merged_metadata(value, "assistants", owner)
        await check_context(value.get("context"))
        config = value.get("config")  # the older way to give an assistant its context
        await check_context(config.get("configurable") if isinstance(config, dict) else None)
    if ctx.action in ("read", "search"):
        return {"$or": [{"owner": owner}, {"created_by": "system"}]}
    return {"owner": owner}


@auth.on.crons
async def no_crons(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> bool:
    """Scheduled runs are not offered."""
    raise Auth.exceptions.HTTPException(
        status_code=403, detail="scheduled runs (crons) are not enabled on this server"
    )


@auth.on.store
async def own_namespaces(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> bool:
    """Use only store namespaces that start with one's user id, of labels the store takes.

    The store refuses a label that is empty or holds a period: langgraph-api answers 422,
    Aegra 500, so it is refused here first (422).
    """
    owner = owner_id(ctx.user)
    namespace = tuple(cast("tuple[str, ...]", value.get("namespace") or ()))
    if any(not isinstance(label, str) or not label or "." in label for label in namespace):
        raise _refuse(422, "store namespace labels must be non-empty text without periods")
    if ctx.action == "list_namespaces" and not namespace:
        value["namespace"] = (owner,)
        return True
    if not namespace or namespace[0] != owner or namespace[0] in RESERVED_NAMESPACE_ROOTS:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail=f"store namespaces must start with your user id ({owner!r})"
        )
    return True
