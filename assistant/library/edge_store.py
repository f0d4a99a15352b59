"""The embedded store: the Qdrant engine in-process (qdrant-edge-py, pinned: it is beta), one shard per release.

Each shard is a folder under `index/edge/` holding a dense vector (`text-dense`) and a sparse BM25 vector
(`text-sparse`, IDF from the engine's own statistics) per search chunk, and the other search fields (fields.py), with a write-ahead log: an update returns
once it is logged, so a kill -9 loses nothing acknowledged. The engine does its own locking, so questions search
while a sync writes; the only lock here guards the table of open shards.

`EdgeVectorStore` is the LlamaIndex vector store over one shard (add, delete, query in dense, sparse or hybrid
mode); `EdgeShards` is the backend `store.ReleaseStore` speaks to, keyed by collection name like a Qdrant server.
"""

from __future__ import annotations

import fcntl
import json
import logging
import re
import shutil
import threading
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.schema import BaseNode, MetadataMode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    VectorStoreQuery,
    VectorStoreQueryMode,
    VectorStoreQueryResult,
)
from llama_index.core.vector_stores.utils import metadata_dict_to_node, node_to_metadata_dict

from assistant.library import fields as fl
from assistant.library.lexical import document_sparse, query_sparse, term_index
from assistant.library.store import ALL_VECTORS, DENSE, SPARSE, Hit, Probe, SearchSpec, StoreLocked

log = logging.getLogger(__name__)
UPSERT_BATCH = 256


def _config(dim: int) -> qe.EdgeConfig:
    dense = {name: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine) for name in (DENSE, fl.HEADING_DENSE)}
    sparse = {name: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf) for name in (SPARSE,) + fl.SPARSE_FIELDS}
    return qe.EdgeConfig(vectors=dense, sparse_vectors=sparse)


def _vector(value):
    """An extra field's vector as the engine takes it: a (indices, values) pair is sparse, a list dense."""
    return _sparse(value) if isinstance(value, tuple) else value


def _query(probe: Probe) -> qe.Query:
    value = probe.dense if probe.dense is not None else _sparse(probe.sparse)
    return qe.Query.Nearest(value, using=probe.using)


_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def written(call, *args):
    """Run an engine write; an I/O failure inside the engine (a full disk, a file-size limit) comes out as the
    OSError it was, so callers report it as they do any failed write (the CLI's exit code 4, the app's notice)."""
    try:
        return call(*args)
    except OSError:
        raise
    except Exception as exc:
        found = _OS_ERROR.search(str(exc))
        if found:
            raise OSError(int(found.group(1)), str(exc)) from exc
        raise


def _sparse(pair: tuple[list[int], list[float]]) -> qe.SparseVector:
    return qe.SparseVector(indices=pair[0], values=pair[1])


def _hit(point) -> Hit:
    node = metadata_dict_to_node(point.payload) if point.payload else None
    return Hit(str(point.id), float(point.score), node)


class EdgeVectorStore(BasePydanticVectorStore):
    """A LlamaIndex vector store over one Edge shard: nodes in, `VectorStoreQueryResult` out, as QdrantVectorStore.

    Query modes: DEFAULT (dense), SPARSE / TEXT_SEARCH (BM25 on the sparse vector) and HYBRID (both as prefetches,
    fused by reciprocal rank inside the engine). Metadata filters with exact matches become an engine filter."""

    stores_text: bool = True
    flat_metadata: bool = False
    rrf_k: int = 60
    _shard: Any = PrivateAttr()

    def __init__(self, shard: qe.EdgeShard, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shard = shard

    @classmethod
    def class_name(cls) -> str:
        return "EdgeVectorStore"

    @property
    def client(self) -> qe.EdgeShard:
        return self._shard

    def add(self, nodes: list[BaseNode], extras: dict[str, dict] | None = None, **kwargs: Any) -> list[str]:
        """`extras`: per node id, the vectors of the other fields (store.point_extras)."""
        extras = extras or {}
        for i in range(0, len(nodes), UPSERT_BATCH):
            points = []
            for node in nodes[i : i + UPSERT_BATCH]:
                text = node.get_content(metadata_mode=MetadataMode.EMBED)  # as QdrantVectorStore's sparse_doc_fn
                vector = {DENSE: list(node.get_embedding()), SPARSE: _sparse(document_sparse(text))}
                vector.update((name, _vector(v)) for name, v in extras.get(node.node_id, {}).items())
                payload = node_to_metadata_dict(node, remove_text=False, flat_metadata=self.flat_metadata)
                points.append(qe.Point(id=node.node_id, vector=vector, payload=payload))
            written(self._shard.update, qe.UpdateOperation.upsert_points(points))
        return [n.node_id for n in nodes]

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        match = qe.FieldCondition(key="doc_id", match=qe.MatchValue(ref_doc_id))
        written(self._shard.update, qe.UpdateOperation.delete_points_by_filter(qe.Filter(must=[match])))

    def delete_nodes(self, node_ids: list[str] | None = None, filters=None, **delete_kwargs: Any) -> None:
        if node_ids:
            written(self._shard.update, qe.UpdateOperation.delete_points(list(node_ids)))

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        k = query.similarity_top_k
        where = _filter(query.filters)
        if query.mode in (VectorStoreQueryMode.HYBRID, VectorStoreQueryMode.SPARSE, VectorStoreQueryMode.TEXT_SEARCH):
            sparse = qe.Query.Nearest(_sparse(query_sparse(query.query_str or "")), using=SPARSE)
        if query.mode == VectorStoreQueryMode.HYBRID:
            dense = qe.Query.Nearest(list(query.query_embedding), using=DENSE)
            prefetches = [qe.Prefetch(limit=k, query=dense, filter=where),
                          qe.Prefetch(limit=query.sparse_top_k or k, query=sparse, filter=where)]
            request = qe.QueryRequest(limit=k, prefetches=prefetches, query=qe.Fusion.Rrf(k=self.rrf_k + 1),
                                      with_payload=True)
        elif query.mode in (VectorStoreQueryMode.SPARSE, VectorStoreQueryMode.TEXT_SEARCH):
            request = qe.QueryRequest(limit=k, query=sparse, with_payload=True, filter=where)
        else:
            request = qe.QueryRequest(limit=k, query=qe.Query.Nearest(list(query.query_embedding), using=DENSE),
                                      with_payload=True, filter=where)
        hits = [_hit(p) for p in self._shard.query(request)]
        return VectorStoreQueryResult(nodes=[h.node for h in hits], similarities=[h.score for h in hits],
                                      ids=[h.chunk_id for h in hits])


def _in_files(paths: tuple[str, ...]) -> qe.Filter | None:
    return qe.Filter(must=[qe.FieldCondition(key="path", match=qe.MatchAny(list(paths)))]) if paths else None


def _filter(filters) -> qe.Filter | None:
    if filters is None or not filters.filters:
        return None
    conditions = [qe.FieldCondition(key=f.key, match=qe.MatchValue(f.value)) for f in filters.filters]
    return qe.Filter(must=conditions) if str(filters.condition).endswith("and") else qe.Filter(should=conditions)


class EdgeShards:
    """Every release's shard under one folder, opened on first use and kept open for the process.

    One process at a time owns the folder (a lock file, as the engine locks each shard's log): a second app or CLI
    run gets StoreLocked at once instead of waiting or corrupting anything."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._lock_file = (root / ".lock").open("a+")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.close()
            raise StoreLocked(f"The index at {root} is in use by another Docs Assistant process (an app or a CLI "
                              "run). Close it, or point ASSISTANT_DATA_DIR elsewhere, or run a Qdrant server and "
                              "set ASSISTANT_QDRANT_URL.") from None
        self._open: dict[str, qe.EdgeShard] = {}
        self._retiring: list[tuple[qe.EdgeShard, Path]] = []  # dropped, closed once no search holds them
        self._known: dict[str, tuple[Any, frozenset[str]]] = {}  # shard name -> (shard object, its vector names)
        self._table = threading.Lock()  # guards the two tables only; searches and writes never wait on it
        for stale in root.glob(".dropped-*"):  # dropped before a kill: nothing in them was still wanted
            shutil.rmtree(stale, ignore_errors=True)

    # -- shards --------------------------------------------------------------------------------------------------------
    def _get(self, name: str) -> qe.EdgeShard | None:
        with self._table:
            self._close_retired()
            shard = self._open.get(name)
            if shard is None and (self.root / name / "edge_config.json").is_file():
                shard = self._open[name] = qe.EdgeShard.load(str(self.root / name))
            return shard

    def exists(self, name: str) -> bool:
        return self._get(name) is not None

    def ensure(self, name: str, dim: int) -> None:
        with self._table:
            if name not in self._open:
                path = self.root / name
                if (path / "edge_config.json").is_file():
                    self._open[name] = qe.EdgeShard.load(str(path))
                else:
                    shutil.rmtree(path, ignore_errors=True)  # a creation cut short by a kill: nothing acknowledged
                    shard = self._open[name] = written(qe.EdgeShard.create, str(path), _config(dim))
                    for field in ("release", "product", "path"):  # exact-match filters stay cheap at any size
                        written(shard.update, qe.UpdateOperation.create_field_index(field, qe.PayloadSchemaType.Keyword))

    def drop(self, name: str) -> None:
        """The folder moves aside at once (a new shard of the name can be made there); the shard closes when no
        search is inside it any more (the engine refuses to close under a running query), then its folder goes.
        A search that still holds it finds nothing from then on (see _guard)."""
        with self._table:
            shard = self._open.pop(name, None)
            path = self.root / name
            if path.exists():
                aside = self.root / f".dropped-{name}-{uuid.uuid4().hex[:8]}"
                path.rename(aside)
                path = aside
            if shard is not None:
                self._retiring.append((shard, path))
            else:
                shutil.rmtree(path, ignore_errors=True)
            self._close_retired()

    def _close_retired(self) -> None:
        """Under `_table`: close the dropped shards no search holds any more and delete their folders."""
        still = []
        for shard, path in self._retiring:
            try:
                shard.close()
            except RuntimeError:  # "Already borrowed": a search is inside it; try again on the next call
                still.append((shard, path))
                continue
            shutil.rmtree(path, ignore_errors=True)
        self._retiring = still

    def vector_size(self, name: str) -> int | None:
        try:
            config = json.loads((self.root / name / "edge_config.json").read_text())
        except (OSError, ValueError):
            return None
        return int(config["vectors"][DENSE]["size"])

    def vector_names(self, name: str) -> set[str]:
        try:
            config = json.loads((self.root / name / "edge_config.json").read_text())
        except (OSError, ValueError):
            return set()
        return set(config.get("vectors") or {}) | set(config.get("sparse_vectors") or {})

    def vector_store(self, name: str) -> EdgeVectorStore:
        shard = self._get(name)
        if shard is None:
            raise KeyError(f"no shard {name}")
        return EdgeVectorStore(shard)

    def _guard(self, name: str, call, empty):
        """Run a read; a shard dropped by a sync meanwhile (closed under the call) answers `empty`, not an error."""
        shard = self._get(name)
        if shard is None:
            return empty
        try:
            return call(shard)
        except Exception:
            with self._table:
                if self._open.get(name) is shard:
                    raise
            return empty

    # -- writes ----------------------------------------------------------------------------------------------------
    def delete(self, name: str, ids: list[str]) -> None:
        shard = self._get(name)
        if shard is not None:
            for i in range(0, len(ids), 1000):
                written(shard.update, qe.UpdateOperation.delete_points(ids[i : i + 1000]))

    def finish(self, name: str) -> None:
        """After a sync of the release: persist segments (the log can then be truncated) and let the optimiser build
        the HNSW and sparse indexes. Everything was searchable before; this only makes it fast."""
        shard = self._get(name)
        if shard is not None:
            written(shard.flush)
            written(shard.optimize)

    # -- reads -----------------------------------------------------------------------------------------------------
    def count(self, name: str) -> int:
        return self._guard(name, lambda s: s.count(qe.CountRequest(exact=True)), 0)

    def empty(self, name: str) -> bool:
        first = qe.ScrollRequest(limit=1, with_payload=False, with_vector=False)
        return not self._guard(name, lambda s: s.scroll(first)[0], [])

    def ids(self, name: str) -> set[str]:
        def scroll(shard) -> set[str]:
            out: set[str] = set()
            offset = None
            while True:
                points, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=2048, with_payload=False,
                                                               with_vector=False))
                out.update(str(p.id) for p in points)
                if offset is None:
                    return out
        return self._guard(name, scroll, set())

    def vectors(self, name: str, ids: list[str]) -> dict[str, np.ndarray]:
        def fetch(shard):
            return {str(r.id): np.asarray(r.vector[DENSE], dtype=np.float32)
                    for r in shard.retrieve(ids, with_payload=False, with_vector=[DENSE])}
        return self._guard(name, fetch, {})

    def has_term(self, name: str, term: str) -> bool:
        probe = qe.QueryRequest(limit=1, query=qe.Query.Nearest(_sparse(([term_index(term)], [1.0])), using=SPARSE))
        return bool(self._guard(name, lambda s: s.query(probe), []))

    def search(self, name: str, spec: SearchSpec) -> tuple[list[Hit], list[list[Hit]], list[list[Hit]]]:
        """(fused, dense lists, lexical lists): with RRF, one engine query fuses every dense and lexical prefetch and
        the lexical lists come back without payload (their scores label the candidates); without, each list whole."""
        probes = spec.probes(self._names(name) if spec.fuse and spec.fields else frozenset(ALL_VECTORS))
        dense = [_query(p) for p in probes[: len(spec.dense)]]
        lexical = [_query(p) for p in probes[len(spec.dense) : len(spec.dense) + len(spec.lexical)]]
        requests = []
        if spec.fuse:
            prefetches = [qe.Prefetch(limit=p.limit, query=_query(p), filter=_in_files(p.paths)) for p in probes]
            # The engine ranks from 0 (1 / (k + rank0)); k + 1 gives the usual 1 / (k + rank) of Cormack et al.
            requests.append(qe.QueryRequest(limit=spec.dense_k * len(dense) + spec.lexical_k * len(lexical),
                                            prefetches=prefetches, query=qe.Fusion.Rrf(k=spec.rrf_k + 1,
                                                                                       weights=[p.weight for p in probes]),
                                            with_payload=True))
            requests += [qe.QueryRequest(limit=spec.lexical_k, query=q, with_payload=False) for q in lexical]
        else:
            requests += [qe.QueryRequest(limit=spec.dense_k, query=q, with_payload=True) for q in dense]
            requests += [qe.QueryRequest(limit=spec.lexical_k, query=q, with_payload=True) for q in lexical]
        if not requests or (spec.fuse and not (dense or lexical)):
            return [], [], []
        answers = self._guard(name, lambda s: s.query_batch(qe.QueryBatchRequest(requests)), None)
        if answers is None:
            return [], [], []
        lists = [[_hit(p) for p in answer] for answer in answers]
        if spec.fuse:
            return lists[0], [], lists[1:]
        return [], lists[: len(dense)], lists[len(dense) :]

    def _names(self, name: str) -> frozenset[str]:
        """The named vectors of an open shard, read once per shard object (a rebuilt shard is a new object)."""
        shard = self._get(name)
        known = self._known.get(name)
        if known is None or known[0] is not shard:
            known = self._known[name] = (shard, frozenset(self.vector_names(name)))
        return known[1]

    def close(self) -> None:
        with self._table:
            for shard, path in self._retiring:
                shard.close()
                shutil.rmtree(path, ignore_errors=True)
            self._retiring.clear()
            for shard in self._open.values():
                try:
                    shard.close()
                except Exception:  # closing is best effort at shutdown
                    pass
            self._open.clear()
        self._lock_file.close()
