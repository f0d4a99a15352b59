"""Query check: decline queries that cannot be answered from documentation before retrieval runs.

iKnow (its failure analysis of real user queries) traced 19% of failed queries to input that was out of scope
or not a question at all. Declining those with a short explanation is cheaper and kinder than retrieving
noise and letting the model improvise. No LLM is involved:

* `invalid`: empty, punctuation only, far too long, keyboard mashing or placeholder text, decided by surface
  features of the words (a lexicon-free test, because queries are full of product names and identifiers);
* `out_of_scope`: everyday requests (weather, recipes, jokes, sports, prices, advice, poems), decided by
  nearest neighbours among seed examples of out-of-scope and in-scope queries, leaning in-scope when the
  query names a product, uses the library's vocabulary or contains identifier-like tokens. A question the
  seeds would decline is still answered when the library clearly holds it (`held`: a passage that both word
  and embedding search found sits well above the relevance floor): "my price data is recorded daily but I want
  weekly forecasts" reads like the everyday seeds (prices, weather forecasts) yet is Amazon Forecast's question.

The bias is deliberately towards answering: a wrongly declined question costs the user more than an
off-topic one that retrieval then answers with "not in the documentation".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from assistant.answering.intent import SEED_PATH as INTENT_SEED_PATH

Embed = Callable[[list[str]], np.ndarray]
Status = Literal["ok", "invalid", "out_of_scope"]

SCOPE_SEED_PATH = Path(__file__).resolve().parent / "resources" / "scope_examples.jsonl"

MAX_QUERY_CHARS = 4000  # about 700 words; the embedder reads only the first 256 word pieces anyway
NEIGHBOURS = 3
# Decline as out of scope when the out-of-scope neighbours beat the in-scope ones by more than this (cosine).
# On the development queries in-scope questions stay below -0.02 and everyday requests above 0.0.
OUT_OF_SCOPE_MARGIN = -0.015
# Decline as gibberish by embedding only with a clear lead: short real terms ("RCU", "jitter") sit close to
# the gibberish seeds (up to +0.03), and any in-scope signal (below) is added to the in-scope side first.
INVALID_MARGIN = 0.10
# How far each in-scope signal moves the decision (cosine units).
PRODUCT_LEAN = 0.10
TECH_TOKEN_LEAN = 0.05
VOCABULARY_LEAN = 0.03  # scaled by the share of content words found in the library's vocabulary


@dataclass(frozen=True)
class QueryCheck:
    status: Status
    reason: str  # ok | empty | no_words | too_long | gibberish | placeholder_text | out_of_scope
    message: str  # shown to the user when the query is declined; empty when ok

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# --- surface features ----------------------------------------------------------------------------------

_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_ADJACENT = {
    frozenset(pair) for row in _KEYBOARD_ROWS for pair in zip(row, row[1:])
}
_ROW_RUNS_5 = {row[i : i + 5] for row in _KEYBOARD_ROWS for i in range(len(row) - 4)}
_ROW_RUNS_5 |= {run[::-1] for run in _ROW_RUNS_5}
_ROW_RUNS_4 = {row[i : i + 4] for row in _KEYBOARD_ROWS for i in range(len(row) - 3)}
_ROW_RUNS_4 |= {run[::-1] for run in _ROW_RUNS_4}
_PLACEHOLDER = {"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "eiusmod"}
_VOWELS = set("aeiouy")
_STOPWORDS = set(
    "a an the and or but if of to in on at by for with from as is are was were be been being do does did "
    "can could will would should shall may might must have has had i me my we our you your he she it its they "
    "them their this that these those what which who whom whose when where why how there here not no yes so "
    "than then too very just about into over under up down out off again all any some each more most other "
    "such only own same s t don doesn didn isn aren wasn won can't cant get got let lets please tell me".split()
)
# Identifier-like tokens that everyday language rarely produces: flags, snake_case, dotted names, paths,
# key=value, CamelCase, letters mixed with digits (ec2, k8s, x509, v3.5), HTTP-ish codes after a word.
_TECH_TOKEN = re.compile(
    r"(--?[a-z][\w-]+"
    r"|\b\w+_\w+\b"
    r"|\b[a-z]+\.[a-z]+\w*\b"
    r"|(^|\s)/[a-z][\w./-]*"
    r"|\b\w+=\S+"
    r"|\b[a-z]+[A-Z]\w*\b"
    r"|\b[A-Za-z]+\d+[A-Za-z\d]*\b|\b\d+[A-Za-z]+\d*[A-Za-z]*\b"
    r"|\b\d+\.\d+(\.\d+)?\b)"
)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text)  # letters of any script


def _adjacent_ratio(word: str) -> float:
    pairs = list(zip(word, word[1:]))
    return sum(frozenset(p) in _ADJACENT for p in pairs) / len(pairs) if pairs else 0.0


def _implausible(word: str) -> bool:
    """A word that no language or product would produce: mashing, repeats, or no vowel in a long run."""
    w = word.lower()
    if not w.isascii():  # the tests below are about Latin-keyboard mashing; other scripts pass
        return False
    if len(w) >= 3 and len(set(w)) == 1:  # "aaaa", "zzz"
        return True
    if len(w) < 4:
        return False
    if word.isupper() and len(word) <= 6:  # acronyms: HTTP, IOPS, RCU
        return False
    if len(w) >= 5 and len(set(w)) <= 2:  # "jkjkjk", "mnmnmn"
        return True
    if any(run in w for run in _ROW_RUNS_5) or w in _ROW_RUNS_4:  # "qwerty", "asdfgh", "hjkl"
        return True
    if len(w) == 4 and _adjacent_ratio(w) == 1.0:  # "mnbv", "hgfd"
        return True
    if len(w) >= 5 and _adjacent_ratio(w) >= 0.75:  # "sdfkj"
        return True
    if len(w) >= 6 and not (set(w) & _VOWELS):  # "sdlkfj"; five letters would catch https, lsblk
        return True
    # Five consonants in a row inside a long word: "fjdksla". Identifiers like "etcdctl" also match; they are
    # rescued by the vocabulary or product names when the caller passes them.
    return len(w) >= 6 and re.search(r"[^aeiouy]{5}", w) is not None


def _content_words(text: str) -> list[str]:
    return [w for w in (x.lower() for x in _words(text)) if len(w) >= 3 and w not in _STOPWORDS]


def _mentions_product(text: str, product_names: Iterable[str]) -> bool:
    lowered = text.lower()
    for name in product_names:
        name = name.strip().lower()
        if len(name) >= 2 and re.search(rf"(?<![a-z0-9]){re.escape(name)}", lowered):
            return True  # a prefix match also covers tools named after the product (etcdctl, prometheus.yml)
    return False


# --- the checker ---------------------------------------------------------------------------------------


def _load_scope_seeds(path: Path = SCOPE_SEED_PATH) -> dict[str, list[str]]:
    seeds: dict[str, list[str]] = {"out_of_scope": [], "invalid": [], "in_scope": []}
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                seeds.setdefault(row["label"], []).append(row["text"])
    # The intent examples are in-scope questions of every form; they anchor the in-scope side as well.
    with INTENT_SEED_PATH.open(encoding="utf-8") as f:
        seeds["in_scope"] += [json.loads(line)["text"] for line in f if line.strip()]
    return seeds


def _top_mean(anchors: np.ndarray, q: np.ndarray, k: int = NEIGHBOURS) -> float:
    sims = anchors @ q
    k = min(k, len(sims))
    return float(np.mean(np.partition(sims, len(sims) - k)[-k:]))


class ScopeChecker:
    """Holds the embedded seed examples; build once per embedder (`check_query` caches one)."""

    def __init__(self, embed: Embed, seeds: dict[str, list[str]] | None = None) -> None:
        self._embed = embed
        seeds = _load_scope_seeds() if seeds is None else seeds
        self._anchors = {
            label: np.asarray(embed(texts), dtype=np.float32) for label, texts in seeds.items() if texts
        }

    def check(
        self, text: str, *, product_names: Iterable[str] = (), vocabulary: set[str] | None = None,
        held: Callable[[str], bool] | None = None,
    ) -> QueryCheck:
        product_names = list(product_names)
        stripped = (text or "").strip()
        if not stripped:
            return _invalid("empty", "Your question is empty.", product_names)
        if len(stripped) > MAX_QUERY_CHARS:
            return _invalid(
                "too_long",
                f"Your question is {len(stripped):,} characters long; the limit is {MAX_QUERY_CHARS:,}. "
                "Ask a shorter question, or paste only the key error lines.",
                product_names,
            )
        words = _words(stripped)
        if not words:
            return _invalid("no_words", "Your question has no words in it.", product_names)

        vocabulary_share = _vocabulary_share(stripped, vocabulary)
        lean = (
            PRODUCT_LEAN * _mentions_product(stripped, product_names)
            + TECH_TOKEN_LEAN * bool(_TECH_TOKEN.search(stripped))
            + VOCABULARY_LEAN * vocabulary_share
        )
        known = vocabulary or set()

        def plausible(word: str) -> bool:
            return word.lower() in known or _mentions_product(word, product_names) or not _implausible(word)

        lowered = [w.lower() for w in words]
        if sum(w in _PLACEHOLDER for w in lowered) * 2 >= len(lowered):
            return _invalid("placeholder_text", "That looks like placeholder text.", product_names)
        informative = [w for w in words if len(w) >= 3]
        bad = sum(not plausible(w) for w in informative)
        # All words implausible, or two thirds of three or more ("asdf qwerty help"); any in-scope signal vetoes.
        mostly_bad = bad == len(informative) or (len(informative) >= 3 and 3 * bad >= 2 * len(informative))
        if informative and lean == 0.0 and mostly_bad:
            return _invalid("gibberish", "That doesn't look like a question I can read.", product_names)

        q = np.asarray(self._embed([stripped]), dtype=np.float32)[0]
        in_scope = _top_mean(self._anchors["in_scope"], q) + lean
        lead = {label: _top_mean(self._anchors[label], q) - in_scope for label in ("invalid", "out_of_scope")
                if label in self._anchors}
        # Of the two ways to decline, the closer seed set names the reason ("tell me something funny" sits
        # near both the jokes and the nonsense seeds).
        if lead.get("invalid", -1.0) > INVALID_MARGIN and lead["invalid"] > lead.get("out_of_scope", -1.0):
            return _invalid("gibberish", "That doesn't look like a question I can read.", product_names)
        # The library has the last word before an out-of-scope decline (one search, asked only here).
        if lead.get("out_of_scope", -1.0) > OUT_OF_SCOPE_MARGIN and not (held is not None and held(stripped)):
            return QueryCheck(
                "out_of_scope", "out_of_scope", "That is outside what I can help with. " + _coverage(product_names)
            )
        return QueryCheck("ok", "ok", "")


def _vocabulary_share(text: str, vocabulary: set[str] | None) -> float:
    if not vocabulary:
        return 0.0
    content = _content_words(text)
    if not content:
        return 0.0
    return sum(w in vocabulary for w in content) / len(content)


def _coverage(product_names: list[str]) -> str:
    if product_names:
        names = ", ".join(product_names[:-1]) + (" and " if len(product_names) > 1 else "") + product_names[-1]
        return f"I answer questions from the documentation in your library ({names}), with sources."
    return "I answer questions from the documentation in your library, with sources."


def _invalid(reason: str, what: str, product_names: list[str]) -> QueryCheck:
    return QueryCheck("invalid", reason, f"{what} {_coverage(product_names)}")


_CHECKERS: dict[Embed, ScopeChecker] = {}


def check_query(
    text: str, *, embed: Embed, product_names: list[str], vocabulary: set[str] | None = None,
    held: Callable[[str], bool] | None = None,
) -> QueryCheck:
    """Check one query; the seed examples are embedded once per `embed` and kept.

    `vocabulary`: lower-cased terms of the library (for instance the keyword index's vocabulary); query words
    found there count as known words and lean the decision in-scope. `held(text)`: whether the library clearly
    holds the question (`product_evidence.clearly_held`); asked only of a question about to be declined as out of
    scope, and a True keeps it.
    """
    checker = _CHECKERS.get(embed)
    if checker is None:
        if len(_CHECKERS) >= 4:  # a handful of embedders at most in one process; drop the oldest
            _CHECKERS.pop(next(iter(_CHECKERS)))
        checker = _CHECKERS[embed] = ScopeChecker(embed)
    return checker.check(text, product_names=product_names, vocabulary=vocabulary, held=held)
