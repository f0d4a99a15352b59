"""Evaluation metrics as pure functions: retrieval, classification and routing, answers, cost.
The LLM-as-judge metrics live in `assistant.evaluation.judge` (prompt + validated JSON + pure score)."""

from assistant.evaluation.metrics.answers import (
    answer_similarity,
    contains_term,
    cosine,
    must_contain_score,
)
from assistant.evaluation.metrics.classification import (
    PRF,
    accuracy,
    confusion_matrix,
    declined_scores,
    precision_recall_f1,
    release_routing_correct,
)
from assistant.evaluation.metrics.cost import (
    latency_summary,
    mean,
    percentile,
    usage_summary,
)
from assistant.evaluation.metrics.retrieval import (
    answer_in_context_recall,
    contamination,
    content_words,
    first_hit_rank,
    gold_recall_at_k,
    hit_at_k,
    reciprocal_rank,
)

__all__ = [
    "PRF", "accuracy", "answer_in_context_recall", "answer_similarity", "confusion_matrix", "contains_term",
    "contamination", "content_words", "cosine", "declined_scores", "first_hit_rank", "gold_recall_at_k", "hit_at_k",
    "latency_summary", "mean", "must_contain_score", "percentile", "precision_recall_f1", "reciprocal_rank",
    "release_routing_correct", "usage_summary",
]
