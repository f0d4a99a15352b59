"""What a question pays for asking during a sync: dense search latency on an idle release against the same search
while a sync uploads points into it, same run, the embedded store (Qdrant Edge).

    python benchmarks/concurrency_bench.py --points 5000 --upload 3000

No lock serialises the store's calls: the engine runs searches beside an upload. The sync's writer thread uploads
through ReleaseStore.add exactly as an ingestion does (LlamaIndex nodes with their payload, dense and sparse vectors,
256 points per call). Prints median and worst latency for both phases and
their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llama_index.core.schema import TextNode  # noqa: E402

from assistant.components import get_store  # noqa: E402
from assistant.library.store import ReleaseStore  # noqa: E402
from assistant.settings import Settings  # noqa: E402

DIM = 384
TEXT = ("The snapshot-count flag sets how many applied Raft entries trigger a snapshot to disk. " * 8).strip()


def nodes(n: int, rng: np.random.Generator) -> tuple[list[TextNode], np.ndarray]:
    out = [TextNode(id_=str(uuid.UUID(int=int(rng.integers(1 << 62)))), text=TEXT,
                    metadata={"product": "p", "release": "r", "path": f"doc{i}.md", "title": "Guide",
                              "section": "Flags", "page": None, "context_id": "c", "chunk_no": i})
           for i in range(n)]
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    return out, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def searches(store: ReleaseStore, queries: np.ndarray, until: threading.Event | None, n: int = 0) -> list[float]:
    """n searches, or as many as fit before `until` is set."""
    times = []
    i = 0
    while (until is None and i < n) or (until is not None and not until.is_set()):
        t0 = time.perf_counter()
        store.search(queries[i % len(queries)], 20)
        times.append(time.perf_counter() - t0)
        i += 1
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=5000, help="points already in the release")
    ap.add_argument("--upload", type=int, default=3000, help="points the concurrent sync uploads")
    ap.add_argument("--queries", type=int, default=200, help="searches in the idle phase")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = ReleaseStore(get_store(Settings(data_dir=Path(tmp))), "p", "r", DIM)
        store.add(*nodes(args.points, rng))
        store.finish()  # as the end of the sync that made the release
        queries = rng.standard_normal((64, DIM)).astype(np.float32)

        idle = searches(store, queries, None, args.queries)

        done = threading.Event()
        upload_nodes, upload_vectors = nodes(args.upload, rng)

        def sync() -> None:
            try:
                store.add(upload_nodes, upload_vectors)
            finally:
                done.set()

        t0 = time.perf_counter()
        writer = threading.Thread(target=sync)
        writer.start()
        busy = searches(store, queries, done)
        writer.join()
        upload_s = time.perf_counter() - t0
        assert store.count() == args.points + args.upload

    def ms(x: float) -> str:
        return f"{x * 1000:.1f} ms"

    print(f"release of {args.points:,} points; a sync uploads {args.upload:,} more in {upload_s:.1f} s "
          f"({args.upload / upload_s:.0f} points/s)")
    print(f"idle:        {len(idle):4d} searches, median {ms(statistics.median(idle))}, worst {ms(max(idle))}")
    print(f"during sync: {len(busy):4d} searches, median {ms(statistics.median(busy))}, worst {ms(max(busy))}")
    print(f"ratio during/idle: median {statistics.median(busy) / statistics.median(idle):.2f}x, "
          f"worst {max(busy) / max(idle):.2f}x")


if __name__ == "__main__":
    main()
