"""Time to sources and time to first token, per backend, as the chat page sees them (app/live.py's LiveAnswer):
search only, extractive (no model), the embedded Gemma 3 270M, and Ollama. No real Ollama runs here: the Ollama row
uses the Ollama-compatible test server (tests/ollama_server.py) answering at once, so it measures the client and the
pipeline, not a model.

    nice python benchmarks/live_answer_bench.py --data /tmp/offline_answer_bench [--questions 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from assistant.app.services import Services  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402

QUESTIONS = ["In etcd 3.5, what is the default --snapshot-count?",
             "Prometheus 2.53 default max_samples_per_send for remote write?",
             "How do I defragment the etcd database in v3.4?",
             "What is the default scrape_timeout in Prometheus 3.5?"]


def measure(settings: Settings, questions: list[str], search_only: bool = False) -> tuple[list, list, float]:
    services = Services(settings)
    start = time.perf_counter()
    services.preload()  # the search models, and the embedded model when it is the backend, as the app does at start
    services.warmup.wait()
    load = time.perf_counter() - start
    to_sources, to_token = [], []
    for q in questions:
        live = services.start_answer(q, search_only=search_only)
        while not live.view().finished:
            time.sleep(0.02)
        view = live.view()
        to_sources.append(view.to_sources_s)
        if view.to_first_token_s is not None:
            to_token.append(view.to_first_token_s)
    return to_sources, to_token, load


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/tmp/offline_answer_bench")
    ap.add_argument("--questions", type=int, default=len(QUESTIONS))
    args = ap.parse_args()
    from ollama_server import OllamaServer

    questions = QUESTIONS[: args.questions]
    base = dict(data_dir=Path(args.data), models_dir=PROJECT_ROOT / "models")
    rows = []
    with OllamaServer(responder=lambda r: ["The default ", "is documented ", "in [1]."]) as server:
        for name, extra, search_only in (
            ("search only", {"llm_backend": "none"}, True),
            ("extractive (no model)", {"llm_backend": "extractive"}, False),
            ("Ollama client + test server", {"llm_backend": "ollama", "ollama_host": server.url,
                                             "ollama_model": "llama3.1:8b"}, False),
            ("embedded Gemma 3 270M", {"llm_backend": "embedded"}, False),
        ):
            import streamlit  # noqa: F401  (Services imports it lazily; keep import cost out of the first timing)
            srcs, toks, load = measure(Settings(**base, **extra), questions, search_only)
            rows.append((name, srcs, toks, load))
            print(f"{name}: sources {srcs} first token {toks} load {load:.1f}", file=sys.stderr)
    print(f"{len(questions)} questions each, median seconds after asking (models already loaded)")
    print("| backend | time to sources | time to first token |\n|---|---|---|")
    for name, srcs, toks, load in rows:
        tok = f"{statistics.median(toks):.2f}" if toks else "no generated text"
        note = f" (background loading before the first question: {load:.0f} s)"
        print(f"| {name}{note} | {statistics.median(srcs):.2f} | {tok} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
