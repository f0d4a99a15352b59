"""The store against a Qdrant server (`ASSISTANT_QDRANT_URL`): qdrant-client and LlamaIndex's `QdrantVectorStore`,
one collection per release, the same dense + sparse BM25 vectors and the same one-query hybrid search as the
embedded shards (edge_store.py). A server does its own locking; nothing here serialises calls."""

from __future__ import annotations

import numpy as np
from llama_index.core.vector_stores.utils import metadata_dict_to_node
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import models

from assistant.library import fields as fl
from assistant.library.lexical import document_sparse, query_sparse, term_index
from assistant.library.store import ALL_VECTORS, DENSE, SPARSE, Hit, Probe, SearchSpec


def _documents(texts: list[str]) -> tuple[list[list[int]], list[list[float]]]:
    pairs = [document_sparse(t) for t in texts]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _queries(texts: list[str]) -> tuple[list[list[int]], list[list[float]]]:
    pairs = [query_sparse(t) for t in texts]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _vector(value):
    return models.SparseVector(indices=value[0], values=value[1]) if isinstance(value, tuple) else value


def _query(probe: Probe):
    return probe.dense if probe.dense is not None else models.SparseVector(indices=probe.sparse[0],
                                                                          values=probe.sparse[1])


class FieldedQdrantVectorStore(QdrantVectorStore):
    """QdrantVectorStore writing every field of a point (store.point_extras) beside its dense and body vectors."""

    _extras: dict = PrivateAttr(default_factory=dict)

    def add(self, nodes, extras: dict | None = None, **add_kwargs):
        self._extras = extras or {}
        try:
            return super().add(nodes, **add_kwargs)
        finally:
            self._extras = {}

    def _build_points(self, nodes, sparse_vector_name):
        points, ids = super()._build_points(nodes, sparse_vector_name)
        for point in points:
            point.vector.update((name, _vector(v)) for name, v in self._extras.get(str(point.id), {}).items())
        return points, ids


def _hit(point) -> Hit:
    return Hit(str(point.id), float(point.score), metadata_dict_to_node(point.payload) if point.payload else None)


class QdrantServer:
    """The backend over a `QdrantClient` (a server, or any client with the same API)."""

    def __init__(self, client) -> None:
        self.client = client

    def exists(self, name: str) -> bool:
        return self.client.collection_exists(name)

    def ensure(self, name: str, dim: int) -> None:
        if self.exists(name) and not set(ALL_VECTORS) <= self.vector_names(name):
            self.client.delete_collection(name)  # made by an earlier version (fewer fields): its files are re-indexed
        if not self.exists(name):
            self.client.create_collection(
                name, vectors_config={n: models.VectorParams(size=dim, distance=models.Distance.COSINE)
                                      for n in (DENSE, fl.HEADING_DENSE)},
                sparse_vectors_config={n: models.SparseVectorParams(modifier=models.Modifier.IDF)
                                       for n in (SPARSE,) + fl.SPARSE_FIELDS},
            )

    def vector_names(self, name: str) -> set[str]:
        try:
            params = self.client.get_collection(name).config.params
        except Exception:
            return set()
        vectors = params.vectors if isinstance(params.vectors, dict) else {}
        return set(vectors) | set(params.sparse_vectors or {})

    def drop(self, name: str) -> None:
        if self.exists(name):
            self.client.delete_collection(name)

    def vector_size(self, name: str) -> int | None:
        try:
            vectors = self.client.get_collection(name).config.params.vectors
        except Exception:
            if self.exists(name):
                raise
            return None  # never made, or dropped by a sync
        return (vectors[DENSE] if isinstance(vectors, dict) else vectors).size

    def vector_store(self, name: str) -> QdrantVectorStore:
        vstore = FieldedQdrantVectorStore(client=self.client, collection_name=name, batch_size=256, enable_hybrid=True,
                                   dense_vector_name=DENSE, sparse_vector_name=SPARSE,
                                   sparse_doc_fn=_documents, sparse_query_fn=_queries)
        vstore._collection_initialized = True  # made by ensure(), with the sparse vector's IDF modifier
        return vstore

    def delete(self, name: str, ids: list[str]) -> None:
        for i in range(0, len(ids), 1000):
            self.client.delete(name, points_selector=models.PointIdsList(points=ids[i : i + 1000]), wait=True)

    def finish(self, name: str) -> None:
        """A server indexes on its own schedule."""

    def _guard(self, name: str, call, empty):
        if not self.exists(name):
            return empty
        try:
            return call()
        except Exception:
            if self.exists(name):
                raise
            return empty  # dropped between the two calls by a sync

    def count(self, name: str) -> int:
        return self._guard(name, lambda: self.client.count(name, exact=True).count, 0)

    def empty(self, name: str) -> bool:
        return not self._guard(name, lambda: self.client.scroll(name, limit=1, with_payload=False,
                                                                with_vectors=False)[0], [])

    def ids(self, name: str) -> set[str]:
        def scroll() -> set[str]:
            out: set[str] = set()
            offset = None
            while True:
                points, offset = self.client.scroll(name, limit=2048, offset=offset, with_payload=False,
                                                    with_vectors=False)
                out.update(str(p.id) for p in points)
                if offset is None:
                    return out
        return self._guard(name, scroll, set())

    def vectors(self, name: str, ids: list[str]) -> dict[str, np.ndarray]:
        def fetch():
            return {str(p.id): np.asarray(p.vector[DENSE], dtype=np.float32)
                    for p in self.client.retrieve(name, ids=ids, with_vectors=[DENSE], with_payload=False)}
        return self._guard(name, fetch, {})

    def has_term(self, name: str, term: str) -> bool:
        probe = models.SparseVector(indices=[term_index(term)], values=[1.0])
        return bool(self._guard(name, lambda: self.client.query_points(name, query=probe, using=SPARSE, limit=1).points, []))

    def search(self, name: str, spec: SearchSpec) -> tuple[list[Hit], list[list[Hit]], list[list[Hit]]]:
        probes = spec.probes(self.vector_names(name) if spec.fuse and spec.fields else frozenset(ALL_VECTORS))
        dense = [(_query(p), p.using, p.limit) for p in probes[: len(spec.dense)]]
        lexical = [(_query(p), p.using, p.limit) for p in probes[len(spec.dense) : len(spec.dense) + len(spec.lexical)]]
        if spec.fuse:
            if not (dense or lexical):
                return [], [], []
            fused = models.QueryRequest(
                prefetch=[models.Prefetch(query=_query(p), using=p.using, limit=p.limit, filter=_in_files(p.paths))
                          for p in probes],
                query=models.RrfQuery(rrf=models.Rrf(k=spec.rrf_k + 1, weights=[p.weight for p in probes])),
                limit=sum(k for _, _, k in dense + lexical), with_payload=True)  # as edge_store
            requests = [fused] + [models.QueryRequest(query=q, using=u, limit=k, with_payload=False) for q, u, k in lexical]
        else:
            requests = [models.QueryRequest(query=q, using=u, limit=k, with_payload=True) for q, u, k in dense + lexical]
        if not requests:
            return [], [], []
        answers = self._guard(name, lambda: self.client.query_batch_points(name, requests=requests), None)
        if answers is None:
            return [], [], []
        lists = [[_hit(p) for p in answer.points] for answer in answers]
        if spec.fuse:
            return lists[0], [], lists[1:]
        return [], lists[: len(dense)], lists[len(dense) :]

    def close(self) -> None:
        self.client.close()


def _in_files(paths: tuple[str, ...]) -> models.Filter | None:
    if not paths:
        return None
    return models.Filter(must=[models.FieldCondition(key="path", match=models.MatchAny(any=list(paths)))])
