"""Product-from-evidence latency benchmark (issue 14; not a test).

Search-only p50 and p95 of questions that name no product, with 1, 3 and 10 products in the library, each as a
ratio to the single-product path (the same questions in the same library with their product pinned, so nothing is
inferred). The
products are real documentation releases (etcd v3.6, Prometheus v3.5.0, the AWS ELB guide) under ten product
folders; copies cost no embedding (the vector cache is by content) and search as much text as the originals.

    python benchmarks/routing_bench.py [--data-dir DIR] [--repeat 2] [--per-product 20]

The target in issue 14: at most 1.5x the single-product path with 10 products.

    python benchmarks/routing_bench.py --owner-lookup DATA_DIR SET.jsonl...

times only the owning-product lookup (`product_evidence.owned`) on an indexed library (the AWS one whole) over the
sets' questions: the batched lookup against the old one (`occurrences` per name and product, judged by
`sole_owner`), each question both ways back to back in alternating order; it also checks that both pick the same.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent.parent / "shared" / "corpora"
if not CORPORA.is_dir():
    CORPORA = Path("/work/shared/corpora")
SOURCES = [
    ("etcd", "v3.6", CORPORA / "etcd" / "v3.6"),
    ("prometheus", "v3.5.0", CORPORA / "prometheus" / "v3.5.0"),
    ("aws-elb", "2024.1", CORPORA / "awsdocs" / "documents" / "elb-application-load-balancers-user-guide" / "doc_source"),
]
QUESTIONS = ROOT / "tests" / "data" / "unnamed_questions.jsonl"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))] if values else 0.0


def build(data_dir: Path, n: int):
    """A library of n products: the three real ones, then copies under other names (product-4, ...)."""
    from assistant.components import build_indexer
    from assistant.settings import Settings

    settings = Settings(data_dir=data_dir, embedding_cache_path=ROOT / ".cache" / "test_embed_cache.sqlite")
    indexer = build_indexer(settings)
    for i in range(n):
        name, release, src = SOURCES[i % len(SOURCES)]
        product = name if i < len(SOURCES) else f"product-{i + 1}"
        if not indexer.library.release_dir(product, release).is_dir():
            indexer.library.add(src, product, release)
            indexer.sync(product)
    return settings


def measure(settings, rows: list[dict], repeat: int) -> tuple[list[float], list[float]]:
    """(pinned, unnamed) milliseconds; each question is asked both ways back to back, in alternating order, so that
    load from elsewhere on the machine falls on both sides alike."""
    from assistant.components import build_intent_classifier, build_pipeline

    pipe = build_pipeline(settings, llm=None, intent=build_intent_classifier(settings, extra_examples=[]))
    pipe.warm_up()
    for row in rows[:3]:  # warm caches (BM25 files, collections) before timing
        pipe.ask(row["q"], search_only=True)
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(repeat):
        for j, row in enumerate(rows):
            for pinned in ((True, False) if (i + j) % 2 == 0 else (False, True)):
                t0 = time.perf_counter()
                pipe.ask(row["q"], product=row["p"] if pinned else None, search_only=True)
                times[pinned].append((time.perf_counter() - t0) * 1000)
    return times[True], times[False]


def owner_lookup(data_dir: Path, sets: list[str], repeat: int) -> None:
    from assistant.answering.knowledge import everyday_words, identifiers, plain_words
    from assistant.answering.product_evidence import Evidence, owned, sole_owner
    from assistant.components import get_embedder
    from assistant.library.timeline import Timeline
    from assistant.settings import Settings

    timeline = Timeline(data_dir / "index" / "timeline.sqlite")
    common = everyday_words(getattr(get_embedder(Settings(data_dir=data_dir)), "tokenizer", None))
    evidence = [Evidence(p, "", 0.5, 0.0, 0) for p in timeline.products()]
    questions = [json.loads(line) for name in sets for line in Path(name).read_text().splitlines() if line.strip()]
    questions = [q.get("question") or q.get("query") for q in questions]

    def per_name(question: str) -> list:
        terms = identifiers(question)
        terms += plain_words(question, {p.lower() for t in terms for p in t.split()}, common)
        owner = sole_owner(terms, lambda t: {e.product for e in evidence if timeline.occurrences(e.product, t)})
        return [e for e in evidence if e.product == owner] if owner else evidence

    def batched(question: str) -> list:
        return owned(evidence, question, timeline, common)

    times: dict = {per_name: [], batched: []}
    differ = 0
    for i in range(repeat):
        for j, q in enumerate(questions):
            picked = []
            for way in ((per_name, batched) if (i + j) % 2 == 0 else (batched, per_name)):
                t0 = time.perf_counter()
                picked.append(sorted(e.product for e in way(q)))
                times[way].append((time.perf_counter() - t0) * 1000)
            differ += picked[0] != picked[1]
    old, new = times[per_name], times[batched]
    print(f"{len(questions)} questions x {repeat}, products {[e.product for e in evidence]}; "
          f"picks that differ: {differ}")
    print(f"per name and product: p50 {statistics.median(old):.2f} ms, p95 {pct(old, 0.95):.2f}, mean "
          f"{statistics.mean(old):.2f}")
    print(f"batched:              p50 {statistics.median(new):.2f} ms, p95 {pct(new, 0.95):.2f}, mean "
          f"{statistics.mean(new):.2f}")
    print(f"ratio old / new: p50 {statistics.median(old) / statistics.median(new):.1f}x, mean "
          f"{statistics.mean(old) / statistics.mean(new):.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--owner-lookup", metavar="DATA_DIR", help="time only the owning-product lookup (see above)")
    ap.add_argument("sets", nargs="*", help="question sets for --owner-lookup")
    ap.add_argument("--data-dir", help="a folder to keep the ten-product library in between runs")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--per-product", type=int, default=20, help="questions per product (of tests/data)")
    args = ap.parse_args()
    if args.owner_lookup:
        return owner_lookup(Path(args.owner_lookup), args.sets, args.repeat)
    base = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="routing-bench-"))
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    rows = [r for name, _, _ in SOURCES for r in [x for x in rows if x["p"] == name][: args.per_product]]
    results = {}
    for n in (1, 3, 10):
        settings = build(base / f"p{n}", n)
        names = {s[0] for s in SOURCES[:n]}
        asked = [r for r in rows if r["p"] in names]
        results[n] = measure(settings, asked, args.repeat)
    print("products | single-product path (pinned) p50 / p95 ms | unnamed p50 / p95 ms | ratio p50 | ratio p95")
    for n, (single, unnamed) in results.items():
        s50, s95, u50, u95 = statistics.median(single), pct(single, 0.95), statistics.median(unnamed), pct(unnamed, 0.95)
        print(f"{n:>8} | {s50:8.0f} / {s95:6.0f} | {u50:8.0f} / {u95:6.0f} | {u50 / s50:9.2f} | {u95 / s95:9.2f}")


if __name__ == "__main__":
    main()
