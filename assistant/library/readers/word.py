"""Word (.docx) through python-docx: headings become sections, tables become rows, body order kept.

A .docx is a ZIP package, so its bounds are checked on the archive's directory before python-docx unpacks
anything: a zip bomb (a few KB declaring gigabytes) fails alone instead of filling memory. A member whose real
data exceeds its declared size fails python-docx's read with a CRC or size error, caught like any damage.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from assistant.library.documents import ParsedDocument, ReadFailure
from assistant.library.readers.common import SectionBuilder, brief

# A 300-page specification unpacks to a few MB of XML plus its images; python-docx holds every part in memory and
# lxml needs several times an XML part's size to parse it, so the package is bounded before it is opened.
MAX_DOCX_UNPACKED_BYTES = 100_000_000
MAX_DOCX_MEMBERS = 10_000
MAX_DOCX_RATIO = 200  # unpacked / packed for one large member; text XML compresses about 10x
MAX_DOCX_TEXT_CHARS = 20_000_000
_HEADING = re.compile(r"^heading (\d)$", re.IGNORECASE)


def read_docx(data: bytes, path: Path) -> ParsedDocument:
    _check_package(data)
    from docx import Document  # imported here: only a library with Word files pays for it

    try:
        document = Document(io.BytesIO(data))
    except ReadFailure:
        raise
    except Exception as exc:
        raise ReadFailure(f"not a readable Word document: {brief(exc)}") from exc
    out = SectionBuilder()
    first_heading, chars = "", 0
    for block in document.iter_inner_content():
        if hasattr(block, "rows"):  # a table: one line per row, cells joined as the other readers do
            lines = [_row_text(row) for row in block.rows]
        else:
            level = _heading_level(block)
            text = " ".join(block.text.split())
            if level is not None and text:
                out.heading(level, text[:200])
                first_heading = first_heading or text
                continue
            lines = [("- " if _is_list(block) and text else "") + text]
        for line in lines:
            chars += len(line)
            out.add(line)
        if chars > MAX_DOCX_TEXT_CHARS:
            raise ReadFailure(f"Word document holds more than {MAX_DOCX_TEXT_CHARS // 1_000_000} million characters "
                              "of text, more than is read per file (split it)")
    title = " ".join((document.core_properties.title or "").split()) or first_heading
    return ParsedDocument(title=title or path.stem, sections=out.finish(), kind="docx")


def _check_package(data: bytes) -> None:
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise ReadFailure(f"Word document is damaged or truncated: {brief(exc)}") from exc
    if len(members) > MAX_DOCX_MEMBERS:
        raise ReadFailure(f"Word package has {len(members):,} parts, more than the {MAX_DOCX_MEMBERS:,} read per file")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_DOCX_UNPACKED_BYTES:
        raise ReadFailure(f"Word package unpacks to {unpacked / 1_000_000:,.0f} MB, more than the "
                          f"{MAX_DOCX_UNPACKED_BYTES // 1_000_000} MB read per file (a zip bomb, or split it)")
    for m in members:
        if m.file_size > 1_000_000 and m.file_size > MAX_DOCX_RATIO * max(m.compress_size, 1):
            raise ReadFailure(f"Word package part {m.filename[:80]} unpacks {m.file_size // max(m.compress_size, 1):,} "
                              "times its packed size (a zip bomb)")
    if "word/document.xml" not in {m.filename for m in members}:
        raise ReadFailure("not a Word document: the package has no word/document.xml")


def _heading_level(paragraph) -> int | None:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    if name.lower() == "title":
        return 0  # above Heading 1, so the document title leads every breadcrumb as an h1 does in Markdown
    match = _HEADING.match(name)
    return int(match.group(1)) if match else None


def _is_list(paragraph) -> bool:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    return name.lower().startswith("list") or paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None


def _row_text(row) -> str:
    cells, seen = [], set()
    for cell in row.cells:  # a merged cell is repeated in every grid column it spans: keep it once
        if id(cell._tc) in seen:
            continue
        seen.add(id(cell._tc))
        cells.append(" ".join(cell.text.split()))
    return " | ".join(cells)
