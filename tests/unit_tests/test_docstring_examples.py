"""The usage examples in the public entry points' docstrings run, and say what they show.

A newcomer copies these first; an example that no longer runs or no longer prints what it
says would teach the wrong thing, so each runs here as a doctest (offline, no network).
"""

from __future__ import annotations

import doctest
import importlib

import pytest

ENTRY_POINTS = [
    "deep_research.graph.builder",  # build_graph
    "deep_research.engines.base",  # the Engine protocol
    "deep_research.engines",  # load_engine
    "deep_research.report.verify",  # verify_claims, the verifier's entry
    "deep_research.persistence.checkpointer",  # open_checkpointer, the checkpointer factory
]


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_docstring_examples_run_as_written(name: str) -> None:
    module = importlib.import_module(name)
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert results.attempted > 0, f"{name} has no docstring example"
    assert results.failed == 0, f"{results.failed} example(s) of {name} failed (output above)"
