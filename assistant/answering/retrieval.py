"""Retrieval (stage 5): dense and lexical (BM25) search per query in the target release(s), fused, thresholded,
mapped from search chunks to their context chunks.

Both kinds run inside the store's engine in one query per release: a prefetch per query and kind, fused there by
reciprocal rank (DECO, QAMR). Lists of different releases never share a chunk, so merging the releases' fused lists
by score is the RRF of all lists at once. Ericsson's weighted average needs each list's raw scores: those come back
whole and are fused here (fusion.weighted_average).

The retriever is a LlamaIndex `BaseRetriever` speaking `NodeWithScore`; per-stage scores travel in the node's
metadata (`dense`, `bm25`, `fused`) so the app and the evaluation can show where a candidate came from.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.answering.limits import asks_limit, for_question, guide_folders, limit_pages
from assistant.answering.fusion import (changelog_scores, changelog_slot, dense_only_slot, fused_order, margin_filter,
                                       mmr, spread_files, weighted_average)
from assistant.library.fields import query_identifiers
from assistant.library.manifest import Manifest
from assistant.library.store import Hit, ReleaseStore, SearchSpec

log = logging.getLogger(__name__)

# The limits pages searched on their own are off-topic when their best chunk's cosine is this far under the best
# candidate's; then every chunk of theirs leaves the candidates, those the ordinary search found too: "how long are
# --auto-tls certs valid" (etcd's limit.md 0.40, the security guide 0.73), "launch template versions limit" (0.33 /
# 0.69). Limits golds sit closer: at most 0.27 under (BatchWriteItem's requests,
# 0.46 / 0.73; README: "Ranking", AWS round 3).
LIMIT_GATE = 0.28


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
    # DECO's multi-field search (rrf only): extra fields of the store (library/fields.py) and their RRF weights,
    # searched with the first query (the question as asked); the identifier field with the question's identifiers.
    fields: tuple[tuple[str, float], ...] = ()
    ident_k: int = 3  # how many of the identifier field's hits are fused (its best: where the identifier is defined)
    distinct_files: int = 0  # the first n contexts come from n different files where the candidates allow
    limit_k: int = 0  # a limit question also searches the release's limits pages (limits.py): their n best, fused
    limit_votes: int = 2  # ... dense and BM25, each list fused this many times (README: "AWS ranking")
    limit_gate: float = LIMIT_GATE  # ... kept only when their best chunk's cosine is this close to the best passage's
    dense_slot: int = 0  # the n-th file's place goes to a file only dense search found, near the best cosine (fusion.py)
    dense_near: float = 0.01  # ... within this of the best candidate's cosine
    dense_over: float = 0.02  # ... and this far above the file whose place it takes
    changelog_factor: float = 1.0  # changelog chunks' fused score times this unless the question asks of versions
    changelog_slot: int = 0  # ... and for a question asking what changed, a changelog takes the n-th file's place


@dataclass
class ReleaseIndex:
    """Everything needed to search one release."""

    product: str
    release: str
    store: ReleaseStore
    manifest: Manifest
    model_tag: str | None = None  # the current embedding model (ingest.embedding_model_tag); None: recipes unchecked
    _dense_ok: tuple[str, bool] | None = field(default=None, repr=False)
    _limit_pages: tuple[str, list[str]] | None = field(default=None, repr=False)
    _guides: tuple[str, list[str]] | None = field(default=None, repr=False)

    @property
    def dense_ok(self) -> bool:
        """False while the release holds vectors the current embedding model did not make: a file whose recipe names
        another model (same vector size or not: their cosines against this model's query vectors mean nothing), or a
        shard of another vector size (files indexed before recipes were recorded say nothing of their model).
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

    def _per_generation(self, slot: str, make) -> list[str]:
        """`make(the release's files)`, kept in `slot` and made again only when the manifest's generation moves."""
        gen = str(self.manifest.generation(self.product, self.release))
        kept = getattr(self, slot)
        if kept is None or kept[0] != gen:
            kept = (gen, make(self.manifest.files(self.product, self.release)))
            setattr(self, slot, kept)
        return kept[1]

    @property
    def limit_pages(self) -> list[str]:
        """The release's pages of limits or quotas (limits.py), listed once per manifest generation."""
        return self._per_generation("_limit_pages", limit_pages)

    @property
    def guides(self) -> list[str]:
        """The release's top folders named like a guide (limits.guide_folders), listed once per manifest generation."""
        return self._per_generation("_guides", guide_folders)

    @property
    def lexicon(self) -> "Lexicon":
        return Lexicon([self.store])


class Lexicon:
    """The words of one or more releases, asked of the engine's sparse index (`term in lexicon`): the knowledge
    check's and the query check's vocabulary, with nothing to rebuild when a release changes."""

    def __init__(self, stores: list[ReleaseStore]) -> None:
        self.stores = stores
        self._seen: dict[str, bool] = {}

    def __contains__(self, term: str) -> bool:
        if term not in self._seen:
            self._seen[term] = any(s.has_term(term) for s in self.stores)
        return self._seen[term]

    def __bool__(self) -> bool:
        return any(not s.empty() for s in self.stores)


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
        vectors = [np.asarray(v, dtype=np.float32) for v in vectors]
        lexical = queries if p.use_bm25 else []
        nodes: dict[str, TextNode] = {}
        fused: dict[str, float] = {}
        dense_scores: list[dict[str, float]] = []
        bm25_scores: list[dict[str, float]] = []
        per_query: dict[str, dict[str, int]] = {}
        skipped: list[str] = []
        first = queries[0] if queries else (dense_queries[0] if dense_queries else "")
        idents = list(dict.fromkeys(t for q in queries[:1] + dense_queries[:1] for t in query_identifiers(q)))
        limit = p.limit_k > 0 and asks_limit(first)
        searched_pages: set[tuple[str, str, str]] = set()
        for index in self.indexes:
            dense_ok = p.use_dense and index.dense_ok
            if p.use_dense and not dense_ok:
                skipped.append(index.release)
            spec = SearchSpec(vectors if dense_ok else [], lexical, p.dense_k, p.bm25_k, fuse=p.fusion == "rrf",
                              rrf_k=p.rrf_k, dense_weight=p.dense_weight, fields=dict(p.fields), field_query=first,
                              identifiers=idents, ident_k=p.ident_k,
                              pages=for_question(index.limit_pages, first) if limit else [], pages_k=p.limit_k,
                              pages_votes=p.limit_votes)
            searched_pages.update((index.product, index.release, path) for path in spec.pages)
            ranked, dense_lists, lexical_lists = index.store.hybrid(spec)
            for hit in ranked:
                nodes.setdefault(hit.chunk_id, hit.node)
                fused[hit.chunk_id] = hit.score
            for q, hits in zip(dense_queries if dense_ok else [], dense_lists):
                dense_scores.append(_collect(hits, nodes, "dense"))
                per_query.setdefault(q, {}).setdefault("dense", 0)
                per_query[q]["dense"] += len(hits)
            for q, hits in zip(lexical, lexical_lists):
                bm25_scores.append(_collect(hits, nodes, "bm25"))
                per_query.setdefault(q, {}).setdefault("bm25", 0)
                per_query[q]["bm25"] += len(hits)
            if spec.fuse and spec.dense:
                for q in dense_queries:  # fused in the engine: each dense prefetch returned up to dense_k
                    per_query.setdefault(q, {}).setdefault("dense", 0)
                    per_query[q]["dense"] += min(p.dense_k, len(ranked))

        if p.fusion == "weighted":
            fused = weighted_average([_max_merge(dense_scores), _max_merge(bm25_scores)], [p.dense_weight, 1 - p.dense_weight])
        elif p.fusion == "dense":
            fused = _max_merge(dense_scores)
        fused = {key: score for key, score in fused.items() if nodes.get(key) is not None}

        qvec = vectors[0] if vectors else None
        self._fill_dense(nodes, qvec, fused)
        if searched_pages:
            fused = _gate_pages(fused, nodes, searched_pages, p.limit_gate)
        fused = changelog_scores(fused, lambda key: nodes[key].metadata.get("path", ""), first, p.changelog_factor)
        ranked_keys = fused_order(fused, lambda key: nodes[key].metadata.get("dense"))
        out = []
        for key in ranked_keys:
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
        out = out[: p.candidates]
        if p.dense_slot:
            out = dense_only_slot(out, file_of, lambda n: n.node.metadata.get("dense"),
                                  lambda n: "bm25" in n.node.metadata, p.dense_slot, p.dense_near, p.dense_over)
        if p.changelog_slot:
            out = changelog_slot(out, file_of, lambda n: n.node.metadata.get("path", ""), first, p.changelog_slot)
        return RetrievalResult(out, per_query, skipped)

    def _fill_dense(self, nodes: dict[str, TextNode], qvec: np.ndarray | None, keys: dict[str, float]) -> None:
        """Cosine for every candidate, BM25-only hits included: thresholds and the knowledge check need it."""
        if qvec is None or not keys:
            return
        by_release: dict[tuple[str, str], list[str]] = {}
        for key in keys:
            node = nodes[key]
            by_release.setdefault((node.metadata["product"], node.metadata["release"]), []).append(key)
        for index in self.indexes:
            wanted = by_release.get((index.product, index.release), [])
            if not wanted or not index.dense_ok:
                continue  # no vectors, or another model's (their cosine means nothing, or their size differs)
            for key, vec in index.store.vectors(wanted).items():
                nodes[key].metadata["dense"] = float(vec @ qvec)
                nodes[key].metadata["_vec"] = vec


def _collect(hits: list[Hit], nodes: dict[str, TextNode], kind: str) -> dict[str, float]:
    """One ranked list's scores, each also kept on its node's metadata (the best across lists)."""
    scores: dict[str, float] = {}
    for h in hits:
        if h.node is not None:
            nodes.setdefault(h.chunk_id, h.node)
        node = nodes.get(h.chunk_id)
        if node is not None:
            node.metadata[kind] = max(node.metadata.get(kind, float("-inf")), h.score)
        scores[h.chunk_id] = h.score
    return scores


def _gate_pages(fused: dict[str, float], nodes: dict[str, TextNode], pages: set[tuple[str, str, str]],
                gate: float) -> dict[str, float]:
    """Drop the chunks of the limits pages searched on their own when the best of them is not about the question: its
    cosine more than `gate` under the best candidate's. Every chunk of those pages goes, also one the ordinary lists
    found; the pages' lists only ever add to their own chunks' scores, so the rest keep their order."""
    def cos(key: str) -> float | None:
        return nodes[key].metadata.get("dense")

    def of_pages(key: str) -> bool:
        md = nodes[key].metadata
        return (md.get("product"), md.get("release"), md.get("path")) in pages

    cosines = [c for c in map(cos, fused) if c is not None]
    on_pages = [c for key in fused if of_pages(key) and (c := cos(key)) is not None]
    if not cosines or not on_pages or max(on_pages) >= max(cosines) - gate:
        return fused
    return {key: score for key, score in fused.items() if not of_pages(key)}


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


def file_of(node: NodeWithScore) -> tuple:
    """The file a candidate comes from: (product, release, path)."""
    md = node.node.metadata
    return md.get("product"), md.get("release"), md.get("path")


def spread_by_file(nodes: list[NodeWithScore], slots: int) -> list[NodeWithScore]:
    """fusion.spread_files over contexts, by `file_of`."""
    return spread_files(nodes, file_of, slots)
