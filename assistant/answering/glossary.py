"""Acronyms and their expansions, mined from the corpus itself (QAMR: retrieval is literal, so a question that says
"WAL" must also search for "write-ahead log" where the documents define it).

Two patterns cover how technical documentation defines terms: "write-ahead log (WAL)" and "WAL (write-ahead log)".
An expansion counts only if the acronym's letters are the initials of its words.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

_LONG_FIRST = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,6}[A-Za-z][\w-]*)\s*\(([A-Z][A-Za-z0-9]{1,9}s?)\)")
_SHORT_FIRST = re.compile(r"\b([A-Z][A-Z0-9]{1,9}s?)\s*\(((?:[A-Za-z][\w-]*\s+){1,6}[A-Za-z][\w-]*)\)")


def _initials(words: list[str]) -> str:
    letters = []
    for w in words:
        for part in w.split("-"):
            if part:
                letters.append(part[0].lower())
    return "".join(letters)


def _match(acronym: str, phrase: str) -> str | None:
    """The shortest tail of `phrase` whose initials spell the acronym (so "the write-ahead log" -> "write-ahead log")."""
    acr = acronym.rstrip("s").lower() if acronym.endswith("s") and acronym[:-1].isupper() else acronym.lower()
    words = phrase.split()
    for start in range(len(words) - 1, -1, -1):
        tail = words[start:]
        ini = _initials(tail)
        if ini == acr or _initials([w for w in tail if w.lower() not in {"of", "and", "the", "for", "to", "a"}]) == acr:
            return " ".join(tail)
    return None


def mine_glossary(texts: Iterable[str], min_count: int = 1) -> dict[str, str]:
    """acronym (as written) -> most frequent matching expansion (lowercased)."""
    seen: dict[str, Counter] = {}
    for text in texts:
        for phrase, acr in _LONG_FIRST.findall(text):
            exp = _match(acr, phrase)
            if exp:
                seen.setdefault(acr, Counter())[exp.lower()] += 1
        for acr, phrase in _SHORT_FIRST.findall(text):
            exp = _match(acr, phrase)
            if exp and len(exp.split()) == len(phrase.split()):
                seen.setdefault(acr, Counter())[exp.lower()] += 1
    return {acr: c.most_common(1)[0][0] for acr, c in seen.items() if c.most_common(1)[0][1] >= min_count}


def load_or_mine(path: Path, stamp: str, texts_fn) -> dict[str, str]:
    """A product's glossary, cached beside the index and re-mined when the product's releases change."""
    try:
        cached = json.loads(path.read_text())
        if cached.get("stamp") == stamp:
            return cached["terms"]
    except (OSError, ValueError, KeyError):
        pass
    terms = mine_glossary(texts_fn())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"stamp": stamp, "terms": terms}))
    tmp.replace(path)
    return terms


def expand(query: str, glossary: dict[str, str]) -> list[tuple[str, str]]:
    """The (acronym, expansion) pairs that apply to a query: acronym present, expansion absent."""
    out = []
    low = query.lower()
    for token in set(re.findall(r"\b[A-Z][A-Za-z0-9]{1,9}\b", query)):
        exp = glossary.get(token)
        if exp and exp not in low:
            out.append((token, exp))
    return sorted(out)
