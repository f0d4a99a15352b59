import json
from pathlib import Path

import pytest

from assistant.answering.routing import ProductInfo, detect, strip_release_mentions

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev"

ETCD = ProductInfo("etcd", "etcd", [], ["v3.4", "v3.5", "v3.6"])
PROM = ProductInfo("prometheus", "Prometheus", [], ["v2.45.0", "v2.53.0", "v3.5.0"])
CATALOGUE = [ETCD, PROM]


def _rows(name):
    return [json.loads(line) for line in (DEV / name).read_text().splitlines() if line.strip()]


# --- products -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, product, source",
    [
        ("What are Prometheus's default query timeouts?", "prometheus", "named"),
        ("prom agent mode flags", "prometheus", "alias"),
        ("does promtool check rules?", "prometheus", "alias"),
        ("does etcdctl defrag get replicated?", "etcd", "named"),
        ("ETCD snapshot restore", "etcd", "named"),
        ("how do I promote a learner member?", None, "none"),  # "promote" is not "prom"
        ("v2.45 remote_write max_shards default?", "prometheus", "release"),  # only Prometheus has 2.45
        ("3.6: what replaced --experimental-compaction-batch-limit?", "etcd", "release"),
        ("what changed in 3.5?", None, "none"),  # both products have a 3.5
    ],
)
def test_product(question, product, source):
    routing = detect(question, CATALOGUE)
    assert (routing.product, routing.product_source) == (product, source)


def test_single_product_library_and_pins():
    assert detect("how do I defrag?", [ETCD]).product_source == "only"
    only = detect("defrag in 3.4?", [ETCD])
    assert (only.product_source, only.releases) == ("only", ["v3.4"])
    pinned = detect("how do I defrag?", CATALOGUE, pinned_product="etcd", pinned_release="3.5")
    assert (pinned.product, pinned.product_source, pinned.releases, pinned.release_source) == (
        "etcd", "pinned", ["v3.5"], "pinned",
    )
    # The question is more specific than a sticky pin.
    named = detect("defrag in etcd v3.4?", CATALOGUE, pinned_product="etcd", pinned_release="v3.5")
    assert (named.releases, named.release_source) == (["v3.4"], "named")


def test_aliases_and_display_names():
    aws = ProductInfo("awsdocs", "Amazon Web Services", ["amazon"], ["2023.10", "2024.04"])
    catalogue = [ETCD, PROM, aws]
    assert detect("does amazon RDS support IAM auth?", catalogue).product == "awsdocs"
    assert detect("AWS cloudtrail data events", catalogue).product == "awsdocs"
    routing = detect("what changed in AWS 2024.04?", catalogue)
    assert routing.releases == ["2024.04"]


# --- releases -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, releases, mentions",
    [
        ("default heartbeat in etcd v3.4?", ["v3.4"], ["v3.4"]),
        ("etcd 3.5.x compaction retention", ["v3.5"], ["3.5.x"]),
        ("what is the default in release 3.5 of etcd", ["v3.5"], ["release 3.5"]),
        ("etcd version 3.5 compaction", ["v3.5"], ["version 3.5"]),
        ("prom 3.5 agent mode", ["v3.5.0"], ["3.5"]),
        ("Prometheus 2.53 max_samples_per_send", ["v2.53.0"], ["2.53"]),
        ("image quay.io/coreos/etcd:v3.5.9 fails to start", ["v3.5"], ["v3.5.9"]),
        ("is agent mode covered by the stability guarantees in prometheus 3.x", ["v3.5.0"], ["3.x"]),
        ("Which etcd release-3.5 flags were removed?", ["v3.5"], ["release-3.5"]),
        # a major alone beside a release of that major names its series, not a second release (tuning item rk-078)
        ("How do I bootstrap an etcd 3.5 cluster with the v3 discovery flags --discovery-token?", ["v3.5"], ["3.5"]),
    ],
)
def test_named_release(question, releases, mentions):
    routing = detect(question, CATALOGUE)
    assert (routing.releases, routing.release_source, routing.mentions) == (releases, "named", mentions)
    assert not routing.is_comparison and not routing.unknown_mentions


@pytest.mark.parametrize(
    "question, releases",
    [
        ("How did arm64 support change between etcd v3.4 and v3.6?", ["v3.4", "v3.6"]),
        ("What changed from v2.45.0 to 3.5 in Prometheus?", ["v2.45.0", "v3.5.0"]),
        ("etcd 3.6 vs 3.4 defrag behaviour", ["v3.4", "v3.6"]),
        ("OTLP receiver flag in Prometheus v3.5.0 versus v2.53.0?", ["v2.53.0", "v3.5.0"]),
        ("compare etcd 3.5 and v3", ["v3.5", "v3.6"]),
    ],
)
def test_comparison_is_older_then_newer(question, releases):
    routing = detect(question, CATALOGUE)
    assert routing.is_comparison and routing.releases == releases


def test_upgrade_and_downgrade_read_the_newer_release():
    # Upgrade and downgrade guides live with the newer release.
    down = detect("When downgrading an etcd 3.5 cluster back to 3.4, what is the minimum 3.4 patch?", CATALOGUE)
    assert (down.releases, down.is_comparison) == (["v3.5"], False)
    up = detect("upgrading etcd from 3.5 to 3.6: what should I check first?", CATALOGUE)
    assert (up.releases, up.is_comparison) == (["v3.6"], False)


@pytest.mark.parametrize(
    "question, unknown",
    [
        ("does etcd 3.7 support learners?", ["3.7"]),
        ("Prometheus v2.44 query log?", ["v2.44"]),
        ("defrag in etcd release 3.3", ["release 3.3"]),
    ],
)
def test_unknown_release_is_kept_not_snapped(question, unknown):
    routing = detect(question, CATALOGUE)
    assert routing.releases == [] and routing.unknown_mentions == unknown and routing.release_source == "named"


def test_default_newest():
    routing = detect("How can I make etcd write console logs?", CATALOGUE)
    assert (routing.releases, routing.release_source) == (["v3.6"], "default_newest")


@pytest.mark.parametrize(
    "question",
    [
        "etcd listens on 2379 and 2380; I set --snapshot-count=10000",
        "etcd quota 8 GB, heartbeat 100ms, election timeout 1000 and compaction every 2m",
        "prometheus returns HTTP 502 from 10.0.0.1:9090",
        "etcd apply took too long [1.32s for 1 entries]",
        "etcd outage on 2024-01-15 at 10.30",
        "Prometheus with TLS 1.2 and remote write 2.0",
        "etcd v3 API vs v2 API",
        "prometheus /api/v1/query returns 2.5 GB of data",
        "histogram_quantile(0.99, rate(x[5m])) in prometheus",
        "etcdctl get --rev=2 somekey",
    ],
)
def test_numbers_that_are_not_releases(question):
    routing = detect(question, CATALOGUE)
    assert routing.mentions == [] and routing.unknown_mentions == []
    assert routing.release_source == "default_newest"


# --- conversation ---------------------------------------------------------------------------------


def test_follow_up_takes_release_from_history():
    history = [
        {"role": "user", "content": "v2.45.0 remote_write max_shards default?"},
        {"role": "assistant", "content": "200 in v2.45.0."},
        {"role": "user", "content": "Thanks. We're evaluating a jump straight to 3.5."},
        {"role": "assistant", "content": "The queue defaults changed after 2.45."},
    ]
    routing = detect("so what is it there?", CATALOGUE, history=history)
    assert (routing.product, routing.product_source) == ("prometheus", "history")
    assert (routing.releases, routing.release_source) == (["v3.5.0"], "history")
    # "latest" asks to leave the conversation's release behind.
    latest = detect("and in the latest version?", CATALOGUE, history=history)
    assert (latest.releases, latest.release_source) == (["v3.5.0"], "default_newest")


def test_release_named_as_a_subject_does_not_override_history():
    history = [{"role": "user", "content": "can I do a rolling downgrade from etcd 3.5 to 3.4 with auth enabled?"}]
    routing = detect("which 3.4 patch version do I need at minimum?", CATALOGUE, history=history)
    assert routing.releases == ["v3.5"]
    alone = detect("which etcd 3.4 patch version added /livez?", CATALOGUE)
    assert alone.releases == ["v3.4"]


# --- versionless query ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, stripped",
    [
        ("How do I set query_offset in Prometheus v2.45.0?", "How do I set query_offset in Prometheus?"),
        ("rules run one after another in 2.53, can they run in parallel?", "rules run one after another, can they run in parallel?"),
        ("3.6: --experimental-compaction-batch-limit is deprecated", "--experimental-compaction-batch-limit is deprecated"),
        ("etcd release 3.5 defrag", "etcd defrag"),
        ("How did it change between etcd v3.4 and v3.6?", "How did it change between etcd?"),
        ("downgrading etcd 3.5 back to 3.4: minimum 3.4 patch?", "downgrading etcd back to 3.4: minimum 3.4 patch?"),
    ],
)
def test_strip_release_mentions(question, stripped):
    assert strip_release_mentions(question, detect(question, CATALOGUE)) == stripped


# --- dev sets -------------------------------------------------------------------------------------


def _expected(target):
    return sorted(target, key=lambda r: next(p.releases.index(r) for p in CATALOGUE if r in p.releases)) if isinstance(target, list) else [target]


def test_dev_releases_accuracy():
    rows = _rows("releases.jsonl")
    wrong = []
    for row in rows:
        routing = detect(row["question"], CATALOGUE)
        if (routing.product, routing.releases) != (row["product"], _expected(row["target_release"])):
            wrong.append((row["id"], routing))
        if isinstance(row["target_release"], list) != routing.is_comparison:
            wrong.append((row["id"], "comparison", routing))
    print(f"\nreleases.jsonl routing accuracy: {len(rows) - len(wrong)}/{len(rows)}")
    assert wrong == []


def test_dev_conversations_accuracy():
    rows = _rows("conversations.jsonl")
    wrong = []
    for row in rows:
        *history, last = row["turns"]
        routing = detect(last["content"], CATALOGUE, history=history)
        if (routing.product, routing.releases) != (row["product"], [row["target_release"]]):
            wrong.append((row["id"], routing))
    print(f"\nconversations.jsonl routing accuracy: {len(rows) - len(wrong)}/{len(rows)}")
    assert wrong == []


def test_dev_questions_have_no_spurious_releases():
    questions = [r["query"] for r in _rows("intents.jsonl")] + [r["question"] for r in _rows("awsdocs.jsonl")]
    spurious = []
    for q in questions:
        routing = detect(q, CATALOGUE)
        if routing.unknown_mentions or any("." not in m for m in routing.mentions):
            spurious.append((q, routing))
    assert spurious == []
