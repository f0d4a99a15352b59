#!/usr/bin/env python3
"""Score timeline and change answers (issue 16) on eval/timeline.*.jsonl through the whole pipeline, asked as a user
types (question text only: no product or release pinned), search-only (no LLM).

    ASSISTANT_DATA_DIR=... python scripts/eval_timeline.py eval/timeline.tune.jsonl eval/timeline.heldout.jsonl

The library must hold etcd (v3.4, v3.5, v3.6) and prometheus (v2.45.0, v2.53.0, v3.5.0), synced. Prints, per file,
the share of answers naming the right release or change (assistant/evaluation/timeline_scoring.py), by kind, and
every miss; `--json` prints one line per question instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.components import build_pipeline  # noqa: E402
from assistant.evaluation.timeline_scoring import score_timeline  # noqa: E402
from assistant.settings import Settings  # noqa: E402


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    pipeline = build_pipeline(Settings())
    for path in args.files:
        items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        by_kind: dict[str, list[bool]] = defaultdict(list)
        recalls, misses = [], []
        for item in items:
            res = pipeline.ask(item["question"], search_only=True)
            releases = pipeline.library.releases(item["product"])
            score = score_timeline(item, res.answer, releases)
            by_kind[item["kind"]].append(score.right)
            if score.change_recall is not None:
                recalls.append(score.change_recall)
            cited = sum(s.cited for s in res.sources)
            if args.json:
                print(json.dumps({"id": item["id"], "kind": item["kind"], "right": score.right, "why": score.why,
                                  "status": res.status, "cited": cited, "answer": res.answer}))
            elif not score.right:
                misses.append(f"  miss {item['id']} {item['kind']}: {score.why} (status {res.status}) | "
                              f"{item['question']}")
        right = sum(sum(v) for v in by_kind.values())
        if not args.json:
            print(f"{path.name}: right release or change named in {right}/{len(items)} = {right / len(items):.1%}")
            print("  " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())))
            if recalls:
                print(f"  share of the expected changes named (change kinds): {sum(recalls) / len(recalls):.1%}")
            print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
