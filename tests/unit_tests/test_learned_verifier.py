"""The learned classifier: shipped coefficients load, and check_claim defers to it."""

from __future__ import annotations

from deep_research.state import Verdict
from deep_research.verification.checks import check_claim
from deep_research.verification.learned import FEATURES, Classifier, default_classifier


def always(verdict: Verdict) -> Classifier:
    """A classifier whose bias alone picks ``verdict``."""
    classes = (Verdict.SUPPORTED, Verdict.PARTIAL, Verdict.UNSUPPORTED)
    zeros = tuple(0.0 for _ in FEATURES)
    return Classifier(
        classes=classes,
        mean=zeros,
        scale=tuple(1.0 for _ in FEATURES),
        weights=tuple(zeros for _ in classes),
        bias=tuple(5.0 if c is verdict else 0.0 for c in classes),
        cuts=(0.9, 0.1),
    )


def test_the_shipped_coefficients_load_and_round_trip() -> None:
    shipped = default_classifier()
    assert shipped.classes == (Verdict.SUPPORTED, Verdict.PARTIAL, Verdict.UNSUPPORTED)
    assert all(len(row) == len(FEATURES) for row in shipped.weights)
    assert Classifier.from_json(shipped.as_json()) == shipped
    assert len(shipped.cuts) == 2 and shipped.cuts[0] > shipped.cuts[1]


def test_the_shipped_classifier_orders_full_partial_and_no_overlap() -> None:
    evidence = ["Hornsdale Power Reserve in South Australia has a capacity of 150 MW."]
    claims = {
        "Hornsdale Power Reserve in South Australia has a capacity of 150 MW": Verdict.SUPPORTED,
        "Hornsdale Power Reserve in South Australia was built by Neoen near Jamestown "
        "and is owned by a French company": Verdict.PARTIAL,
        "Flywheels spin quietly beneath old Norwegian fishing villages": Verdict.UNSUPPORTED,
    }
    for claim, verdict in claims.items():
        assert check_claim(claim, evidence).verdict is verdict, claim


def test_a_classifier_decides_after_the_rules_and_never_supports_a_missing_figure() -> None:
    evidence = ["Hornsdale Power Reserve has a capacity of 150 MW."]
    claim = "Hornsdale Power Reserve has a capacity of 150 MW"
    assert check_claim(claim, evidence).verdict is Verdict.SUPPORTED  # the thresholds
    assert check_claim(claim, evidence, classifier=always(Verdict.PARTIAL)).verdict is (
        Verdict.PARTIAL
    )
    # the rules come first: a contradicted figure stays contradicted whatever the classifier
    wrong = check_claim(
        "Hornsdale Power Reserve has a capacity of 250 MW",
        evidence,
        classifier=always(Verdict.SUPPORTED),
    )
    assert wrong.verdict is Verdict.CONTRADICTED
    extra = check_claim(
        "Reserve staff of 40 people", evidence, classifier=always(Verdict.SUPPORTED)
    )
    assert extra.verdict is Verdict.PARTIAL


def test_the_readme_accuracy_table_is_the_benchmarks_last_result() -> None:
    """docs/reports.md's learned verifier and baseline figures are bench/results' own."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    results = json.loads((root / "bench/results/verifier.json").read_text(encoding="utf-8"))
    learned = results["learned"]
    expected = {
        "WiCE dev": learned["cross_validation"]["wice"],
        "AttributionBench dev": learned["cross_validation"]["attributionbench"],
        "AttributionBench, model fitted on WiCE only": learned["transfer"]["attributionbench"],
    }
    readme = (root / "docs/reports.md").read_text(encoding="utf-8")
    for label, result in expected.items():
        row = re.search(rf"^\| {re.escape(label)}[^|]*\|[^|]*\|(.*)\|(.*)\|$", readme, re.M)
        assert row is not None, label
        for cell, method in zip(row.groups(), ("learned", "token_recall_baseline"), strict=True):
            accuracy, macro_f1 = (float(v) for v in cell.split("/"))
            # to the three decimals shown (0.5455 is written 0.546)
            assert abs(accuracy - result[method]["accuracy"]) <= 5.01e-4, (label, method)
            assert abs(macro_f1 - result[method]["macro_f1"]) <= 5.01e-4, (label, method)


def _features(claim: str, evidence: list[str]) -> dict[str, float]:
    from deep_research.verification.alignment import align
    from deep_research.verification.learned import claim_features

    alignment = align(claim, evidence)
    assert alignment is not None
    return dict(zip(FEATURES, claim_features(claim, evidence, alignment), strict=True))


def test_clause_features_see_a_clause_the_evidence_states_nowhere() -> None:
    evidence = [
        "Media Play News is the voice of the home entertainment industry.",
        "Arnold serves as publisher and editorial director of Media Play News.",
    ]
    whole = _features("Arnold is publisher and editorial director of Media Play News", evidence)
    extra = _features(
        "Arnold is publisher of Media Play News, which won three Pulitzer prizes", evidence
    )
    assert whole["clause_min_best"] == 1.0
    assert extra["clause_min_best"] == 0.0 and extra["clause_mean_best"] == 0.5
    assert extra["clause_count"] == 2.0
    # the two sentences are consecutive: the window holds what both state
    assert whole["window3_recall"] >= whole["top1_recall"]


def test_number_negation_and_name_features() -> None:
    evidence = ["The bridge did not open in 1932.", "Its engineer was Joseph Strauss."]
    found = _features("The bridge opened in 1937 under Othmar Ammann", evidence)
    assert found["numbers_literal"] == 0.0  # 1937 is not written in the evidence
    assert found["negation_mismatch"] == 1.0  # the best sentence is negated, the claim not
    assert found["missing_names"] == 2.0  # Othmar, Ammann
    stated = _features("The bridge did not open in 1932", evidence)
    assert stated["numbers_literal"] == 1.0 and stated["negation_mismatch"] == 0.0
