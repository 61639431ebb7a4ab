"""A LangGraph ``DeltaChannel`` for an optional value, whose empty value is ``None``.

LangGraph's ``DeltaChannel`` keeps no copy of its value in each checkpoint, only the writes
(see docs/decisions.md). It builds its empty value, for a new thread or an ``Overwrite(None)``,
by calling the type it was declared with (``list()``, ``str()``), and ``Report | None``
cannot be called. :class:`NullableDeltaChannel` calls ``NoneType`` instead (``NoneType()``
is ``None``) and reports the declared type to whoever reads it: the graph's JSON schemas
(Studio, the server's assistant schemas) are built from a channel's ``UpdateType``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import NoneType
from typing import Any, Self

from langgraph.channels.delta import DeltaChannel

__all__ = ["NullableDeltaChannel"]


class NullableDeltaChannel(DeltaChannel[Any]):
    """A ``DeltaChannel`` whose empty value is ``None``, for a field typed ``X | None``.

    Use it as ``Annotated[Report | None, NullableDeltaChannel(latest_write)]``; reset the
    field with ``Overwrite(None)``. The reducer receives ``None`` as the state while the field
    is empty.
    """

    __slots__ = ("declared",)

    def __init__(
        self,
        reducer: Callable[[Any, Sequence[Any]], Any],
        typ: Any = None,
        *,
        snapshot_frequency: int = 100,
    ) -> None:
        super().__init__(reducer, NoneType, snapshot_frequency=snapshot_frequency)
        self.declared: Any = typ
        """The field's type (``Report | None``), which ``self.typ`` cannot be."""

    @property
    def ValueType(self) -> Any:
        """The field's declared type."""
        return self.declared

    @property
    def UpdateType(self) -> Any:
        """The field's declared type."""
        return self.declared

    def copy(self) -> Self:
        """A copy, with the declared type (``DeltaChannel.copy`` passes ``NoneType``)."""
        new = super().copy()
        new.declared = self.declared
        return new

    def from_checkpoint(self, checkpoint: Any) -> Self:
        """The channel restored from a checkpoint, with the declared type."""
        new = super().from_checkpoint(checkpoint)
        new.declared = self.declared
        return new
