"""Synthetic questions (DECO): one question per sampled chunk, written by the LLM, to bootstrap a dataset when the
user has none. Sampling is seeded over the manifest's chunks in a fixed order, so the same seed gives the same set."""

from __future__ import annotations

import random
from dataclasses import dataclass

from assistant.backends.chat import ChatModel
from assistant.evaluation.dataset import EvalItem, Gold
from assistant.evaluation.judge.base import Example, JudgePrompt, ask_judge

MIN_WORDS = 30  # shorter chunks are headings and link lists that no one asks about

PROMPT = JudgePrompt(
    name="synthetic_question",
    instruction=(
        "You write evaluation questions for a documentation assistant. Given a passage from the documentation of "
        "a product release, write one question a user would ask that the passage answers on its own, and the "
        "short answer taken from the passage. Name the product and the release in the question."
    ),
    reply_format='{"question": "<question>", "answer": "<short answer>"}',
    examples=(
        Example({"product": "etcd", "release": "v3.5",
                 "passage": "--snapshot-count: Number of committed transactions to trigger a snapshot to disk. default: 100000"},
                {"question": "How many committed transactions trigger a snapshot in etcd v3.5 by default?",
                 "answer": "100000 (--snapshot-count)"}),
    ),
)


@dataclass(frozen=True)
class SampledChunk:
    release: str
    chunk_id: str
    text: str


def sample_chunks(chunks: list[SampledChunk], n: int, seed: int = 0) -> list[SampledChunk]:
    """n chunks of at least MIN_WORDS words, drawn without replacement by a seeded generator; pure."""
    pool = sorted((c for c in chunks if len(c.text.split()) >= MIN_WORDS), key=lambda c: (c.release, c.chunk_id))
    return random.Random(seed).sample(pool, min(n, len(pool)))


def parse_question(reply: dict | None) -> tuple[str, str] | None:
    if not isinstance(reply, dict):
        return None
    q, a = str(reply.get("question", "")).strip(), str(reply.get("answer", "")).strip()
    if not q or not a or len(q) > 400 or len(q.split()) < 3:
        return None
    return q, a


def synthesize(llm: ChatModel, manifest, product: str, releases: list[str], n: int, seed: int = 0) -> tuple[list[EvalItem], int]:
    """(items, number of chunks whose reply was unusable)."""
    chunks = []
    for release in releases:
        ids, texts = manifest.chunk_texts(product, release)
        chunks += [SampledChunk(release, i, t) for i, t in zip(ids, texts)]
    picked = sample_chunks(chunks, n, seed)
    rows = manifest.chunk_rows([c.chunk_id for c in picked])
    items, failed = [], 0
    for c in picked:
        row = rows.get(c.chunk_id)
        if row is None:
            continue
        reply, _ = ask_judge(llm, PROMPT, {"product": product, "release": c.release, "passage": c.text[:2000]},
                             max_tokens=160)
        parsed = parse_question(reply)
        if parsed is None:
            failed += 1
            continue
        question, answer = parsed
        items.append(EvalItem(
            id=f"syn-{c.release}-{len(items) + 1:03d}", question=question, answer=answer, product=product,
            release=c.release, target_releases=[c.release], gold=[Gold(f"{c.release}/{row['path']}", row.get("page"))],
            kind="synthetic", dataset="synthetic", extra={"chunk_id": c.chunk_id, "seed": seed}))
    return items, failed
