"""PDF: text per page with running headers and footers removed, sections from the outline, pages cited."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError

from assistant.library.documents import ParsedDocument, ReadFailure, Section
from assistant.library.readers.common import brief, tidy

# A PDF's page tree and content streams may be shared, so a small file can declare 100,000 pages or inflate to
# gigabytes of text (measured: a 600 KB file repeating one page 100,000 times took 45 s and 165 MB to read; an
# 80 KB page inflated to 2 million characters). Extraction costs ~1.5 us and ~20 bytes of transient memory per
# byte of page content: the caps below bound one PDF to ~100 MB over the baseline and, for a hostile file, under
# a minute (issue 6). Real manuals stay far below them; past one the file fails with its reason.
MAX_PDF_PAGES = 10_000
MAX_PDF_TEXT_CHARS = 20_000_000
MAX_PDF_PAGE_CONTENT_BYTES = 5_000_000
MAX_PDF_CONTENT_BYTES = 200_000_000


# ---------------------------------------------------------------- PDF

_PAGE_NUMBER = re.compile(r"(?i)^[\s\-–—|]*(page\s*)?\d{1,5}(\s*(of|/)\s*\d{1,5})?[\s\-–—|]*$")
_COLUMN_GAP = re.compile(r" {3,}")  # layout mode pads table columns with spaces; justified prose gets two
_BULLET_GAP = re.compile(r"^([•◦▪‣·*-]) \| ")
_EDGE_LINES = 2  # running headers and footers live in the first and last two lines of a page
_PLACEHOLDER_TITLES = {"", "untitled", "anonymous", "unknown"}


def read_pdf(data: bytes, path: Path) -> ParsedDocument:
    if b"%PDF-" not in data[:1024]:
        raise ReadFailure("not a PDF (no %PDF header)")
    # pypdf in lenient mode can return the first pages of a cut-off file; a partial manual is worse than a clear error.
    if data.rfind(b"%%EOF", max(0, len(data) - 65536)) < 0:
        raise ReadFailure("PDF is damaged or truncated: end-of-file marker missing")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise ReadFailure("PDF is encrypted and needs a password")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise ReadFailure(f"PDF has {len(reader.pages)} pages, more than the {MAX_PDF_PAGES} read per file (split it)")
        pages = list(reader.pages)
    except DependencyError:
        raise ReadFailure("PDF uses AES encryption, which needs the 'cryptography' package") from None
    except ReadFailure:
        raise
    except Exception as exc:
        raise ReadFailure(f"PDF is damaged or truncated: {brief(exc)}") from exc

    extracted, chars, content = [], 0, 0
    for number, page in enumerate(pages, 1):
        size = _content_bytes(page)
        content += size
        if size > MAX_PDF_PAGE_CONTENT_BYTES or content > MAX_PDF_CONTENT_BYTES:
            limit = (f"{MAX_PDF_PAGE_CONTENT_BYTES // 1_000_000} MB per page" if size > MAX_PDF_PAGE_CONTENT_BYTES
                     else f"{MAX_PDF_CONTENT_BYTES // 1_000_000} MB per file")
            raise ReadFailure(f"PDF page {number} has too much drawing content to read (limit {limit}; split it)")
        extracted.append(_page_lines(page, number))
        chars += sum(len(line) for line in extracted[-1])
        if chars > MAX_PDF_TEXT_CHARS:
            raise ReadFailure(f"PDF expands to more than {MAX_PDF_TEXT_CHARS // 1_000_000} million characters of text "
                              f"by page {number} (split it)")
    page_lines = _strip_running_lines(extracted)
    paths = _outline_paths(reader, len(pages))
    sections = [Section(text=tidy(lines), section_path=paths[i], page=i + 1) for i, lines in enumerate(page_lines)]
    first_line = next((line for lines in page_lines for line in lines if line.strip()), "")
    title = _pdf_meta_title(reader) or (first_line if len(first_line) <= 120 else "") or path.stem
    return ParsedDocument(title=title, sections=sections, kind="pdf")


def _content_bytes(page: PageObject) -> int:
    """Decoded size of a page's content streams (pypdf caps each stream at 75 MB; shared streams count per page)."""
    try:
        contents = page.get_contents()
        return len(contents.get_data()) if contents is not None else 0
    except Exception:
        return 0  # unreadable contents: extract_text below reports the damage


def _page_lines(page: PageObject, number: int) -> list[str]:
    try:
        raw = page.extract_text(extraction_mode="layout")  # keeps table rows on one line
    except Exception:
        try:  # layout mode is stricter about fonts; plain mode still gets the words
            raw = page.extract_text()
        except Exception as exc:
            raise ReadFailure(f"PDF is damaged: cannot extract text from page {number}: {brief(exc)}") from exc
    lines = (_COLUMN_GAP.sub(" | ", line.strip()).replace("  ", " ") for line in raw.splitlines())
    return [_BULLET_GAP.sub(r"\1 ", line) for line in lines]


def _normalise(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line).lower().split())


def _strip_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Drop bare page numbers and lines repeated at the top or bottom of more than half the pages."""
    edges = []
    for lines in pages:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges.append(set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:]))
    counts: Counter[str] = Counter()
    for lines, edge in zip(pages, edges):
        counts.update({_normalise(lines[i]) for i in edge})
    repeated = {line for line, count in counts.items() if count >= 2 and count * 2 > len(pages)}
    return [
        [line for i, line in enumerate(lines)
         if not (i in edge and (_normalise(line) in repeated or _PAGE_NUMBER.match(line)))]
        for lines, edge in zip(pages, edges)
    ]


def _pdf_meta_title(reader: PdfReader) -> str:
    try:
        title = " ".join(str(reader.metadata.title or "").split()) if reader.metadata else ""
    except Exception:
        return ""
    return "" if title.lower() in _PLACEHOLDER_TITLES else title


def _outline_paths(reader: PdfReader, page_count: int) -> list[list[str]]:
    """Bookmark breadcrumb in force on each page; empty everywhere when there are none or they are broken."""
    starts: list[tuple[int, list[str]]] = []

    def walk(items: list, parents: list[str]) -> None:
        last = parents
        for item in items:
            if isinstance(item, list):
                walk(item, last)  # pypdf puts an entry's children in a list right after it
            else:
                last = parents + [" ".join(str(item.title).split())]
                page = reader.get_destination_page_number(item)
                if page is not None and page >= 0:
                    starts.append((page, last))

    try:
        walk(reader.outline, [])
    except Exception:
        return [[] for _ in range(page_count)]
    starts.sort(key=lambda start: start[0])  # stable: the deepest entry on a page stays last
    paths, current, j = [], [], 0
    for page in range(page_count):
        while j < len(starts) and starts[j][0] <= page:
            current = starts[j][1]
            j += 1
        paths.append(list(current))
    return paths


# ---------------------------------------------------------------- HTML
