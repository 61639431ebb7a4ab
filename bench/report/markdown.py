"""Markdown helpers: tables and how numbers and spreads are written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def num(value: Any, digits: int = 2) -> str:
    """A number for a table ("—" when missing)."""
    if value is None:
        return "—"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def spread(s: Mapping[str, Any] | None, digits: int = 2) -> str:
    """``median (min–max)`` of a summary."""
    if not s or not s.get("n"):
        return "—"
    if s["n"] == 1:
        return num(s["median"], digits)
    return f"{num(s['median'], digits)} ({num(s['min'], digits)}–{num(s['max'], digits)})"


def iqr(s: Mapping[str, Any] | None, digits: int = 2) -> str:
    """``median [q1–q3]`` of a summary."""
    if not s or not s.get("n"):
        return "—"
    return f"{num(s['median'], digits)} [{num(s['q1'], digits)}–{num(s['q3'], digits)}]"


def steps(n: int) -> str:
    """``1 step``, ``4 steps``."""
    return f"{n} step" if n == 1 else f"{n} steps"


def calls(n: int) -> str:
    """``1 finished call``, ``4 finished calls``."""
    return f"{n} finished call" if n == 1 else f"{n} finished calls"


def median_max(s: Mapping[str, Any]) -> str:
    """``median (max)`` of a summary."""
    return f"{num(s['median'], 1)} ({num(s['max'], 1)})" if s.get("n") else "—"
