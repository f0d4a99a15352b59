"""Where a cited passage sits in its document, so a source opens there: boxes on a PDF page (for the viewer to
draw around the passage), or the section of a text document with the passage marked.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader

from assistant.library.documents import ParsedDocument
from assistant.library.readers.pdf_layout import plain_glyphs

_WORD = re.compile(r"\w+")
_CLOSING = ".,;:!?)]}\"'\u201d\u2019\u00bb`"
MIN_PIECE_CHARS = 4  # shorter runs of text ("the", "1") match anywhere on a page


@dataclass(frozen=True)
class Box:
    """A rectangle on a page in PDF points, measured from the page's top-left corner (as a viewer draws)."""

    page: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class SectionView:
    """A text document opened at its section: the breadcrumb, and that section's text split around the passage."""

    title: str
    section_path: list[str]
    before: str
    passage: str
    after: str
    found: bool  # False: the passage is no longer in the file (it changed since indexing); the section is shown


def _normal(text: str) -> str:
    return " ".join(_WORD.findall(plain_glyphs(text).lower()))


def pdf_passage_boxes(data: bytes, page: int, passage: str) -> list[Box]:
    """One box per line of text on `page` (1-based) that belongs to the passage: the run of consecutive pieces of
    text whose words occur, in order, in the passage, with the most such pieces. A piece too short to tell (TeX sets
    "(", "and", "$'" apart from their line) neither counts nor breaks a run. Empty when the page or the passage
    cannot be found."""
    reader = PdfReader(io.BytesIO(data), strict=False)
    if not 1 <= page <= len(reader.pages):
        return []
    pdf_page = reader.pages[page - 1]
    box = pdf_page.mediabox
    left, top = float(box.left), float(box.top)
    target = _normal(passage)
    lines: list[tuple[str, float, float, float]] = []  # text, x, baseline y, font size (PDF user space)

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) or 1.0
        lines.append((text, x, y, (size or 10.0) * scale))

    pdf_page.extract_text(visitor_text=visit)
    matched = [None if len(_normal(t)) < MIN_PIECE_CHARS else _normal(t) in target for t, *_ in lines]
    best, best_hits = (0, 0), 0
    start, hits, last = None, 0, 0
    for i, hit in enumerate(matched + [False]):
        if hit:
            start = i if start is None else start
            hits, last = hits + 1, i + 1
        elif hit is False and start is not None:
            if hits > best_hits:
                best, best_hits = (start, last), hits
            start, hits = None, 0
    return [Box(page=page, x=round(x - left - 2, 1), y=round(top - y - size * 0.95, 1),
                width=round(len(text) * size * 0.52 + 4, 1), height=round(size * 1.3, 1))
            for text, x, y, size in lines[best[0]:best[1]]]


def section_view(doc: ParsedDocument, section: str, passage: str) -> SectionView:
    """The section whose breadcrumb (" > " joined, as sources carry it) is `section`, with the passage marked;
    the whole first section when none matches."""
    wanted = [s for s in doc.sections if " > ".join(s.section_path) == section] or doc.sections[:1]
    text = "\n\n".join(s.text for s in wanted)
    path = wanted[0].section_path if wanted else []
    start, end = _find(text, passage)
    if start is None:
        return SectionView(doc.title, path, text, "", "", found=False)
    return SectionView(doc.title, path, text[:start], text[start:end], text[end:], found=True)


def _find(text: str, passage: str) -> tuple[int | None, int]:
    """Character span of the passage in text, comparing words only (chunking may have changed whitespace). A cited
    passage is padded with neighbouring text that may lie in the next section: the span runs from the first of
    its lines found in the section to the last of those that follow it there."""
    start = end = None
    for line in passage.splitlines():
        words = _WORD.findall(line)
        if not words:
            continue
        found = re.compile(r"\W+".join(re.escape(w) for w in words[:400])).search(text, end or 0)
        if found is None:
            if start is not None:
                break
            continue
        start = found.start() if start is None else start
        end = found.end()
        while end < len(text) and text[end] in _CLOSING:  # words only matched: take the sentence's end along
            end += 1
    return (start, end) if start is not None else (None, 0)


def is_pdf(path: Path) -> bool:
    return path.suffix.lower() == ".pdf"
