"""Identifiers are not releases (issue 14, point 3): issue keys, advisories, error codes, RFC numbers, hashes, ports,
sizes, dates and addresses never become release mentions; "Spark 3.5.5" and "v3.5" still do."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.answering.routing import ProductInfo, detect

SPARK = ProductInfo("spark", "Apache Spark", [], ["3.4.4", "3.5.5", "4.0.0"])
KAFKA = ProductInfo("kafka", "kafka", [], ["3.7", "3.8", "3.9"])
ETCD = ProductInfo("etcd", "etcd", [], ["v3.4", "v3.5", "v3.6"])
CATALOGUE = [SPARK, KAFKA, ETCD]

IDENTIFIERS = [
    # issue keys and tickets
    "SPARK-44581", "SPARK-3", "KAFKA-1234", "KAFKA-16", "HADOOP-17125", "HIVE-24484", "FLINK-33121", "JDK-8292158",
    "ZOOKEEPER-4712", "etcd-io/etcd#16245", "#17320", "issue 14234", "PR 16781", "ticket 4471", "bug 2281",
    # advisories
    "CVE-2023-44487", "CVE-2021-44228", "GHSA-m425-mq94-257g", "RHSA-2023:5837", "USN-6543-1", "ALAS-2023-1813",
    # error and status codes
    "ORA-00942", "error 1064", "exit code 137", "errno 28", "code 11", "status 503", "HTTP 429", "0x80070005",
    "signal 9", "SQLSTATE 23505", "line 42",
    # standards and sections
    "RFC 7231", "rfc-6455", "RFC 9113", "ISO 8601", "IEEE 754", "KIP-848", "PEP 440", "§ 6.5.1",
    # hashes, digests, ids
    "a1b2c3d", "9f8e7d6c5b4a", "sha256:3b5e1c2d4f", "1f3870be274f6c49b3e31a0c6728957f",
    "123e4567-e89b-12d3-a456-426614174000",
    # ports and addresses
    "localhost:9092", "127.0.0.1:2379", "10.0.0.0/8", "port 7077", "ports 2379 and 2380", "192.168.1.10",
    # sizes and quantities
    "512Mi", "2GiB", "1.5 GB", "3.5 seconds", "100ms", "2.5x", "64 MB",
    # dates and API versions
    "2024-01-15", "15.01.2024", "v1beta1", "v2alpha3",
]


def test_at_least_fifty_identifiers_are_listed():
    assert len(set(IDENTIFIERS)) >= 50


@pytest.mark.parametrize("ident", IDENTIFIERS)
@pytest.mark.parametrize("template", [
    "spark fails with {x}, how do I fix it?",
    "kafka: what does {x} mean",
    "Seen {x} in etcd logs after a restart",
])
def test_identifier_is_never_a_release(ident, template):
    routing = detect(template.format(x=ident), CATALOGUE)
    assert routing.mentions == [] and routing.unknown_mentions == []
    assert routing.release_source == "default_newest"


@pytest.mark.parametrize("question, product, releases", [
    ("Spark 3.5.5 adaptive query execution", "spark", ["3.5.5"]),
    ("SPARK-44581 was fixed in Spark 3.5.5?", "spark", ["3.5.5"]),
    ("Apache Spark v3.4 shuffle service", "spark", ["3.4.4"]),
    ("etcd v3.5 defrag", "etcd", ["v3.5"]),
    ("KAFKA-1234 in kafka 3.8", "kafka", ["3.8"]),
    ("is CVE-2023-44487 fixed in etcd 3.5?", "etcd", ["v3.5"]),
])
def test_real_release_mentions_still_count(question, product, releases):
    routing = detect(question, CATALOGUE)
    assert (routing.product, routing.releases, routing.release_source) == (product, releases, "named")


_key = st.from_regex(r"[A-Z][A-Z0-9]{1,9}", fullmatch=True)
_hex = st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True).filter(lambda h: any(c in "abcdef" for c in h)
                                                              and any(c.isdigit() for c in h))
_identifier = st.one_of(
    st.builds(lambda k, n: f"{k}-{n}", _key, st.integers(1, 999999)),
    st.builds(lambda y, n: f"CVE-{y}-{n}", st.integers(1999, 2030), st.integers(1000, 9999999)),
    st.builds(lambda n: f"RFC {n}", st.integers(1, 9999)),
    _hex,
    st.builds(lambda p: f"localhost:{p}", st.integers(10, 65535)),
    st.builds(lambda p: f"port {p}", st.integers(10, 65535)),
    st.builds(lambda n, u: f"{n} {u}", st.integers(1, 4096), st.sampled_from(["MB", "GiB", "KB", "bytes", "ms"])),
    st.builds(lambda c: f"exit code {c}", st.integers(0, 255)),
    st.builds(lambda c: f"error {c}", st.integers(0, 99999)),
)
_template = st.sampled_from([
    "spark job died with {x}", "{x} in kafka, what now?", "etcd: {x}", "why does {x} happen with spark?",
    "kafka broker logs {x} on startup",
])


@settings(max_examples=300, deadline=None)
@given(_identifier, _template)
def test_no_generated_identifier_is_read_as_a_release(ident, template):
    routing = detect(template.format(x=ident), CATALOGUE)
    assert routing.unknown_mentions == [] and routing.mentions == [], ident
    assert routing.release_source == "default_newest"


@settings(max_examples=200, deadline=None)
@given(_identifier, st.sampled_from([("spark 3.5.5", "spark", "3.5.5"), ("kafka v3.8", "kafka", "3.8"),
                                     ("etcd 3.4", "etcd", "v3.4")]))
def test_a_release_beside_an_identifier_is_still_found(ident, named):
    spelling, product, release = named
    routing = detect(f"{spelling}: {ident} keeps coming back", CATALOGUE)
    assert (routing.product, routing.releases) == (product, [release]), ident
