"""Routing and classification metrics: release routing, intent accuracy and confusion matrix, declined-query
precision/recall, and the knowledge-missing flag's precision/recall/F1. Pure functions over labels."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DECLINED = ("out_of_scope", "invalid")


@dataclass(frozen=True)
class PRF:
    precision: float | None
    recall: float | None
    f1: float | None
    tp: int
    fp: int
    fn: int
    support: int  # gold positives

    def to_json(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "tp": self.tp, "fp": self.fp,
                "fn": self.fn, "support": self.support}


def precision_recall_f1(gold: Sequence[bool], predicted: Sequence[bool]) -> PRF:
    """None where the ratio is undefined (no predicted positives for precision, no gold positives for recall)."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted differ in length")
    tp = sum(g and p for g, p in zip(gold, predicted))
    fp = sum(p and not g for g, p in zip(gold, predicted))
    fn = sum(g and not p for g, p in zip(gold, predicted))
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    if precision is not None and recall is not None:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    else:
        # Positives never flagged (or flags that are all wrong) score 0, not "undefined": a preset without the
        # check must not look better than one whose check misfires.
        f1 = 0.0 if 0.0 in (precision, recall) else None
    return PRF(precision, recall, f1, tp, fp, fn, tp + fn)


def release_routing_correct(predicted: Iterable[str], targets: Iterable[str]) -> bool | None:
    """The routed release set equals the target set (order aside: a comparison routes to both)."""
    wanted = set(targets)
    if not wanted:
        return None
    return set(predicted) == wanted


def accuracy(pairs: Sequence[tuple[str | None, str | None]]) -> float | None:
    """(gold, predicted) pairs; a missing prediction counts as wrong."""
    pairs = [(g, p) for g, p in pairs if g is not None]
    if not pairs:
        return None
    return sum(g == p for g, p in pairs) / len(pairs)


def confusion_matrix(pairs: Sequence[tuple[str | None, str | None]],
                     labels: Sequence[str] | None = None) -> dict[str, dict[str, int]]:
    """{gold: {predicted: count}} with every label in rows and columns; a missing prediction is "none"."""
    pairs = [(g, p if p is not None else "none") for g, p in pairs if g is not None]
    names = list(labels or [])
    for g, p in pairs:
        for x in (g, p):
            if x not in names:
                names.append(x)
    matrix = {g: {p: 0 for p in names} for g in names}
    for g, p in pairs:
        matrix[g][p] += 1
    return matrix


def declined_scores(gold_intents: Sequence[str | None], statuses: Sequence[str]) -> dict[str, dict]:
    """Precision/recall of declining, overall ("declined") and per reason (out_of_scope, invalid).

    A gold intent of out_of_scope or invalid is a query that should be declined; a status of the same names is a
    query the pipeline declined."""
    out = {"declined": precision_recall_f1([g in DECLINED for g in gold_intents],
                                           [s in DECLINED for s in statuses]).to_json()}
    for reason in DECLINED:
        out[reason] = precision_recall_f1([g == reason for g in gold_intents], [s == reason for s in statuses]).to_json()
    return out
