"""The labelled claims the verifier is measured on: WiCE and AttributionBench dev sets.

Where the data sets are read from (``../shared/data``, never copied here), how each one's labels
map onto our verdicts, and the scores (:func:`score`). :mod:`bench.verifier.run` measures with
them, :mod:`bench.verifier.learn` fits and cross-validates the learned classifier on them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"

SUPPORTED, PARTIAL, UNSUPPORTED = "SUPPORTED", "PARTIAL", "UNSUPPORTED"
NOT_SUPPORTED = "NOT_SUPPORTED"
WICE_LABELS = {"supported": SUPPORTED, "partially_supported": PARTIAL, "not_supported": UNSUPPORTED}


@dataclass(frozen=True)
class Example:
    """One labelled claim."""

    claim: str
    passages: list[str]
    gold: str
    gold_passages: frozenset[int] = frozenset()
    """Passages a human marked as the support (WiCE's supporting sentences)."""


@dataclass(frozen=True)
class Dataset:
    """A labelled set and how our verdicts map onto its labels."""

    name: str
    path: Path
    labels: tuple[str, ...]
    load: Callable[[dict[str, Any]], Example]
    predict: Callable[[str], str]


def _wice(row: dict[str, Any]) -> Example:
    gold = frozenset(i for group in row["supporting_sentences"] for i in group)
    return Example(row["claim"], list(row["evidence"]), WICE_LABELS[row["label"]], gold)


def _wice_predict(verdict: str) -> str:
    # WiCE has no contradicted class; a contradicted claim is not supported.
    return UNSUPPORTED if verdict == "CONTRADICTED" else verdict


def _attribution(row: dict[str, Any]) -> Example:
    gold = SUPPORTED if row["attribution_label"] == "attributable" else NOT_SUPPORTED
    return Example(row["claim"], [r for r in row["references"] if r.strip()], gold)


DATASETS = (
    Dataset(
        "wice",
        DATA / "wice" / "dev.jsonl",
        (SUPPORTED, PARTIAL, UNSUPPORTED),
        _wice,
        _wice_predict,
    ),
    Dataset(
        "attributionbench",
        DATA / "attributionbench" / "dev.jsonl",
        (SUPPORTED, NOT_SUPPORTED),
        _attribution,
        lambda verdict: SUPPORTED if verdict == SUPPORTED else NOT_SUPPORTED,
    ),
)


def read_examples(dataset: Dataset) -> list[Example]:
    """The data set's examples, in file order."""
    with dataset.path.open(encoding="utf-8") as lines:
        return [dataset.load(json.loads(line)) for line in lines if line.strip()]


def score(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    """Accuracy, macro-F1, per-class precision/recall/F1 and the confusion matrix.

    The confusion matrix is ``confusion[gold][predicted]``.
    """
    confusion = {g: {p: 0 for p in labels} for g in labels}
    for g, p in zip(gold, predicted, strict=True):
        confusion[g][p] += 1
    per_class = {}
    for label in labels:
        tp = confusion[label][label]
        predicted_n = sum(confusion[g][label] for g in labels)
        actual_n = sum(confusion[label].values())
        precision = tp / predicted_n if predicted_n else 0.0
        recall = tp / actual_n if actual_n else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "support": actual_n,
        }
    correct = sum(confusion[label][label] for label in labels)
    return {
        "n": len(gold),
        "accuracy": round(correct / len(gold), 4) if gold else 0.0,
        "macro_f1": round(sum(c["f1"] for c in per_class.values()) / len(labels), 4),
        "per_class": per_class,
        "confusion": confusion,
    }
