"""Citations (stage 10): map each [n] in an answer to its source; sources never cited are "also retrieved".
Numbers the model invented (no such source) are removed from the text."""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARK = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")


@dataclass
class Source:
    n: int
    product: str
    release: str
    path: str
    page: int | None
    section: str
    title: str
    score: float
    text: str
    cited: bool = False
    chunk_ids: tuple[str, ...] = ()
    context_id: str = ""
    page_label: str | None = None  # a PDF page's printed label where it differs from `page` (the index opened)


def page_citation(page: int | None, label: str | None) -> str:
    """Which page a citation names: its printed label, with the PDF page index beside it where the two differ ("iv
    (PDF page 4)": a reader finds iv in the printed book, the viewer opens page 4), else the index ("4")."""
    if not page:
        return ""
    return f"{label} (PDF page {page})" if label and label != str(page) else str(page)


def cited_numbers(answer: str) -> list[int]:
    out: list[int] = []
    for group in _MARK.findall(answer):
        for part in group.split(","):
            n = int(part)
            if n not in out:
                out.append(n)
    return out


def apply(answer: str, sources: list[Source]) -> tuple[str, list[Source]]:
    """Drop invented markers, flag cited sources. Returns the cleaned answer and the sources (same order)."""
    valid = {s.n for s in sources}

    def keep(match: re.Match) -> str:
        nums = [int(p) for p in match.group(1).split(",") if int(p) in valid]
        return "".join(f"[{n}]" for n in dict.fromkeys(nums))

    cleaned = _MARK.sub(keep, answer)
    used = set(cited_numbers(cleaned))
    for s in sources:
        s.cited = s.n in used
    return cleaned, sources
