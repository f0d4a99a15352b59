"""Per-question records -> per-preset figures, with per-intent and per-kind breakdowns."""

from __future__ import annotations

from collections.abc import Sequence

from assistant.evaluation.judge.pairwise import win_tie_loss
from assistant.evaluation.metrics import classification as cm
from assistant.evaluation.metrics.cost import latency_summary, mean, usage_summary

# Means over the questions a metric applies to, in table order.
MEAN_METRICS = (
    "hit@k", "mrr", "gold_recall@k", "page_hit@k", "page_mrr", "context_recall@k", "context_must_contain@k",
    "contamination@k", "release_correct", "intent_correct", "knowledge_correct", "must_contain", "must_contain_all",
    "answer_similarity", "judge_correctness", "judge_faithfulness", "judge_intent_criteria", "changed",
    "product_correct", "routing_unanswered",
)
BREAKDOWN_METRICS = ("hit@k", "mrr", "context_recall@k", "contamination@k", "release_correct", "intent_correct",
                     "knowledge_correct", "must_contain", "judge_correctness")


def _values(records: Sequence[dict], key: str) -> list[float]:
    return [float(r["metrics"][key]) for r in records if r.get("metrics", {}).get(key) is not None]


def means(records: Sequence[dict], keys: Sequence[str]) -> dict[str, dict]:
    out = {}
    for key in keys:
        vals = _values(records, key)
        if vals:
            out[key] = {"mean": mean(vals), "n": len(vals)}
    return out


def _group(records: Sequence[dict], key) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(key(r) or "unlabelled", []).append(r)
    return dict(sorted(groups.items()))


def aggregate(records: Sequence[dict], *, k: int) -> dict:
    ok = [r for r in records if r.get("status") != "error"]
    metrics = means(ok, MEAN_METRICS)

    routed = [r for r in ok if r["metrics"].get("release_correct") is not None]
    for label, subset in (("named", [r for r in routed if r.get("release_named")]),
                          ("unnamed", [r for r in routed if not r.get("release_named")])):
        vals = _values(subset, "release_correct")
        if vals:
            metrics[f"release_correct_{label}"] = {"mean": mean(vals), "n": len(vals)}

    intent_pairs = [(r["intent_gold"], r.get("intent_pred")) for r in ok
                    if r.get("intent_gold") is not None and r["metrics"].get("intent_correct") is not None]
    declined_rows = [r for r in ok if r.get("intent_gold") is not None]
    knowledge_rows = [r for r in ok if r["metrics"].get("knowledge_missing") is not None]
    knowledge = cm.precision_recall_f1([r["kind"] == "missing" for r in knowledge_rows],
                                       [bool(r["metrics"]["knowledge_missing"]) for r in knowledge_rows])
    judge_failures = sum(1 for r in ok for key, v in r["metrics"].items()
                         if key.startswith("judge_") and key.endswith("_valid") and v is False)

    return {
        "n": len(records),
        "errors": len(records) - len(ok),
        "k": k,
        "metrics": metrics,
        "intent": {
            "accuracy": cm.accuracy(intent_pairs),
            "n": len(intent_pairs),
            "confusion": cm.confusion_matrix(intent_pairs) if intent_pairs else {},
        },
        "declined": cm.declined_scores([r["intent_gold"] for r in declined_rows],
                                       [r.get("status", "ok") for r in declined_rows]) if declined_rows else {},
        "knowledge_missing": knowledge.to_json() if knowledge_rows else {},
        "cost": {
            "latency_ms": latency_summary([r.get("timings_ms", {}) for r in ok]),
            **usage_summary([r.get("llm_calls", 0) for r in ok], [r.get("prompt_tokens", 0) for r in ok],
                            [r.get("completion_tokens", 0) for r in ok]),
            "seconds_per_question": mean([r.get("seconds", 0.0) for r in ok]),
        },
        "judge_failures": judge_failures,
        "by_kind": {kind: means(rows, BREAKDOWN_METRICS) | {"n": len(rows)}
                    for kind, rows in _group(ok, lambda r: r.get("kind")).items()},
        "by_intent": {label: means(rows, BREAKDOWN_METRICS) | {"n": len(rows)}
                      for label, rows in _group(ok, lambda r: r.get("intent_gold") or r.get("intent_pred")).items()},
    }


def pairwise_summary(outcomes: dict[str, list[str]], invalid: int) -> dict:
    return {criterion: win_tie_loss(values) for criterion, values in outcomes.items()} | {"judge_failures": invalid}


def headline(preset_report: dict) -> dict[str, float | None]:
    """The figures of the ablation table, flat: metric -> value (None when it did not apply)."""
    m = preset_report["metrics"]
    out = {key: m[key]["mean"] if key in m else None for key in (
        "hit@k", "mrr", "page_hit@k", "context_recall@k", "contamination@k", "release_correct", "product_correct",
        "routing_unanswered",
        "release_correct_named", "knowledge_correct", "must_contain", "answer_similarity", "judge_correctness",
        "judge_faithfulness", "judge_intent_criteria")}
    out["intent_accuracy"] = preset_report["intent"]["accuracy"]
    declined = preset_report.get("declined", {}).get("declined", {})
    out["declined_precision"] = declined.get("precision")
    out["declined_recall"] = declined.get("recall")
    km = preset_report.get("knowledge_missing") or {}
    out["knowledge_missing_f1"] = km.get("f1")
    cost = preset_report["cost"]
    out["latency_mean_ms"] = cost["latency_ms"]["total"]["mean_ms"]
    out["latency_p95_ms"] = cost["latency_ms"]["total"]["p95_ms"]
    out["llm_calls_per_question"] = cost["llm_calls_per_question"]
    out["tokens_per_question"] = cost["tokens_per_question"]
    return out


def label(metric: str, k: int) -> str:
    """A metric's name for a table or chart, with its k filled in (`hit@k` at k = 3 is `hit@3`)."""
    return metric.replace("@k", f"@{k}")
