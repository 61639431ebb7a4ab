"""Smoke tests of the benchmarks (bench/): each section runs tiny and renders; not unit tests."""
