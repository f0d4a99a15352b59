"""Query check on the real MiniLM embedder: dev declines, no false declines on real questions, unit cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assistant.answering.query_check import MAX_QUERY_CHARS, QueryCheck, check_query

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEV = SHARED / "eval" / "dev"
PRODUCTS = ["etcd", "Prometheus", "AWS"]


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (DEV / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def embed(shared_embed):
    # One batch for every question the tests check one at a time (single-query encodes are slow on 2 cores).
    shared_embed(_in_scope_questions() + [r["query"] for r in _jsonl("intents.jsonl")])
    return shared_embed


@pytest.fixture(scope="module")
def vocabulary() -> set[str]:
    """Lower-cased terms of the etcd and Prometheus corpora, as a keyword index would hold them."""
    terms: set[str] = set()
    for product in ("etcd", "prometheus"):
        for path in (SHARED / "corpora" / product).rglob("*.md"):
            terms.update(re.findall(r"[a-z0-9][a-z0-9_.-]*", path.read_text(encoding="utf-8", errors="ignore").lower()))
    return terms


def _in_scope_questions() -> list[str]:
    intents = [r["query"] for r in _jsonl("intents.jsonl") if r["intent"] not in ("out_of_scope", "invalid")]
    releases = [r["question"] for r in _jsonl("releases.jsonl")]
    aws = [r["question"] for r in _jsonl("awsdocs.jsonl")]
    follow_ups = [r["standalone"] for r in _jsonl("conversations.jsonl")]
    return intents + releases + aws + follow_ups


@pytest.mark.parametrize("with_vocabulary", [False, True])
def test_dev_declines_precision_and_recall(embed, vocabulary, with_vocabulary):
    rows = _jsonl("intents.jsonl")
    vocab = vocabulary if with_vocabulary else None
    checks = [check_query(r["query"], embed=embed, product_names=PRODUCTS, vocabulary=vocab) for r in rows]
    should = [r["intent"] in ("out_of_scope", "invalid") for r in rows]
    declined = [not c.ok for c in checks]
    true_pos = sum(s and d for s, d in zip(should, declined))
    precision = true_pos / max(sum(declined), 1)
    recall = true_pos / sum(should)
    print(f"\ndeclines on intents.jsonl (vocabulary={with_vocabulary}): precision {precision:.2f}, recall {recall:.2f}")
    for row, check in zip(rows, checks):
        expected = row["intent"] if row["intent"] in ("out_of_scope", "invalid") else "ok"
        if check.status != expected:
            print(f"  {row['query']!r}: {row['intent']} -> {check.status} ({check.reason})")
    for row, check in zip(rows, checks):
        if row["intent"] in ("out_of_scope", "invalid"):
            assert check.status == row["intent"], (row["query"], check)
    assert precision == 1.0 and recall == 1.0


@pytest.mark.parametrize("with_vocabulary", [False, True])
def test_no_false_declines_on_real_questions(embed, vocabulary, with_vocabulary):
    questions = _in_scope_questions()
    vocab = vocabulary if with_vocabulary else None
    checks = [check_query(q, embed=embed, product_names=PRODUCTS, vocabulary=vocab) for q in questions]
    declined = [(q, c) for q, c in zip(questions, checks) if not c.ok]
    print(f"\nfalse declines: {len(declined)} of {len(questions)}")
    assert declined == []


def test_empty_and_whitespace(embed):
    for text in ["", "   ", "\n\t"]:
        check = check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=None)
        assert (check.status, check.reason) == ("invalid", "empty")


@pytest.mark.parametrize("text", ["?!?!", "???", "... ;;; ///", "42"])
def test_no_words(embed, text):
    check = check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=None)
    assert (check.status, check.reason) == ("invalid", "no_words")


def test_far_too_long(embed):
    text = "why is my cluster slow " * 900  # about 20,000 characters
    assert len(text) > 20_000 - 1000
    check = check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=None)
    assert (check.status, check.reason) == ("invalid", "too_long")
    assert f"{MAX_QUERY_CHARS:,}" in check.message


def test_long_pasted_log_within_limit_is_fine(embed):
    line = "2024-05-01T10:00:{:02d}Z W | etcdserver: apply request took too long took={}ms"
    log = "\n".join(line.format(i % 60, i) for i in range(40))
    assert len(log) < MAX_QUERY_CHARS
    assert check_query(log, embed=embed, product_names=PRODUCTS, vocabulary=None).ok


@pytest.mark.parametrize(
    "text", ["asdfgh qwerty", "lorem ipsum dolor", "jkjkjkjk", "zxcvbn asdf", "fjdkslaj fjdksl", "aaaaaaa"]
)
def test_gibberish(embed, text):
    check = check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=None)
    assert check.status == "invalid", check


@pytest.mark.parametrize(
    "text",
    [
        "what's the weather in Paris",
        "write me a poem about cats",
        "best lasagna recipe",
        "tell me a joke",
        "who won the football match yesterday",
        "nvidia stock price",
        "should I break up with my boyfriend",
    ],
)
def test_out_of_scope(embed, vocabulary, text):
    for vocab in (None, vocabulary):
        check = check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=vocab)
        assert check.status == "out_of_scope", (text, check)
        assert "etcd, Prometheus and AWS" in check.message


@pytest.mark.parametrize(
    "text",
    [
        "RCU", "WAL", "k8s", "etcdctl", "lsblk", "mkfs.xfs", "jitter",
        "如何配置 etcd TLS", "¿cómo configuro TLS en etcd?",
        "E0412 12:00:01.123 1 reflector.go:138] failed to list *v1.Pod",
        "https://prometheus.io/docs/prometheus/latest/querying/basics/",
        "weather api rate limits",
        "celebrity recognition in rekognition",
    ],
)
def test_technical_inputs_are_not_declined(embed, text):
    assert check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=None).ok


def test_vocabulary_rescues_identifiers(embed, vocabulary):
    text = "fdatasync wal_fsync_duration_seconds"
    assert "fdatasync" in vocabulary
    assert check_query(text, embed=embed, product_names=PRODUCTS, vocabulary=vocabulary).ok


def test_message_without_products(embed):
    check = check_query("write me a poem about cats", embed=embed, product_names=[], vocabulary=None)
    assert check == QueryCheck(
        "out_of_scope", "out_of_scope",
        "That is outside what I can help with. "
        "I answer questions from the documentation in your library, with sources.",
    )
    empty = check_query("   ", embed=embed, product_names=["etcd"], vocabulary=None)
    assert empty.message.endswith("library (etcd), with sources.")
