"""Answer-stage cost per preset with the embedded LLM (Gemma 3 270M on CPU): LLM calls, tokens and seconds.

    ASSISTANT_DATA_DIR=/path/to/data python benchmarks/answer_cost_bench.py [--questions 3] [--preset ...]

The questions are the first answerable ones of a dev set whose product the index holds. Every preset answers the
same questions with the same model at temperature 0; the table shows, per question, the LLM calls and tokens
(prompt + completion, the model's own tokenizer) and the seconds spent in the stages that may call the LLM
(rewrite, knowledge, reduce, generation) beside the whole pipeline's. The embedded model writes ~3-6 tokens/s on
two cores, so expect minutes per preset; --max-answer-tokens caps every reply for a quick check (it lowers cost).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from assistant.answering.presets import PRESETS
from assistant.app.db import AppDB
from assistant.backends.chat import ChatModel
from assistant.components import build_pipeline
from assistant.evaluation import EvalConfig, load_dataset, run_eval
from assistant.evaluation.metrics import mean
from assistant.settings import Settings

DEV = Path(__file__).resolve().parents[2] / "shared" / "eval" / "dev" / "releases.jsonl"
LLM_STAGES = ("rewrite", "knowledge", "reduce", "generation")


class Capped(ChatModel):
    """Delegates to a model with every reply capped at `cap` tokens (usage is the inner model's)."""

    def __init__(self, inner: ChatModel, cap: int) -> None:
        super().__init__()
        self.inner, self.cap = inner, cap
        self.backend, self.model = inner.backend, f"{inner.model} (max {cap} tokens)"
        self.usage = inner.usage

    def chat(self, messages, *, temperature=0.0, max_tokens=512, json_mode=False):
        return self.inner.chat(messages, temperature=temperature, max_tokens=min(max_tokens, self.cap), json_mode=json_mode)

    def stream(self, messages, *, temperature=0.0, max_tokens=512):
        return self.inner.stream(messages, temperature=temperature, max_tokens=min(max_tokens, self.cap))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=str(DEV))
    ap.add_argument("--questions", type=int, default=3)
    ap.add_argument("--preset", nargs="+", default=list(PRESETS))
    ap.add_argument("--max-answer-tokens", type=int, help="cap every reply (quick checks only)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from assistant.backends.embedded_llm import EmbeddedChat

    settings = Settings()
    llm: ChatModel = EmbeddedChat(settings.models_dir, settings.embedded_llm_precision)
    t0 = time.perf_counter()
    llm.load()
    load_s = time.perf_counter() - t0
    if args.max_answer_tokens:
        llm = Capped(llm, args.max_answer_tokens)
    pipeline = build_pipeline(settings, llm=llm, corrections=AppDB(settings.db_path).intent_corrections())
    products = set(pipeline.library.products())
    dataset = load_dataset(args.dataset)
    dataset.items = [i for i in dataset.items if i.answerable and (i.product in products or not i.product)][: args.questions]
    if not dataset.items:
        print(f"no answerable question of {args.dataset} is about an indexed product ({sorted(products)})", file=sys.stderr)
        return 2

    report = run_eval(pipeline, dataset, EvalConfig(presets=args.preset, search_only=False))
    rows = []
    for name in args.preset:
        recs = report.records_for(name)
        rows.append({
            "preset": name,
            "questions": len(recs),
            "llm_calls": mean([r.get("llm_calls", 0) for r in recs]),
            "prompt_tokens": mean([r.get("prompt_tokens", 0) for r in recs]),
            "completion_tokens": mean([r.get("completion_tokens", 0) for r in recs]),
            "answer_stage_s": mean([sum(r.get("timings_ms", {}).get(s, 0.0) for s in LLM_STAGES) / 1000 for r in recs]),
            "total_s": mean([r.get("seconds", 0.0) for r in recs]),
            "errors": sum(r.get("status") == "error" for r in recs),
        })
    if args.json:
        print(json.dumps({"model": llm.model, "load_s": load_s, "questions": [i.id for i in dataset.items], "rows": rows}))
        return 0
    print(f"model {llm.model} (loaded in {load_s:.1f} s); questions: {', '.join(i.id for i in dataset.items)}")
    print(f"{'preset':<10}{'calls/q':>9}{'prompt tok/q':>14}{'compl tok/q':>13}{'answer s/q':>12}{'total s/q':>11}")
    for r in rows:
        print(f"{r['preset']:<10}{r['llm_calls']:>9.1f}{r['prompt_tokens']:>14.0f}{r['completion_tokens']:>13.0f}"
              f"{r['answer_stage_s']:>12.1f}{r['total_s']:>11.1f}" + (f"  ({r['errors']} errors)" if r["errors"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
