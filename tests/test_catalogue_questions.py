"""Catalogue questions (issue 14, point 5): which releases, how many, newest, oldest, does release Y exist (and if not,
the nearest that do), answered from the library alone; documentation questions are never caught."""

import pytest

from assistant.answering.catalogue_questions import answer_catalogue_question
from assistant.answering.routing import ProductInfo

ETCD = ProductInfo("etcd", "etcd", [], ["v3.4", "v3.5", "v3.6"])
PROM = ProductInfo("prometheus", "Prometheus", [], ["v2.45.0", "v2.53.0", "v3.5.0"])
NODE = ProductInfo("nodejs", "Node.js", [], ["v18", "v20", "v22"])
CATALOGUE = [ETCD, PROM, NODE]

PHRASINGS = [
    # which releases
    ("which releases of etcd are there?", "list", "etcd", ["v3.4", "v3.5", "v3.6"]),
    ("What versions of Prometheus do you have?", "list", "prometheus", ["v2.45.0", "v2.53.0", "v3.5.0"]),
    ("list etcd releases", "list", "etcd", ["v3.4", "v3.5", "v3.6"]),
    ("etcd versions?", "list", "etcd", ["v3.4", "v3.5", "v3.6"]),
    ("show me all Node.js versions in the library", "list", "nodejs", ["v18", "v20", "v22"]),
    ("which prometheus releases are indexed", "list", "prometheus", ["v2.45.0", "v2.53.0", "v3.5.0"]),
    ("what nodejs releases are available?", "list", "nodejs", ["v18", "v20", "v22"]),
    ("Which versions of the etcd docs are loaded?", "list", "etcd", ["v3.4", "v3.5", "v3.6"]),
    # how many
    ("how many releases of etcd do you have?", "count", "etcd", ["v3.4", "v3.5", "v3.6"]),
    ("How many Prometheus versions are in the library?", "count", "prometheus", ["v2.45.0", "v2.53.0", "v3.5.0"]),
    ("number of node js releases", "count", "nodejs", ["v18", "v20", "v22"]),
    ("how many etcd versions are indexed so far", "count", "etcd", ["v3.4", "v3.5", "v3.6"]),
    # newest
    ("what's the newest etcd release?", "newest", "etcd", ["v3.6"]),
    ("latest Prometheus version you have?", "newest", "prometheus", ["v3.5.0"]),
    ("which is the most recent etcd version in the library", "newest", "etcd", ["v3.6"]),
    ("What is the current NodeJS release?", "newest", "nodejs", ["v22"]),
    ("newest prometheus release indexed?", "newest", "prometheus", ["v3.5.0"]),
    ("what is the highest etcd version available", "newest", "etcd", ["v3.6"]),
    # oldest
    ("oldest prometheus version in the library?", "oldest", "prometheus", ["v2.45.0"]),
    ("What is the earliest etcd release you have?", "oldest", "etcd", ["v3.4"]),
    ("which Node.js version is the oldest?", "oldest", "nodejs", ["v18"]),
    ("first etcd release in the docs", "oldest", "etcd", ["v3.4"]),
    # exists
    ("is etcd v3.5 available?", "exists", "etcd", ["v3.5"]),
    ("do you have Prometheus 2.53?", "exists", "prometheus", ["v2.53.0"]),
    ("does etcd 3.4 exist in the library?", "exists", "etcd", ["v3.4"]),
    ("are the node.js 20 docs indexed?", "exists", "nodejs", ["v20"]),
    ("is there a prometheus v3.5.0?", "exists", "prometheus", ["v3.5.0"]),
    # exists, missing: the nearest releases
    ("does etcd 3.7 exist?", "exists", "etcd", ["v3.6"]),
    ("do you have etcd v3.3 docs?", "exists", "etcd", ["v3.4"]),
    ("is Prometheus 2.50 in the library?", "exists", "prometheus", ["v2.45.0", "v2.53.0"]),
    ("do you have Node.js 21?", "exists", "nodejs", ["v20", "v22"]),
    ("is there documentation for prometheus release 4.0?", "exists", "prometheus", ["v3.5.0"]),
    ("have you got etcd version 3.1?", "exists", "etcd", ["v3.4"]),
]


def test_at_least_thirty_phrasings():
    assert len(PHRASINGS) >= 30


@pytest.mark.parametrize("question, kind, product, releases", PHRASINGS)
def test_catalogue_phrasing(question, kind, product, releases):
    found = answer_catalogue_question(question, CATALOGUE)
    assert found is not None, question
    assert (found.kind, found.product, found.releases) == (kind, product, releases)
    for r in releases:
        assert r in found.answer


def test_missing_release_answer_says_no_and_names_the_nearest():
    found = answer_catalogue_question("does etcd 3.7 exist?", CATALOGUE)
    assert found.answer.startswith("No: the library has no etcd release 3.7")
    assert "nearest it has: v3.6" in found.answer


def test_pinned_product_and_whole_library():
    assert answer_catalogue_question("which releases are there?", CATALOGUE, pinned_product="etcd").product == "etcd"
    everything = answer_catalogue_question("which releases are there?", CATALOGUE)
    assert everything.product is None and "Prometheus: v2.45.0, v2.53.0, v3.5.0" in everything.answer


@pytest.mark.parametrize("question", [
    "what is the default snapshot count in the latest etcd release?",
    "what changed in the newest Prometheus version?",
    "how many members should an etcd cluster have?",
    "which etcd version removed the v2 API?",
    "is the --experimental-compaction-batch-limit flag in etcd 3.5?",
    "how do I upgrade etcd to the latest release?",
    "what is etcd?",
    "list the etcd metrics",
    "how many samples per send does Prometheus 2.53 use?",
    "does etcd 3.5 support learners?",
    "and in 3.6?",  # a follow-up about the conversation's topic
    "what about etcd v3.5?",
])
def test_documentation_questions_are_not_catalogue_questions(question):
    assert answer_catalogue_question(question, CATALOGUE) is None
