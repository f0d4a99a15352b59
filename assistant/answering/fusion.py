"""Pure ranking decisions: weighted fusion, MMR and DECO's margin filter. No I/O; each is tested on its own.

Reciprocal rank fusion runs inside the store's engine (store.SearchSpec).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from llama_index.core.schema import NodeWithScore

from assistant.library.diffs import is_changelog


def weighted_average(score_lists: Sequence[dict[str, float]], weights: Sequence[float]) -> dict[str, float]:
    """Ericsson's ensemble: min-max normalise each retriever's scores, then a weighted average (missing = 0)."""
    out: dict[str, float] = {}
    total = sum(weights) or 1.0
    for scores, w in zip(score_lists, weights):
        if not scores:
            continue
        lo, hi = min(scores.values()), max(scores.values())
        span = hi - lo
        for key, s in scores.items():
            norm = (s - lo) / span if span > 1e-9 else 1.0
            out[key] = out.get(key, 0.0) + w * norm / total
    return out


def margin_filter(scores: Sequence[float], margin: float, keep_min: int = 1) -> int:
    """DECO: when the top results stand far above the rest, keep only them.

    Returns how many of the (descending) scores to keep: everything within `margin` of the best, at least keep_min.
    """
    if not scores:
        return 0
    top = scores[0]
    n = sum(1 for s in scores if s >= top - margin)
    return max(min(keep_min, len(scores)), n)


def mmr(query: np.ndarray, vectors: np.ndarray, k: int, lam: float = 0.7) -> list[int]:
    """Maximal marginal relevance over normalised vectors: relevance minus redundancy with what is already picked."""
    if len(vectors) == 0:
        return []
    rel = vectors @ query
    picked: list[int] = []
    rest = list(range(len(vectors)))
    while rest and len(picked) < k:
        if picked:
            red = (vectors[rest] @ vectors[picked].T).max(axis=1)
        else:
            red = np.zeros(len(rest))
        best = int(np.argmax(lam * rel[rest] - (1 - lam) * red))
        picked.append(rest.pop(best))
    return picked


def lost_in_the_middle(items: list, key=None) -> list:
    """Strongest evidence first and last, weakest in the middle (items come in descending strength)."""
    front, back = [], []
    for i, item in enumerate(items):
        (front if i % 2 == 0 else back).append(item)
    return front + back[::-1]


def spread_files(items: list, key, slots: int) -> list:
    """The best item of each distinct file (key(item)) takes the first `slots` places, in score order; the rest
    follow in score order. Two or three chunks of one page would otherwise fill the top of the sources and push
    the only other page that answers below what a reader looks at (README: "Ranking (issue 15)")."""
    if slots <= 0:
        return list(items)
    top, seen = [], set()
    for i, item in enumerate(items):
        if len(top) >= slots:
            break
        if key(item) not in seen:
            seen.add(key(item))
            top.append(i)
    chosen = set(top)
    return [items[i] for i in top] + [item for i, item in enumerate(items) if i not in chosen]


def balance_releases(contexts: list[NodeWithScore], scopes: list[tuple[str, str]], k: int) -> list[NodeWithScore]:
    """For a comparison (or two close products), interleave the (product, release) scopes so each is cited; else the
    top k."""
    if len(scopes) < 2:
        return contexts[:k]
    per = {s: [n for n in contexts if (n.node.metadata.get("product"), n.node.metadata.get("release")) == s]
           for s in scopes}
    out: list[NodeWithScore] = []
    while len(out) < k and any(per.values()):
        for r in scopes:
            if per[r] and len(out) < k:
                out.append(per[r].pop(0))
    return out


def fused_order(fused: dict, cosine) -> list:
    """Keys by fused score, an exact tie going to the nearer cosine (`cosine(key)`, None last). Ties are common under
    RRF: two pages each first in the same lists score 2 / 61 alike, and the engine's order among them changed from run
    to run (awsdocs aws-083: its gold, cosine 0.717, tied with a CodePipeline page at 0.449 and fell to 4th or 5th in
    some runs; README: "Ranking (issue 15)", AWS round 7)."""
    def nearness(key) -> float:
        c = cosine(key)
        return float("-inf") if c is None else c
    return sorted(fused, key=lambda key: (-fused[key], -nearness(key)))


def dense_only_slot(items: list, key, cosine, lexical, slot: int = 3, near: float = 0.01, over: float = 0.02) -> list:
    """Reciprocal rank fusion counts a file that only the dense lists found (no BM25 list's top 20 holds any of its
    chunks) at half the votes of one both kinds found, however close its cosine is to the best: a page that answers in
    other words than the question's (a troubleshooting page for a symptom, "suspend" for "turn off") ends 4th to 9th
    behind pages sharing the question's words. Such a file takes the `slot`-th file's place when its best cosine is
    within `near` of the best candidate's and at least `over` above that file's (a cosine 0.002 higher says nothing:
    aws-083's gold lost its place to another guide's page so; README: "Ranking (issue 15)", AWS round 5).
    `items` in fused order; `key(item)` its file, `cosine(item)` its dense cosine or None, `lexical(item)` whether a
    BM25 list found it. The chosen file's best chunk moves up; every other item keeps its order."""
    files: list = []
    best: dict = {}
    found_by_words: set = set()
    for item in items:
        k, c = key(item), cosine(item)
        if k not in best:
            files.append(k)
            best[k] = None
        if c is not None and (best[k] is None or c > cosine(best[k])):
            best[k] = item
        if lexical(item):
            found_by_words.add(k)
    if len(files) <= slot:
        return list(items)
    cos = {k: cosine(item) if item is not None else float("-inf") for k, item in best.items()}
    top = max(cos.values())
    rivals = [k for k in files[slot:]
              if k not in found_by_words and cos[k] >= top - near and cos[k] >= cos[files[slot - 1]] + over]
    if not rivals:
        return list(items)
    chosen = best[max(rivals, key=lambda k: cos[k])]
    at = next(i for i, item in enumerate(items) if key(item) == files[slot - 1])
    rest = [item for item in items if item is not chosen]
    return rest[:at] + [chosen] + rest[at:]


# A question about a release's history in any way: such a question may be answered by a changelog entry. Verbs
# count in their past forms only: "add -h as a help flag" and "remove the default log handler" ask how to.
_HISTORY_CUE = re.compile(r"\b(?:added|adds|new(?:er|est)?|introduc\w*|removed|removal|deprecat\w*|changed|changes|"
                          r"dropped|renamed|since|versions?|releases?|released|changelog|history|fix(?:ed|es)?|bugs?|"
                          r"upgrad\w*|migrat\w*|became|no longer|anymore|support(?:ed|s)?)\b", re.IGNORECASE)
# A question that asks what changed: a past change ("was removed", "did click 8.0 drop", "which version added"); not
# "which python versions does it support".
_CHANGE_CUE = re.compile(r"\b(?:added|introduced|removed|deprecated|changed|dropped|renamed|fixed|changelog|"
                         r"no longer|what'?s new|new in)\b|\bwhen (?:was|were|did)\b|\bwhich (?:version|release)s?\b|"
                         r"\bdid\b.*\b(?:add|remove|drop|deprecate|change|rename|introduce)\b",
                         re.IGNORECASE)


def asks_history(question: str) -> bool:
    return bool(_HISTORY_CUE.search(question)) or asks_change(question)


def asks_change(question: str) -> bool:
    return bool(_CHANGE_CUE.search(question))


def changelog_scores(fused: dict, path, question: str, factor: float) -> dict:
    """A cumulative changelog mentions nearly every option and API once per release that touched it, so one of its
    chunks shares the words of almost any question and took a top-3 place from the guide that answers (33 of 74 free
    Flask/Click questions had CHANGES.rst in their top 3). A question that asks nothing about versions or changes
    scores its chunks `factor` times as much (README: "Ranking on held-back Sphinx docs, round 9"). `path(key)` is
    a key's file path."""
    if factor >= 1.0 or asks_history(question):
        return fused
    return {key: score * factor if is_changelog(path(key)) else score for key, score in fused.items()}


def changelog_slot(items: list, key, path, question: str, slot: int = 3) -> list:
    """For a question that asks what changed, the best chunk of a changelog among the candidates takes the `slot`-th
    file's place when no changelog file is above it: "which python versions did click 8.0 drop" is answered by the
    changelog's "Version 8.0.0" entry, while guides that share "python" and "versions" fill the first places.
    `items` in fused order; `key(item)` its file, `path(item)` its file path. Every other item keeps its order."""
    if slot <= 0 or not asks_change(question):
        return list(items)
    files: list = []
    for item in items:
        if key(item) not in files:
            files.append(key(item))
    if len(files) <= slot or any(is_changelog(path(item)) for item in items if key(item) in files[:slot]):
        return list(items)
    chosen = next((item for item in items if is_changelog(path(item))), None)
    if chosen is None:
        return list(items)
    at = next(i for i, item in enumerate(items) if key(item) == files[slot - 1])
    rest = [item for item in items if item is not chosen]
    return rest[:at] + [chosen] + rest[at:]
