"""The vector store, one set of tests for every backend (issue 13):

- `edge`: the Qdrant engine in-process (qdrant-edge-py), the default;
- `client`: the server path's code (qdrant-client + LlamaIndex's QdrantVectorStore) over qdrant-client's in-memory
  implementation of the server API, so that code runs in every session;
- `server`: the same against a real Qdrant server at ASSISTANT_TEST_QDRANT_URL, skipped with the reason when none is
  reachable.

Then what only the embedded engine has to show: a sync's chunks found by words and by meaning as soon as it reports
done, searches while a shard is dropped and rebuilt, and an index made by an earlier version rebuilt by the next sync.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest
from conftest import ETCD_CORPUS, run_in_threads
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import (
    ExactMatchFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
)

from assistant.library.store import ReleaseStore, SearchSpec
from assistant.settings import PROJECT_ROOT, Settings

DIM = 8
TEXTS = [
    "The --snapshot-count flag sets how many applied entries trigger a snapshot.",
    "Prometheus keeps samples for the retention time, fifteen days by default.",
    "Rotate TLS certificates for every member before they expire.",
    "Defragment the backend database to reclaim the space of deleted keys.",
    "The max_shards setting caps remote write parallelism.",
]


def _server_url() -> str:
    url = os.environ.get("ASSISTANT_TEST_QDRANT_URL")
    if not url:
        pytest.skip("no Qdrant server: set ASSISTANT_TEST_QDRANT_URL to run the store tests against one")
    from qdrant_client import QdrantClient

    try:
        QdrantClient(url=url, timeout=3).get_collections()
    except Exception as exc:  # the reason is the point of the skip
        pytest.skip(f"Qdrant server at {url} is not reachable: {exc}")
    return url


@pytest.fixture(params=["edge", "client", "server"])
def backend(request, tmp_path):
    from qdrant_client import QdrantClient

    from assistant.library.edge_store import EdgeShards
    from assistant.library.server_store import QdrantServer

    if request.param == "edge":
        made = EdgeShards(tmp_path / "edge")
    elif request.param == "client":
        made = QdrantServer(QdrantClient(":memory:"))
    else:
        made = QdrantServer(QdrantClient(url=_server_url()))
    yield made
    if request.param == "server":
        for release in ("r1", "r2"):
            ReleaseStore(made, "store-test", release, DIM).drop()
    made.close()


def _vectors(n: int, seed: int = 3) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _fill(backend, release: str = "r1", texts: list[str] = TEXTS, seed: int = 3) -> tuple[ReleaseStore, np.ndarray]:
    store = ReleaseStore(backend, "store-test", release, DIM)
    nodes = [TextNode(id_=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{release}/{i}")), text=t,
                      metadata={"product": "store-test", "release": release, "path": f"{release}/doc{i}.md"})
             for i, t in enumerate(texts)]
    vectors = _vectors(len(nodes), seed)
    store.add(nodes, vectors)
    store.finish()
    return store, vectors


def _paths(hits) -> list[str]:
    return [h.node.metadata["path"] for h in hits]


def test_points_are_stored_counted_and_found_by_meaning(backend):
    store, vectors = _fill(backend)
    assert store.exists() and store.count() == len(TEXTS) and store.vector_size() == DIM and not store.empty()
    assert len(store.ids()) == len(TEXTS)
    for i, vec in enumerate(vectors):
        hits = store.search(vec, 3)
        assert _paths(hits)[0] == f"r1/doc{i}.md" and hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert hits[0].node.get_content() == TEXTS[i]
    stored = store.vectors([hits[0].chunk_id])
    assert np.allclose(stored[hits[0].chunk_id], vectors[i], atol=1e-4)


def test_identifiers_are_found_whole_by_words(backend):
    store, _ = _fill(backend)
    assert _paths(store.lexical("what does --snapshot-count do?", 5))[0] == "r1/doc0.md"
    assert _paths(store.lexical("max_shards", 5)) == ["r1/doc4.md"]
    assert store.lexical("zebra quokka", 5) == []
    assert store.has_term("snapshot-count") and store.has_term("max_shards") and not store.has_term("quokka")


def test_hybrid_fuses_words_and_meaning_in_one_query(backend):
    store, vectors = _fill(backend)
    # Meaning points at doc 2, words at doc 4: RRF ranks both on top, each found by one list.
    fused, dense, lexical = store.hybrid(SearchSpec([vectors[2]], ["max_shards"], dense_k=2, lexical_k=2))
    assert dense == [] and len(lexical[0]) == 1 and lexical[0][0].node is None  # scores only: they label candidates
    assert set(_paths(fused[:2])) == {"r1/doc2.md", "r1/doc4.md"}
    assert lexical[0][0].chunk_id == next(h.chunk_id for h in fused if h.node.metadata["path"] == "r1/doc4.md")
    assert fused[0].score == pytest.approx(1 / 61, rel=1e-3)  # 1 / (k + rank), k = 60
    assert [h.score for h in fused] == sorted((h.score for h in fused), reverse=True)
    # Unfused, each list comes back whole with its own scores.
    fused, dense, lexical = store.hybrid(SearchSpec([vectors[2]], ["max_shards"], dense_k=2, lexical_k=2, fuse=False))
    assert fused == [] and _paths(dense[0])[0] == "r1/doc2.md" and _paths(lexical[0]) == ["r1/doc4.md"]


def test_deleted_points_leave_both_kinds_of_search(backend):
    store, vectors = _fill(backend)
    gone = store.search(vectors[4], 1)[0].chunk_id
    store.delete_ids([gone])
    assert store.count() == len(TEXTS) - 1 and store.lexical("max_shards", 5) == []
    assert gone not in {h.chunk_id for h in store.search(vectors[4], 5)} and store.vectors([gone]) == {}


def test_releases_never_see_each_other(backend):
    one, _ = _fill(backend, "r1")
    two, vectors = _fill(backend, "r2", seed=4)
    for vec in vectors:
        assert {h.node.metadata["release"] for h in one.search(vec, 5)} == {"r1"}
        assert {h.node.metadata["release"] for h in two.search(vec, 5)} == {"r2"}
    assert {h.node.metadata["release"] for h in two.lexical("snapshot-count", 5)} == {"r2"}


def test_a_dropped_release_finds_nothing_and_can_be_rebuilt(backend):
    store, vectors = _fill(backend)
    store.drop()
    assert not store.exists() and store.count() == 0 and store.vector_size() is None and store.empty()
    assert store.search(vectors[0], 3) == [] and store.lexical("max_shards", 3) == [] and not store.has_term("max_shards")
    assert store.hybrid(SearchSpec([vectors[0]], ["max_shards"])) == ([], [], [])
    _fill(backend)
    assert _paths(store.search(vectors[0], 1)) == ["r1/doc0.md"]


def test_the_llamaindex_vector_store_contract(backend):
    """Ingestion writes through a LlamaIndex vector store; queried as one, it answers in every mode."""
    store, vectors = _fill(backend)
    vstore = store.vstore
    result = vstore.query(VectorStoreQuery(query_embedding=vectors[1].tolist(), similarity_top_k=2))
    assert result.nodes[0].metadata["path"] == "r1/doc1.md" and len(result.similarities) == 2
    result = vstore.query(VectorStoreQuery(query_embedding=vectors[1].tolist(), query_str="max_shards",
                                           similarity_top_k=2, sparse_top_k=2, mode=VectorStoreQueryMode.HYBRID))
    assert {n.metadata["path"] for n in result.nodes} == {"r1/doc1.md", "r1/doc4.md"}
    filters = MetadataFilters(filters=[ExactMatchFilter(key="path", value="r1/doc3.md")])
    result = vstore.query(VectorStoreQuery(query_embedding=vectors[1].tolist(), similarity_top_k=3, filters=filters))
    assert [n.metadata["path"] for n in result.nodes] == ["r1/doc3.md"]
    vstore.delete_nodes([result.nodes[0].node_id])
    assert store.count() == len(TEXTS) - 1


# -- the embedded engine only --------------------------------------------------------------------------------------
def test_sparse_query_mode_of_the_edge_vector_store(tmp_path):
    from assistant.library.edge_store import EdgeShards

    backend = EdgeShards(tmp_path / "edge")
    store, _ = _fill(backend)
    result = store.vstore.query(VectorStoreQuery(query_str="--snapshot-count", similarity_top_k=3,
                                                 mode=VectorStoreQueryMode.SPARSE))
    assert [n.metadata["path"] for n in result.nodes] == ["r1/doc0.md"]
    backend.close()


def test_a_second_process_cannot_open_the_shards(tmp_path):
    import subprocess
    import sys

    from assistant.library.edge_store import EdgeShards

    backend = EdgeShards(tmp_path / "edge")
    code = ("import sys; from pathlib import Path; from assistant.library.edge_store import EdgeShards\n"
            "from assistant.library.store import StoreLocked\n"
            "try:\n    EdgeShards(Path(sys.argv[1]))\nexcept StoreLocked as exc:\n    print('locked:', exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "edge")], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("locked:") and "in use by another Docs Assistant process" in done.stdout
    backend.close()


def test_searches_while_shards_are_dropped_and_rebuilt_find_something_or_nothing_never_fail(tmp_path):
    """A sync deleting a release or rebuilding it (another model) closes the shard under a search in flight."""
    from assistant.library.edge_store import EdgeShards

    backend = EdgeShards(tmp_path / "edge")
    store, vectors = _fill(backend, texts=TEXTS * 40)
    done = threading.Event()
    outcomes = {"found": 0, "empty": 0}

    def churn() -> None:
        try:
            for _ in range(15):
                store.drop()
                _fill(backend, texts=TEXTS * 40)
        finally:
            done.set()

    def search() -> None:
        while not done.is_set():
            fused, _, _ = store.hybrid(SearchSpec([vectors[0]], ["snapshot-count"]))
            outcomes["found" if fused else "empty"] += 1
            store.vectors([h.chunk_id for h in fused[:3]])
            store.has_term("snapshot-count")

    assert run_in_threads(churn, search, search) == []
    assert outcomes["found"] > 0 and sum(outcomes.values()) > 15
    backend.close()


def _small_library(tmp_path: Path):
    from assistant.components import build_indexer

    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("demo", "1.0")
    for rel in ("learning/data_model.md", "dev-guide/interacting_v3.md"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ETCD_CORPUS / "v3.5" / rel, folder / rel)
    return settings, indexer, folder


def test_a_chunk_is_found_by_words_and_by_meaning_as_soon_as_its_sync_reports_done(tmp_path):
    settings, indexer, folder = _small_library(tmp_path)
    [first] = indexer.sync()
    assert first.files_indexed == 2
    (folder / "relay.md").write_text("# Quokka relay\n\nThe quokka relay flushes the wombat ledger to the "
                                     "zq-frobnicator every forty seconds.\n")
    [report] = indexer.sync()
    assert report.files_indexed == 1  # done: from here on, both kinds of search must find it
    store = ReleaseStore(indexer.store, "demo", "1.0", indexer.embedder.dim)
    assert _paths(store.lexical("zq-frobnicator", 3)) == ["relay.md"]
    question = indexer.embedder.embed(["How often is the marsupial relay's ledger written out?"])[0]
    assert _paths(store.search(question, 1)) == ["relay.md"]
    fused, _, _ = store.hybrid(SearchSpec([question], ["zq-frobnicator"]))
    assert _paths(fused)[0] == "relay.md"


def test_an_index_made_by_local_mode_is_rebuilt_by_the_next_sync_with_progress(tmp_path):
    """The earlier version's index: qdrant-client local mode under index/qdrant, BM25 files under index/bm25, and
    manifest rows whose recipe names no store format. Questions do not crash on it; the next sync rebuilds it."""
    import sqlite3

    from qdrant_client import QdrantClient, models

    from assistant.components import build_pipeline, close_stores
    from assistant.library.recipe import STORE_FORMAT
    from assistant.library.store import collection_name

    settings, indexer, folder = _small_library(tmp_path)
    [first] = indexer.sync()
    chunks = first.chunks
    close_stores()
    index = settings.index_dir
    shutil.rmtree(index / "edge")
    old = QdrantClient(path=str(index / "qdrant"))  # as the earlier version left it
    name = collection_name("demo", "1.0")
    old.create_collection(name, vectors_config={"text-dense": models.VectorParams(size=384, distance=models.Distance.COSINE)})
    old.upsert(name, [models.PointStruct(id=str(uuid.UUID(int=1)), vector={"text-dense": [0.1] * 384}, payload={})])
    old.close()
    (index / "bm25" / name).mkdir(parents=True)
    (index / "bm25" / name / "bm25.npz").write_bytes(b"an earlier version's BM25 weights")
    with sqlite3.connect(index / "manifest.sqlite") as db:
        db.execute("UPDATE files SET recipe = replace(recipe, ?, '')", (f".store{STORE_FORMAT}",))

    from assistant.components import build_indexer

    pipeline = build_pipeline(settings)
    result = pipeline.ask("How do I read a key in etcd?", product="demo", search_only=True)
    assert result.status == "ok"  # nothing to find yet, and no crash
    indexer = build_indexer(settings)
    seen = []
    [report] = indexer.sync(progress=seen.append)
    assert report.files_indexed == 2 and report.chunks == chunks and seen and seen[-1].files_done == 2
    assert not (index / "qdrant").exists() and not (index / "bm25").exists()
    assert indexer.verify("demo", "1.0") == []
    result = pipeline.ask("How do I read a key in etcd?", product="demo", search_only=True)
    assert result.sources and result.sources[0].path == "dev-guide/interacting_v3.md"
    [again] = indexer.sync()
    assert again.files_indexed == 0 and again.files_unchanged == 2
