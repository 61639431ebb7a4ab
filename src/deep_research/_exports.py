"""Lazy re-exports for package ``__init__`` modules.

A package re-exports its public names so that importers use the package, not its files. Some
of those names live in modules that load LangGraph's graph machinery, SQLAlchemy or an
extractor; importing the package must not pay for them until one is used (``deep-research
--help`` and ``import deep_research.text.words`` stay fast). Such a package lists those names with
the module that defines them, imports them under ``TYPE_CHECKING`` for type checkers, and sets
``__getattr__ = lazy_exports(__name__, {...})``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module path) on first use."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
