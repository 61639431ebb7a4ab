"""The generated part of ``BENCHMARKS.md``: :func:`update` rewrites it from the results."""

from bench.report.document import MARKDOWN, render, update

__all__ = ["MARKDOWN", "render", "update"]
