"""Property-based tests (hypothesis) for the pure stages not already covered in test_stages_pure.py and
test_versions.py: dual chunking, release-name normalisation on arbitrary input, BM25 on arbitrary text, citations.

Chunking runs the real DualChunkParser with a word counter (len(text.split())) standing in for the tokenizer: the
packing logic is the same for any counter, and no model is needed.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.answering import citations as cite
from assistant.library.chunking import (
    MAX_PREFIX_TOKENS,
    DualChunkParser,
    embed_prefix,
    embed_text,
    section_documents,
)
from assistant.library.documents import ParsedDocument, Section
from assistant.library.versions import normalise_release


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def squash(text: str) -> str:
    return "".join(text.split())


# -- dual chunking ----------------------------------------------------------------------------------------------------
word = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGH0123456789-_./:=`'\"()[]", min_size=1, max_size=12),
    st.sampled_from(["etcd", "--snapshot-count", "v3.5", "Raft.", "It", "ünïcødé", "名前", "(see", "note)", "e.g."]),
    st.text(alphabet="x", min_size=150, max_size=400),  # a token-free run (hash, minified data)
)
gap = st.sampled_from([" ", " ", " ", "  ", "\n", "\n", ". ", "! ", "? ", "\n\n", "\n \n", "\n\n\n", "\t", "\u00a0"])


@st.composite
def section_text(draw) -> str:
    """Up to ~1,000 words: drawn vocabulary and gaps, laid out by a drawn random generator (lists of that length
    drawn element by element would mostly come out tiny)."""
    vocab = draw(st.lists(word, min_size=1, max_size=20))
    gaps = draw(st.lists(gap, min_size=1, max_size=8))
    rnd = draw(st.randoms(use_true_random=False))
    text = "".join(rnd.choice(vocab) + rnd.choice(gaps) for _ in range(draw(st.integers(1, 1000))))
    return text if text.strip() else "x"


@st.composite
def parsed_document(draw) -> ParsedDocument:
    n = draw(st.integers(min_value=1, max_value=4))
    crumbs = st.lists(st.text(alphabet="Setup Config raft ", min_size=1, max_size=30), max_size=6)  # sometimes past MAX_PREFIX_TOKENS words
    sections = [Section(text=draw(section_text()), section_path=draw(crumbs), page=i + 1) for i in range(n)]
    return ParsedDocument(title=draw(st.text(alphabet="Guide etcd ", max_size=40)), sections=sections, kind="pdf")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(parsed_document(), st.integers(min_value=8, max_value=80), st.integers(min_value=5, max_value=300),
       st.integers(min_value=0, max_value=40))
def test_search_chunks_cover_each_section_exactly_once_and_map_to_their_context(doc, search, context, padding):
    parser = DualChunkParser(words, search_tokens=search, context_tokens=context, padding_tokens=padding)
    nodes = parser.get_nodes_from_documents(section_documents(doc, product="p", release="r", path="guide.pdf"))
    searches = sorted((n for n in nodes if n.metadata["kind"] == "search"), key=lambda n: n.metadata["chunk_no"])
    contexts = {n.node_id: n for n in nodes if n.metadata["kind"] == "context"}

    assert [n.metadata["chunk_no"] for n in searches] == list(range(len(searches)))
    assert len({n.node_id for n in searches}) == len(searches)
    for i, section in enumerate(doc.sections, start=1):
        # No text lost or repeated: a section's search chunks, in order, are the section (modulo whitespace).
        mine = [n for n in searches if n.metadata["page"] == i]
        assert squash("".join(n.get_content() for n in mine)) == squash(section.text)
        assert all(contexts[n.metadata["context_id"]].metadata["page"] == i for n in mine)
    for n in searches:
        # Every search chunk maps to an existing context chunk whose core contains it ...
        ctx = contexts[n.metadata["context_id"]]
        assert squash(n.get_content()) in squash(ctx.metadata["core"])
        assert ctx.metadata["core"] in ctx.get_content()
        # ... and fits the search budget left after its title and section prefix, itself shortened when too long.
        prefix = words([n.metadata["prefix"]])[0]
        full = words([embed_prefix(n.metadata["title"], n.metadata["section"])])[0]
        assert prefix == full if full <= MAX_PREFIX_TOKENS else prefix <= MAX_PREFIX_TOKENS
        assert words([n.get_content()])[0] <= max(search - prefix, 32)
        assert words([embed_text(n)])[0] <= max(search, prefix + 32)
    for ctx_id, ctx in contexts.items():
        # ... and a context's core is exactly its search chunks: none shared between contexts.
        mine = [n for n in searches if n.metadata["context_id"] == ctx_id]
        assert mine and squash(ctx.metadata["core"]) == squash("".join(n.get_content() for n in mine))


# -- release names ----------------------------------------------------------------------------------------------------
versions = st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=3).map(lambda v: ".".join(map(str, v)))
release_names = st.one_of(
    versions.map(lambda v: "v" + v), versions, versions.map(lambda v: v + "-rc1"), versions.map(lambda v: "Release " + v),
    st.text(max_size=12),
)


@given(st.text(max_size=40), st.lists(release_names, max_size=8, unique=True))
def test_normalise_never_raises_and_only_answers_with_an_available_name(mention, available):
    assert normalise_release(mention, available) in [None, *available]


@given(st.lists(release_names, min_size=1, max_size=8, unique_by=str.casefold))
def test_normalise_finds_every_available_name_in_any_case(available):
    for name in available:
        if name.strip() == name:
            assert normalise_release(name.upper(), available) == name
            assert normalise_release(name.swapcase(), available) == name


@given(st.lists(versions, min_size=1, max_size=6, unique=True), st.integers(min_value=41, max_value=999))
def test_a_major_the_library_does_not_have_never_snaps_to_a_neighbour(numbers, major):
    available = ["v" + n for n in numbers]
    assert normalise_release(f"v{major}", available) is None
    assert normalise_release(f"{major}.{numbers[0]}", available) is None


# -- BM25 in the store's engine ----------------------------------------------------------------------------------------------
def _lexical_store(texts: list[str]):
    """A real Edge shard holding `texts` (dense vectors do not matter here); the caller closes it."""
    import tempfile

    import numpy as np
    from llama_index.core.schema import TextNode

    from assistant.library.edge_store import EdgeShards
    from assistant.library.store import ReleaseStore

    folder = tempfile.TemporaryDirectory()
    backend = EdgeShards(Path(folder.name))
    store = ReleaseStore(backend, "p", "r", 4)
    nodes = [TextNode(id_=str(uuid.UUID(int=i + 1)), text=t, metadata={"path": f"c{i}"}) for i, t in enumerate(texts)]
    store.add(nodes, np.ones((len(nodes), 4), dtype=np.float32))
    return store, backend, folder


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=120), min_size=1, max_size=12), st.text(max_size=80))
def test_bm25_builds_and_searches_any_text(texts, query):
    store, backend, folder = _lexical_store(texts)
    try:
        hits = store.lexical(query, 5)
    finally:
        backend.close()
        folder.cleanup()
    assert len(hits) <= 5 and {h.node.metadata["path"] for h in hits} <= {f"c{i}" for i in range(len(texts))}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abc def ghi", max_size=60), min_size=1, max_size=8), st.data())
def test_bm25_finds_the_one_chunk_holding_a_unique_identifier(texts, data):
    target = data.draw(st.integers(min_value=0, max_value=len(texts) - 1))
    texts = list(texts)
    texts[target] += " the --zq-unique_flag setting"
    store, backend, folder = _lexical_store(texts)
    try:
        assert store.lexical("what does --zq-unique_flag do?", 3)[0].node.metadata["path"] == f"c{target}"
    finally:
        backend.close()
        folder.cleanup()


# -- citations --------------------------------------------------------------------------------------------------------------
@given(st.lists(st.one_of(st.text(alphabet="abc .,;\n", max_size=15),
                          st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=3)), max_size=10),
       st.integers(min_value=0, max_value=8))
def test_citations_keep_valid_markers_drop_invented_ones_and_keep_the_prose(pieces, n_sources):
    answer = "".join(p if isinstance(p, str) else "[" + ", ".join(map(str, p)) + "]" for p in pieces)
    sources = [cite.Source(n=i, product="p", release="r", path=f"f{i}", page=None, section="", title="", score=0.0,
                           text="") for i in range(1, n_sources + 1)]
    cleaned, out = cite.apply(answer, sources)
    valid = {n for p in pieces if not isinstance(p, str) for n in p if 1 <= n <= n_sources}
    assert set(cite.cited_numbers(cleaned)) == valid
    assert {s.n for s in out if s.cited} == valid
    marker = re.compile(r"\[[\d,\s]*\]")
    assert marker.sub("", cleaned) == marker.sub("", answer)  # only markers change
