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

from typing import TYPE_CHECKING

from deep_research._exports import lazy_exports

if TYPE_CHECKING:
    from deep_research.verification.alignment import Analyses, align, clean_claim
    from deep_research.verification.checks import check_claim
    from deep_research.verification.learned import (
        MODEL_FILE,
        Classifier,
        claim_features,
        default_classifier,
        token_recall,
    )

__all__ = [
    "MODEL_FILE",
    "Analyses",
    "Classifier",
    "align",
    "check_claim",
    "claim_features",
    "clean_claim",
    "default_classifier",
    "token_recall",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Analyses": "deep_research.verification.alignment",
        "align": "deep_research.verification.alignment",
        "clean_claim": "deep_research.verification.alignment",
        "check_claim": "deep_research.verification.checks",
        "MODEL_FILE": "deep_research.verification.learned",
        "Classifier": "deep_research.verification.learned",
        "claim_features": "deep_research.verification.learned",
        "default_classifier": "deep_research.verification.learned",
        "token_recall": "deep_research.verification.learned",
    },
)
