"""Every evaluation metric as a pure function on hand-made cases (no index, no LLM)."""

import json

import numpy as np
import pytest

from assistant.evaluation.dataset import EvalItem, Gold, item_from_row, load_text
from assistant.evaluation.golden import items_from_feedback
from assistant.evaluation.judge import (
    combine,
    parse_preferences,
    score_correctness,
    score_faithfulness,
    score_intent_criteria,
    win_tie_loss,
)
from assistant.evaluation.matching import Retrieved, file_matches, page_matches, same_file_in_other_release
from assistant.evaluation.metrics import (
    accuracy,
    answer_in_context_recall,
    confusion_matrix,
    contains_term,
    contamination,
    cosine,
    declined_scores,
    first_hit_rank,
    gold_recall_at_k,
    hit_at_k,
    latency_summary,
    must_contain_score,
    percentile,
    precision_recall_f1,
    reciprocal_rank,
    release_routing_correct,
    usage_summary,
)
from assistant.evaluation.scoring import score_question
from assistant.evaluation.synthetic import SampledChunk, parse_question, sample_chunks


# -- must_contain: word boundaries ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text, term, expected", [
    ("the default is 100000 entries", "10000", False),  # the substring trap
    ("the default is 10000 entries", "10000", True),
    ("set it to 10000.", "10000", True),
    ("the value 10000.5 is odd", "10000", False),
    ("Use `--agent` to start agent mode", "--agent", True),
    ("Use --agent-mode instead", "--agent", False),
    ("pass `--web.enable-otlp-receiver`", "--web.enable-otlp-receiver", True),
    ("added in v3.4.29", "3.4.29", True),
    ("added in 3.4.290", "3.4.29", False),
    ("added in 13.4.29", "3.4.29", False),
    ("patch 3.4.29 of the series", "3.4", False),
    ("TIER 1 platforms", "Tier 1", True),
    ("Tier 10 platforms", "Tier 1", False),
    ("timeout 2m by default", "2m", True),
    ("timeout 2m0s by default", "2m", False),
    ("the max_shards default is 50", "50", True),
    ("the max_shards default is 500", "50", False),
])
def test_contains_term_on_word_boundaries(text, term, expected):
    assert contains_term(text, term) is expected


def test_must_contain_score_counts_terms():
    assert must_contain_score("2m and 20 concurrent", ["2m", "20"]) == 1.0
    assert must_contain_score("2m and 200 concurrent", ["2m", "20"]) == 0.5
    assert must_contain_score("anything", []) is None


# -- gold matching ---------------------------------------------------------------------------------------------------
def test_gold_paths_match_release_and_path():
    assert file_matches("v3.5/op-guide/x.md", "v3.5", "op-guide/x.md")
    assert not file_matches("v3.5/op-guide/x.md", "v3.4", "op-guide/x.md", {"v3.4", "v3.5"})
    assert not file_matches("v3.5/op-guide/x.md", "v3.5", "op-guide/y.md")
    assert not file_matches("v3.5/op-guide/x.md", "v3.5", "other/op-guide/xx.md")


def test_gold_file_in_another_release_on_folder_boundaries():
    known = {"v3.4", "v3.5", "v3.6"}
    assert same_file_in_other_release("v3.5/op-guide/a.md", "v3.4", "op-guide/a.md", known)
    # "xop-guide/a.md" ends with "op-guide/a.md" but is another folder
    assert not same_file_in_other_release("v3.5/op-guide/a.md", "v3.4", "xop-guide/a.md", known)
    assert not same_file_in_other_release("v3.5/op-guide/a.md", "v3.5", "op-guide/a.md", known)  # the gold itself
    assert not same_file_in_other_release("v3.5/op-guide/a.md", "v3.4", "op-guide/b.md", known)
    assert not same_file_in_other_release("docs/op-guide/a.md", "v3.4", "op-guide/a.md", known)  # no release folder


def test_awsdocs_gold_matches_an_ingest_of_documents_folder():
    gold = "documents/amazon-ec2-user-guide/doc_source/Using_Tags.md"
    assert file_matches(gold, "2023", "amazon-ec2-user-guide/doc_source/Using_Tags.md")
    assert file_matches(gold, "2023", "documents/amazon-ec2-user-guide/doc_source/Using_Tags.md")
    assert not file_matches(gold, "2023", "amazon-ec2-user-guide/doc_source/Tags.md")
    # a partial file name is no match: suffixes are compared on folder boundaries
    assert not file_matches(gold, "2023", "ing_Tags.md")


def test_page_level_match_needs_the_page():
    src = Retrieved("r1", "manual.pdf", page=7)
    assert page_matches(Gold("r1/manual.pdf", 7), src)
    assert not page_matches(Gold("r1/manual.pdf", 8), src)
    assert page_matches(Gold("r1/manual.pdf"), src)


# -- retrieval ---------------------------------------------------------------------------------------------------------
RANKED = [Retrieved("v3.4", "a.md", text="alpha"), Retrieved("v3.5", "b.md", text="--snapshot-count default 100000"),
          Retrieved("v3.5", "c.md", page=3, text="gamma")]


def test_hit_and_mrr_at_file_and_page_level():
    gold = [Gold("v3.5/b.md")]
    rank = first_hit_rank(RANKED, gold, known_releases={"v3.4", "v3.5"})
    assert rank == 2
    assert hit_at_k(rank, 1) == 0.0 and hit_at_k(rank, 2) == 1.0
    assert reciprocal_rank(rank) == 0.5 and reciprocal_rank(None) == 0.0
    assert first_hit_rank(RANKED, [Gold("v3.4/b.md")], known_releases={"v3.4", "v3.5"}) is None
    assert first_hit_rank(RANKED, [Gold("v3.5/c.md", 3)], level="page") == 3
    assert first_hit_rank(RANKED, [Gold("v3.5/c.md", 4)], level="page") is None
    assert gold_recall_at_k(RANKED, [Gold("v3.5/b.md"), Gold("v3.5/c.md")], 2) == 0.5
    assert gold_recall_at_k(RANKED, [], 2) is None


def test_answer_in_context_recall():
    assert answer_in_context_recall("The default is 100000 snapshots.", ["--snapshot-count default 100000"]) == pytest.approx(2 / 3)
    assert answer_in_context_recall("100000", ["1000000"]) == 0.0  # whole words only
    # a dotted key counts when its parts appear (YAML nesting)
    assert answer_in_context_recall("queue_config.max_shards", ["queue_config:\n  max_shards: 50"]) == 1.0
    assert answer_in_context_recall(None, ["x"]) is None
    assert answer_in_context_recall("the of and", ["x"]) is None


def test_contamination():
    assert contamination(["v3.4", "v3.5", "v3.5"], ["v3.5"]) == pytest.approx(1 / 3)
    assert contamination(["v3.4", "v3.6"], ["v3.4", "v3.6"]) == 0.0
    assert contamination([], ["v3.5"]) is None
    assert contamination(["v3.5"], []) is None


# -- routing and classification ------------------------------------------------------------------------------------------
def test_release_routing_compares_sets():
    assert release_routing_correct(["v3.6", "v3.4"], ["v3.4", "v3.6"]) is True
    assert release_routing_correct(["v3.6"], ["v3.4", "v3.6"]) is False
    assert release_routing_correct(["v3.6"], []) is None


def test_intent_accuracy_and_confusion():
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("c", None)]
    assert accuracy(pairs) == 0.5
    m = confusion_matrix(pairs)
    assert m["a"] == {"a": 1, "b": 1, "c": 0, "none": 0}
    assert m["c"]["none"] == 1
    assert sum(sum(row.values()) for row in m.values()) == 4
    assert accuracy([]) is None


def test_precision_recall_f1():
    prf = precision_recall_f1([True, True, False, False], [True, False, True, False])
    assert (prf.precision, prf.recall, prf.f1) == (0.5, 0.5, 0.5)
    none = precision_recall_f1([False, False], [False, False])
    assert none.precision is None and none.recall is None and none.f1 is None
    zero = precision_recall_f1([True], [False])
    assert zero.recall == 0.0 and zero.precision is None and zero.f1 == 0.0
    with pytest.raises(ValueError):
        precision_recall_f1([True], [])


def test_declined_scores_per_reason():
    gold = ["invalid", "out_of_scope", "symptom_analysis", "invalid"]
    status = ["invalid", "invalid", "ok", "ok"]
    s = declined_scores(gold, status)
    assert s["declined"]["precision"] == 1.0 and s["declined"]["recall"] == pytest.approx(2 / 3)
    assert s["invalid"]["precision"] == 0.5 and s["invalid"]["recall"] == 0.5
    assert s["out_of_scope"]["recall"] == 0.0


# -- answers and cost -----------------------------------------------------------------------------------------------------
def test_cosine():
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert cosine([1, 0], [0, 1]) == pytest.approx(0.0)
    assert cosine([1, 0], [0, 0]) == 0.0
    assert cosine(np.array([1.0, 1.0]), np.array([2.0, 2.0])) == pytest.approx(1.0)


def test_latency_and_usage():
    assert percentile([1, 2, 3, 4, 5], 95) == pytest.approx(4.8)
    assert percentile([], 95) is None
    s = latency_summary([{"routing": 10, "retrieval": 30}, {"routing": 20, "retrieval": 50}])
    assert s["routing"]["mean_ms"] == 15 and s["total"]["mean_ms"] == 55 and s["total"]["p95_ms"] == pytest.approx(68.5)
    u = usage_summary([1, 3], [100, 300], [10, 30])
    assert u["llm_calls_per_question"] == 2 and u["tokens_per_question"] == 220 and u["llm_calls_total"] == 4


# -- judge verdicts: validated JSON, pure scores ----------------------------------------------------------------------------
def test_correctness_verdicts():
    assert score_correctness({"verdict": "correct"}).score == 1.0
    assert score_correctness({"verdict": "Partially correct"}).score == 0.5
    assert score_correctness({"verdict": "incorrect", "reason": "x"}).score == 0.0
    assert score_correctness({"verdict": "great"}) is None
    assert score_correctness({}) is None


def test_faithfulness_verdicts():
    v = score_faithfulness({"statements": [{"statement": "a", "supported": True}, {"statement": "b", "supported": False}]})
    assert v.score == 0.5 and v.details["unsupported"] == ["b"]
    assert score_faithfulness({"statements": [{"statement": "a", "supported": "yes"}]}) is None
    assert score_faithfulness({"statements": "none"}) is None
    assert score_faithfulness({"statements": []}).score is None


def test_intent_criteria_verdicts():
    ok = score_intent_criteria({"C1": True, "C2": True, "I1": False, "I2": False}, "fact_verification")
    assert ok.score == 1.0 and ok.label == "correct"
    failed = score_intent_criteria({"C1": True, "C2": True, "I1": True, "I2": False}, "fact_verification")
    assert failed.score == 0.0 and failed.details["criteria_met"] == 1.0
    partial = score_intent_criteria({"C1": True, "C2": False, "I1": False, "I2": False}, "symptom_analysis")
    assert partial.score == 0.0 and partial.details["criteria_met"] == 0.5
    assert score_intent_criteria({"C1": True}, "symptom_analysis") is None


def test_pairwise_survives_only_consistent_preferences():
    assert parse_preferences({"coverage": "A", "specificity": "tie"}) == {"coverage": "A", "specificity": "tie"}
    assert parse_preferences({"coverage": "first"}) is None
    # A preferred in both orders (second order shows A as "B") -> win; a position-biased judge -> tie
    assert combine({"coverage": "A", "specificity": "A"}, {"coverage": "B", "specificity": "A"}) == {
        "coverage": "win", "specificity": "tie"}
    assert combine({"coverage": "B", "specificity": "tie"}, {"coverage": "A", "specificity": "tie"})["coverage"] == "loss"
    assert win_tie_loss(["win", "tie", "win", "loss"]) == {"win": 2, "tie": 1, "loss": 1, "n": 4, "win_rate": 0.5}


# -- datasets ------------------------------------------------------------------------------------------------------------
def test_conversation_rows_split_history_and_question():
    row = {"id": "c1", "product": "etcd", "turns": [
        {"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}, {"role": "user", "content": "and 3.6?"}],
        "target_release": "v3.6", "must_contain": ["x"], "gold": ["v3.6/a.md"]}
    item = item_from_row(row, index=0)
    assert item.question == "and 3.6?" and [t["content"] for t in item.history] == ["q1", "a1"]
    assert item.kind == "conversation" and item.target_releases == ["v3.6"]


def test_csv_and_jsonl_load_alike():
    csv_text = 'id,question,gold,target_release,must_contain,kind\nq1,What?,"v3.5/a.md|v3.5/b.md",v3.5,"[""10000""]",release_specific\n'
    ds = load_text(csv_text, name="set.csv")
    item = ds.items[0]
    assert [g.file for g in item.gold] == ["v3.5/a.md", "v3.5/b.md"] and item.must_contain == ["10000"]
    jl = load_text(json.dumps({"query": "q", "intent": "invalid", "gold": [{"file": "m.pdf", "page": 3}]}), name="x.jsonl")
    assert jl.items[0].question == "q" and jl.items[0].gold == [Gold("m.pdf", 3)]
    assert len(ds.sources[0]["sha256"]) == 64


def test_score_question_on_a_hand_made_trace():
    item = EvalItem(id="q", question="q", gold=[Gold("v3.5/b.md")], target_releases=["v3.5"], kind="release_specific",
                    answer="default 100000", must_contain=["100000"])
    trace = {"status": "ok", "releases": ["v3.5"], "knowledge_missing": False, "answer": "It is 100000 [1]."}
    m = score_question(item, trace, RANKED, k=2, known_releases=["v3.4", "v3.5"], search_only=False)
    assert m["hit@k"] == 1.0 and m["mrr"] == 0.5 and m["contamination@k"] == 0.5
    assert m["release_correct"] is True and m["knowledge_correct"] is True and m["must_contain"] == 1.0
    assert m["context_recall@k"] == 1.0
    missing = EvalItem(id="m", question="q", target_releases=["v3.5"], kind="missing")
    m2 = score_question(missing, {"status": "ok", "releases": ["v3.5"], "knowledge_missing": False}, RANKED, k=2)
    assert m2["knowledge_correct"] is False and "hit@k" not in m2


# -- golden sets and synthetic sampling --------------------------------------------------------------------------------------
def test_feedback_becomes_golden_and_regression_items():
    trace = {"releases": ["v3.5"], "product": "etcd", "intent": {"label": "fact_verification"},
             "sources": [{"release": "v3.5", "path": "a.md", "page": None, "cited": True},
                         {"release": "v3.5", "path": "b.md", "page": None, "cited": False}]}
    rows = [{"id": 1, "rating": 1, "question": "Q1?", "product": "etcd", "answer": "yes [1]", "trace": json.dumps(trace)},
            {"id": 2, "rating": 0, "question": "Q2?", "product": "etcd", "answer": "wrong", "comment": "bad",
             "trace": json.dumps(trace)},
            {"id": 3, "rating": 0, "question": "Q1?", "product": "etcd", "answer": "older", "trace": "{}"}]
    golden, regressions = items_from_feedback(rows[2:] + rows[:2])  # the later rating of Q1 wins
    assert [g.id for g in golden] == ["fb-1"] and golden[0].gold == [Gold("v3.5/a.md")]
    assert golden[0].target_releases == ["v3.5"] and golden[0].intent == "fact_verification"
    assert [r.id for r in regressions] == ["reg-2"] and regressions[0].kind == "regression"
    assert regressions[0].extra["bad_answer"] == "wrong"


def test_synthetic_sampling_is_seeded_and_replies_validated():
    chunks = [SampledChunk("v1", f"c{i}", "word " * (40 if i % 2 else 5)) for i in range(20)]
    a, b = sample_chunks(chunks, 4, seed=7), sample_chunks(list(reversed(chunks)), 4, seed=7)
    assert a == b and len(a) == 4 and all(len(c.text.split()) >= 30 for c in a)
    assert sample_chunks(chunks, 4, seed=8) != a
    assert parse_question({"question": "What is the default?", "answer": "5"}) == ("What is the default?", "5")
    assert parse_question({"question": "", "answer": "5"}) is None
    assert parse_question(None) is None
