"""Intent classifier on the real MiniLM embedder: dev-set accuracy, seed quality, corrections, confidences."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.answering.intent import (
    INTENTS,
    IntentClassifier,
    IntentExample,
    IntentResult,
    load_seed_examples,
    timeline_intent,
)

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev" / "intents.jsonl"


@pytest.fixture(scope="module")
def embed(shared_embed):
    return shared_embed


@pytest.fixture(scope="module")
def classifier(embed) -> IntentClassifier:
    return IntentClassifier(embed)


@pytest.fixture(scope="module")
def dev_rows() -> list[dict]:
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["intent"] in INTENTS]


def _confusion(gold: list[str], predicted: list[str]) -> str:
    labels = list(INTENTS)
    short = [label[:8] for label in labels]
    lines = ["gold \\ predicted  " + " ".join(f"{s:>8}" for s in short)]
    counts = Counter(zip(gold, predicted))
    for label in labels:
        lines.append(f"{label[:17]:17}  " + " ".join(f"{counts[(label, p)]:>8}" for p in labels))
    return "\n".join(lines)


def test_dev_set_accuracy(classifier, dev_rows):
    results = classifier.classify_many([r["query"] for r in dev_rows])
    gold = [r["intent"] for r in dev_rows]
    predicted = [r.label for r in results]
    accuracy = float(np.mean([g == p for g, p in zip(gold, predicted)]))
    print(f"\nintent accuracy on {len(gold)} dev queries: {accuracy:.3f}")
    print(_confusion(gold, predicted))
    for row, result in zip(dev_rows, results):
        if result.label != row["intent"]:
            print(f"  miss: {row['query']!r}: {row['intent']} -> {result.label} ({result.confidence:.2f})")
    assert accuracy >= 0.85


def test_cross_validated_accuracy_on_seeds(embed):
    """Generalisation to phrasings the classifier has not seen: 5-fold cross-validation over the seeds."""
    seeds = load_seed_examples()
    correct = 0
    for fold in range(5):
        train = [e for i, e in enumerate(seeds) if i % 5 != fold]
        test = [e for i, e in enumerate(seeds) if i % 5 == fold]
        clf = IntentClassifier(embed, train)
        correct += sum(r.label == e.intent for r, e in zip(clf.classify_many([e.text for e in test]), test))
    accuracy = correct / len(seeds)
    print(f"\n5-fold accuracy on {len(seeds)} seed examples: {accuracy:.3f}")
    assert accuracy >= 0.85


def test_plain_prototypes_are_the_core(embed, dev_rows):
    """Without the fitted metric (shrinkage 1 = identity) it is the plain prototypical network, still usable."""
    clf = IntentClassifier(embed, shrinkage=1.0, use_cues=False, memory_threshold=1.0)
    results = clf.classify_many([r["query"] for r in dev_rows])
    accuracy = float(np.mean([res.label == r["intent"] for res, r in zip(results, dev_rows)]))
    print(f"\nplain prototypes: {accuracy:.3f}")
    assert accuracy >= 0.75


# --- seed examples -------------------------------------------------------------------------------------

_FORMS = {
    "terse": lambda t: len(t.split()) <= 3,
    "question": lambda t: t.rstrip().endswith("?")
    or re.match(r"(?i)^(is|are|does|do|can|what|what's|how|why|which|should|was|has)\b", t) is not None,
    "sentence": lambda t: len(t.split()) >= 6,
    "error_line": lambda t: re.search(r"\w:\s|\b(error|exception|failed|fatal|panic)\b", t, re.I) is not None,
}


def test_seed_examples_cover_every_intent_in_several_forms():
    seeds = load_seed_examples()
    by_intent: dict[str, list[str]] = {}
    for e in seeds:
        by_intent.setdefault(e.intent, []).append(e.text)
    assert set(by_intent) == set(INTENTS)
    for intent, texts in by_intent.items():
        assert len(texts) >= 20, intent
        assert len(set(texts)) == len(texts), f"duplicate examples in {intent}"
        forms = {name for name, test in _FORMS.items() if sum(map(test, texts)) >= 3}
        assert len(forms) >= 2, (intent, forms)
    # The forms that define each intent are present.
    assert sum(_FORMS["error_line"](t) for t in by_intent["symptom_analysis"]) >= 10
    assert sum(_FORMS["terse"](t) for t in by_intent["terminology_explanation"]) >= 10
    assert sum(re.match(r"(?i)^(is|are|does|do|can)\b", t) is not None for t in by_intent["fact_verification"]) >= 10
    assert sum(t.endswith("?") and not re.match(r"(?i)^(is|are|does|do|can)\b", t)
               for t in by_intent["fact_verification"]) >= 3  # statements turned into questions


def test_seed_examples_span_many_products():
    texts = [e.text.lower() for e in load_seed_examples()]
    products = ["etcd", "prometheus", "kafka", "postgres", "redis", "kubernetes", "s3", "ec2", "grafana", "ceph",
                "zfs", "cisco", "juniper", "elasticsearch", "mongodb", "terraform", "vault", "nginx", "lambda", "rds"]
    mentioned = {p for p in products if any(re.search(rf"\b{p}\b", t) for t in texts)}
    assert len(mentioned) >= 15, mentioned
    etcd_or_prom = sum(("etcd" in t or "prometheus" in t) for t in texts)
    assert etcd_or_prom <= 0.15 * len(texts)


def test_seed_examples_are_not_dev_queries(dev_rows):
    dev = {json.loads(line)["query"].strip().lower() for line in DEV.read_text().splitlines() if line.strip()}
    assert not [e.text for e in load_seed_examples() if e.text.strip().lower() in dev]


# --- behaviour -----------------------------------------------------------------------------------------


def test_correction_makes_near_duplicate_classify_as_corrected(embed):
    clf = IntentClassifier(embed)
    query = "haproxy stick tables"
    before = clf.classify(query)
    target = next(i for i in INTENTS if i != before.label and i != before.runner_up)
    unrelated = ["pod stuck in ContainerCreating: failed to mount volume", "does mysql support online ddl?"]
    unrelated_before = [r.label for r in clf.classify_many(unrelated)]

    clf.add_example("haproxy stick tables?", target)

    after = clf.classify(query)
    assert after.label == target, (before, after)
    assert "haproxy stick tables?" in clf.examples(target)
    assert [r.label for r in clf.classify_many(unrelated)] == unrelated_before


def test_corrections_passed_at_construction_count_like_added_ones(embed):
    corrections = [("memcached slab rebalancing", "operational_guidance")]
    clf = IntentClassifier(embed, extra_examples=corrections)
    assert clf.classify("memcached slab rebalancing").label == "operational_guidance"
    seeds = load_seed_examples()
    assert len(clf.examples("operational_guidance")) == 1 + sum(e.intent == "operational_guidance" for e in seeds)


def test_add_example_updates_prototype_incrementally(embed):
    base = [
        IntentExample("what is a vlan", "terminology_explanation"),
        IntentExample("vlan not passing traffic", "symptom_analysis"),
    ]
    clf = IntentClassifier(embed, base)
    before = clf._prototypes["terminology_explanation"].copy()
    clf.add_example("what is a subnet", "terminology_explanation")
    after = clf._prototypes["terminology_explanation"]
    assert not np.allclose(before, after)
    assert np.isclose(np.linalg.norm(after), 1.0, atol=1e-5)
    clf.refit()  # refitting the metric keeps the same examples
    assert clf.examples("terminology_explanation") == ["what is a vlan", "what is a subnet"]


def test_result_shape(classifier):
    result = classifier.classify("configure tls for the grafana server")
    assert isinstance(result, IntentResult)
    assert result.label == "operational_guidance"
    assert set(result.scores) == set(INTENTS)
    assert 0.0 <= result.confidence <= 1.0
    assert result.confidence == result.scores[result.label] == max(result.scores.values())
    assert np.isclose(sum(result.scores.values()), 1.0)
    assert result.runner_up in INTENTS and result.runner_up != result.label
    assert 0.0 <= result.margin <= 1.0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=200))
def test_confidence_is_a_probability_for_any_text(classifier, text):
    result = classifier.classify(text)
    assert 0.0 <= result.confidence <= 1.0
    assert np.isclose(sum(result.scores.values()), 1.0)


@pytest.mark.parametrize("text, intent", [
    ("What is agent mode?", "terminology_explanation"),
    ("in 3.5, what does info() do with target_info style series?", "terminology_explanation"),
    ("what does --experimental-compaction-batch-limit control in 3.4?", "terminology_explanation"),
    ("2.45: how do I run in agent mode?", "operational_guidance"),
])
def test_form_cues_for_definitions_and_led_in_how_tos(text, intent):
    from assistant.answering.intent import _cue_bonus

    assert _cue_bonus(text).get(intent, 0) > 0


@pytest.mark.parametrize("text", [
    "what is the default snapshot count?",  # a value, not a definition
    "what is the difference between a counter and a gauge?",
    "what are the steps to add a member?",
    "how do I add a member?",  # a plain how-to is already the embedding's clear call
])
def test_no_definition_cue_when_a_value_comparison_or_steps_are_wanted(text):
    from assistant.answering.intent import _cue_bonus

    assert "terminology_explanation" not in _cue_bonus(text)
    if text.startswith("how do I"):
        assert "operational_guidance" not in _cue_bonus(text)


def test_a_timeline_question_has_the_intent_of_its_kind():
    """A change listing gathers many facets; "when was X added?", "is X in 3.4?" check one fact. Every label is one
    the app offers for correction."""
    assert [timeline_intent(k) for k in ("changed_in", "changed_between")] == ["multi_facet_summary"] * 2
    kinds = ("introduced", "removed", "deprecated", "in_release", "which_releases", "did_change")
    assert {timeline_intent(k) for k in kinds} == {"fact_verification"}
    assert {timeline_intent(k) for k in kinds + ("changed_in",)} <= set(INTENTS)
