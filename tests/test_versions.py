import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assistant.library.versions import (
    newest,
    normalise_release,
    release_sort_key,
    sort_releases,
)

ETCD = ["v3.4", "v3.5", "v3.6"]
PROM = ["v2.45.0", "v2.53.0", "v3.5.0"]
QAMR = ["Release 17.10", "Release 17.20", "Release 18.10"]


@pytest.mark.parametrize(
    "older, newer",
    [
        ("v2.45.0", "v2.53.0"),
        ("v2.53.0", "v3.5.0"),
        ("R9", "R17.2"),
        ("2023.10", "2024.04"),
        ("v3.4", "v3.5"),
        ("v3.5", "v3.6"),
        ("1.9", "1.10"),
        ("3.5.0-rc1", "3.5.0"),
        ("3.5.0-alpha", "3.5.0-beta.2"),
        ("3.5.0-rc1", "3.5.0-rc2"),
        ("main", "v0.1"),  # names without digits come first
    ],
)
def test_natural_order(older, newer):
    assert release_sort_key(older) < release_sort_key(newer)
    assert sort_releases([newer, older]) == [older, newer]


def test_sort_and_newest():
    assert sort_releases(["v3.5.0", "v2.53.0", "v2.45.0"]) == PROM
    assert newest(ETCD) == "v3.6"
    assert newest(["Release 17.20", "Release 9.10"]) == "Release 17.20"
    assert newest([]) is None


@pytest.mark.parametrize(
    "mention, available, expected",
    [
        ("3.5", ETCD, "v3.5"),
        ("v3.5", ETCD, "v3.5"),
        ("V3.5", ETCD, "v3.5"),
        ("3.5.x", ETCD, "v3.5"),
        ("3.5.0", ETCD, "v3.5"),
        ("release 3.5", ETCD, "v3.5"),
        ("etcd 3.5.x", ETCD, "v3.5"),
        ("3.4.29", ETCD, "v3.4"),
        ("3", ETCD, "v3.6"),
        ("3.x", PROM, "v3.5.0"),
        ("prom 3.5", PROM, "v3.5.0"),
        ("2.53", PROM, "v2.53.0"),
        ("v2.45", PROM, "v2.45.0"),
        ("2.53.0", PROM, "v2.53.0"),
        ("R17.2", QAMR, "Release 17.20"),
        ("17.20", QAMR, "Release 17.20"),
        ("Release 18.10", QAMR, "Release 18.10"),
        ("2024.4", ["2023.10", "2024.04"], "2024.04"),
        ("2.53", ["v2.53.0", "v2.53.1"], "v2.53.1"),  # a shorter spelling names the line: its newest
        ("2.53.0", ["v2.53.0", "v2.53.1"], "v2.53.0"),
    ],
)
def test_normalise(mention, available, expected):
    assert normalise_release(mention, available) == expected


@pytest.mark.parametrize(
    "mention, available",
    [
        ("3.7", ETCD),  # never snap to a neighbour
        ("3.3", ETCD),
        ("4", ETCD),
        ("2.44", PROM),
        ("2.0", PROM),  # not a prefix of 2.45.0: "remote write 2.0" must not become v2.53.0
        ("2.5", PROM),
        ("2024.1", ["2024.04", "2024.10"]),  # months pad on the left: 2024.1 is not 2024.10
        ("3.5.0-rc1", PROM),
        ("k8s 1.28", ETCD),
        ("latest", ETCD),
    ],
)
def test_normalise_refuses(mention, available):
    assert normalise_release(mention, available) is None


versions = st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=4).map(tuple)
names = st.one_of(
    versions.map(lambda v: "v" + ".".join(map(str, v))),
    versions.map(lambda v: ".".join(map(str, v)) + "-rc1"),
    versions.map(lambda v: "Release " + ".".join(map(str, v))),
    st.text(alphabet="abcxyz-_ ", max_size=6),
    st.text(max_size=10),
)


@given(st.lists(names, max_size=12), st.randoms())
def test_sorting_is_idempotent_and_permutation_invariant(items, rnd):
    ordered = sort_releases(items)
    assert sort_releases(ordered) == ordered
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert sort_releases(shuffled) == ordered


@given(versions, versions, st.sampled_from(["", "v", "R", "Release "]))
def test_order_matches_tuple_order(a, b, prefix):
    name_a, name_b = prefix + ".".join(map(str, a)), prefix + ".".join(map(str, b))
    if a != b:
        assert (release_sort_key(name_a) < release_sort_key(name_b)) == (a < b)


@given(st.lists(versions, min_size=1, max_size=6, unique=True))
def test_every_available_name_normalises_to_itself(tuples):
    available = ["v" + ".".join(map(str, t)) for t in tuples]
    random.Random(0).shuffle(available)
    for name in available:
        assert normalise_release(name, available) == name


@given(st.lists(versions, min_size=1, max_size=6, unique=True), st.data())
def test_spellings_agree(tuples, data):
    available = [".".join(map(str, t)) for t in tuples]
    numeric = data.draw(st.sampled_from(available))
    plain = normalise_release(numeric, available)
    assert plain is not None
    assert normalise_release("v" + numeric, available) == plain
    assert normalise_release(numeric + ".x", available) == plain
    assert normalise_release("v" + numeric + ".x", available) == plain
