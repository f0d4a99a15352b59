"""A cited source opened where it cites: a PDF at its page with boxes around the passage (drawn by the page's
PDF viewer), or a text document (HTML, Markdown, reStructuredText, Word, text) at its section with the passage
marked. The file is read from its release folder only, never from a path a source could point outside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from assistant.library.documents import ReadFailure, SkipFile
from assistant.library.locate import Box, SectionView, pdf_passage_boxes, section_view
from assistant.library.readers import read_document


@dataclass(frozen=True)
class PdfView:
    name: str
    data: bytes
    page: int
    boxes: list[Box]

    def annotations(self, color: str = "#e8590c") -> list[dict]:
        """The boxes as streamlit-pdf-viewer annotations (page, x, y, width, height in points from top-left)."""
        return [{"id": f"passage-{i}", "page": b.page, "x": b.x, "y": b.y, "width": b.width, "height": b.height,
                 "color": color} for i, b in enumerate(self.boxes)]


@dataclass(frozen=True)
class Unavailable:
    reason: str


SourceView = PdfView | SectionView | Unavailable


# A sentence an answer quotes from a source: “...” then, on the same line, that source's number ("(under ...) [2]").
_QUOTE = re.compile(r"“([^”\n]{12,})”[^“\n]*?\[(\d+)\]")


def quoted(answer: str, n: int) -> str | None:
    """The first sentence the answer quotes from source `n`, else None (an answer in the model's own words)."""
    return next((m.group(1) for m in _QUOTE.finditer(answer or "") if int(m.group(2)) == n), None)


def open_source(path: Path | None, source: dict, answer: str = "") -> SourceView:
    """The source where it cites; a PDF's box goes around the sentence the answer quotes from it when one is found on
    the page (a source's passage can be the whole page), else around the passage."""
    if path is None:
        return Unavailable("The file is no longer in the library (rescan to update the index).")
    if path.suffix.lower() == ".pdf":
        data = path.read_bytes()
        page = int(source.get("page") or 1)
        quote = quoted(answer, int(source.get("n") or 0))
        try:
            boxes = (pdf_passage_boxes(data, page, quote) if quote else []) or \
                pdf_passage_boxes(data, page, source.get("text", ""))
        except Exception:  # a PDF that reads for indexing but not for locating: open at the page, unmarked
            boxes = []
        return PdfView(path.name, data, page, boxes)
    try:
        doc = read_document(path)
    except (ReadFailure, SkipFile) as exc:
        return Unavailable(f"The file cannot be read now: {exc}")
    return section_view(doc, source.get("section") or "", source.get("text", ""))
