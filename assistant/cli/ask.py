"""`assistant ask`: one question, a history file, or a batch of questions with the models kept loaded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from assistant.answering.citations import page_citation
from assistant.answering.state import PRODUCT_SOURCE_TEXT
from assistant.settings import Settings


def register(sub) -> None:
    p = sub.add_parser("ask", help="answer a question from the indexed documents")
    p.add_argument("question", nargs="?", help="the question (or use --batch)")
    p.add_argument("--product")
    p.add_argument("--release")
    p.add_argument("--history", help="JSON file: a list of {role, content} turns")
    p.add_argument("--preset", default=None, help="naive, ericsson, iknow, qamr, deco or default")
    p.add_argument("--search-only", action="store_true", help="every stage up to the knowledge check, no LLM call")
    p.add_argument("--batch", help="JSONL file: {question, id?, product?, release?, history?} per line")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ask)


def _load_llm(settings: Settings, search_only: bool):
    if search_only:
        return None, "search-only: no language model called", False
    from assistant.components import build_chat_model
    from assistant.secrets import get_secret

    token = get_secret(settings.ollama_token_name) if settings.ollama_token_name else None
    choice = build_chat_model(settings, token)
    return choice.model, choice.notice, choice.extractive


def _to_stderr(piece: str) -> None:
    """Streams the answer to stderr token by token; the sources and the rest print to stdout at the end."""
    sys.stderr.write(piece)
    sys.stderr.flush()


def _print_human(res) -> None:
    print(f"intent: {res.intent.get('label')} ({res.intent.get('confidence', 0):.2f})")
    chosen = PRODUCT_SOURCE_TEXT.get(res.product_source, "")
    also = res.routing.get("also") or []
    products = res.product + "".join(f" + {p} {r}" for p, r in also) if res.product else "(none)"
    print(f"product: {products}{f' ({chosen})' if chosen else ''}  releases: {', '.join(res.releases)}"
          f"{f' ({res.release_source})' if res.release_source else ''}")
    if res.rewritten:
        print(f"rewritten: {res.rewritten}")
    if res.knowledge_missing:
        print("WARNING: the documents do not cover this question")
    print()
    print(res.answer or "(search-only: ranked sources below)")
    print()
    for s in res.sources:
        where = s.path + (f" p.{page_citation(s.page, s.page_label)}" if s.page else "") + (f" § {s.section}" if s.section else "")
        print(f"[{s.n}] {s.product} {s.release} {where} ({s.score:.3f}){'' if s.cited else ' (also retrieved)'}")
    for n in res.notices:
        print(f"note: {n}", file=sys.stderr)


def cmd_ask(args, settings: Settings) -> int:
    from assistant.app.db import AppDB
    from assistant.components import build_pipeline

    if not args.question and not args.batch:
        print("error: give a QUESTION or --batch FILE", file=sys.stderr)
        return 2
    llm, notice, extractive = _load_llm(settings, args.search_only)
    pipeline = build_pipeline(settings, llm=llm, corrections=AppDB(settings.db_path).intent_corrections())
    preset = args.preset or settings.preset
    if args.batch:
        for line in Path(args.batch).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            res = pipeline.ask(item["question"], history=item.get("history"), product=item.get("product"),
                               release=item.get("release"), preset=item.get("preset", preset), search_only=args.search_only,
                               extractive=extractive)
            out = res.to_json()
            if "id" in item:
                out = {"id": item["id"], **out}
            print(json.dumps(out), flush=True)
        return 0
    history = json.loads(Path(args.history).read_text(encoding="utf-8")) if args.history else None
    streaming = not args.json and llm is not None
    if streaming:
        print(f"({notice})", file=sys.stderr)
    stream = _to_stderr if streaming else None
    res = pipeline.ask(args.question, history=history, product=args.product, release=args.release, preset=preset,
                       search_only=args.search_only, on_token=stream, extractive=extractive)
    if args.json:
        print(json.dumps(res.to_json()))
    else:
        if stream is not None:
            sys.stderr.write("\n")
        _print_human(res)
    return 0
