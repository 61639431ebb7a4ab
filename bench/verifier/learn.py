"""Fit the offline verifier's classifier and measure it with cross-validation.

The classifier (:mod:`deep_research.verification.learned`) decides SUPPORTED / PARTIAL /
UNSUPPORTED once the strict figure and negation rules have passed. Here it is

* fitted on all of WiCE dev (ODC-BY) to write the shipped coefficients (``--fit``);
* measured with stratified k-fold cross-validation: every claim is judged by a model fitted on
  the other folds, never on itself, with the same rules and code as the product
  (:func:`deep_research.verification.checks.check_claim` with that fold's classifier);
* compared with a baseline: the share of the claim's content words found anywhere in the
  evidence (token recall), with thresholds chosen on the same training folds.

Nothing is tuned on the data it is scored on: the ridge penalty is chosen among
:data:`L2_GRID` by an inner cross-validation inside each training fold (nested CV), and
thresholds and coefficients come from the training folds only. AttributionBench (research
use) is only measured, never shipped: the shipped WiCE model is scored on it as is
(transfer), and a model fitted on its own folds shows what in-domain data would add.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bench.verifier.data import (
    NOT_SUPPORTED,
    PARTIAL,
    SUPPORTED,
    UNSUPPORTED,
    Dataset,
    Example,
    score,
)
from deep_research.state import Verdict
from deep_research.verification import (
    Analyses,
    Classifier,
    align,
    check_claim,
    claim_features,
    clean_claim,
    token_recall,
)

FOLDS = 5
"""Folds of the cross-validation."""

SEED = 13
"""Seed of the fold assignment."""

BALANCE = 0.0
"""Power of the balanced class weights (0: unweighted; the cuts balance the classes)."""

L2_GRID = (1.0, 3.0, 10.0, 30.0, 100.0)
"""Ridge penalties on the (standardized) coefficients that the inner cross-validation picks
from (on the training data only)."""

WICE_CLASSES = (Verdict.SUPPORTED, Verdict.PARTIAL, Verdict.UNSUPPORTED)
BINARY_CLASSES = (Verdict.SUPPORTED, Verdict.UNSUPPORTED)


Route = tuple[Verdict | None, bool]
"""What the rules do with a claim before the classifier: the verdict they give on their own
(``None`` when the classifier decides), and whether SUPPORTED is barred (a figure unstated, or
less than :data:`~deep_research.verification.checks.SUPPORTED_COVERAGE` of the claim)."""


@dataclass(frozen=True)
class Prepared:
    """An example with its features (``None`` when nothing aligns: the rules say UNSUPPORTED),
    its token recall and the rules' route (:data:`Route`)."""

    example: Example
    features: list[float] | None
    recall: float
    route: Route = (None, False)


class _Recorder(Classifier):
    """A classifier that notes it was asked, and says SUPPORTED (so a bar shows)."""

    def classify(self, features: Sequence[float]) -> tuple[Verdict, float]:
        object.__setattr__(self, "asked", True)
        return Verdict.SUPPORTED, 1.0


def _route(example: Example, analyses: Analyses) -> Route:
    recorder = _Recorder(classes=(), mean=(), scale=(), weights=(), bias=())
    verdict = check_claim(example.claim, example.passages, analyses, recorder).verdict
    if not getattr(recorder, "asked", False):
        return verdict, False
    return None, verdict is not Verdict.SUPPORTED


def prepare(examples: Sequence[Example]) -> list[Prepared]:
    """Features, token recall and the rules' route of every example."""
    analyses = Analyses()
    prepared = []
    for example in examples:
        claim = clean_claim(example.claim) or example.claim.strip()
        alignment = align(claim, example.passages, analyses)
        found = (
            claim_features(claim, example.passages, alignment, analyses)
            if alignment is not None
            else None
        )
        recall = token_recall(claim, example.passages)
        prepared.append(Prepared(example, found, recall, _route(example, analyses)))
    return prepared


def _after_rules(verdict: Verdict, route: Route, classes: Sequence[Verdict]) -> Verdict:
    """The product's verdict once the rules have had their say, as one of ``classes``."""
    fixed, barred = route
    if fixed is not None:
        verdict = fixed
    elif barred and verdict is classes[0]:
        verdict = Verdict.PARTIAL
    return verdict if verdict in classes else classes[-1]


def choose_l2(
    features: Sequence[Sequence[float]],
    labels: Sequence[Verdict],
    classes: Sequence[Verdict],
    routes: Sequence[Route],
) -> float:
    """The penalty of :data:`L2_GRID` with the best macro-F1 in an inner stratified CV.

    Only the training set (``features``, ``labels`` and the rules' ``routes``) is used; the
    macro-F1 is that of the verdicts after the rules; ties go to the larger penalty.
    """

    rng = random.Random(SEED + 1)
    assignment = [0] * len(labels)
    for verdict in classes:
        indices = [i for i, label in enumerate(labels) if label is verdict]
        rng.shuffle(indices)
        for position, index in enumerate(indices):
            assignment[index] = position % FOLDS
    names = [c.value for c in classes]
    best: tuple[float, float] = (-1.0, L2_GRID[0])
    for l2 in L2_GRID:
        predicted = [""] * len(labels)
        for fold in range(FOLDS):
            train = [i for i, f in enumerate(assignment) if f != fold]
            model = fit(
                [features[i] for i in train],
                [labels[i] for i in train],
                classes,
                [routes[i] for i in train],
                l2,
            )
            for i, f in enumerate(assignment):
                if f == fold:
                    verdict = model.classify(features[i])[0]
                    predicted[i] = _after_rules(verdict, routes[i], classes).value
        f1 = score([label.value for label in labels], predicted, names)["macro_f1"]
        if f1 >= best[0]:
            best = (f1, l2)
    return best[1]


def fit(
    features: Sequence[Sequence[float]],
    labels: Sequence[Verdict],
    classes: Sequence[Verdict],
    routes: Sequence[Route],
    l2: float | None = None,
) -> Classifier:
    """Multinomial logistic regression, then the cuts that maximize macro-F1.

    Full-batch gradient descent on standardized features (the problem is small and convex);
    the ridge penalty ``l2`` is chosen by :func:`choose_l2` on the same training data when not
    given; the decision cuts on the expected support are chosen on the same training data, for
    the verdicts after the rules (``routes``).
    """
    if l2 is None:
        l2 = choose_l2(features, labels, classes, routes)
    x = np.asarray(features, dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0  # a constant feature (rounded below): left unscaled
    z = (x - mean) / scale
    y = np.zeros((len(labels), len(classes)))
    for row, label in enumerate(labels):
        y[row, classes.index(label)] = 1.0
    counts = y.sum(axis=0)
    weight = (y @ (len(labels) / (len(classes) * np.maximum(counts, 1))))[:, None]
    weight = weight**BALANCE
    w, b = np.zeros((len(classes), z.shape[1])), np.zeros(len(classes))
    # a step the ridge term cannot overshoot (l2 / n > 2 diverged on a few examples)
    rate = min(0.5, 1.0 / (1.0 + l2 / len(labels)))
    for _ in range(3000):
        scores = z @ w.T + b
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        error = weight * (p - y) / len(labels)
        w -= rate * (error.T @ z + l2 * w / len(labels))
        b -= rate * error.sum(axis=0)
    model = Classifier(
        classes=tuple(classes),
        mean=tuple(round(float(v), 6) for v in mean),
        scale=tuple(round(float(v), 6) for v in scale),
        weights=tuple(tuple(round(float(v), 6) for v in row) for row in w),
        bias=tuple(round(float(v), 6) for v in b),
    )
    return replace(model, cuts=_cuts(model, features, labels, routes))


def _cuts(
    model: Classifier,
    features: Sequence[Sequence[float]],
    labels: Sequence[Verdict],
    routes: Sequence[Route],
) -> tuple[float, ...]:
    """The cuts on the expected support that maximize macro-F1 (after the rules) on the
    training data."""

    support = [model.support(f) for f in features]
    gold = [label.value for label in labels]
    names = [c.value for c in model.classes]
    grid = [round(0.025 * i, 3) for i in range(41)]
    combos = (
        [(c,) for c in grid]
        if len(names) == 2
        else [(a, b) for a, b in itertools.product(grid, grid) if b < a]
    )
    best: tuple[float, tuple[float, ...]] = (-1.0, model.cuts)
    for combo in combos:
        predicted = [
            _after_rules(Verdict(_recall_label(s, combo, names)), r, model.classes).value
            for s, r in zip(support, routes, strict=True)
        ]
        f1 = score(gold, predicted, names)["macro_f1"]
        if f1 > best[0]:
            best = (f1, combo)
    return best[1]


def trainable(
    prepared: Sequence[Prepared], to_class: dict[str, Verdict]
) -> tuple[list[list[float]], list[Verdict], list[Route]]:
    """Features, classes and the rules' routes of the examples that have features."""
    rows = [p for p in prepared if p.features is not None]
    return (
        [p.features for p in rows if p.features is not None],
        [to_class[p.example.gold] for p in rows],
        [p.route for p in rows],
    )


def folds(prepared: Sequence[Prepared], k: int = FOLDS, seed: int = SEED) -> list[int]:
    """A stratified fold number per example (seeded, so runs repeat)."""
    assignment = [0] * len(prepared)
    rng = random.Random(seed)
    by_label: dict[str, list[int]] = {}
    for index, p in enumerate(prepared):
        by_label.setdefault(p.example.gold, []).append(index)
    for indices in by_label.values():
        rng.shuffle(indices)
        for position, index in enumerate(indices):
            assignment[index] = position % k
    return assignment


def judge(example: Example, classifier: Classifier, analyses: Analyses) -> Verdict:
    """The product's offline verdict, with ``classifier`` deciding the last step."""
    return check_claim(example.claim, example.passages, analyses, classifier).verdict


def _thresholds(recalls: Sequence[float], gold: Sequence[str], labels: Sequence[str]) -> Any:
    """Baseline thresholds maximizing macro-F1 on training data (one per boundary)."""

    grid = [round(0.025 * i, 3) for i in range(41)]
    best: tuple[float, tuple[float, ...]] = (-1.0, ())
    combos = (
        [(s,) for s in grid]
        if len(labels) == 2
        else [(s, p) for s, p in itertools.product(grid, grid) if p < s]
    )
    for combo in combos:
        predicted = [_recall_label(r, combo, labels) for r in recalls]
        f1 = score(gold, predicted, labels)["macro_f1"]
        if f1 > best[0]:
            best = (f1, combo)
    return best[1]


def _recall_label(recall: float, thresholds: Sequence[float], labels: Sequence[str]) -> str:
    if recall >= thresholds[0]:
        return labels[0]
    if len(thresholds) > 1 and recall >= thresholds[1]:
        return labels[1]
    return labels[-1]


def cross_validate(
    dataset: Dataset, examples: Sequence[Example], classes: Sequence[Verdict], seed: int = SEED
) -> dict[str, Any]:
    """Learned verifier and token-recall baseline, each fitted on the other folds.

    ``seed`` assigns the folds (the inner cross-validation's folds stay as they are).
    """

    prepared = prepare(examples)
    assignment = folds(prepared, seed=seed)
    to_class = _class_map(dataset, classes)
    learned: list[str] = [""] * len(prepared)
    baseline: list[str] = [""] * len(prepared)
    analyses = Analyses()
    penalties = []
    for fold in range(FOLDS):
        train = [p for p, f in zip(prepared, assignment, strict=True) if f != fold]
        features, labels, routes = trainable(train, to_class)
        penalties.append(choose_l2(features, labels, classes, routes))
        classifier = fit(features, labels, classes, routes, penalties[-1])
        cut = _thresholds(
            [p.recall for p in train], [p.example.gold for p in train], dataset.labels
        )
        for index, p in enumerate(prepared):
            if assignment[index] != fold:
                continue
            verdict = judge(p.example, classifier, analyses)
            learned[index] = dataset.predict(verdict.value)
            baseline[index] = _recall_label(p.recall, cut, dataset.labels)
    gold = [p.example.gold for p in prepared]
    return {
        "folds": FOLDS,
        "seed": seed,
        "l2_chosen_per_fold": penalties,
        "learned": with_balanced(score(gold, learned, dataset.labels)),
        "token_recall_baseline": with_balanced(score(gold, baseline, dataset.labels)),
    }


def transfer(
    dataset: Dataset,
    examples: Sequence[Example],
    classifier: Classifier,
    source: Dataset,
    source_examples: Sequence[Example],
) -> dict[str, Any]:
    """A model and baseline fitted on ``source`` only, scored on ``dataset``."""

    analyses = Analyses()
    learned = [dataset.predict(judge(e, classifier, analyses).value) for e in examples]
    # the baseline's SUPPORTED threshold, chosen on the source as "supported or not"
    source_recall = [token_recall(e.claim, e.passages) for e in source_examples]
    binary = [SUPPORTED if e.gold == SUPPORTED else NOT_SUPPORTED for e in source_examples]
    (cut,) = _thresholds(source_recall, binary, (SUPPORTED, NOT_SUPPORTED))
    baseline = [
        SUPPORTED if token_recall(e.claim, e.passages) >= cut else NOT_SUPPORTED for e in examples
    ]
    gold = [e.gold for e in examples]
    return {
        "fitted_on": source.name,
        "learned": with_balanced(score(gold, learned, dataset.labels)),
        "token_recall_baseline": with_balanced(score(gold, baseline, dataset.labels)),
    }


def _class_map(dataset: Dataset, classes: Sequence[Verdict]) -> dict[str, Verdict]:
    if len(classes) == 3:
        return {
            SUPPORTED: Verdict.SUPPORTED,
            PARTIAL: Verdict.PARTIAL,
            UNSUPPORTED: Verdict.UNSUPPORTED,
        }
    return {SUPPORTED: Verdict.SUPPORTED, NOT_SUPPORTED: Verdict.UNSUPPORTED}


def with_balanced(result: dict[str, Any]) -> dict[str, Any]:
    """Add balanced accuracy (the mean of the per-class recalls)."""
    recalls = [c["recall"] for c in result["per_class"].values()]
    result["balanced_accuracy"] = round(sum(recalls) / len(recalls), 4)
    return result


def fit_shipped(examples: Sequence[Example], dataset: Dataset) -> Classifier:
    """The classifier fitted on all of ``examples`` (WiCE), as shipped."""
    prepared = prepare(examples)
    features, labels, routes = trainable(prepared, _class_map(dataset, WICE_CLASSES))
    return fit(features, labels, WICE_CLASSES, routes)


def repeated(
    dataset: Dataset, examples: Sequence[Example], classes: Sequence[Verdict], seeds: Sequence[int]
) -> dict[str, Any]:
    """:func:`cross_validate` once per fold seed: macro-F1 and balanced accuracy of both
    methods per seed, and their means (how much the comparison depends on the folds)."""
    runs = [cross_validate(dataset, examples, classes, seed) for seed in seeds]
    found: dict[str, Any] = {"seeds": list(seeds)}
    for method in ("learned", "token_recall_baseline"):
        for measure in ("macro_f1", "balanced_accuracy"):
            values = [run[method][measure] for run in runs]
            found[f"{method}_{measure}"] = values
            found[f"{method}_{measure}_mean"] = round(sum(values) / len(values), 4)
    return found
