"""Product from evidence (issue 14, points 1 and 4): a question that names no product is searched in every product's
routed release and answered from the product whose documents match; every question that passes the query check
gets an intent; catalogue questions are answered from the library with no LLM call.

Real components over a real three-product library (folders `etcd_io`, `prometheus-server`, `aws.elb`)."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from assistant.answering.presets import get_preset, with_overrides
from assistant.answering.product_evidence import Evidence, choose, gather, outweighed, owned, sole_owner
from assistant.answering.query_check import check_query
from assistant.backends.chat import FakeChat
from assistant.components import build_intent_classifier, build_pipeline

QUESTIONS = Path(__file__).parent / "data" / "unnamed_questions.jsonl"
FOLDER = {"etcd": "etcd_io", "prometheus": "prometheus-server", "aws-elb": "aws.elb"}
INTENTS = {"symptom_analysis", "operational_guidance", "multi_facet_summary", "terminology_explanation",
           "fact_verification"}


# --- the decision, pure ---------------------------------------------------------------------------------------------

def _ev(product, best, share=0.0):
    return Evidence(product, "r1", best, share, 0)


def test_one_clear_winner():
    assert [e.product for e in choose([_ev("a", 0.62, 0.8), _ev("b", 0.45, 0.2)], floor=0.3)] == ["a"]


def test_two_close_products_are_both_answered():
    assert [e.product for e in choose([_ev("a", 0.52, 0.5), _ev("b", 0.515, 0.5)], floor=0.3)] == ["a", "b"]


def test_a_runner_up_a_few_hundredths_behind_is_answered_too():
    # "post json with the test client" over Flask, Click, Jinja2 and Werkzeug: Flask's best passage leads Werkzeug's
    # (which holds the answer) by 0.029, the margin of the held-back questions that went to the wrong product alone.
    chosen = choose([_ev("flask", 0.584, 0.2), _ev("werkzeug", 0.555, 0.2), _ev("click", 0.501, 0.2)], floor=0.3)
    assert [e.product for e in chosen] == ["flask", "werkzeug"]
    # A lead over 0.05 still answers one product ("why isn't autoescaping turned on by default": 0.613 against 0.562).
    assert [e.product for e in choose([_ev("jinja2", 0.593, 0.2), _ev("flask", 0.522, 0.4)], floor=0.3)] == ["jinja2"]


def test_a_close_second_under_the_floor_is_not_answered():
    assert [e.product for e in choose([_ev("a", 0.31, 0.6), _ev("b", 0.29, 0.4)], floor=0.3, close=0.05)] == ["a"]


def test_the_floor_is_judged_on_passages_both_searches_found():
    # A short entry close to the question by embedding alone (best 0.39) is no evidence when no passage that also
    # shares the question's words reaches the floor (agreed 0.23): the tandoori question over etcd and Prometheus.
    assert choose([Evidence("a", "r1", 0.39, 0.6, 3, agreed=0.23), Evidence("b", "r1", 0.34, 0.4, 2, agreed=0.14)],
                  floor=0.3) == []
    assert [e.product for e in choose([Evidence("a", "r1", 0.39, 0.6, 3, agreed=0.35)], floor=0.3)] == ["a"]
    # Found by embedding alone, a cosine well over the floor still counts ("log failed scrapes": 0.79, agreed 0.25).
    assert [e.product for e in choose([Evidence("a", "r1", 0.79, 0.4, 2, agreed=0.25)], floor=0.3)] == ["a"]
    # Each product is judged on its own: a close runner-up under the floor is not answered, and a first product
    # under it does not hide a second one over it.
    close = [Evidence("a", "r1", 0.41, 0.5, 3, agreed=0.35), Evidence("b", "r1", 0.40, 0.5, 3, agreed=0.2)]
    assert [e.product for e in choose(close, floor=0.3)] == ["a"]
    hidden = [Evidence("a", "r1", 0.40, 0.7, 3, agreed=0.27), Evidence("b", "r1", 0.42, 0.3, 2, agreed=0.39)]
    assert [e.product for e in choose(hidden, floor=0.3)] == ["b"]


def test_a_name_only_one_product_documents_picks_that_product():
    holders = {"--auto-gomemlimit.ratio": {"prometheus"}, "gomemlimit": {"prometheus"}, "keyspace": {"etcd"},
               "endpoint": {"etcd", "prometheus"}}
    owners = lambda term: holders.get(term, set())  # noqa: E731
    assert sole_owner(["--auto-gomemlimit.ratio", "gomemlimit", "nowhere"], owners) == "prometheus"
    assert sole_owner(["gomemlimit", "keyspace"], owners) is None  # names of two products: the evidence decides
    assert sole_owner(["gomemlimit", "endpoint"], owners) is None  # a shared name: no owner
    assert sole_owner(["nowhere"], owners) is None


def test_a_sole_owner_yields_to_passages_both_searches_found_closer_in_another_product():
    # "fit a quadratic to measured data": Octave's manual alone says "quadratic", but gnuplot's `fit` page, found by
    # words and by embedding, sits closer (0.493 against Octave's 0.424): the word is incidental.
    real_pdfs = [Evidence("gnuplot", "5.4", 0.493, 0.3, 5, agreed=0.493), Evidence("octave", "7.3", 0.424, 0.4, 5,
                                                                                    agreed=0.424),
                 Evidence("bash", "5.2", 0.111, 0.3, 5, agreed=0.068)]
    assert outweighed("octave", real_pdfs)
    # "What URL path does the OTLP receiver listen on?": etcd's passage is closer by embedding alone (best 0.468,
    # agreed 0.23); Prometheus, which alone says OTLP, keeps the question (agreed 0.316).
    otlp = [Evidence("etcd", "v3.6", 0.468, 0.5, 5, agreed=0.23), Evidence("prometheus", "v3.5", 0.402, 0.5, 5,
                                                                         agreed=0.316)]
    assert not outweighed("prometheus", otlp)
    # "v3.0.3 bugfix for PackageLoader": Flask's changelog passage is only 0.03 closer; Jinja2 keeps it.
    assert not outweighed("jinja2", [Evidence("flask", "3.0", 0.539, 0.5, 5, agreed=0.539),
                                     Evidence("jinja2", "3.1.4", 0.507, 0.5, 5, agreed=0.507)])
    # No passage of the owner measured (another embedding model's release): nothing to weigh, the owner stays.
    assert not outweighed("octave", [Evidence("gnuplot", "5.4", 0.6, 0.5, 5, agreed=0.6), _ev("octave", 0.3)])


def test_nothing_above_the_floor_is_not_in_the_library():
    assert choose([_ev("a", 0.21, 0.7), _ev("b", 0.18, 0.3)], floor=0.3) == []
    assert choose([], floor=0.3) == []


# --- the pipeline over three products -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pipeline(three_products):
    intent = build_intent_classifier(three_products, extra_examples=[])
    return build_pipeline(three_products, llm=None, intent=intent)


def test_unnamed_questions_are_searched_in_the_right_product_and_all_get_an_intent(pipeline):
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    assert len(rows) >= 60
    right, wrong = 0, []
    for row in rows:
        res = pipeline.ask(row["q"], search_only=True)
        assert res.intent["label"] in INTENTS, (row["q"], res.status)
        assert not (res.knowledge_missing and res.product is None), row["q"]  # never "name a product"
        searched = [res.product] + [p for p, _ in res.routing.get("also", [])]
        if FOLDER[row["p"]] in searched:
            right += 1
            assert res.product_source == "inferred" and res.sources
        else:
            wrong.append((row["q"], searched))
    assert right / len(rows) >= 0.95, wrong


def test_the_first_question_a_new_user_types(pipeline):
    res = pipeline.ask("how do I defragment the cluster?", search_only=True)
    out = res.to_json()
    assert (out["status"], out["product"], out["product_source"]) == ("ok", "etcd_io", "inferred")
    assert out["product_chosen"] == "inferred from the documents"
    assert set(out["products_searched"]) == set(FOLDER.values())
    assert not out["knowledge_missing"]
    assert any("maintenance" in s["path"] for s in out["sources"][:3])


@pytest.mark.parametrize("question, product, source", [
    ("ALB idle timeout default", "aws.elb", "alias"),
    ("AWS ELB sticky sessions", "aws.elb", "named"),
    ("Prometheus scrape_interval default", "prometheus-server", "named"),
    ("etcd defrag", "etcd_io", "named"),
])
def test_named_products_written_as_people_write_them(pipeline, question, product, source):
    res = pipeline.ask(question, search_only=True)
    assert (res.product, res.product_source) == (product, source)


def test_a_question_matching_nothing_anywhere_is_not_in_the_library(pipeline):
    # The query check would decline this one first; without it, routing searches every product and finds nothing.
    # etcd's 12-word `--backend-batch-interval` entry reaches a cosine of 0.39 with it by embedding alone; the floor
    # is judged on passages that BM25 found too (Evidence.agreed), as no such passage comes near the question.
    preset = with_overrides(get_preset("default"), query_check=False)
    res = pipeline.ask("what is the recommended marinade time for tandoori chicken?", preset=preset, search_only=True)
    assert (res.status, res.product, res.product_source) == ("not_in_library", None, "inferred")
    assert res.answer.startswith("Nothing in the library matches this question")
    for name in ("etcd", "Prometheus", "AWS Elastic Load Balancing"):
        assert name in res.answer
    assert set(res.to_json()["products_searched"]) == set(FOLDER.values())
    assert res.intent["label"] in INTENTS


def test_an_off_topic_question_is_declined_by_the_query_check_before_routing(pipeline):
    res = pipeline.ask("what is the recommended marinade time for tandoori chicken?", search_only=True)
    assert res.status == "out_of_scope" and res.product is None and not res.sources, (res.status, res.answer)


def test_a_question_the_scope_seeds_decline_is_answered_when_the_library_clearly_holds_it(pipeline):
    # Everyday words ("day of the week", "last week") sit nearer the out-of-scope seeds than the in-scope ones, yet
    # Prometheus documents `day_of_week()` and `avg_over_time()`: a passage both searches found clears the floor by
    # UNCORROBORATED (0.63 and 0.50 against 0.45), so the query check keeps them. Seeds alone declined both.
    for question in ("what day of the week is it for a timestamp?", "average of a value over the last week"):
        assert check_query(question, embed=pipeline.embedder.embed, product_names=["etcd", "Prometheus"]).status \
            == "out_of_scope"
        res = pipeline.ask(question, search_only=True)
        assert res.status != "out_of_scope" and res.product == FOLDER["prometheus"], (question, res.status)
        assert any("querying/functions.md" in s.path for s in res.sources[:3]), [s.path for s in res.sources]
    # Everyday requests stay declined: no passage both searches found comes near (the library's best under 0.45).
    for question in ("what's the weather in Paris", "nvidia stock price", "write me a poem about cats"):
        assert pipeline.ask(question, search_only=True).status == "out_of_scope", question


def test_intent_even_when_routing_stops(pipeline):
    res = pipeline.ask("how do I defragment etcd 3.9?", search_only=True)
    assert res.status == "no_documents" and "3.9" in res.answer
    assert res.intent["label"] in INTENTS


def test_catalogue_questions_need_no_llm_and_no_search(three_products):
    llm = FakeChat()
    pipe = build_pipeline(three_products, llm=llm, intent=build_intent_classifier(three_products, extra_examples=[]))
    res = pipe.ask("which releases of Prometheus are there?")
    assert (res.status, res.product, res.llm_calls) == ("catalogue", "prometheus-server", 0)
    assert "v2.45.0, v2.53.0, v3.5.0" in res.answer and llm.history == []
    assert "retrieval" not in res.timings_ms
    res = pipe.ask("do you have etcd 3.7?")
    assert res.answer.startswith("No: the library has no etcd release 3.7") and "v3.6" in res.answer


def test_eval_question_only_passes_no_product_and_scores_the_product_searched(pipeline, tmp_path):
    from assistant.evaluation import EvalConfig, load_dataset, run_eval

    rows = [
        {"id": "a", "question": "how do I defragment the cluster?", "product": "etcd", "gold": ["v3.6/op-guide/maintenance.md"]},
        {"id": "b", "question": "how do I write a recording rule?", "product": "Prometheus",
         "gold": ["v3.5.0/configuration/recording_rules.md"]},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    given = run_eval(pipeline, load_dataset(path), EvalConfig(presets=["default"]))
    asked = run_eval(pipeline, load_dataset(path), EvalConfig(presets=["default"], question_only=True))
    assert [r["trace"]["product_source"] for r in given.records] == ["pinned", "pinned"]
    assert [r["trace"]["product_source"] for r in asked.records] == ["inferred", "inferred"]
    assert asked.meta["question_only"] and not given.meta["question_only"]
    assert [r["metrics"]["product_correct"] for r in asked.records] == [True, True]
    assert asked.presets["default"]["metrics"]["routing_unanswered"]["mean"] == 0.0


def test_two_products_that_match_equally_are_both_answered_with_sources_labelled(tmp_path):
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    doc = ("# Backups\n\nRun `snapshot save` every hour to copy the whole keyspace to a file. Restore a snapshot "
           "with `snapshot restore`, which rebuilds the data directory of a new member from that file.\n")
    other = ("# Dashboards\n\nA panel shows one query as a graph. Group panels into rows, and set the refresh "
             "interval of a dashboard in its settings.\n")
    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    for product, text in (("keystore", doc), ("keystore-fork", doc), ("panels", other)):
        src = tmp_path / "src" / product
        src.mkdir(parents=True)
        (src / "guide.md").write_text(text)
        indexer.library.add(src, product, "1.0")
        indexer.sync(product)
    pipe = build_pipeline(settings, llm=None, intent=build_intent_classifier(settings, extra_examples=[]))
    res = pipe.ask("how do I restore a snapshot of the keyspace into a new member?", search_only=True)
    assert res.product_source == "inferred"
    searched = {res.product} | {p for p, _ in res.routing["also"]}
    assert searched == {"keystore", "keystore-fork"}
    assert {s.product for s in res.sources} == {"keystore", "keystore-fork"}
    assert {s["product"] for s in res.to_json()["sources"]} == {"keystore", "keystore-fork"}


def test_the_cli_and_the_chat_say_how_the_product_was_chosen(three_products, monkeypatch, capsys):
    from assistant.app import product_line
    from assistant.cli import main

    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(three_products.data_dir))
    monkeypatch.setenv("ASSISTANT_MODELS_DIR", str(three_products.models_dir))
    assert main(["ask", "how do I defragment the cluster?", "--search-only"]) == 0
    out = capsys.readouterr().out
    assert "product: etcd_io (inferred from the documents)" in out
    assert "WARNING" not in out
    assert main(["ask", "ALB idle timeout", "--search-only", "--json"]) == 0
    trace = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (trace["product_source"], trace["product_chosen"]) == ("alias", "named by an alias")
    assert product_line(trace) == "**aws\\.elb** (named by an alias)"
    assert product_line({"product": "etcd_io", "also": [{"product": "prometheus-server", "release": "v3.5.0"}],
                         "product_chosen": "inferred from the documents"}) == \
        "**etcd\\_io \\+ prometheus\\-server v3\\.5\\.0** (inferred from the documents)"


def test_a_name_only_one_product_documents_routes_the_question_there(pipeline):
    # "OTLP" occurs in Prometheus's docs only; by embedding, etcd's gRPC gateway and proxy pages sit closer to a
    # question about a receiver's URL path, so the evidence alone picks another product (held-out item rk-148).
    question = "What URL path does the OTLP receiver listen on?"
    res = pipeline.ask(question, search_only=True)
    assert res.product == FOLDER["prometheus"], (res.product, res.routing)
    indexes = [pipeline.index(p, pipeline.library.releases(p)[-1]) for p in FOLDER.values()]
    evidence = gather(question, indexes, pipeline.embed_model, get_preset("default").retrieval)
    assert choose(evidence, get_preset("default").relevance_threshold)[0].product != FOLDER["prometheus"]


def test_a_name_one_product_holds_yields_to_passages_both_searches_found_far_closer_elsewhere(pipeline):
    # "relabel" is Prometheus's alone in this library: its owner keeps the question while the other products'
    # passages found by words and by embedding are about as close (0.60 against 0.58), and yields to the evidence
    # when they are far closer (0.60 against 0.30: the "fit a quadratic" case of the real PDF manuals).
    question, common = "how do I relabel targets found through EC2 service discovery?", pipeline.common_words
    prometheus = Evidence("prometheus-server", "v3.5.0", 0.62, 0.4, 4, 0.58)
    etcd = Evidence("etcd_io", "v3.6", 0.4, 0.2, 1, 0.35)
    near = [prometheus, Evidence("awsdocs", "current", 0.64, 0.4, 4, 0.60), etcd]
    assert [e.product for e in owned(near, question, pipeline.timeline, common)] == ["prometheus-server"]
    far = [replace(prometheus, best=0.45, agreed=0.30), Evidence("awsdocs", "current", 0.64, 0.6, 5, 0.60), etcd]
    assert [e.product for e in owned(far, question, pipeline.timeline, common)] == ["prometheus-server", "awsdocs",
                                                                                   "etcd_io"]


def test_the_owning_product_is_found_in_one_batched_lookup_that_agrees_with_each_names_occurrences(pipeline):
    # Routing asks which products hold any of a question's names (issue 15: one lookup per name and product cost
    # 14 ms on the AWS library). The batched lookup must find what `occurrences` finds, name by name: the
    # identifier index (`--auto-gomemlimit.ratio`), the whole-token scan of the text (prose words), nothing for a
    # word no document has, and a word inside a longer token is no hit.
    timeline, products = pipeline.timeline, list(FOLDER.values())
    terms = ["--auto-gomemlimit.ratio", "OTLP", "defragment", "listener", "endpoint", "keyspace", "tandoori",
             "gomem", "scrape_interval"]
    for term in terms:
        assert timeline.holding(products, [term]) == {p for p in products if timeline.occurrences(p, term)}, term
    assert timeline.holding(products, ["--auto-gomemlimit.ratio", "OTLP", "tandoori"]) == {FOLDER["prometheus"]}
    assert timeline.holding(products, ["tandoori", "gomem"]) == set()
    every = set().union(*(timeline.holding(products, [t]) for t in terms))
    assert timeline.holding(products, terms) == every and len(every) == 3
    # Stopping at a second product: enough to know that no product holds them alone.
    assert len(timeline.holding(products, terms, stop_at=2)) == 2
