"""The vector store: one Qdrant collection per product release.

QAMR keeps one corpus per release, and Qdrant's local mode answers an unfiltered query on 20k points in ~70 ms but
a payload-filtered one in ~1 s: a collection per release gives release isolation with no filter at all, and a
cross-release question simply searches two collections. Writes go through LlamaIndex's `QdrantVectorStore`;
deletes use deterministic point ids (never a payload filter), so they stay fast in local mode.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass

import numpy as np
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import VectorStoreQuery
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import models

log = logging.getLogger(__name__)


def collection_name(product: str, release: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", f"{product}__{release}".lower()).strip("_")[:40]
    digest = hashlib.sha1(f"{product}\0{release}".encode()).hexdigest()[:8]
    return f"docs_{slug}_{digest}"


@dataclass
class DenseHit:
    chunk_id: str
    score: float
    node: TextNode


class ReleaseStore:
    """Dense vectors of one release."""

    def __init__(self, client, product: str, release: str, dim: int) -> None:
        self.client = client
        self.product = product
        self.release = release
        self.name = collection_name(product, release)
        self.dim = dim
        self.vstore = QdrantVectorStore(client=client, collection_name=self.name, batch_size=256)

    def exists(self) -> bool:
        return self.client.collection_exists(self.name)

    def ensure(self) -> None:
        if not self.exists():
            self.client.create_collection(
                self.name,
                vectors_config={"text-dense": models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
            )
        # QdrantVectorStore caches "collection exists" at construction time; refresh it.
        self.vstore._collection_initialized = True

    def add(self, nodes: list[TextNode], vectors: np.ndarray | None = None) -> None:
        """Store nodes with their embeddings (`vectors` rows, or each node's own `embedding`)."""
        if nodes:
            self.ensure()
            # LlamaIndex builds every point (payload with the node as JSON) before the first upload, and an
            # embedding as a list of floats costs 8x its float32 row: in slices, a file of 15,000 chunks costs
            # ~40 MB at a time instead of ~600 MB (issue 6).
            for i in range(0, len(nodes), 512):
                part = nodes[i : i + 512]
                if vectors is not None:
                    for node, vec in zip(part, vectors[i : i + 512]):
                        node.embedding = vec.tolist()
                self.vstore.add(part)
                if vectors is not None:
                    for node in part:
                        node.embedding = None

    def delete_ids(self, ids: list[str]) -> None:
        if ids and self.exists():
            for i in range(0, len(ids), 1000):
                self.client.delete(self.name, points_selector=models.PointIdsList(points=ids[i : i + 1000]), wait=True)

    def drop(self) -> None:
        if self.exists():
            self.client.delete_collection(self.name)

    def count(self) -> int:
        return self.client.count(self.name, exact=True).count if self.exists() else 0

    def vector_size(self) -> int | None:
        """The size of the vectors stored (None: no collection yet). Cheap: local mode reads it from memory."""
        try:
            vectors = self.client.get_collection(self.name).config.params.vectors
        except Exception:
            if self.exists():
                raise
            return None  # never made, or dropped by a sync
        return (vectors["text-dense"] if isinstance(vectors, dict) else vectors).size

    def search(self, vector: np.ndarray, k: int) -> list[DenseHit]:
        size = self.vector_size()
        if size is None:
            return []
        if size != len(vector):  # embedding model changed and the release not yet re-indexed: words only for now
            log.warning("%s/%s holds %d-dimensional vectors and the query has %d (another embedding model): "
                        "dense search skipped until a sync re-indexes it", self.product, self.release, size, len(vector))
            return []
        try:
            result = self.vstore.query(VectorStoreQuery(query_embedding=vector.tolist(), similarity_top_k=k))
        except Exception:
            if self.exists():
                raise
            return []  # dropped between the two calls by a sync (a deleted release, another model): nothing to find
        hits = []
        for node, score in zip(result.nodes or [], result.similarities or []):
            hits.append(DenseHit(node.node_id, float(score), node))
        return hits
