"""One question's trace -> its metrics. Pure: the runner hands in the ranked contexts and the trace; nothing here
calls a model (judge verdicts are added by the runner)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assistant.evaluation.dataset import DECLINED, EvalItem
from assistant.evaluation.matching import Retrieved
from assistant.evaluation.metrics import answers as am
from assistant.evaluation.metrics import classification as cm
from assistant.evaluation.metrics import retrieval as rm


def score_question(item: EvalItem, trace: dict, ranked: Sequence[Retrieved], *, k: int,
                   known_releases: Sequence[str] = (), intent_pred: str | None = None,
                   search_only: bool = True, embed: Callable | None = None) -> dict[str, float | bool | None]:
    """Metrics of one question for one preset; None where a metric does not apply to the item.

    `ranked`: the contexts in relevance order (what the answer saw first, then what was retrieved but not given);
    `intent_pred`: the predicted intent, or the declined status, or None when the preset does not classify."""
    m: dict[str, float | bool | None] = {}
    status = trace.get("status", "ok")
    top = list(ranked[:k])
    known = set(known_releases) | set(item.target_releases)

    # retrieval
    if item.answerable:
        rank = rm.first_hit_rank(ranked, item.gold, known_releases=known)
        m["rank"] = rank
        m["hit@k"] = rm.hit_at_k(rank, k)
        m["mrr"] = rm.reciprocal_rank(rank)
        m["gold_recall@k"] = rm.gold_recall_at_k(ranked, item.gold, k, known)
        if any(g.page is not None for g in item.gold):
            prank = rm.first_hit_rank(ranked, item.gold, level="page", known_releases=known)
            m["page_hit@k"] = rm.hit_at_k(prank, k)
            m["page_mrr"] = rm.reciprocal_rank(prank)
        context_texts = [s.text for s in top]
        m["context_recall@k"] = rm.answer_in_context_recall(item.answer, context_texts)
        m["context_must_contain@k"] = am.must_contain_score("\n".join(context_texts), item.must_contain)
    m["contamination@k"] = rm.contamination([s.release for s in top], item.target_releases) if top else None

    # routing and classification
    m["release_correct"] = cm.release_routing_correct(trace.get("releases", []), item.target_releases)
    m["declined"] = status in DECLINED
    if item.intent is not None:
        # Intent accuracy is over the five operational intents (issue 3); declining is scored apart, so a preset
        # without intent detection does not earn accuracy from the questions its query check declined.
        m["intent_correct"] = None if intent_pred is None or item.intent in DECLINED else intent_pred == item.intent
        m["should_decline"] = item.intent in DECLINED
    if item.kind == "missing" or item.answerable:
        m["knowledge_missing"] = bool(trace.get("knowledge_missing"))
        m["knowledge_correct"] = m["knowledge_missing"] == (item.kind == "missing")

    # answers
    answer = trace.get("answer") or ""
    if not search_only and status not in DECLINED:
        if item.must_contain:
            score = am.must_contain_score(answer, item.must_contain)
            m["must_contain"] = score
            m["must_contain_all"] = None if score is None else float(score == 1.0)
        if embed is not None:
            m["answer_similarity"] = am.answer_similarity(answer, item.answer, embed)
    if item.kind == "regression" and item.extra.get("bad_answer") is not None:
        m["changed"] = answer.strip() != str(item.extra["bad_answer"]).strip() or search_only
    return m


def quality(metrics: dict) -> float | None:
    """One number per question to find the worst ones: the mean of its pass/fail and [0, 1] scores."""
    keys = ("hit@k", "mrr", "release_correct", "intent_correct", "knowledge_correct", "must_contain",
            "context_recall@k", "judge_correctness", "judge_faithfulness", "judge_intent_criteria")
    values = [float(metrics[k]) for k in keys if metrics.get(k) is not None]
    if metrics.get("contamination@k") is not None:
        values.append(1.0 - float(metrics["contamination@k"]))
    return sum(values) / len(values) if values else None
