"""The vector store: one shard (embedded) or collection (Qdrant server) per product release.

Both hold, per search chunk, a dense vector and a sparse BM25 vector whose IDF the engine computes, plus the search
fields of issue 15 (library/fields.py: title, heading path, file name and identifier BM25, heading-path dense), and
both answer a hybrid question in one engine query (a prefetch per query, kind and field, fused by reciprocal rank). Two backends speak
the same small interface, keyed by collection name: `edge_store.EdgeShards` (the Qdrant engine in-process, the
default) and `server_store.QdrantServer` (qdrant-client against `ASSISTANT_QDRANT_URL`). Writes go through a
LlamaIndex vector store (`EdgeVectorStore` / `QdrantVectorStore`); deletes use deterministic point ids.

A shard per release, not one per product with the release as an indexed field: release isolation needs no filter,
the IDF of a release's words is that release's own, dropping or rebuilding a release (another embedding model)
removes one folder, and a filtered query on a shared shard was no faster than an unfiltered one on a release's shard
(README, "The store", from benchmarks/store_bench.py).
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field, replace

import numpy as np
from llama_index.core.schema import TextNode

from assistant.library import fields as fl
from assistant.library.lexical import query_sparse

log = logging.getLogger(__name__)
DENSE = "text-dense"
SPARSE = "text-sparse"
# Every named vector of a point (issue 15): a shard or collection without all of them was made by an earlier version.
ALL_VECTORS = (DENSE, SPARSE, fl.HEADING_DENSE) + fl.SPARSE_FIELDS


class StoreLocked(RuntimeError):
    """Another process holds the embedded index folder."""


def collection_name(product: str, release: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", f"{product}__{release}".lower()).strip("_")[:40]
    digest = hashlib.sha1(f"{product}\0{release}".encode()).hexdigest()[:8]
    return f"docs_{slug}_{digest}"


@dataclass
class Hit:
    chunk_id: str
    score: float
    node: TextNode | None  # None where the payload was not asked for


DenseHit = Hit


@dataclass
class Probe:
    """One prefetch (or, unfused, one query) of a search: a named vector, its query, how many, its RRF weight."""

    using: str
    dense: list[float] | None
    sparse: tuple[list[int], list[float]] | None
    limit: int
    weight: float
    paths: tuple[str, ...] = ()  # searched in these files only (the payload's `path`); () is every file


@dataclass
class SearchSpec:
    """One release's share of a question: dense query vectors and lexical query texts, and how to combine them.

    `fuse`: reciprocal rank fusion inside the engine (each dense list weighted `dense_weight * 2`, each lexical one
    `(1 - dense_weight) * 2`); otherwise every list comes back whole for a fusion of the caller's (weighted).
    `fields` (fused searches only): the extra fields searched with `field_query` (sparse: BM25 on title, heading
    path, file name; `heading-dense` with the first dense vector; `ident-sparse` with `identifiers`, when the
    question names any), each with its RRF weight. `pages` (fused searches only): the body searched again, dense
    with the first vector and BM25 with `field_query`, within these files alone (a guide's limits pages)."""

    dense: list[np.ndarray]
    lexical: list[str]
    dense_k: int = 20
    lexical_k: int = 20
    fuse: bool = True
    rrf_k: int = 60
    dense_weight: float = 0.5
    fields: dict[str, float] = field(default_factory=dict)
    field_query: str = ""
    identifiers: list[str] = field(default_factory=list)
    ident_k: int = 3  # the identifier field's few best: the entries that define it, not every chunk naming it
    pages: list[str] = field(default_factory=list)  # files searched on their own too (answering/limits.py)
    pages_k: int = 3
    pages_votes: int = 2  # how many times each of those two lists is fused

    def weights(self) -> list[float]:
        return [self.dense_weight * 2] * len(self.dense) + [(1 - self.dense_weight) * 2] * len(self.lexical)

    def probes(self, available: set[str] | frozenset[str] = frozenset(ALL_VECTORS)) -> list[Probe]:
        """The prefetches in order: dense, lexical (body), then the fields the shard holds (an index made before
        issue 15 has none of them: it is searched as before until a sync rebuilds it)."""
        out = [Probe(DENSE, [float(x) for x in v], None, self.dense_k, self.dense_weight * 2) for v in self.dense]
        out += [Probe(SPARSE, None, query_sparse(t), self.lexical_k, (1 - self.dense_weight) * 2) for t in self.lexical]
        if not self.fuse:
            return out
        # A field's weight is how many times its list is fused (its votes): the engine's weighted RRF barely moves
        # at k = 60 (README: "Ranking"), a list fused twice counts twice. Fractions round to the nearest count.
        for name, weight in self.fields.items():
            votes = round(weight)
            if name not in available or votes <= 0:
                continue
            if name == fl.HEADING_DENSE:
                if self.dense:
                    out += [Probe(name, [float(x) for x in self.dense[0]], None, self.dense_k, 1.0)] * votes
            elif name == fl.IDENT:
                if self.identifiers:
                    out += [Probe(name, None, fl.ident_query(self.identifiers), self.ident_k, 1.0)] * votes
            elif self.field_query:
                sparse = query_sparse(self.field_query)
                if sparse[0]:
                    out += [Probe(name, None, sparse, self.lexical_k, 1.0)] * votes
        if self.pages:
            pages = tuple(self.pages)
            dense = [Probe(DENSE, [float(x) for x in v], None, self.pages_k, 1.0, pages) for v in self.dense[:1]]
            out += dense * self.pages_votes
            sparse = query_sparse(self.field_query)
            out += [Probe(SPARSE, None, sparse, self.pages_k, 1.0, pages)] * self.pages_votes if sparse[0] else []
        return out


def point_extras(node: TextNode, heading_vector: np.ndarray | None, sparse: dict | None = None) -> dict[str, object]:
    """A point's vectors beyond the body's: sparse pairs per field, and the heading path's dense vector. `sparse`:
    the node's fl.sparse_fields made already (by an ingestion worker, library/parse_pool.py)."""
    if sparse is None:
        sparse = fl.sparse_fields(node.metadata, node.get_content())
    extras: dict[str, object] = dict(sparse)
    if heading_vector is not None:
        extras[fl.HEADING_DENSE] = [float(x) for x in heading_vector]
    return extras


def _embed_view(node: TextNode) -> None:
    """Make the node's EMBED view (what LlamaIndex vector stores encode, here into the sparse vector) what the
    embedder saw: its title and section path (the `prefix` metadata, chunking.embed_text), then the chunk. Words of
    a heading then find the chunks under it, as they did in the BM25 matrix this replaces."""
    node.excluded_embed_metadata_keys = [key for key in node.metadata if key != "prefix"]
    node.metadata_template = "{value}"
    node.text_template = "{metadata_str}\n{content}"


class ReleaseStore:
    """The vectors of one release in a backend (EdgeShards or QdrantServer)."""

    def __init__(self, backend, product: str, release: str, dim: int) -> None:
        self.backend = backend
        self.product = product
        self.release = release
        self.name = collection_name(product, release)
        self.dim = dim

    def exists(self) -> bool:
        return self.backend.exists(self.name)

    def ensure(self) -> None:
        self.backend.ensure(self.name, self.dim)

    @property
    def vstore(self):
        """The LlamaIndex vector store over this release (created on first use)."""
        self.ensure()
        return self.backend.vector_store(self.name)

    def add(self, nodes: list[TextNode], vectors: np.ndarray | None = None,
            heading_vectors: np.ndarray | None = None, sparse: dict[str, dict] | None = None) -> None:
        """Store nodes with their embeddings (`vectors` rows, or each node's own `embedding`) and the embeddings of
        their heading paths (`heading_vectors` rows: without them `heading-dense` is left empty for these points);
        `sparse`: their sparse fields by node id where made already (else made here)."""
        if not nodes:
            return
        vstore = self.vstore
        # A payload holds the node as JSON and an embedding as a list of floats costs 8x its float32 row: in slices,
        # a file of 15,000 chunks costs ~40 MB at a time instead of ~600 MB (issue 6).
        for i in range(0, len(nodes), 512):
            part = nodes[i : i + 512]
            if vectors is not None:
                for node, vec in zip(part, vectors[i : i + 512]):
                    node.embedding = vec.tolist()
            heads = heading_vectors[i : i + 512] if heading_vectors is not None else [None] * len(part)
            extras = {node.node_id: point_extras(node, head, (sparse or {}).get(node.node_id))
                      for node, head in zip(part, heads)}
            for node in part:
                _embed_view(node)
            vstore.add(part, extras=extras)
            if vectors is not None:
                for node in part:
                    node.embedding = None

    def delete_ids(self, ids: list[str]) -> None:
        if ids and self.exists():
            self.backend.delete(self.name, ids)

    def drop(self) -> None:
        self.backend.drop(self.name)

    def finish(self) -> None:
        """End of a sync of this release: let the engine persist and index what was written."""
        if self.exists():
            self.backend.finish(self.name)

    def count(self) -> int:
        return self.backend.count(self.name)

    def empty(self) -> bool:
        """No point at all: one point fetched, where an exact count walks the whole shard (3 ms at 47k points)."""
        return self.backend.empty(self.name)

    def ids(self) -> set[str]:
        return self.backend.ids(self.name)

    def vector_size(self) -> int | None:
        """The size of the vectors stored (None: no shard or collection yet)."""
        return self.backend.vector_size(self.name)

    def vector_names(self) -> set[str]:
        """The named vectors the shard or collection holds (empty: none yet)."""
        return self.backend.vector_names(self.name)

    def outdated(self) -> bool:
        """Made by an earlier version, without every field of ALL_VECTORS: a sync must rebuild it."""
        names = self.vector_names()
        return bool(names) and not set(ALL_VECTORS) <= names

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        return self.backend.vectors(self.name, ids) if ids else {}

    def has_term(self, term: str) -> bool:
        """Whether any chunk of the release holds the (tokenized) term: the knowledge check's vocabulary."""
        return self.backend.has_term(self.name, term)

    def hybrid(self, spec: SearchSpec) -> tuple[list[Hit], list[list[Hit]], list[list[Hit]]]:
        """(fused hits, dense lists, lexical lists); a release never made, or dropped meanwhile, finds nothing."""
        if spec.dense:
            size = self.vector_size()
            if size is None:
                spec = replace(spec, dense=[])
            elif size != len(spec.dense[0]):  # another embedding model, release not yet re-indexed: words only
                log.warning("%s/%s holds %d-dimensional vectors and the query has %d (another embedding model): "
                            "dense search skipped until a sync re-indexes it", self.product, self.release, size,
                            len(spec.dense[0]))
                spec = replace(spec, dense=[])
        return self.backend.search(self.name, spec)

    def search(self, vector: np.ndarray, k: int) -> list[Hit]:
        """Dense nearest neighbours of one vector."""
        _, dense, _ = self.hybrid(SearchSpec([vector], [], dense_k=k, fuse=False))
        return dense[0] if dense else []

    def lexical(self, text: str, k: int) -> list[Hit]:
        """BM25 over the sparse vectors (identifiers whole, IDF from the engine)."""
        _, _, lexical = self.hybrid(SearchSpec([], [text], lexical_k=k, fuse=False))
        return lexical[0] if lexical else []
