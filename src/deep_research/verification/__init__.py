"""Verification: claims, citations and verdicts.

* :mod:`~deep_research.verification.citations`: the draft's citation markers, sentences and
  claims with their offsets;
* :mod:`~deep_research.report.verify`: judging a draft's claims against the evidence
  they cite (and the best uncited alternates), with any engine;
* :mod:`~deep_research.verification.checks`, :mod:`~deep_research.verification.alignment`,
  :mod:`~deep_research.verification.agreement` and
  :mod:`~deep_research.verification.quantities`: the offline claim checker (lexical
  alignment, negation and numeric agreement) that the offline engine judges with;
  ``quantities`` reads a text's figures with :mod:`~deep_research.verification.dates`,
  :mod:`~deep_research.verification.digits`,
  :mod:`~deep_research.verification.number_words`, :mod:`~deep_research.verification.units`,
  :mod:`~deep_research.verification.currencies`, :mod:`~deep_research.verification.hedges` and
  :mod:`~deep_research.verification.chinese_figures`.
"""
