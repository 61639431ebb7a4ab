"""The command line, ``deep-research``: see :mod:`deep_research.cli.main`."""

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports
from deep_research.cli.main import main

if TYPE_CHECKING:
    from deep_research.cli.ask import freeze_start_up

__all__ = ["freeze_start_up", "main"]

__getattr__ = lazy_exports(__name__, {"freeze_start_up": "deep_research.cli.ask"})
