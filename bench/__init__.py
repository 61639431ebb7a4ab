"""Benchmarks of the research agent: ``python -m bench`` (or ``make bench``).

Outside the test suite. Each section in :mod:`bench.sections` measures one thing against a
simulated model and search (:mod:`bench.sim`), writes ``bench/results/<section>.json``, and
:mod:`bench.report` regenerates the figures in ``BENCHMARKS.md``.
"""
