"""Pipeline latency benchmark (not a test).

On an index of the etcd corpus, prints the median and 95th percentile of each non-LLM stage and of the whole
search-only path over the dev questions, and the number of LLM calls per answer for each preset (counted with a
recording chat model that replies instantly, so the count is the pipeline's, not a model's speed).

    python benchmarks/pipeline_bench.py [--data-dir DIR] [--repeat 3]

With no --data-dir, it ingests ../shared/corpora/etcd into a temporary folder first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return 0.0
    idx = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[idx]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from assistant.answering.presets import PRESETS
    from assistant.backends.chat import FakeChat
    from assistant.components import (
        build_indexer,
        build_intent_classifier,
        build_pipeline,
    )
    from assistant.settings import Settings

    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="pipeline-bench-"))
    settings = Settings(data_dir=data_dir)
    if not args.data_dir:
        indexer = build_indexer(settings)
        for rel in ("v3.4", "v3.5", "v3.6"):
            indexer.library.add(SHARED / "corpora" / "etcd" / rel, "etcd", rel)
        t = time.perf_counter()
        indexer.sync("etcd")
        print(f"indexed etcd in {time.perf_counter() - t:.0f}s")

    questions = []
    for name in ("releases.jsonl", "intents.jsonl", "conversations.jsonl"):
        for line in (SHARED / "eval" / "dev" / name).read_text().splitlines():
            row = json.loads(line)
            if row.get("product") in ("etcd", None):
                turns = row.get("turns")
                if turns:
                    questions.append((turns[-1]["content"], turns[:-1]))
                else:
                    questions.append((row.get("question") or row.get("query"), None))
    intent = build_intent_classifier(settings, extra_examples=[])
    pipeline = build_pipeline(settings, llm=None, intent=intent)
    pipeline.ask("warm up the models", product="etcd", search_only=True)

    stages: dict[str, list[float]] = {}
    totals: list[float] = []
    for _ in range(args.repeat):
        for q, history in questions:
            t = time.perf_counter()
            res = pipeline.ask(q, history=history, product="etcd", search_only=True)
            totals.append((time.perf_counter() - t) * 1000)
            for stage, ms in res.timings_ms.items():
                stages.setdefault(stage, []).append(ms)

    print(f"\nsearch-only path over {len(questions)} etcd questions x {args.repeat} (ms)")
    print(f"{'stage':<14}{'median':>10}{'p95':>10}")
    for stage, values in stages.items():
        print(f"{stage:<14}{statistics.median(values):>10.1f}{pct(values, 0.95):>10.1f}")
    print(f"{'TOTAL':<14}{statistics.median(totals):>10.1f}{pct(totals, 0.95):>10.1f}")

    print("\nLLM calls per answer (answerable etcd questions, recording chat model)")
    sample = [q for q in questions if q[1] is None][:10]
    for name in PRESETS:
        chat = FakeChat(default_reply='{"standalone": "x", "rewritten": "x", "answerable": true, "keep": [1]}')
        p = build_pipeline(settings, llm=chat, intent=intent)
        calls = []
        for q, history in sample:
            res = p.ask(q, history=history, product="etcd", preset=name)
            calls.append(res.llm_calls)
        print(f"{name:<10} mean {statistics.mean(calls):.2f}  max {max(calls)}")


if __name__ == "__main__":
    main()
