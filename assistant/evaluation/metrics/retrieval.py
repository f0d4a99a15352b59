"""Retrieval metrics (no LLM): gold hit@k and MRR at file and page level, answer-in-context recall@k (the Ericsson
paper's Context Recall@k), and release contamination. Ranks are 1-based; None means "does not apply"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from assistant.evaluation.dataset import Gold
from assistant.evaluation.matching import Retrieved, file_matches, page_matches

# Function words carry no evidence that the context holds the answer.
STOP_WORDS = frozenset("""
a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that
these those there here which who whom whose what when where why how do does did done has have had not no yes can
could may might must shall should will would than so such into onto over under about after before between both each
few more most other some any all only own same too very just also per via use used using you your we our they them
their he she his her i me my according
""".split())

_TOKEN = re.compile(r"[a-z0-9]+(?:[._\-/][a-z0-9]+)*")
_PART = re.compile(r"[._\-/]")


def first_hit_rank(ranked: Sequence[Retrieved], gold: Sequence[Gold], *, level: str = "file",
                   known_releases: Iterable[str] = ()) -> int | None:
    """Rank of the first retrieved context matching any gold reference; None when none does."""
    known = frozenset(known_releases)
    for rank, src in enumerate(ranked, 1):
        for g in gold:
            if level == "page":
                if g.page is not None and page_matches(g, src, known):
                    return rank
            elif file_matches(g.file, src.release, src.path, known):
                return rank
    return None


def hit_at_k(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0


def gold_recall_at_k(ranked: Sequence[Retrieved], gold: Sequence[Gold], k: int,
                     known_releases: Iterable[str] = ()) -> float | None:
    """Share of distinct gold files found in the top k (a cross-release question has gold in both releases)."""
    files = list(dict.fromkeys(g.file for g in gold))
    if not files:
        return None
    known = frozenset(known_releases)
    top = ranked[:k]
    found = sum(any(file_matches(f, s.release, s.path, known) for s in top) for f in files)
    return found / len(files)


def content_words(text: str) -> list[str]:
    """Lowercased words and identifiers ("query.timeout", "3.4.29") without function words, in order, unique."""
    words = [w for w in _TOKEN.findall(text.lower()) if w not in STOP_WORDS]
    return list(dict.fromkeys(words))


def _context_vocab(contexts: Iterable[str]) -> tuple[set[str], set[str]]:
    whole: set[str] = set()
    parts: set[str] = set()
    for text in contexts:
        for w in _TOKEN.findall(text.lower()):
            whole.add(w)
            parts.update(p for p in _PART.split(w) if p)
    return whole, parts


def answer_in_context_recall(answer: str | None, contexts: Sequence[str]) -> float | None:
    """Share of the gold answer's content words found in the contexts (pass the top k).

    A compound word ("queue_config.max_shards") also counts when each of its parts appears, since documentation
    often spells a setting as a nested key rather than a dotted path."""
    if not answer:
        return None
    words = content_words(answer)
    if not words:
        return None
    whole, parts = _context_vocab(contexts)
    found = 0
    for w in words:
        pieces = [p for p in _PART.split(w) if p]
        if w in whole or w in parts or (len(pieces) > 1 and all(p in parts for p in pieces)):
            found += 1
    return found / len(words)


def contamination(releases: Sequence[str], targets: Iterable[str]) -> float | None:
    """Share of retrieved contexts (pass the top k's releases) from a release other than the target(s)."""
    wanted = set(targets)
    if not wanted or not releases:
        return None
    return sum(r not in wanted for r in releases) / len(releases)
