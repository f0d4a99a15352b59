"""The vector store at scale: build, open, dense / hybrid / filtered query latency and memory, the embedded Qdrant
engine (Qdrant Edge) against qdrant-client's local mode (the store before issue 13) on the same data, same run.

    python benchmarks/store_bench.py --points 100000 --json

N search chunks with real text: passages of ~50 words cut from the AWS corpus's Markdown (../shared/corpora/awsdocs),
repeated past its size; each unique passage gets a random unit 384-d vector and each repeat a small perturbation of
it (embedding a million chunks would take days here; the store does not care where vectors come from). Points carry
the payload an ingestion writes (the node as JSON, product, release of five, path, section) and, as in production, a
dense and a sparse BM25 vector per search field and a heading-path vector (issue 15), written through the code
ingestion uses (`ReleaseStore.add`); the local-mode baseline stores the dense vector only, as it did.

Each phase runs in its own process: `build` (build_s, its peak RSS), then `serve`: a fresh process opens the store
(open_s), answers queries, and reports its RSS after the first 100 (serve_rss_mb). dense: top 20 by a perturbed
stored vector; hybrid: one dense and one lexical query (words of that passage) fused by RRF in one engine query,
payloads included; filtered: dense top 20 within one release of five (keyword-indexed field). Up to 100,000 points
(`--baseline-max`), the same is measured on local mode under "baseline" (dense only, as the store was before
issue 13, so no hybrid figure), with the ratios.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DIM = 384
RELEASES = [f"r{i}" for i in range(5)]
CORPUS = ROOT.parent / "shared" / "corpora" / "awsdocs"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpora/awsdocs")


def passages(limit: int = 60_000) -> list[tuple[str, str]]:
    """(path, ~50-word passage) from the AWS guides, in a fixed order."""
    out: list[tuple[str, str]] = []
    for path in sorted(CORPUS.rglob("*.md")):
        words = re.sub(r"\s+", " ", path.read_text(errors="replace")).split(" ")
        for i in range(0, len(words) - 20, 50):
            out.append((path.relative_to(CORPUS).as_posix(), " ".join(words[i : i + 50])))
            if len(out) >= limit:
                return out
    return out


def batches(n: int, size: int = 2048, seed: int = 0):
    """Nodes and vectors for points 0..n-1, made a batch at a time (a million nodes would not fit at once)."""
    from llama_index.core.schema import TextNode

    texts = passages()
    base = np.random.default_rng(seed).standard_normal((len(texts), DIM)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    rng = np.random.default_rng(seed + 1)
    for start in range(0, n, size):
        ids = np.arange(start, min(n, start + size))
        nodes = []
        for i in ids:
            path, text = texts[i % len(texts)]
            nodes.append(TextNode(id_=str(uuid.UUID(int=int(i) + 1)), text=text, metadata={
                "product": "aws", "release": RELEASES[i % 5], "path": path, "title": path.split("/")[0],
                "section": f"part {i // len(texts)}", "page": None, "context_id": "c", "chunk_no": int(i)}))
        vectors = base[ids % len(texts)] + 0.05 * rng.standard_normal((len(ids), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        # heading-dense (issue 15): one vector per heading path, shared by the chunks under it, as ingestion makes
        heads = base[(ids // 8) % len(texts)]
        yield nodes, vectors, heads


def backend(kind: str, folder: Path):
    if kind == "edge":
        from assistant.library.edge_store import EdgeShards

        return EdgeShards(folder / "edge")
    from qdrant_client import QdrantClient

    return _LocalModeAsBefore(QdrantClient(path=str(folder / "local")))


def _LocalModeAsBefore(client):
    """The store before issue 13: local mode, dense vectors only (BM25 was a separate matrix, not measured here;
    local mode's own sparse search took 322 ms a query on 3,000 points, so it is no baseline worth a run)."""
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import models

    from assistant.library.server_store import QdrantServer
    from assistant.library.store import DENSE

    class LocalMode(QdrantServer):
        def ensure(self, name: str, dim: int) -> None:
            if not self.exists(name):
                self.client.create_collection(name, vectors_config={
                    DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)})

        def vector_store(self, name: str):
            vstore = QdrantVectorStore(client=self.client, collection_name=name, batch_size=256)
            vstore._collection_initialized = True
            return vstore

    return LocalMode(client)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def build(kind: str, folder: Path, n: int) -> dict:
    from assistant.library.store import ReleaseStore

    t0 = time.perf_counter()
    store = ReleaseStore(backend(kind, folder), "aws", "all", DIM)
    for nodes, vectors, heads in batches(n):
        store.add(nodes, vectors, heads)
    store.finish()  # what a sync does at its end: flush, and the optimiser's indexes (Edge)
    built = time.perf_counter() - t0
    assert store.count() == n
    store.backend.close()
    return {"build_s": round(built, 2), "build_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def serve(kind: str, folder: Path, n: int, queries: int) -> dict:
    from llama_index.core.vector_stores.types import ExactMatchFilter, MetadataFilters, VectorStoreQuery

    from assistant.library.store import ReleaseStore, SearchSpec

    t0 = time.perf_counter()
    store = ReleaseStore(backend(kind, folder), "aws", "all", DIM)
    assert store.count() == n  # opened and answering
    opened = time.perf_counter() - t0
    texts = passages()
    rng = np.random.default_rng(7)
    picks = rng.integers(0, n, size=queries)
    ids = [str(uuid.UUID(int=int(i) + 1)) for i in picks]
    stored = store.vectors(ids[:200])
    vecs = [stored[i] + 0.02 * rng.standard_normal(DIM).astype(np.float32) for i in ids[:200]]
    words = [" ".join(texts[int(i) % len(texts)][1].split(" ")[5:13]) for i in picks]
    vstore = store.vstore
    times: dict[str, list[float]] = {"dense": [], "hybrid": [], "filtered": []}
    serve_rss = None
    for q in range(queries):
        vec = vecs[q % len(vecs)]
        t = time.perf_counter()
        hits = store.search(vec, 20)
        times["dense"].append(time.perf_counter() - t)
        if kind == "edge":
            t = time.perf_counter()
            fused, _, _ = store.hybrid(SearchSpec([vec], [words[q]]))
            times["hybrid"].append(time.perf_counter() - t)
            assert fused
        filters = MetadataFilters(filters=[ExactMatchFilter(key="release", value=RELEASES[q % 5])])
        t = time.perf_counter()
        found = vstore.query(VectorStoreQuery(query_embedding=vec.tolist(), similarity_top_k=20, filters=filters))
        times["filtered"].append(time.perf_counter() - t)
        assert len(hits) == 20 and {m.metadata["release"] for m in found.nodes} == {RELEASES[q % 5]}
        if q == 99:
            serve_rss = rss_mb()
    out = {"open_s": round(opened, 3), "serve_rss_mb": round(serve_rss or rss_mb())}
    for name, values in times.items():
        if not values:
            continue
        ms = sorted(v * 1000 for v in values)
        out[f"{name}_p50_ms"] = round(statistics.median(ms), 2)
        out[f"{name}_p95_ms"] = round(ms[int(0.95 * (len(ms) - 1))], 2)
    return out


def phase(name: str, kind: str, folder: Path, n: int, queries: int) -> dict:
    done = subprocess.run([sys.executable, __file__, "--phase", name, "--kind", kind, "--folder", str(folder),
                           "--points", str(n), "--queries", str(queries)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{kind} {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(kind: str, n: int, queries: int, keep: Path | None) -> dict:
    folder = keep or Path(tempfile.mkdtemp(prefix=f"store_bench_{kind}_"))
    result = {"store": "Qdrant Edge 0.9.0" if kind == "edge" else "qdrant-client local mode", "points": n}
    result.update(phase("build", kind, folder, n, queries))
    result.update(phase("serve", kind, folder, n, queries))
    result["disk_mb"] = round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20)
    if keep is None:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--baseline-max", type=int, default=100_000, help="measure local mode up to this many points")
    ap.add_argument("--keep", type=Path, help="build under this folder and keep it")
    ap.add_argument("--phase", choices=["build", "serve"], help=argparse.SUPPRESS)
    ap.add_argument("--kind", choices=["edge", "local"], default="edge", help=argparse.SUPPRESS)
    ap.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase == "build":
        print(json.dumps(build(args.kind, args.folder, args.points)))
        return
    if args.phase == "serve":
        print(json.dumps(serve(args.kind, args.folder, args.points, args.queries)))
        return

    result = measure("edge", args.points, args.queries, args.keep)
    if args.points <= args.baseline_max:
        base = measure("local", args.points, args.queries, None)
        result["baseline"] = base
        result["ratio_baseline_over_edge"] = {
            key: round(base[key] / result[key], 2) for key in base
            if key not in ("store", "points") and isinstance(base[key], (int, float)) and result.get(key)}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
