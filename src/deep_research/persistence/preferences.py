"""A user's preferences, and how they become the defaults of the user's runs.

On the server, the ``threads.create_run`` auth handler fills the fields of the run's context
that the caller left out from the user's preferences, so the order is: what the run passes,
then the user's preferences, then the assistant's context, then
:class:`~deep_research.context.Context`'s defaults. On the command line, flags win over
preferences (``deep-research prefs`` shows and sets them). Preferences are stored as JSON in
the ``user_preferences`` table.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from deep_research.context import MAX_INSTRUCTIONS_CHARS, Depth, Mode, PlainText
from deep_research.persistence import repository as repo


class Preferences(BaseModel):
    """Defaults for a user's runs; unset fields leave the run's own defaults alone."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    mode: Mode | None = None
    """Default query mode: ``simple``, ``web_search`` or ``deep_research``."""
    depth: Depth | None = None
    """Default depth: ``auto``, ``light``, ``medium`` or ``extended``."""
    system_instructions: Annotated[PlainText, Field(max_length=MAX_INSTRUCTIONS_CHARS)] = ""
    """Standing instructions for the model (language, focus, style); see
    ``Context.system_instructions``."""

    def context_defaults(self) -> dict[str, Any]:
        """The context fields these preferences set."""
        return self.model_dump(exclude_none=True, exclude_defaults=True)


def apply_preferences(preferences: Preferences, context: MutableMapping[str, Any]) -> None:
    """Fill the fields of a run's ``context`` that the caller left out."""
    for name, value in preferences.context_defaults().items():
        context.setdefault(name, value)


async def get_user_preferences(session: AsyncSession, *, user_id: str) -> Preferences:
    """The user's saved preferences (fields no longer known are dropped)."""
    stored = await repo.get_preferences(session, user_id=user_id)
    return Preferences.model_validate(
        {k: v for k, v in stored.items() if k in Preferences.model_fields}
    )


async def put_user_preferences(
    session: AsyncSession, *, user_id: str, preferences: Preferences
) -> None:
    """Save the user's preferences, replacing the previous ones."""
    await repo.upsert_preferences(
        session, user_id=user_id, preferences=preferences.model_dump(exclude_none=True)
    )
