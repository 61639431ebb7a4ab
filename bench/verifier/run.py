"""Measure the verifier on labelled claims: WiCE and AttributionBench dev sets.

Run from the repository root::

    .venv/bin/python -m bench.verifier            # or: .venv/bin/python bench/verifier/run.py
    .venv/bin/python -m bench.verifier --tune     # also search the offline thresholds

Reads ``../shared/data/wice/dev.jsonl`` and ``../shared/data/attributionbench/dev.jsonl``
(relative to the repository root; a data set that is absent is skipped with a message, and the
data is never copied here), maps the labels as ``../shared/data/README.md`` says, judges every
claim with the offline engine through
:func:`deep_research.report.verify.verify_claims` (the code
the graph and ``deep-research verify`` use), and writes ``bench/results/verifier.json``:
accuracy, macro-F1, per-class precision/recall/F1 and the confusion matrix per data set, and
under ``learned`` the cross-validated classifier against a token-recall baseline
(:mod:`bench.verifier.learn`; ``--fit`` refits the shipped coefficients on WiCE first).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.verifier.data import (
    DATASETS,
    ROOT,
    Dataset,
    Example,
    read_examples,
    score,
)

RESULTS = ROOT / "bench" / "results" / "verifier.json"


def evaluate(dataset: Dataset, examples: Sequence[Example]) -> dict[str, Any]:
    """Judge every example with the offline engine and score the verdicts."""
    from deep_research.engines import OfflineEngine
    from deep_research.report import verify_claims

    started = time.perf_counter()
    items = [(e.claim, e.passages) for e in examples]
    judgements = asyncio.run(verify_claims(OfflineEngine(), items)).value
    predicted = [dataset.predict(j.verdict.value) for j in judgements]
    result = score([e.gold for e in examples], predicted, dataset.labels)
    gold = [e.gold for e in examples]
    majority = max(dataset.labels, key=gold.count)
    result["majority_baseline"] = {
        "label": majority,
        "accuracy": round(gold.count(majority) / len(gold), 4) if gold else 0.0,
    }
    result["verdicts"] = {
        v: sum(1 for j in judgements if j.verdict.value == v)
        for v in ("SUPPORTED", "PARTIAL", "UNSUPPORTED", "CONTRADICTED")
    }
    with_gold = [(e, j) for e, j in zip(examples, judgements, strict=True) if e.gold_passages]
    if with_gold:
        hits = sum(1 for e, j in with_gold if j.evidence_index in e.gold_passages)
        result["evidence_recall_at_1"] = round(hits / len(with_gold), 4)
        result["evidence_recall_n"] = len(with_gold)
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def available() -> Iterator[tuple[Dataset, list[Example]]]:
    """Each data set that is present, with its examples; absent ones are reported and skipped."""
    for dataset in DATASETS:
        if not dataset.path.is_file():
            print(f"skipping {dataset.name}: {dataset.path} not found", file=sys.stderr)
            continue
        yield dataset, read_examples(dataset)


def thresholds() -> dict[str, float]:
    """The offline verifier's thresholds in force."""
    from deep_research.verification import alignment, checks

    return {
        "supported_coverage": checks.SUPPORTED_COVERAGE,
        "partial_coverage": checks.PARTIAL_COVERAGE,
        "conflict_coverage": alignment.CONFLICT_COVERAGE,
        "name_weight": alignment.NAME_WEIGHT,
        "max_support_sentences": alignment.MAX_SUPPORT_SENTENCES,
    }


def tune(loaded: Sequence[tuple[Dataset, list[Example]]]) -> None:
    """Print the grid of the two coverage thresholds against WiCE macro-F1 and AB accuracy."""
    from deep_research.verification import checks

    rows = []
    grid = [round(0.05 * i, 2) for i in range(2, 19)]
    for supported, partial in itertools.product(grid, grid):
        if partial >= supported:
            continue
        checks.SUPPORTED_COVERAGE, checks.PARTIAL_COVERAGE = supported, partial
        scores = {d.name: evaluate(d, examples) for d, examples in loaded}
        rows.append((supported, partial, scores))
        figures = "  ".join(
            f"{name} acc {s['accuracy']:.3f} F1 {s['macro_f1']:.3f}" for name, s in scores.items()
        )
        print(f"supported>={supported:.2f} partial>={partial:.2f}  {figures}", flush=True)


def refit(loaded: Sequence[tuple[Dataset, list[Example]]]) -> None:
    """Fit the shipped coefficients again on WiCE (only) and write them into the package
    (``deep_research/verification/verifier_model.json``)."""
    from bench.verifier import learn
    from deep_research.verification import MODEL_FILE, default_classifier

    for dataset, examples in loaded:
        if dataset.name == "wice":
            shipped = learn.fit_shipped(examples, dataset)
            path = ROOT / "src" / "deep_research" / "verification" / MODEL_FILE
            path.write_text(json.dumps(shipped.as_json(), indent=1) + "\n", encoding="utf-8")
            default_classifier.cache_clear()


def learned_section(
    loaded: Sequence[tuple[Dataset, list[Example]]], seeds: Sequence[int] = ()
) -> dict[str, Any]:
    """The learned classifier against the token-recall baseline, cross-validated; with
    ``seeds``, the WiCE cross-validation again once per fold seed (``repeated_cv``)."""
    from bench.verifier import learn
    from deep_research.verification import default_classifier

    sets = {d.name: (d, examples) for d, examples in loaded}
    section: dict[str, Any] = {"cross_validation": {}, "transfer": {}}
    if "wice" in sets:
        wice, wice_examples = sets["wice"]
        section["cross_validation"]["wice"] = learn.cross_validate(
            wice, wice_examples, learn.WICE_CLASSES
        )
        if "attributionbench" in sets:
            ab, ab_examples = sets["attributionbench"]
            section["transfer"]["attributionbench"] = learn.transfer(
                ab, ab_examples, default_classifier(), wice, wice_examples
            )
    if "attributionbench" in sets:
        ab, ab_examples = sets["attributionbench"]
        section["cross_validation"]["attributionbench"] = learn.cross_validate(
            ab, ab_examples, learn.BINARY_CLASSES
        )
    for kind, per_set in section.items():
        for name, result in per_set.items():
            learned, base = result["learned"], result["token_recall_baseline"]
            print(
                f"{kind} {name}: learned macro-F1 {learned['macro_f1']:.3f} "
                f"balanced acc {learned['balanced_accuracy']:.3f}; token recall macro-F1 "
                f"{base['macro_f1']:.3f} balanced acc {base['balanced_accuracy']:.3f}"
            )
    if seeds and "wice" in sets:
        wice, wice_examples = sets["wice"]
        section["repeated_cv"] = {
            "wice": learn.repeated(wice, wice_examples, learn.WICE_CLASSES, seeds)
        }
        print(f"repeated_cv wice: {section['repeated_cv']['wice']}")
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true", help="print a threshold grid search")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument(
        "--fit",
        action="store_true",
        help="refit the shipped classifier on WiCE and write its coefficients into the package",
    )
    parser.add_argument(
        "--seeds",
        default="",
        help="comma-separated fold seeds: repeat the WiCE cross-validation once per seed",
    )
    args = parser.parse_args(argv)
    loaded = list(available())
    if not loaded:
        print("no data set found under ../shared/data; nothing to measure", file=sys.stderr)
        return 0
    if args.tune:
        tune(loaded)
        return 0
    if args.fit:  # before anything is judged, so every figure below is the new model's
        refit(loaded)
    results: dict[str, Any] = {
        "engine": "offline",
        "note": (
            "Dev sets. The shipped classifier was fitted on WiCE dev, so the WiCE figures under "
            "'datasets' are in-sample; AttributionBench was never used to fit it. The rules' "
            "thresholds were tuned on both sets. Honest figures: 'learned' (cross-validation "
            "and transfer, against a token-recall baseline fitted on the same folds)."
        ),
        "thresholds": thresholds(),
        "datasets": {},
    }
    for dataset, examples in loaded:
        results["datasets"][dataset.name] = evaluate(dataset, examples)
        summary = results["datasets"][dataset.name]
        print(
            f"{dataset.name}: n={summary['n']} accuracy={summary['accuracy']:.3f} "
            f"macro-F1={summary['macro_f1']:.3f} ({summary['seconds']}s)"
        )
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    results["learned"] = learned_section(loaded, seeds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
