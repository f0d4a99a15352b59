"""Does the cross-encoder earn its cost? (issue 15, point 6) The default preset with and without reranking over a
question set (the held-out half: nothing is tuned here), search-only, asked as a user types.

    ASSISTANT_DATA_DIR=/tmp/lib python benchmarks/rerank_bench.py eval/ranking.heldout.jsonl

Prints hit@k and MRR both ways, their difference, and the rerank stage's mean and p95 milliseconds per question.
No cross-encoder ships with the project (none is on PyPI and nothing is downloaded): without one in `models/` (or the
Hugging Face cache) it says so, measures nothing and exits 3, so a missing model is never reported as "no gain".
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.answering.presets import PRESETS  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--product", nargs="+", help="only items of these products")
    ap.add_argument("--k", type=int, default=3)
    args = ap.parse_args()

    from assistant.app.db import AppDB
    from assistant.components import build_pipeline, build_reranker
    from assistant.evaluation import EvalConfig, load_dataset, run_eval
    from assistant.settings import Settings

    settings = Settings()
    reranker = build_reranker(settings)
    if not reranker.available:
        print(f"NO CROSS-ENCODER PRESENT: nothing measured.\n{reranker.notice}")
        return 3
    dataset = load_dataset(args.dataset)
    if args.product:
        dataset.items = [i for i in dataset.items if i.product in args.product]
    PRESETS["rb:off"] = replace(PRESETS["default"], name="rb:off", rerank=False)
    PRESETS["rb:on"] = replace(PRESETS["default"], name="rb:on", rerank=True)
    pipeline = build_pipeline(settings, llm=None, corrections=AppDB(settings.db_path).intent_corrections())
    report = run_eval(pipeline, dataset, EvalConfig(presets=["rb:off", "rb:on"], k=args.k, search_only=True,
                                                    question_only=True))
    out = {}
    for name in ("rb:off", "rb:on"):
        agg = report.presets[name]
        rerank = agg["cost"]["latency_ms"].get("rerank") or {}
        out[name] = {"hit": agg["metrics"]["hit@k"]["mean"], "mrr": agg["metrics"]["mrr"]["mean"],
                     "rerank_ms_mean": rerank.get("mean_ms"), "rerank_ms_p95": rerank.get("p95_ms"), "n": agg["n"]}
    print(f"model: {reranker.notice}")
    print(json.dumps(out, indent=1))
    off, on = out["rb:off"], out["rb:on"]
    print(f"gain: hit@{args.k} {on['hit'] - off['hit']:+.3f}, MRR {on['mrr'] - off['mrr']:+.3f}; "
          f"cost {on['rerank_ms_mean'] or 0:.1f} ms per question (p95 {on['rerank_ms_p95'] or 0:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
