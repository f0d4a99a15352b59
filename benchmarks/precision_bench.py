"""Embedding in bfloat16 against float32 on AWS passages: speed ratio and how far the vectors move, same run.

    python benchmarks/precision_bench.py --passages 1500
    python benchmarks/precision_bench.py --llm      # also the embedded Gemma 3 270M on an etcd prompt

Passages are ~110-word slices of the AWS guides (about the size of a search chunk). Prints seconds for each
precision, the speed ratio, the cosine between the two vectors of each passage (mean and minimum), and the share of
each passage's 10 nearest neighbours that stay the same. On a CPU without native bfloat16 the ratio comes out below 1,
which is why `embedding_precision=auto` picks float32 there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.backends.embedder import cpu_has_native_bf16  # noqa: E402
from assistant.components import get_embedder  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402

CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "awsdocs" / "documents"


def passages(corpus: Path, n: int, words: int = 110) -> list[str]:
    out: list[str] = []
    for path in sorted(corpus.rglob("*.md")):
        tokens = path.read_text(errors="replace").split()
        out += [" ".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]
        if len(out) >= n:
            break
    return out[:n]


def neighbours(vectors: np.ndarray, k: int = 10) -> np.ndarray:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    return np.argsort(-sims, axis=1)[:, :k]


def llm_figures(prompt_chars: int = 5000, new_tokens: int = 48) -> dict:
    """The embedded Gemma answering one etcd prompt in each precision: seconds and whether the greedy text agrees."""
    from assistant.backends.embedded_llm import EmbeddedChat

    doc = (PROJECT_ROOT.parent / "shared" / "corpora" / "etcd" / "v3.5" / "op-guide" / "maintenance.md").read_text()
    messages = [{"role": "system", "content": "Answer from this documentation:\n" + doc[:prompt_chars]},
                {"role": "user", "content": "How do I defragment etcd, and when should I?"}]
    out: dict = {}
    for precision in ("float32", "bfloat16"):
        chat = EmbeddedChat(PROJECT_ROOT / "models", precision=precision)
        chat.load()
        chat.chat(messages[:1] + [{"role": "user", "content": "warm up"}], max_tokens=2)
        before = chat.usage.prompt_tokens
        t0 = time.perf_counter()
        out[f"llm_{precision}_text"] = chat.chat(messages, max_tokens=new_tokens)
        out[f"llm_{precision}_seconds"] = round(time.perf_counter() - t0, 2)
        out["llm_prompt_tokens"] = chat.usage.prompt_tokens - before
    out["llm_speedup"] = round(out["llm_float32_seconds"] / out["llm_bfloat16_seconds"], 3)
    out["llm_same_text"] = out["llm_float32_text"] == out["llm_bfloat16_text"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--passages", type=int, default=1500)
    parser.add_argument("--llm", action="store_true", help="also time the embedded Gemma 3 270M in both precisions")
    args = parser.parse_args(argv)

    texts = passages(args.corpus, args.passages)
    vectors, seconds = {}, {}
    for precision in ("float32", "bfloat16"):
        embedder = get_embedder(Settings(models_dir=PROJECT_ROOT / "models", embedding_precision=precision))
        embedder.embed(["warm up the model before any timing"] * 8)
        t0 = time.perf_counter()
        vectors[precision] = embedder.embed(texts)
        seconds[precision] = time.perf_counter() - t0
    a, b = vectors["float32"], vectors["bfloat16"]
    cos = (a * b).sum(axis=1)
    na, nb = neighbours(a), neighbours(b)
    overlap = float(np.mean([len(set(x) & set(y)) / len(x) for x, y in zip(na, nb)]))
    figures = {
        "passages": len(texts), "native_bf16": cpu_has_native_bf16(),
        "float32_seconds": round(seconds["float32"], 2), "bfloat16_seconds": round(seconds["bfloat16"], 2),
        "speedup": round(seconds["float32"] / seconds["bfloat16"], 3),
        "cosine_mean": round(float(cos.mean()), 6), "cosine_min": round(float(cos.min()), 6),
        "top10_overlap": round(overlap, 4),
    }
    print(f"{len(texts)} passages; CPU has native bfloat16: {figures['native_bf16']}")
    print(f"float32 {figures['float32_seconds']} s, bfloat16 {figures['bfloat16_seconds']} s: {figures['speedup']}x")
    print(f"cosine to float32: mean {figures['cosine_mean']}, min {figures['cosine_min']}; "
          f"top-10 neighbours kept: {figures['top10_overlap']:.1%}")
    if args.llm:
        figures.update(llm_figures())
        print(f"embedded LLM, {figures['llm_prompt_tokens']}-token prompt + 48 tokens: float32 "
              f"{figures['llm_float32_seconds']} s, bfloat16 {figures['llm_bfloat16_seconds']} s: "
              f"{figures['llm_speedup']}x; same text: {figures['llm_same_text']}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
