"""`assistant eval`: run presets over a dataset against the current index and print the ablation table;
`assistant eval-set`: build a dataset from the app's feedback (DECO golden sets) or from sampled chunks."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from assistant.settings import Settings


def register(sub) -> None:
    p = sub.add_parser("eval", help="measure presets on a question set (JSONL or CSV, or a folder of them)")
    p.add_argument("dataset", help="a .jsonl or .csv file, or a folder holding several")
    p.add_argument("--product", help="pin every question to this product")
    p.add_argument("--question-only", action="store_true",
                   help="ask with the question text only, as a user types it: no product or release from the dataset")
    p.add_argument("--preset", nargs="+", action="extend", metavar="NAME",
                   help="one or more presets (several give an ablation table); default: the configured preset")
    p.add_argument("--search-only", action="store_true", help="retrieval and routing only: no LLM, no answer metrics")
    p.add_argument("--k", type=int, default=3, help="cut-off for hit@k, context recall@k and contamination@k")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--kind", nargs="+", help="only questions of these kinds")
    p.add_argument("--judge-model", help="judge for correctness/faithfulness/intent criteria/pairwise: an Ollama "
                                         "model name, 'embedded', or 'same' (the answering model)")
    p.add_argument("--json", action="store_true", help="one JSON object with per-preset metrics")
    p.add_argument("--out", help="folder for results.jsonl, report.md, report.json and PNG charts")
    p.set_defaults(func=cmd_eval)

    s = sub.add_parser("eval-set", help="build an evaluation set: from feedback, or synthetic from sampled chunks")
    s.add_argument("source", choices=["feedback", "synthetic"])
    s.add_argument("out", help="feedback: a folder (golden.jsonl, regressions.jsonl); synthetic: a .jsonl file")
    s.add_argument("--product", help="synthetic: the product whose chunks are sampled")
    s.add_argument("--release", nargs="+", help="synthetic: releases to sample (default: all of the product)")
    s.add_argument("-n", type=int, default=20, help="synthetic: number of questions")
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=cmd_eval_set)


def build_judge(name: str | None, settings: Settings, answering_llm):
    if not name:
        return None
    if name == "same":
        return answering_llm
    if name == "embedded":
        from assistant.backends.embedded_llm import EmbeddedChat

        return EmbeddedChat(settings.models_dir, settings.embedded_llm_precision)
    from assistant.backends.ollama import OllamaChat
    from assistant.secrets import get_secret

    token = get_secret(settings.ollama_token_name) if settings.ollama_token_name else None
    return OllamaChat(settings.ollama_host, name, timeout_s=settings.ollama_timeout_s, token=token)


def _progress(preset: str, done: int, total: int, item) -> None:
    sys.stderr.write(f"\r{preset}: {done}/{total} {item.id:<24}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_eval(args, settings: Settings) -> int:
    from assistant.app.db import AppDB
    from assistant.cli.ask import _load_llm
    from assistant.components import build_pipeline
    from assistant.evaluation import DatasetError, EvalConfig, load_dataset, run_eval
    from assistant.evaluation.report import text_table, write_report

    try:
        dataset = load_dataset(args.dataset)
    except (DatasetError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.kind:
        dataset.items = [i for i in dataset.items if i.kind in args.kind]
    if args.limit:
        dataset.items = dataset.items[: args.limit]
    presets = list(dict.fromkeys(args.preset or [settings.preset]))
    llm, notice, _extractive = _load_llm(settings, args.search_only)  # eval scores generated answers only
    if llm is not None and not args.json:
        print(f"({notice})", file=sys.stderr)
    config = EvalConfig(presets=presets, k=args.k, search_only=args.search_only or llm is None,
                        product=args.product, question_only=args.question_only, judge=build_judge(args.judge_model, settings, llm))
    pipeline = build_pipeline(settings, llm=llm, corrections=AppDB(settings.db_path).intent_corrections())
    try:
        report = run_eval(pipeline, dataset, config, progress=_progress if sys.stderr.isatty() else None)
    except ValueError as exc:  # an unknown preset
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        command = "assistant " + " ".join(shlex.quote(a) for a in getattr(args, "argv", []) or sys.argv[1:])
        written = write_report(report, Path(args.out), command=command)
        report.meta["written"] = {k: str(v) for k, v in written.items()}
    if args.json:
        print(json.dumps(report.to_json(), default=str))
    else:
        print(text_table(report))
        for notice in report.meta.get("notices", []):
            print(f"note: {notice}", file=sys.stderr)
        if args.out:
            print(f"\nwrote {report.meta['written']['report']} and {report.meta['written']['results']}")
    return 0


def cmd_eval_set(args, settings: Settings) -> int:
    out = Path(args.out)
    if args.source == "feedback":
        from assistant.app.db import AppDB
        from assistant.evaluation import export_feedback

        written = export_feedback(AppDB(settings.db_path), out)
        for name, path in written.items():
            print(f"{name}: {path} ({sum(1 for _ in path.open())} questions)")
        return 0
    if not args.product:
        print("error: synthetic questions need --product", file=sys.stderr)
        return 2
    from assistant.cli.ask import _load_llm
    from assistant.components import get_manifest
    from assistant.evaluation import synthesize, write_jsonl
    from assistant.library.catalogue import Library

    llm, notice, _extractive = _load_llm(settings, False)
    if llm is None:
        print(f"error: synthetic questions need a language model ({notice})", file=sys.stderr)
        return 2
    releases = args.release or Library(settings.library_dir).releases(args.product)
    items, failed = synthesize(llm, get_manifest(settings), args.product, releases, args.n, args.seed)
    write_jsonl(items, out)
    print(f"{out}: {len(items)} questions ({failed} unusable replies skipped)")
    return 0


def main(argv: list[str], settings: Settings | None = None) -> int:
    """In-process entry point (tests, notebooks): `main(["eval", "set.jsonl", "--search-only"], settings)`."""
    import argparse

    parser = argparse.ArgumentParser(prog="assistant")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    args.argv = argv
    return args.func(args, settings or Settings())
