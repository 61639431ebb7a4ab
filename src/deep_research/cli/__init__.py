"""The command line, ``deep-research``: see :mod:`deep_research.cli.main`."""

from deep_research.cli.main import main

__all__ = ["main"]
