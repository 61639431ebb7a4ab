"""Verification: claims, citations and verdicts.

* :mod:`~deep_research.verification.citations`: the draft's citation markers, sentences and
  claims with their offsets;
* :mod:`~deep_research.verification.verifier`: judging a draft's claims against the evidence
  they cite (and the best uncited alternates), with any engine;
* :mod:`~deep_research.verification.checks`, :mod:`~deep_research.verification.alignment`,
  :mod:`~deep_research.verification.agreement` and
  :mod:`~deep_research.verification.quantities`: the offline claim checker (lexical
  alignment, negation and numeric agreement) that the offline engine judges with.
"""
