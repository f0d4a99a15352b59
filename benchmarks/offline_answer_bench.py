"""Answers without Ollama: the extractive answer (sentences quoted from the sources) against the embedded Gemma 3
270M's generated answer, on the dev sets' questions that carry `must_contain`.

Per backend: must_contain share on word boundaries (the evaluation's own matcher), answers whose citations are all
valid and at least one, and seconds per answer (retrieval included, the model's first load excluded). The library
(etcd v3.4-v3.6, Prometheus v2.45.0-v3.5.0) is built once under --data and reused.

    nice python benchmarks/offline_answer_bench.py --data /tmp/offline_bench [--limit N --seed S] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.answering.citations import cited_numbers  # noqa: E402
from assistant.components import build_chat_model, build_indexer, build_pipeline  # noqa: E402
from assistant.evaluation.dataset import load_dataset  # noqa: E402
from assistant.evaluation.metrics import must_contain_score  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402

CORPORA = PROJECT_ROOT.parent.parent / "shared" / "corpora"
DEV = PROJECT_ROOT.parent.parent / "shared" / "eval" / "dev"
LIBRARY = {"etcd": ("v3.4", "v3.5", "v3.6"), "prometheus": ("v2.45.0", "v2.53.0", "v3.5.0")}


def build_library(settings: Settings) -> None:
    indexer = build_indexer(settings)
    for product, releases in LIBRARY.items():
        for release in releases:
            if release not in indexer.library.releases(product):
                indexer.library.add(CORPORA / product / release, product, release)
    for report in indexer.sync():
        print(f"  {report.product}/{report.release}: {report.files_indexed} indexed, {report.files_unchanged} "
              f"unchanged in {report.seconds:.0f} s", file=sys.stderr)


def citations_valid(answer: str, sources: list) -> bool:
    """At least one [n], and every [n] names a listed source."""
    numbers, listed = cited_numbers(answer), {s.n for s in sources}
    return bool(numbers) and all(n in listed for n in numbers)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/tmp/offline_answer_bench")
    ap.add_argument("--limit", type=int, default=0, help="a random subset of this many questions (0: all)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--out", help="per-question JSONL")
    ap.add_argument("--reuse", help="per-question JSONL of an earlier run: its embedded answers are kept and only the "
                                    "extractive ones are made again (they take a second; Gemma takes a minute each)")
    args = ap.parse_args()

    settings = Settings(data_dir=Path(args.data), models_dir=PROJECT_ROOT / "models", llm_backend="embedded",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    build_library(settings)
    items = [i for name in ("releases", "conversations") for i in load_dataset(DEV / f"{name}.jsonl").items
             if i.must_contain]
    if args.limit and args.limit < len(items):
        items = random.Random(args.seed).sample(items, args.limit)
    earlier = {}
    if args.reuse:
        earlier = {r["id"]: r["embedded"] for r in map(json.loads, Path(args.reuse).read_text().splitlines())}
    gemma = build_chat_model(settings).model
    if not earlier:
        t0 = time.perf_counter()
        gemma.load()
        print(f"embedded model loaded in {time.perf_counter() - t0:.0f} s ({gemma.loaded_from})", file=sys.stderr)
    pipeline = build_pipeline(settings, llm=gemma)
    pipeline.warm_up()

    rows = []
    for item in items:
        row = {"id": item.id, "question": item.question, "must_contain": item.must_contain,
               "answerable": item.answerable}
        for name, kwargs in (("extractive", {"search_only": False, "extractive": True}), ("embedded", {})):
            if name in ("embedded",) and item.id in earlier:
                row[name] = earlier[item.id]
                continue
            pipeline.llm = None if name == "extractive" else gemma
            start = time.perf_counter()
            res = pipeline.ask(item.question, history=item.history or None, **kwargs)
            row[name] = {"answer": res.answer, "seconds": round(time.perf_counter() - start, 2),
                         "must_contain": must_contain_score(res.answer, item.must_contain),
                         "citations_valid": citations_valid(res.answer, res.sources),
                         "knowledge_missing": res.knowledge_missing}
        rows.append(row)
        print(f"{item.id}: extractive {row['extractive']['must_contain']:.2f} "
              f"embedded {row['embedded']['must_contain']:.2f} ({row['embedded']['seconds']:.0f} s)", file=sys.stderr)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    print(f"{len(rows)} questions ({sum(r['answerable'] for r in rows)} answerable) from releases.jsonl and "
          "conversations.jsonl")
    print("| | extractive | embedded Gemma 3 270M |\n|---|---|---|")
    for label, subset in (("all", rows), ("answerable", [r for r in rows if r["answerable"]])):
        if not subset:
            continue
        cells = []
        for name in ("extractive", "embedded"):
            cells.append(f"{statistics.mean(r[name]['must_contain'] for r in subset):.3f}")
        print(f"| must_contain ({label}, {len(subset)}) | " + " | ".join(cells) + " |")
    answered = [r for r in rows if not r["extractive"]["knowledge_missing"]]
    cells = [f"{sum(r[n]['citations_valid'] for r in answered) / max(len(answered), 1):.3f}"
             for n in ("extractive", "embedded")]
    print(f"| valid citations (answers not declined, {len(answered)}) | " + " | ".join(cells) + " |")
    cells = [f"{statistics.mean(r[n]['seconds'] for r in rows):.2f}" for n in ("extractive", "embedded")]
    print("| seconds per answer (mean) | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
