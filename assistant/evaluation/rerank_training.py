"""A cross-encoder reranker trained on the user's own question sets (issue 15, point 6).

No cross-encoder ships offline, so the reranking stage is idle unless one is put in `models/`. This module makes
one from what the project already has: the bundled MiniLM encoder as the starting point, and questions with gold
files (a tuning half, a dev set, a golden set exported from thumbs-up answers) as supervision. For each question the
pipeline runs search-only, as a user asks; the contexts it would hand the reranker become training pairs: a context
from a gold file that holds the item's evidence is a positive, a context from any other file a negative (the hardest
negatives first, as ranked). The result is a sentence-transformers CrossEncoder folder that the reranking stage
loads like any other (`models/<name>`, setting `reranker_model`).

Train only on items you will not report as held out: `scripts/train_reranker.py` takes tuning halves, and
`benchmarks/rerank_bench.py` measures the gain on the held-out half.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from assistant.evaluation.dataset import EvalItem
from assistant.evaluation.matching import file_matches, same_file_in_other_release

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Pair:
    question: str
    text: str
    label: float  # 1.0 relevant, 0.0 not


@dataclass(frozen=True)
class MinedItem:
    item_id: str
    positives: int
    negatives: int


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.replace("`", "")).strip().lower()


def label_context(item: EvalItem, release: str, path: str, text: str, known_releases: Iterable[str]) -> float | None:
    """1.0: a gold file's context holding the evidence (or any gold-file context when the item has none);
    0.0: a context of another file; None (left out): a gold file's context without the evidence, and the gold
    file's copy in another release. Which release answers is routing's choice, and a copy's text often matches the
    gold word for word: labelled a negative, it would teach the model to tell apart what its input cannot show."""
    known = frozenset(known_releases)
    if not any(file_matches(g.file, release, path, known) for g in item.gold):
        return None if any(same_file_in_other_release(g.file, release, path, known) for g in item.gold) else 0.0
    evidence = item.extra.get("evidence")
    if not evidence:
        return 1.0
    return 1.0 if _norm(evidence) in _norm(text) else None


def pairs_for_item(item: EvalItem, contexts: Sequence[tuple[str, str, str]], known_releases: Iterable[str],
                   negatives: int = 8) -> list[Pair]:
    """Training pairs from one question's ranked contexts, (release, path, text) best first: every positive and the
    `negatives` best-ranked negatives. A question whose contexts hold no positive gives no pairs (nothing to learn)."""
    if not item.answerable:
        return []
    labelled = [(label_context(item, rel, path, text, known_releases), text) for rel, path, text in contexts]
    pos = [Pair(item.question, text, 1.0) for label, text in labelled if label == 1.0]
    if not pos:
        return []
    neg = [Pair(item.question, text, 0.0) for label, text in labelled if label == 0.0][:negatives]
    return pos + neg


def mine_pairs(pipeline, items: Sequence[EvalItem], negatives: int = 8, depth: int = 20,
               progress: Callable[[int, int], None] | None = None) -> tuple[list[Pair], list[MinedItem]]:
    """Ask every item search-only with the question text alone (the default preset without reranking) and turn
    the contexts it retrieves into pairs."""
    from dataclasses import replace

    from assistant.answering.presets import get_preset
    from assistant.evaluation.runner import ranked_contexts

    preset = replace(get_preset("default"), rerank=False)
    pairs: list[Pair] = []
    mined: list[MinedItem] = []
    for n, item in enumerate(items, 1):
        res = pipeline.ask(item.question, preset=preset, search_only=True)
        known = pipeline.library.releases(res.product) if res.product else []
        ranked = ranked_contexts(res, pipeline.manifest, depth)
        got = pairs_for_item(item, [(r.release, r.path, r.text) for r in ranked], known, negatives)
        pairs.extend(got)
        mined.append(MinedItem(item.id, sum(p.label == 1.0 for p in got), sum(p.label == 0.0 for p in got)))
        if progress:
            progress(n, len(items))
    return pairs, mined


def train_cross_encoder(pairs: Sequence[Pair], base_model: Path, out_dir: Path, *, epochs: int = 2,
                        batch_size: int = 16, learning_rate: float = 3e-5, max_length: int = 256, seed: int = 13,
                        progress: Callable[[int, int, float], None] | None = None) -> Path:
    """Fine-tune `base_model` (a BERT-style encoder folder) as a one-logit cross-encoder on `pairs`, with binary
    cross-entropy, and save it where sentence-transformers' CrossEncoder loads it."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if not pairs:
        raise ValueError("no training pairs: the questions' retrieved contexts held no gold evidence")
    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base_model))
    model = AutoModelForSequenceClassification.from_pretrained(str(base_model), num_labels=1)
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    order = list(pairs)
    steps = epochs * ((len(order) + batch_size - 1) // batch_size)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / max(1, steps)))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    step = 0
    for _ in range(epochs):
        rng.shuffle(order)
        for i in range(0, len(order), batch_size):
            batch = order[i : i + batch_size]
            enc = tokenizer([p.question for p in batch], [p.text for p in batch], truncation="only_second",
                            max_length=max_length, padding=True, return_tensors="pt")
            logits = model(**enc).logits.view(-1)
            loss = loss_fn(logits, torch.tensor([p.label for p in batch], dtype=torch.float32))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            scheduler.step()
            optimiser.zero_grad()
            step += 1
            if progress:
                progress(step, steps, loss.item())
    out_dir.mkdir(parents=True, exist_ok=True)
    model.eval()
    model.save_pretrained(str(out_dir))
    tokenizer.model_max_length = max_length
    tokenizer.save_pretrained(str(out_dir))
    return out_dir
