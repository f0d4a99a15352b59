"""The lexical side of hybrid search: a tokenizer that keeps technical identifiers, and the sparse vectors the
store's engine scores with BM25.

Retrieval is literal (QAMR): `--snapshot-count`, `max_shards`, `SSL_ERROR_SYSCALL`, `v3.5.0` and `/api/v1/otlp`
must match as whole tokens, while their parts (`snapshot`, `count`, `shards`) still match prose.

Each search chunk is stored with a sparse vector of BM25 term weights (term frequency saturated by k1, normalised by
length with b); the engine multiplies in the inverse document frequency itself (a sparse vector with the IDF
modifier), from its own live statistics, so nothing is rebuilt when a release changes. A term's dimension is a
32-bit hash of the term: the vocabulary needs no table, and two terms share a dimension with a chance of about one
in 40,000 per pair among a release's ~100k terms.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

# A "word" is a run of characters that can live inside an identifier, path, flag or version.
_WORD = re.compile(r"[\w][\w\-./:@#]*[\w]|[\w]")
_SPLIT = re.compile(r"[\-_./:@#]+")
_EDGE = "-./:@#"
STOP_WORDS = frozenset(
    """a an the and or of to in on for with by at from as is are was were be been being it its this that these
    those what which who whom how why when where does do did can could should would will shall may might must
    i you we they he she me my our your their there here if then than so not no yes about into over under
    any all some such only also just very more most other each per via using use used""".split()
)


def tokenize(text: str) -> list[str]:
    """Whole identifiers plus their alphanumeric parts, lowercased, stop words dropped."""
    out: list[str] = []
    for match in _WORD.finditer(text.lower()):
        word = match.group(0).strip(_EDGE)
        if not word:
            continue
        if word in STOP_WORDS or (len(word) == 1 and word.isalpha()):
            continue
        out.append(word)
        parts = [p for p in _SPLIT.split(word) if p and p != word]
        if len(parts) > 1:
            out.extend(p for p in parts if p not in STOP_WORDS and not (len(p) == 1 and p.isalpha()))
    return out


def tokenize_query(text: str) -> list[str]:
    """Flags keep their leading dashes in questions (`--logger`), but the index stores them without."""
    return tokenize(text)


# BM25's usual constants; the length norm uses a fixed average (search chunks hold ~51 tokens: they are cut to the
# embedding model's window) rather than a statistic that every upload would change.
K1 = 1.2
B = 0.75
AVERAGE_TOKENS = 50.0


def term_index(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=4).digest(), "little")


def document_sparse(text: str, average: float = AVERAGE_TOKENS) -> tuple[list[int], list[float]]:
    """A chunk's (or a field's) sparse vector: BM25's term-frequency part per term (the engine supplies the IDF);
    `average` is the field's typical length in tokens."""
    counts = Counter(tokenize(text))
    norm = K1 * (1.0 - B + B * sum(counts.values()) / average)
    weights: dict[int, float] = {}
    for term, tf in counts.items():
        i = term_index(term)
        weights[i] = weights.get(i, 0.0) + tf * (K1 + 1.0) / (tf + norm)
    return list(weights), list(weights.values())


def query_sparse(text: str) -> tuple[list[int], list[float]]:
    """A question's sparse vector: each distinct term once, so a chunk scores the sum of its terms' BM25 weights."""
    indices = sorted({term_index(t) for t in tokenize_query(text)})
    return indices, [1.0] * len(indices)
