"""Retrieval (stage 5): dense and BM25 search per query in the target release(s), fused, thresholded, mapped from
search chunks to their context chunks.

Every retriever is a LlamaIndex `BaseRetriever` speaking `NodeWithScore`; per-stage scores travel in the node's
metadata (`dense`, `bm25`, `fused`) so the app and the evaluation can show where a candidate came from.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.answering.fusion import margin_filter, mmr, rrf, weighted_average
from assistant.library.lexical import BM25Index
from assistant.library.manifest import Manifest
from assistant.library.store import ReleaseStore

log = logging.getLogger(__name__)


@dataclass
class RetrievalParams:
    dense_k: int = 20
    bm25_k: int = 20
    use_dense: bool = True
    use_bm25: bool = True
    fusion: str = "rrf"  # rrf | weighted (Ericsson) | dense (naive)
    rrf_k: int = 60
    dense_weight: float = 0.5
    threshold: float | None = None  # minimum dense cosine (Ericsson's similarity threshold)
    use_mmr: bool = False
    mmr_lambda: float = 0.7
    margin: float | None = None  # DECO's margin filter on the final relevance score
    candidates: int = 20  # search chunks kept after fusion
    contexts: int = 6  # context chunks passed on


@dataclass
class ReleaseIndex:
    """Everything needed to search one release; BM25 is loaded lazily and reloaded when the release changes."""

    product: str
    release: str
    store: ReleaseStore
    manifest: Manifest
    bm25_dir: object
    model_tag: str | None = None  # the current embedding model (ingest.embedding_model_tag); None: recipes unchecked
    _bm25: BM25Index | None = field(default=None, repr=False)
    _dense_ok: tuple[str, bool] | None = field(default=None, repr=False)

    @property
    def dense_ok(self) -> bool:
        """False while the release holds vectors the current embedding model did not make: a file whose recipe names
        another model (same vector size or not: their cosines against this model's query vectors mean nothing), or a
        collection of another vector size (files indexed before recipes were recorded say nothing of their model).
        The release then answers by words only until the re-index that the model change started has finished.
        Checked once per manifest generation."""
        gen = str(self.manifest.generation(self.product, self.release))
        if self._dense_ok is None or self._dense_ok[0] != gen:
            other = self.manifest.files_by_other_model(self.product, self.release, self.model_tag) if self.model_tag else 0
            size = self.store.vector_size()
            ok = other == 0 and size in (None, self.store.dim)
            if not ok:
                log.warning("%s/%s holds vectors of another embedding model (%d files by recipe; %s-dimensional, the "
                            "model makes %d): searching by words only until a sync re-indexes it",
                            self.product, self.release, other, size, self.store.dim)
            self._dense_ok = (gen, ok)
        return self._dense_ok[1]

    @property
    def bm25(self) -> BM25Index | None:
        gen = str(self.manifest.generation(self.product, self.release))
        if self._bm25 is None or self._bm25.stamp != gen:
            self._bm25 = BM25Index.load(self.bm25_dir)
        return self._bm25


def _node(row: dict) -> TextNode:
    meta = {k: row[k] for k in ("product", "release", "path", "title", "section", "page", "context_id", "chunk_no")}
    return TextNode(id_=row["id"], text=row["text"], metadata=meta)


class DenseRetriever(BaseRetriever):
    def __init__(self, index: ReleaseIndex, embed_model: BaseEmbedding, k: int = 20) -> None:
        super().__init__()
        self.index, self.embed_model, self.k = index, embed_model, k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        vec = np.asarray(query_bundle.embedding or self.embed_model.get_query_embedding(query_bundle.query_str), dtype=np.float32)
        out = []
        for hit in self.index.store.search(vec, self.k):
            hit.node.metadata["dense"] = hit.score
            out.append(NodeWithScore(node=hit.node, score=hit.score))
        return out


class LexicalRetriever(BaseRetriever):
    def __init__(self, index: ReleaseIndex, k: int = 20) -> None:
        super().__init__()
        self.index, self.k = index, k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        bm25 = self.index.bm25
        if bm25 is None:
            return []
        hits = bm25.search(query_bundle.query_str, self.k)
        rows = self.index.manifest.chunk_rows([h.chunk_id for h in hits])
        out = []
        for h in hits:
            if h.chunk_id in rows:
                node = _node(rows[h.chunk_id])
                node.metadata["bm25"] = h.score
                out.append(NodeWithScore(node=node, score=h.score))
        return out


@dataclass
class RetrievalResult:
    candidates: list[NodeWithScore]  # search chunks after fusion, threshold and MMR (descending)
    per_query: dict[str, dict[str, int]]  # query -> {"dense": n, "bm25": n} hits, for the trace
    dense_skipped: list[str] = field(default_factory=list)  # releases searched by words only (another model's vectors)


class HybridRetriever(BaseRetriever):
    """Several search queries x one or two releases x (dense, BM25), fused into one ranking."""

    def __init__(self, indexes: list[ReleaseIndex], embed_model: BaseEmbedding, params: RetrievalParams) -> None:
        super().__init__()
        self.indexes, self.embed_model, self.params = indexes, embed_model, params

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.search([query_bundle.query_str]).candidates

    def search(self, queries: list[str], dense_queries: list[str] | None = None) -> RetrievalResult:
        p = self.params
        dense_queries = dense_queries if dense_queries is not None else queries
        vectors = self.embed_model.get_text_embedding_batch(dense_queries) if p.use_dense and dense_queries else []
        rankings: list[list[str]] = []
        weights: list[float] = []
        dense_scores: list[dict[str, float]] = []
        bm25_scores: list[dict[str, float]] = []
        nodes: dict[str, TextNode] = {}
        per_query: dict[str, dict[str, int]] = {}
        skipped: list[str] = []
        for index in self.indexes:
            if p.use_dense and not index.dense_ok:
                skipped.append(index.release)
            elif p.use_dense:
                retriever = DenseRetriever(index, self.embed_model, p.dense_k)
                for q, vec in zip(dense_queries, vectors):
                    hits = retriever.retrieve(QueryBundle(query_str=q, embedding=vec))
                    self._collect(hits, nodes, rankings, dense_scores, "dense")
                    weights.append(p.dense_weight * 2)
                    per_query.setdefault(q, {}).setdefault("dense", 0)
                    per_query[q]["dense"] += len(hits)
            if p.use_bm25:
                retriever = LexicalRetriever(index, p.bm25_k)
                for q in queries:
                    hits = retriever.retrieve(QueryBundle(query_str=q))
                    self._collect(hits, nodes, rankings, bm25_scores, "bm25")
                    weights.append((1 - p.dense_weight) * 2)
                    per_query.setdefault(q, {}).setdefault("bm25", 0)
                    per_query[q]["bm25"] += len(hits)

        if p.fusion == "weighted":
            fused = weighted_average([_max_merge(dense_scores), _max_merge(bm25_scores)], [p.dense_weight, 1 - p.dense_weight])
        elif p.fusion == "dense":
            fused = _max_merge(dense_scores)
        else:
            fused = rrf(rankings, k=p.rrf_k, weights=weights)

        qvec = np.asarray(vectors[0], dtype=np.float32) if len(vectors) else None
        self._fill_dense(nodes, qvec)
        ranked = sorted(fused, key=lambda key: -fused[key])
        out = []
        for key in ranked:
            node = nodes[key]
            node.metadata["fused"] = fused[key]
            cos = node.metadata.get("dense")
            if p.threshold is not None and cos is not None and cos < p.threshold:
                continue
            out.append(NodeWithScore(node=node, score=fused[key]))
        if p.use_mmr and qvec is not None and out:
            vecs = np.array([n.node.metadata.pop("_vec") for n in out if "_vec" in n.node.metadata] or [[0.0]])
            if len(vecs) == len(out):
                order = mmr(qvec, vecs, k=min(p.candidates, len(out)), lam=p.mmr_lambda)
                out = [out[i] for i in order]
        for n in out:
            n.node.metadata.pop("_vec", None)
        return RetrievalResult(out[: p.candidates], per_query, skipped)

    @staticmethod
    def _collect(hits, nodes, rankings, score_lists, kind: str) -> None:
        ranking, scores = [], {}
        for h in hits:
            key = h.node.node_id
            if key in nodes:
                nodes[key].metadata[kind] = max(nodes[key].metadata.get(kind, float("-inf")), h.score)
            else:
                nodes[key] = h.node
            ranking.append(key)
            scores[key] = h.score
        rankings.append(ranking)
        score_lists.append(scores)

    def _fill_dense(self, nodes: dict[str, TextNode], qvec: np.ndarray | None) -> None:
        """Cosine for every candidate, BM25-only hits included: thresholds and the knowledge check need it."""
        if qvec is None or not nodes:
            return
        by_release: dict[tuple[str, str], list[str]] = {}
        for key, node in nodes.items():
            by_release.setdefault((node.metadata["product"], node.metadata["release"]), []).append(key)
        for index in self.indexes:
            keys = by_release.get((index.product, index.release), [])
            if not keys or not index.dense_ok or not index.store.exists():
                continue  # no vectors, or another model's (their cosine means nothing, or their size differs)
            for point in index.store.client.retrieve(index.store.name, ids=keys, with_vectors=True, with_payload=False):
                vec = point.vector["text-dense"] if isinstance(point.vector, dict) else point.vector
                vec = np.asarray(vec, dtype=np.float32)
                node = nodes[str(point.id)]
                node.metadata["dense"] = float(vec @ qvec)
                node.metadata["_vec"] = vec


def _max_merge(score_lists: list[dict[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for scores in score_lists:
        for key, s in scores.items():
            out[key] = max(out.get(key, float("-inf")), s)
    return out


def relevance(node: NodeWithScore) -> float:
    """A calibrated relevance: the cross-encoder's score when reranked, else the dense cosine."""
    md = node.node.metadata
    return float(md.get("rerank", md.get("dense", 0.0)))


def keep_by_margin(nodes: list[NodeWithScore], margin: float | None) -> list[NodeWithScore]:
    """DECO's margin filter on calibrated relevance (fused RRF scores have no meaningful scale)."""
    if margin is None or not nodes:
        return nodes
    ranked = sorted((relevance(n) for n in nodes), reverse=True)
    floor = ranked[margin_filter(ranked, margin) - 1]
    return [n for n in nodes if relevance(n) >= floor]
