"""PDF: text per page with running headers and footers removed, sections from the outline, pages cited."""

from __future__ import annotations

import io
import math
from collections import Counter
from pathlib import Path

from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError

from assistant.library.documents import ParsedDocument, ReadFailure, Section
from assistant.library.readers.common import brief, tidy
from assistant.library.readers.pdf_layout import (
    contents_page,
    follows,
    join_hyphenated,
    numbered_heading,
    plain_glyphs,
    printed_page_numbers,
    strip_running_lines,
    table_lines,
    title_line,
)
from assistant.library.readers.pdf_spacing import spaces_from_character_spacing

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

    extracted, indents, chars, content = [], [], 0, 0
    for number, page in enumerate(pages, 1):
        size = _content_bytes(page)
        content += size
        if size > MAX_PDF_PAGE_CONTENT_BYTES or content > MAX_PDF_CONTENT_BYTES:
            limit = (f"{MAX_PDF_PAGE_CONTENT_BYTES // 1_000_000} MB per page" if size > MAX_PDF_PAGE_CONTENT_BYTES
                     else f"{MAX_PDF_CONTENT_BYTES // 1_000_000} MB per file")
            raise ReadFailure(f"PDF page {number} has too much drawing content to read (limit {limit}; split it)")
        lines, indent = _page_lines(page, number)
        extracted.append(lines)
        indents.append(indent)
        chars += sum(len(line) for line in extracted[-1])
        if chars > MAX_PDF_TEXT_CHARS:
            raise ReadFailure(f"PDF expands to more than {MAX_PDF_TEXT_CHARS // 1_000_000} million characters of text "
                              f"by page {number} (split it)")
    page_lines = [[] if contents_page(lines) else lines for lines in join_hyphenated(strip_running_lines(extracted))]
    labels = _page_labels(reader, len(pages))
    if not any(labels):  # no printed labels in the PDF's catalogue: the numbers its headers and footers print
        labels = printed_page_numbers(extracted)
    starts = _outline_starts(reader)
    if starts:
        sections = _outline_sections(page_lines, starts, labels)
    else:  # no outline: numbered headings, in a larger font than the body where the PDF says which is larger
        large, styled = _large_text(pages)
        sections = _numbered_sections(page_lines, large, labels)
        if styled and not any(section.section_path for section in sections):
            sections = _styled_sections(page_lines, styled, indents, labels) or sections
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


def _page_lines(page: PageObject, number: int) -> tuple[list[str], dict[str, int]]:
    """The page's lines, and the indentation (in layout columns) of each line's text where it first appears."""
    try:
        spaces_from_character_spacing(page)
    except Exception:
        pass  # a content stream this cannot parse is extracted as drawn: extract_text reports real damage
    try:
        raw = page.extract_text(extraction_mode="layout")  # keeps table rows on one line
    except Exception:
        try:  # layout mode is stricter about fonts; plain mode still gets the words
            raw = page.extract_text()
        except Exception as exc:
            raise ReadFailure(f"PDF is damaged: cannot extract text from page {number}: {brief(exc)}") from exc
    raw_lines = plain_glyphs(raw).splitlines()
    indents: dict[str, int] = {}
    for line in raw_lines:
        indents.setdefault(" ".join(line.split()), len(line) - len(line.lstrip()))
    return table_lines(raw_lines), indents


def _pdf_meta_title(reader: PdfReader) -> str:
    try:
        title = " ".join(str(reader.metadata.title or "").split()) if reader.metadata else ""
    except Exception:
        return ""
    return "" if title.lower() in _PLACEHOLDER_TITLES else title


def _page_labels(reader: PdfReader, page_count: int) -> list[str | None]:
    """The printed label of each page ("iv", "A-3") where it is not the page's 1-based index, else None."""
    try:
        labels = list(reader.page_labels)
    except Exception:
        return [None] * page_count
    if len(labels) != page_count:
        return [None] * page_count
    return [label if label and label != str(i + 1) else None for i, label in enumerate(labels)]


def _outline_starts(reader: PdfReader) -> list[tuple[int, list[str]]]:
    """(0-based page, bookmark breadcrumb) of each outline entry in page order; empty when none or broken."""
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
        return []
    starts.sort(key=lambda start: start[0])  # stable: entries on one page keep their outline order
    return starts


def _outline_sections(pages: list[list[str]], starts: list[tuple[int, list[str]]],
                      labels: list[str | None]) -> list[Section]:
    """Each page cut where an outline entry's title is printed on it, so a section starting mid-page gets its own
    path; an entry whose title is not found on its page takes the page from its top."""
    sections: list[Section] = []
    current: list[str] = []
    j = 0
    for index, lines in enumerate(pages):
        cuts: list[tuple[int, int, list[str]]] = []  # (first line of the section, first line of its text, path)
        while j < len(starts) and starts[j][0] <= index:
            at = title_line(lines, starts[j][1][-1]) if starts[j][0] == index else None
            cuts.append((0, 0, starts[j][1]) if at is None else (at, at + 1, starts[j][1]))
            j += 1
        begin = 0
        for at, text_at, crumbs in sorted(cuts, key=lambda cut: cut[0]):
            _add(sections, lines[begin:at], current, index, labels)
            current, begin = crumbs, max(begin, text_at)
        _add(sections, lines[begin:], current, index, labels)
    return sections


def _numbered_sections(pages: list[list[str]], large: set[str] | None, labels: list[str | None]) -> list[Section]:
    """Sections under numbered headings ("2.1 Installing") that follow one another in order and, when the PDF
    has larger text than its body, are printed larger."""
    sections: list[Section] = []
    crumbs: list[tuple[tuple[int, ...], str]] = []
    previous: tuple[int, ...] | None = None
    for index, lines in enumerate(pages):
        begin = 0
        for i, line in enumerate(lines):
            found = numbered_heading(line, styled=large is not None and " ".join(line.split()).lower() in large)
            if not found or not follows(previous, found[0]):
                continue
            if large is not None and not _printed_large(line, large):
                continue
            _add(sections, lines[begin:i], [title for _, title in crumbs], index, labels)
            number, title = found
            crumbs = [(n, t) for n, t in crumbs if len(n) < len(number)] + [(number, " ".join(line.split()))]
            previous, begin = number, i + 1
        _add(sections, lines[begin:], [title for _, title in crumbs], index, labels)
    return sections


_STYLED_MAX_WORDS = 8
_STYLED_LEVELS = 3  # section, subsection, entry: deeper indentations are entries too
_INDENT_SLACK = 2  # layout columns between indentations of one level ("--login" one column right of "BASHPID")


def _styled_sections(pages: list[list[str]], large: set[str], indents: list[dict[str, int]],
                     labels: list[str | None]) -> list[Section]:
    """Sections under headings that are neither in an outline nor numbered: lines printed whole in a heading style
    (bold or larger: `_large_text`), short and not ending a sentence, nested by how far they are indented. A man
    page typeset by groff (Debian's bash.pdf, 87 pages, no outline) prints its sections flush left in bold capitals
    ("SHELL GRAMMAR"), subsections 4 columns in ("Pipelines") and each variable, option and builtin it defines in
    bold 10 columns in ("BASHPID"): 38, 48 and 235 such lines. Without them every section was one page with no path."""
    found = [[(i, indents[index].get(" ".join(line.split()), 0)) for i, line in enumerate(lines) if _styled(line, large)]
             for index, lines in enumerate(pages)]
    levels = _indent_levels(sorted({indent for page in found for _, indent in page}))
    if not levels:
        return []
    sections: list[Section] = []
    crumbs: list[tuple[int, str]] = []
    for index, lines in enumerate(pages):
        begin = 0
        for i, indent in found[index]:
            _add(sections, lines[begin:i], [title for _, title in crumbs], index, labels)
            level = levels[indent]
            crumbs = [(lv, t) for lv, t in crumbs if lv < level] + [(level, " ".join(lines[i].split()))]
            begin = i + 1
        _add(sections, lines[begin:], [title for _, title in crumbs], index, labels)
    return sections


def _styled(line: str, large: set[str]) -> bool:
    text = " ".join(line.split())
    return (text.lower() in large and len(text.split()) <= _STYLED_MAX_WORDS and sum(c.isalpha() for c in text) >= 2
            and not text.endswith((".", ",", ";", ":")))


def _indent_levels(indents: list[int]) -> dict[int, int]:
    """Each heading indentation's level: indentations within _INDENT_SLACK of the one before share its level."""
    levels: dict[int, int] = {}
    level, previous = -1, None
    for indent in indents:
        if previous is None or indent - previous > _INDENT_SLACK:
            level += 1
        levels[indent], previous = min(level, _STYLED_LEVELS - 1), indent
    return levels


def _add(sections: list[Section], lines: list[str], path: list[str], index: int, labels: list[str | None]) -> None:
    text = tidy(lines)
    if text:
        sections.append(Section(text=text, section_path=list(path), page=index + 1, page_label=labels[index]))


def _printed_large(line: str, large: set[str]) -> bool:
    text = " ".join(line.split()).lower()
    return text in large or any(len(run) >= 4 and run in text for run in large)


_LARGER = 1.15  # a heading's font is at least this much larger than the body's


def _large_text(pages: list[PageObject]) -> tuple[set[str] | None, set[str]]:
    """Lines (lower case, spaces squeezed) printed as headings are: in a font larger than the body's, or in a bold
    face at least the body's size (the lowest heading level is often only bold). First None when the PDF gives no
    font sizes to compare (then numbering and order alone decide a heading); the second set is those lines all the
    same (a man page prints every heading in bold body type: `_styled_sections`)."""
    runs: list[tuple[str, float, bool]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if text.strip() and size:
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) or 1.0
            runs.append((" ".join(text.split()).lower(), size * scale, _bold(font)))

    try:
        for page in pages:
            page.extract_text(visitor_text=visit)
    except Exception:
        return None, set()
    weight: Counter[float] = Counter()
    for text, size, _ in runs:
        weight[round(size, 1)] += len(text)
    if not weight:
        return None, set()
    body = weight.most_common(1)[0][0]
    styled = {text for text, size, bold in runs if size >= body * _LARGER or (bold and size >= body - 0.05)}
    return (styled if len(weight) >= 2 else None), styled


def _bold(font: object) -> bool:
    try:
        name = str(font.get("/BaseFont", "")) if hasattr(font, "get") else ""
    except Exception:
        return False
    return any(mark in name.lower() for mark in ("bold", "black", "heavy", "semibold"))


# ---------------------------------------------------------------- HTML
