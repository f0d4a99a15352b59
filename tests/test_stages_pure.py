"""Pure decisions of the pipeline stages, each on hand-made cases (no models)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.answering import citations as cite
from assistant.answering.fusion import (
    asks_change,
    asks_history,
    changelog_scores,
    changelog_slot,
    dense_only_slot,
    fused_order,
    lost_in_the_middle,
    margin_filter,
    mmr,
    spread_files,
    weighted_average,
)
from assistant.answering.glossary import expand, mine_glossary
from assistant.answering.knowledge import (
    KnowledgeVerdict,
    decide,
    degraded_answer,
    identifiers,
    suggest_question,
    term_present,
)
from assistant.answering.reduce import extract
from assistant.answering.rewrite import (
    condense_rules,
    expand_rules,
    filtered,
    is_follow_up,
    rewrite,
)
from assistant.library.diffs import is_changelog
from assistant.library.lexical import document_sparse, query_sparse, term_index, tokenize


def test_tokenizer_keeps_identifiers_whole_and_split():
    toks = tokenize("Set --snapshot-count=10000 and max_shards; SSL_ERROR_SYSCALL on Xid 74 at /api/v1/otlp in v3.5.0")
    for whole in ("snapshot-count", "max_shards", "ssl_error_syscall", "xid", "74", "api/v1/otlp", "v3.5.0"):
        assert whole in toks
    for part in ("snapshot", "count", "shards", "ssl", "syscall", "otlp"):
        assert part in toks
    assert "and" not in toks and "on" not in toks


@given(st.text(max_size=200))
def test_tokenizer_never_fails_and_lowercases(text):
    assert all(t == t.lower() and t for t in tokenize(text))


def test_sparse_vectors_keep_identifiers_whole_and_weigh_terms_like_bm25():
    text = "The --snapshot-count flag sets how many applied entries trigger a snapshot. Snapshot snapshot."
    indices, values = document_sparse(text)
    weight = dict(zip(indices, values))
    for term in ("snapshot-count", "snapshot", "count", "entries"):
        assert term_index(term) in weight
    assert term_index("the") not in weight  # stop words carry nothing
    assert weight[term_index("snapshot")] > weight[term_index("entries")]  # three uses against one
    assert weight[term_index("snapshot")] < 3 * weight[term_index("entries")]  # saturated by k1
    long = document_sparse(text + " padding words" * 40)
    assert dict(zip(*long))[term_index("entries")] < weight[term_index("entries")]  # longer chunk, lower weight
    q_indices, q_values = query_sparse("what does --snapshot-count do? snapshot-count!")
    assert sorted(q_indices) == sorted({term_index(t) for t in ("snapshot-count", "snapshot", "count")})
    assert set(q_values) == {1.0}
    assert document_sparse("") == ([], []) and query_sparse("?!") == ([], [])


def test_weighted_average_normalises_each_list():
    out = weighted_average([{"a": 0.9, "b": 0.5}, {"b": 30.0, "c": 10.0}], [0.5, 0.5])
    assert out["b"] == pytest.approx(0.5) and out["a"] == pytest.approx(0.5) and out["c"] == pytest.approx(0.0)


def test_margin_filter_keeps_only_standouts():
    assert margin_filter([0.9, 0.85, 0.3, 0.2], 0.2) == 2
    assert margin_filter([0.9, 0.2], 0.1, keep_min=1) == 1
    assert margin_filter([], 0.1) == 0


def test_mmr_avoids_duplicates():
    q = np.array([1.0, 0.0])
    v = np.array([[1.0, 0.0], [1.0, 0.0], [0.7, 0.714]])
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    assert mmr(q, v, k=2, lam=0.3) == [0, 2]


def test_spread_files_gives_the_first_places_to_distinct_files():
    ranked = [("a", 1), ("a", 2), ("a", 3), ("b", 4), ("a", 5), ("c", 6), ("b", 7)]
    by_file = lambda item: item[0]  # noqa: E731
    assert spread_files(ranked, by_file, 3) == [("a", 1), ("b", 4), ("c", 6), ("a", 2), ("a", 3), ("a", 5), ("b", 7)]
    assert spread_files(ranked, by_file, 2)[:3] == [("a", 1), ("b", 4), ("a", 2)]
    assert spread_files(ranked, by_file, 0) == ranked
    assert spread_files([("a", 1), ("a", 2)], by_file, 3) == [("a", 1), ("a", 2)]  # one file: score order


def test_a_file_only_dense_search_found_takes_the_third_place_near_the_best_cosine():
    # (file, cosine, found by BM25) in fused order
    ranked = [("a", 0.50, True), ("b", 0.40, True), ("c", 0.30, True), ("d", 0.42, False), ("d", 0.505, False),
              ("e", 0.51, True)]
    args = (lambda i: i[0], lambda i: i[1], lambda i: i[2])
    assert dense_only_slot(ranked, *args) == [ranked[0], ranked[1], ranked[4], ranked[2], ranked[3], ranked[5]]
    assert dense_only_slot(ranked, *args, near=0.001) == ranked  # d's 0.505 is not within 0.001 of e's 0.51
    words_too = ranked[:3] + [("d", 0.42, False), ("d", 0.505, True), ("e", 0.51, True)]
    assert dense_only_slot(words_too, *args) == words_too  # BM25 found a chunk of d: RRF counted it already
    below_third = [("a", 0.5, True), ("b", 0.4, True), ("c", 0.52, True), ("d", 0.515, False)]
    assert dense_only_slot(below_third, *args) == below_third  # not above the third file's cosine
    assert dense_only_slot(ranked[:3], *args) == ranked[:3]
    barely = [("a", 0.5, True), ("b", 0.4, True), ("c", 0.517, True), ("d", 0.519, False)]
    assert dense_only_slot(barely, *args) == barely  # 0.002 over the third file's: no evidence
    assert dense_only_slot(barely, *args, over=0.0)[2] == ("d", 0.519, False)


def test_lost_in_the_middle_puts_strongest_at_both_ends():
    assert lost_in_the_middle([1, 2, 3, 4, 5]) == [1, 3, 5, 4, 2]


def test_glossary_mines_definitions_both_ways():
    g = mine_glossary([
        "Each member keeps a write-ahead log (WAL) on disk.",
        "Use TLS (Transport Layer Security) between peers.",
        "The API (this is not an expansion) is stable.",
    ])
    assert g == {"WAL": "write-ahead log", "TLS": "transport layer security"}
    assert expand("how big can the WAL get?", g) == [("WAL", "write-ahead log")]
    assert expand("WAL write-ahead log size", g) == []


def test_citations_drop_invented_numbers_and_flag_cited():
    sources = [cite.Source(n=i, product="p", release="r", path=f"f{i}.md", page=None, section="", title="",
                           score=0.5, text="t") for i in (1, 2, 3)]
    text, out = cite.apply("Yes [1][7]. Also [2, 9].", sources)
    assert text == "Yes [1]. Also [2]."
    assert [s.cited for s in out] == [True, True, False]


@given(st.lists(st.integers(min_value=0, max_value=20), max_size=8), st.integers(min_value=0, max_value=6))
def test_every_marker_left_maps_to_a_source(numbers, n_sources):
    sources = [cite.Source(n=i, product="p", release="r", path="f", page=None, section="", title="", score=0.0, text="")
               for i in range(1, n_sources + 1)]
    answer = " ".join(f"claim [{n}]." for n in numbers)
    text, _ = cite.apply(answer, sources)
    assert set(cite.cited_numbers(text)) <= {s.n for s in sources}


def test_identifiers_and_presence():
    assert identifiers("How do I set query_offset with --log-format and storage.tsdb.retention in v3.5?") == [
        "query_offset", "--log-format", "storage.tsdb.retention"]
    # A name's prefix is no name: "--no-" is absent from every release as written (probe hb-pr-026, round 9).
    assert identifiers("boolean flag that also has a --no- form") == []
    vocab = {"log-format": 1, "log": 2, "format": 3, "query_offset": 4}
    assert term_present("--log-format", vocab)
    assert not term_present("--auth-token-ttl", vocab)


def test_knowledge_decision_and_degraded_answer():
    assert decide(0.8, ["--x"], 0.3)[0] is True
    assert decide(0.1, [], 0.3)[0] is True
    assert decide(0.6, [], 0.3)[0] is False
    v = KnowledgeVerdict(True, "r", 0.5, ["--log-format"], ["v3.6"], "What does etcd v3.5 say about logging?")
    text = degraded_answer(v, "etcd", ["v3.5"])
    assert "I don't know" in text and "--log-format" in text and "v3.6" in text and "logging" in text


def test_a_suggested_question_names_a_one_word_heading_with_its_parent():
    # etcd v3.5's feature-gate table sits under "Feature Gates > Stable": "about Stable?" says nothing.
    q = suggest_question("Feature gates", "Feature Gates > Stable", "etcd", "v3.5")
    assert q == "What does the etcd v3.5 documentation say about Stable in Feature Gates?"
    assert suggest_question("Logging", "Logging", "etcd", "v3.5").endswith("about Logging?")
    assert suggest_question("Clustering", "Runtime reconfiguration > Add a new member", "etcd", "v3.5").endswith(
        "about Add a new member?")


def test_extractive_reduction_keeps_relevant_sentences_in_order():
    filler = "Unrelated words about something else entirely. " * 40
    text = filler + "The snapshot-count default is 10000. It controls snapshots. " + filler
    out = extract(text, "snapshot-count default", budget_chars=300)
    assert "snapshot-count default is 10000" in out and len(out) <= 400


def test_rewrite_rules_without_llm():
    history = [{"role": "user", "content": "default remote write queue capacity in prometheus 2.53?"},
               {"role": "assistant", "content": "10000"}]
    assert is_follow_up("and max_shards?", history)
    assert not is_follow_up("and max_shards?", None)
    # A question naming its own product or an identifier stands alone, unless it opens as a follow-up or points back.
    assert not is_follow_up("how many keys can one etcd txn hold at most?", history, names_its_topic=True)
    assert not is_follow_up("prometheus: web.read-timeout, same default in 2.45 and 3.5?", history)
    assert is_follow_up("does etcd support it in 3.6?", history, names_its_topic=True)
    assert is_follow_up("and what about --max-txn-ops?", history)
    assert is_follow_up("how many at once by default?", history)
    standalone = condense_rules("and max_shards?", history)
    assert "max_shards" in standalone and "remote" in standalone and "capacity" in standalone
    assert expand_rules("WAL", "terminology_explanation").startswith("What is WAL?")
    assert "how to fix" in expand_rules("leader changes often", "symptom_analysis")
    assert filtered("What is the default of --snapshot-count?") == "default --snapshot-count"
    rw = rewrite("What is WAL in etcd v3.5?", history=None, intent="terminology_explanation",
                 versionless="What is WAL in etcd?", glossary={"WAL": "write-ahead log"}, multi_query=True)
    kinds = {q.kind: q.text for q in rw.queries}
    assert kinds["versionless"] == "What is WAL in etcd?"
    assert "write-ahead log" in kinds["glossary"]
    assert "intent" not in kinds, "a template expansion is shown, not searched"
    assert rw.rewritten.startswith("What is WAL in etcd v3.5? Definition")


def test_an_exact_tie_of_fused_scores_goes_to_the_nearer_cosine():
    fused = {"far": 2 / 61, "top": 0.05, "near": 2 / 61, "none": 2 / 61, "low": 0.01}
    cosine = {"far": 0.45, "top": 0.5, "near": 0.72, "low": 0.9}.get
    assert fused_order(fused, cosine) == ["top", "near", "far", "none", "low"]  # a fused score still decides first


def test_changelog_pages_and_change_questions_are_told_apart():
    assert all(map(is_changelog, ["CHANGES.rst", "click/8.1.7/CHANGES.rst", "CHANGELOG.md", "HISTORY.rst",
                                  "WhatsNew.md", "doc-history.md", "cloudtrail-document-history.md"]))
    assert not any(map(is_changelog, ["upgrading.rst", "using-spot-instances-history.md", "api.rst",
                                      "pipelines-trigger-source-repo-changes-cli.md"]))
    assert asks_change("which python versions did click 8.0 drop") and asks_change("which version removed FLASK_ENV")
    assert not asks_change("remove the default log handler")  # an action, not a past change
    assert asks_history("which python versions does flask support") and asks_history("did they drop python 2")
    assert not asks_history("remove the default log handler") and not asks_history("add -h as a help flag")
    assert not asks_history("tell whether a value came from the command line or the default")


def test_a_changelog_scores_less_and_takes_the_third_place_only_when_fitting():
    fused = {"log": 0.06, "guide": 0.05, "other": 0.04}
    path = {"log": "CHANGES.rst", "guide": "advanced.rst", "other": "options.rst"}.get
    assert changelog_scores(fused, path, "tell whether a value came from the command line", 0.5)["log"] == 0.03
    assert changelog_scores(fused, path, "which version added it", 0.5) == fused
    items = [("a.rst", 1), ("b.rst", 2), ("c.rst", 3), ("d.rst", 4), ("CHANGES.rst", 5), ("CHANGES.rst", 6)]
    key = path = lambda item: item[0]  # noqa: E731
    moved = changelog_slot(items, key, path, "which python versions did click 8.0 drop")
    assert moved == [items[0], items[1], items[4], items[2], items[3], items[5]]
    assert changelog_slot(items, key, path, "how do I drop a table") == items  # no change asked
    placed = [items[0], items[4], items[1], items[2], items[3]]
    assert changelog_slot(placed, key, path, "what changed") == placed  # a changelog is in the top 3 already
    assert changelog_slot(items[:3] + items[4:], key, path, "what changed", slot=4) == items[:3] + items[4:]
