"""Multi-field search ablation (issue 15): the default preset with each search field on its own, all of them, and all
but one, over a question set, search-only, asked as a user types (question text only).

    ASSISTANT_DATA_DIR=/tmp/lib python benchmarks/fields_bench.py eval/ranking.tune.jsonl [--variants a b ...]

Prints hit@k, MRR, missing-knowledge F1 and the retrieval stage's mean latency per variant. Tune on the tuning half
only; the held-out half is measured once, with the variants already chosen (README: "Ranking").
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.answering.presets import PRESETS  # noqa: E402
from assistant.library import fields as fl  # noqa: E402

ALL = {fl.TITLE: 1.0, fl.HEADING: 1.0, fl.FILE: 1.0, fl.IDENT: 1.0, fl.HEADING_DENSE: 1.0}
SHORT = {fl.TITLE: "title", fl.HEADING: "heading", fl.FILE: "file", fl.IDENT: "ident", fl.HEADING_DENSE: "headdense"}


def variants() -> dict[str, dict[str, float]]:
    out = {"body": {}, "all": dict(ALL), "preset": dict(PRESETS["default"].retrieval.fields)}
    for name, short in SHORT.items():
        out[f"+{short}"] = {name: 1.0}
        out[f"all-{short}"] = {k: v for k, v in ALL.items() if k != name}
    return out


def register(name: str, fields: dict[str, float], ident_k: int | None = None) -> str:
    base = PRESETS["default"]
    retrieval = replace(base.retrieval, fields=tuple(fields.items()))
    if ident_k is not None:
        retrieval, name = replace(retrieval, ident_k=ident_k), f"{name}/k{ident_k}"
    PRESETS[f"fb:{name}"] = replace(base, name=f"fb:{name}", retrieval=retrieval)
    return f"fb:{name}"


def _p50(records: list[dict]) -> float | None:
    totals = sorted(sum((r.get("timings_ms") or {}).values()) for r in records if r.get("timings_ms"))
    return float(totals[len(totals) // 2]) if totals else None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--variants", nargs="+", help="names from: " + ", ".join(variants()))
    ap.add_argument("--fields", nargs="+", help="extra variants, each as JSON {field: weight}")
    ap.add_argument("--product", nargs="+", help="only items of these products")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--ident-k", type=int, nargs="+", help="identifier-field depths to try (each variant x each)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--diff", action="store_true", help="list the items whose hit differs between variants")
    args = ap.parse_args()

    from assistant.app.db import AppDB
    from assistant.components import build_pipeline
    from assistant.evaluation import EvalConfig, load_dataset, run_eval
    from assistant.settings import Settings

    settings = Settings()  # ASSISTANT_DATA_DIR and the other variables, as the CLI
    dataset = load_dataset(args.dataset)
    if args.product:
        dataset.items = [i for i in dataset.items if i.product in args.product]
    table = variants()
    chosen = {name: table[name] for name in (args.variants or ([] if args.fields else list(table)))}
    for i, spec in enumerate(args.fields or [], 1):
        chosen[f"custom{i}"] = json.loads(spec)
    names = {}
    for name, f in chosen.items():
        for ident_k in args.ident_k or [None]:
            preset = register(name, f, ident_k)
            names[preset] = preset.removeprefix("fb:")
    pipeline = build_pipeline(settings, llm=None, corrections=AppDB(settings.db_path).intent_corrections())
    report = run_eval(pipeline, dataset, EvalConfig(presets=list(names), k=args.k, search_only=True,
                                                    question_only=True))
    rows = {}
    for preset, name in names.items():
        agg = report.presets[preset]
        m = agg["metrics"]
        lat = agg["cost"]["latency_ms"]
        rows[name] = {"n": agg["n"], "hit": m.get("hit@k", {}).get("mean"), "mrr": m.get("mrr", {}).get("mean"),
                      "missing_f1": (agg.get("knowledge_missing") or {}).get("f1"),
                      "retrieval_ms": (lat.get("retrieval") or {}).get("mean_ms"),
                      "total_ms_p50": _p50([r for r in report.records if r["preset"] == preset])}
    if args.diff:
        hits: dict[str, dict[str, object]] = {}
        for r in report.records:
            hits.setdefault(r["id"], {})[names[r["preset"]]] = r["metrics"].get("hit@k")
        for item_id, by in hits.items():
            if len({str(v) for v in by.values()}) > 1:
                print(item_id, by)
    if args.json:
        print(json.dumps(rows))
    else:
        print(f"{'variant':<16}{'n':>5}{'hit@' + str(args.k):>8}{'MRR':>8}{'miss F1':>9}{'retr ms':>9}{'p50 ms':>8}")
        for name, r in rows.items():
            f = lambda v, w=8: f"{v:>{w}.3f}" if isinstance(v, float) else f"{'-':>{w}}"  # noqa: E731
            print(f"{name:<16}{r['n']:>5}{f(r['hit'])}{f(r['mrr'])}{f(r['missing_f1'], 9)}"
                  f"{f(r['retrieval_ms'], 9)}{f(r['total_ms_p50'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
