"""A cited source opened where it cites: a PDF at its page with boxes around the passage (drawn by the page's
PDF viewer), or a text document (HTML, Markdown, reStructuredText, Word, text) at its section with the passage
marked. The file is read from its release folder only, never from a path a source could point outside it.
"""

from __future__ import annotations

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


def open_source(path: Path | None, source: dict) -> SourceView:
    if path is None:
        return Unavailable("The file is no longer in the library (rescan to update the index).")
    if path.suffix.lower() == ".pdf":
        data = path.read_bytes()
        page = int(source.get("page") or 1)
        try:
            boxes = pdf_passage_boxes(data, page, source.get("text", ""))
        except Exception:  # a PDF that reads for indexing but not for locating: open at the page, unmarked
            boxes = []
        return PdfView(path.name, data, page, boxes)
    try:
        doc = read_document(path)
    except (ReadFailure, SkipFile) as exc:
        return Unavailable(f"The file cannot be read now: {exc}")
    return section_view(doc, source.get("section") or "", source.get("text", ""))
