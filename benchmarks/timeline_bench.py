"""Index-time cost of the release timeline and the section diffs (issue 16), as a ratio to the ingestion they ride
on, measured in the same run. Target: at most 10%.

    python benchmarks/timeline_bench.py                       # etcd and Prometheus, three releases each, no cache
    python benchmarks/timeline_bench.py --cache .cache/test_embed_cache.sqlite   # embeddings from a warm cache

ingest    = every release synced into a fresh index (read, chunk, embed, store), the timeline's share taken out;
timeline  = its share of those syncs (SyncReport.timeline_s: sections and terms drawn from the manifest, written);
diffs     = every pair of consecutive releases diffed (diffs.diff_releases), as a precomputation would do;
rebuild   = the timeline rebuilt from scratch from the same manifest (a TIMELINE_VERSION bump), for reference.
ratio     = (timeline + diffs) / ingest. With `--cache` the embedder does almost no work, so the ratio is against a
            much cheaper ingestion than a first one: a pessimistic figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.components import build_indexer, get_embedder  # noqa: E402
from assistant.library.diffs import diff_releases  # noqa: E402
from assistant.library.timeline import Timeline  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402

CORPORA = PROJECT_ROOT.parent / "shared" / "corpora"
PRODUCTS = {"etcd": ["v3.4", "v3.5", "v3.6"], "prometheus": ["v2.45.0", "v2.53.0", "v3.5.0"]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--products", nargs="+", default=list(PRODUCTS), choices=list(PRODUCTS))
    ap.add_argument("--cache", type=Path, help="an embedding cache to use (default: none, every chunk embedded)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), models_dir=PROJECT_ROOT / "models",
                            embedding_cache=args.cache is not None, embedding_cache_path=args.cache)
        get_embedder(settings).embed(["warm up the model before any timing"])
        indexer = build_indexer(settings)
        for product in args.products:
            for release in PRODUCTS[product]:
                indexer.library.add(CORPORA / product / release, product, release)
        reports = []
        for product in args.products:
            reports += indexer.sync(product)
        total = sum(r.seconds for r in reports)
        timeline = sum(r.timeline_s for r in reports)
        t0 = time.perf_counter()
        pairs = 0
        for product in args.products:
            rels = PRODUCTS[product]
            for old, new in zip(rels, rels[1:]):
                diff_releases(indexer.timeline, product, old, new)
                pairs += 1
        diffs = time.perf_counter() - t0
        fresh = Timeline(Path(tmp) / "rebuild.sqlite")
        t0 = time.perf_counter()
        for product in args.products:
            for release in PRODUCTS[product]:
                fresh.refresh(product, release, indexer.manifest)
        rebuild = time.perf_counter() - t0
    ingest = total - timeline
    out = {"releases": len(reports), "files": sum(r.files_indexed for r in reports),
           "chunks": sum(r.chunks for r in reports), "embedding_cache": args.cache is not None,
           "ingest_s": round(ingest, 2), "timeline_s": round(timeline, 2), "diffs_s": round(diffs, 2),
           "diff_pairs": pairs, "rebuild_s": round(rebuild, 2), "ratio": round((timeline + diffs) / ingest, 4)}
    print(json.dumps(out, indent=2))
    print(f"timeline + diffs = {out['ratio']:.1%} of the ingestion (target <= 10%)")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
