"""Answer metrics that need no judge: `must_contain` on word boundaries, and answer similarity by embedding
cosine (the Ericsson paper's answer similarity)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np


def _term_pattern(term: str) -> re.Pattern:
    term = term.replace("`", "").strip()
    body = r"\s+".join(re.escape(part) for part in term.split())
    # A version may be written with a leading v ("v3.4.32" for "3.4.32").
    lead = "[vV]?" if term[:1].isdigit() else ""
    # Boundaries: no word character on either side, and no "." or "-" that continues a number or a name
    # ("10000" is not in "100000", "3.4" is not in "3.4.29", "--agent" is not in "--agent-mode").
    left = r"(?<![\w.])" if term[:1].isalnum() or term[:1] == "_" else r"(?<![\w-])"
    return re.compile(left + lead + body + r"(?![\w]|[.\-]\w)", re.IGNORECASE)


def contains_term(text: str, term: str) -> bool:
    """Case-insensitive, whole-word, indifferent to Markdown backticks."""
    if not term.strip():
        return True
    return _term_pattern(term).search(text.replace("`", "")) is not None


def must_contain_score(text: str, terms: Sequence[str]) -> float | None:
    """Share of the required terms the text contains; None when nothing is required."""
    if not terms:
        return None
    return sum(contains_term(text, t) for t in terms) / len(terms)


def cosine(u: Sequence[float] | np.ndarray, v: Sequence[float] | np.ndarray) -> float:
    a, b = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def answer_similarity(answer: str | None, reference: str | None, embed) -> float | None:
    """Cosine between the embeddings of the answer and the reference answer; `embed(list[str]) -> array`."""
    if not answer or not reference:
        return None
    vecs = embed([answer, reference])
    return cosine(vecs[0], vecs[1])
