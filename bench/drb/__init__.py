"""Deep Research Bench (DRB): its 100 tasks through our graph, scored as DRB scores them.

* :mod:`bench.drb.data` reads the tasks, rubrics and the published peer from DRB's folder
  (never copied into the project); :mod:`bench.drb.prompts` reads DRB's own prompts there;
* :mod:`bench.drb.race` is RACE, pairwise against the peer; :mod:`bench.drb.fact` is FACT;
  :mod:`bench.drb.judge` asks the judge as DRB does; :mod:`bench.drb.cost` estimates a run;
* :mod:`bench.drb.run` runs tasks concurrently and resumably; :mod:`bench.drb.scores` writes
  ``scores.json``; ``python -m bench.drb`` is the command (see docs/drb.md);
* keyless: :mod:`bench.drb.model` (a simulated model), :mod:`bench.drb.web` (a simulated web
  of rubric text), :mod:`bench.drb.standin` (a stand-in judge for DRB's prompts) and
  :mod:`bench.drb.measure`, which ``bench/sections/drb.py`` uses to check the plumbing.
"""
