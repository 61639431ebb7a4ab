"""Deep Research Bench (DRB): its 100 tasks through our graph, measured and scored.

* :mod:`bench.drb.data` reads the tasks and their rubrics from ``../shared/data/drb`` (never
  copied into the project);
* :mod:`bench.drb.web` is a simulated web for one task, pages in the task's language;
* :mod:`bench.drb.model` is a simulated model that answers our engine's tasks in any language;
* :mod:`bench.drb.measure` runs one task and measures its report;
* ``python -m bench.drb`` is the harness for people with keys (see :mod:`bench.drb.__main__`);
  ``bench/sections/drb.py`` is the keyless benchmark section.
"""
