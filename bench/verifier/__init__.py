"""Verifier accuracy on labelled claims; see :mod:`bench.verifier.run`."""
