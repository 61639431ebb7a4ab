"""LangGraph ``DeltaChannel``s that keep the field's declared type for the schemas.

LangGraph's ``DeltaChannel`` keeps no copy of its value in each checkpoint, only the writes
(see docs/decisions.md). It reports its value's bare class as its type (``list`` for a field
``list[AnyMessage]``), and the graph's JSON schemas (Studio, the server's assistant schemas)
are built from a channel's ``UpdateType``: a chat's ``messages`` would be shown as a list of
anything. :class:`TypedDeltaChannel` reports the declared type instead.

It also builds its empty value, for a new thread or an ``Overwrite(None)``, by calling that
class (``list()``, ``str()``), and ``Report | None`` cannot be called.
:class:`NullableDeltaChannel` calls ``NoneType`` instead (``NoneType()`` is ``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import NoneType
from typing import Any, Self

from langgraph.channels.delta import DeltaChannel

__all__ = ["NullableDeltaChannel", "TypedDeltaChannel"]


class TypedDeltaChannel(DeltaChannel[Any]):
    """A ``DeltaChannel`` that gives the field's declared type as its value and update types.

    Use it as ``Annotated[list[AnyMessage], TypedDeltaChannel(reducer)]``: LangGraph builds
    the channel again with the field's type (``list[AnyMessage]``), which the schemas show.
    """

    __slots__ = ("declared",)

    def __init__(
        self,
        reducer: Callable[[Any, Sequence[Any]], Any],
        typ: Any = None,
        *,
        snapshot_frequency: int = 100,
    ) -> None:
        super().__init__(reducer, self._empty(typ), snapshot_frequency=snapshot_frequency)
        self.declared: Any = typ if typ is not None else self.typ
        """The field's type (``list[AnyMessage]``, ``Report | None``)."""

    @staticmethod
    def _empty(typ: Any) -> Any:
        """The class whose call gives the channel's empty value (``list[X]`` gives ``list``)."""
        return typ

    @property
    def ValueType(self) -> Any:
        """The field's declared type."""
        return self.declared

    @property
    def UpdateType(self) -> Any:
        """The field's declared type."""
        return self.declared

    def copy(self) -> Self:
        """A copy, with the declared type (``DeltaChannel.copy`` passes the bare class)."""
        new = super().copy()
        new.declared = self.declared
        return new

    def from_checkpoint(self, checkpoint: Any) -> Self:
        """The channel restored from a checkpoint, with the declared type."""
        new = super().from_checkpoint(checkpoint)
        new.declared = self.declared
        return new


class NullableDeltaChannel(TypedDeltaChannel):
    """A ``DeltaChannel`` whose empty value is ``None``, for a field typed ``X | None``.

    Use it as ``Annotated[Report | None, NullableDeltaChannel(latest_write)]``; reset the
    field with ``Overwrite(None)``. The reducer receives ``None`` as the state while the field
    is empty.
    """

    __slots__ = ()

    @staticmethod
    def _empty(typ: Any) -> Any:
        return NoneType
