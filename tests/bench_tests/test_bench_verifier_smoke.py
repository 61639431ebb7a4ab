"""The verifier benchmark's scoring runs on three inline examples, so the harness cannot rot."""

from __future__ import annotations

import pytest

from bench.verifier.data import DATASETS, Example, score
from bench.verifier.run import evaluate

pytestmark = pytest.mark.bench


def test_the_benchmark_scores_three_inline_examples() -> None:
    wice = next(d for d in DATASETS if d.name == "wice")
    evidence = ["Hornsdale Power Reserve has a capacity of 150 MW.", "It opened in 2017."]
    examples = [
        Example(
            "Hornsdale Power Reserve has a capacity of 150 MW.",
            evidence,
            "SUPPORTED",
            frozenset({0}),
        ),
        Example(
            "Hornsdale Power Reserve has a capacity of 150 MW and 900 staff.", evidence, "PARTIAL"
        ),
        Example("Flywheels power forty remote cities across Norway.", evidence, "UNSUPPORTED"),
    ]
    result = evaluate(wice, examples)
    assert result["n"] == 3 and result["accuracy"] == 1.0 and result["macro_f1"] == 1.0
    assert result["confusion"]["PARTIAL"] == {"SUPPORTED": 0, "PARTIAL": 1, "UNSUPPORTED": 0}
    assert result["evidence_recall_at_1"] == 1.0 and result["evidence_recall_n"] == 1
    assert sum(result["verdicts"].values()) == 3
    # and the scores themselves, against a hand computation
    result = score(["A", "A", "B", "B"], ["A", "B", "B", "B"], ["A", "B"])
    assert result["accuracy"] == 0.75
    assert result["per_class"]["A"] == {"precision": 1.0, "recall": 0.5, "f1": 0.6667, "support": 2}
    assert result["per_class"]["B"]["precision"] == pytest.approx(0.6667, abs=1e-4)
    assert result["macro_f1"] == pytest.approx((0.6667 + 0.8) / 2, abs=1e-3)
    assert result["confusion"] == {"A": {"A": 1, "B": 1}, "B": {"A": 0, "B": 2}}


def test_cross_validation_scores_learned_and_baseline_on_inline_examples() -> None:
    from bench.verifier import learn

    ab = next(d for d in DATASETS if d.name == "attributionbench")
    evidence = ["Hornsdale Power Reserve has a capacity of 150 MW.", "It opened in 2017."]
    supported = [
        Example(f"Hornsdale Power Reserve has a capacity of 150 MW{s}", evidence, "SUPPORTED")
        for s in ".!?;:"
    ]
    others = [
        Example(f"Flywheels power {n} remote cities across Norway.", evidence, "NOT_SUPPORTED")
        for n in ("forty", "fifty", "sixty", "ten", "nine")
    ]
    result = learn.cross_validate(ab, supported + others, learn.BINARY_CLASSES)
    for method in ("learned", "token_recall_baseline"):
        assert result[method]["n"] == 10 and result[method]["balanced_accuracy"] == 1.0
    assert learn.token_recall("Flywheels power cities", evidence) == 1 / 3  # "power"
