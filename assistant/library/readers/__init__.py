"""Turn one file into a ParsedDocument: PDF, Word (.docx), HTML, Markdown, reStructuredText or plain text.

Whatever a user's file does to us ends as SkipFile (not a type we read) or ReadFailure (our type,
unreadable) with a short message for the ingest report; nothing else leaves read_document.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

from assistant.library.documents import ParsedDocument, ReadFailure, SkipFile
from assistant.library.readers import html, markdown, pdf, rst, text, word
from assistant.library.readers.common import brief

_KINDS = {
    ".pdf": "pdf", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown",
    ".rst": "rst", ".txt": "text", ".text": "text", ".docx": "docx",
}
SUPPORTED_SUFFIXES = tuple(_KINDS)
# Bump whenever a reader's output changes for some file (a sync then re-reads every file indexed before; see
# ingest.index_recipe). 2: Markdown backslash escapes undone outside code. 3: text decoded by detection (Latin-1,
# cp1252, ...), front-matter-only pages skipped, .docx read. 4: PDFs as documents (issue 15): sections at headings
# (outline titles, else numbered headings), words hyphenated at line ends joined, wrapped table cells kept in their row,
# printed page labels kept; Markdown headings keep `<code>` in backticks (Prometheus' `<scrape_config>`). 5: PDF
# headings without an outline: contents entries skipped, bold body-size headings, FAQ questions (eval/pdf.jsonl).
# 6: reStructuredText as Sphinx renders it (version notes, object descriptions as entries, roles as their text).
# 7: PDF running heads that name their chapter and carry the page number dropped; those numbers label the pages of a
# PDF without page labels (LaTeX and texinfo manuals); ligatures spelled out, the typeset minus read as "-".
# 8: PDF word spaces drawn as character spacing (groff through Ghostscript: man pages) read as spaces; a PDF with
# neither outline nor numbered headings takes its bold or larger lines as headings, nested by indentation.
READER_VERSION = 8
_LABELS = {"pdf": "a PDF", "docx": "a Word document", "html": "HTML", "markdown": "Markdown", "rst": "reStructuredText", "text": "plain text"}

# Line-based parsers (and their regexes) assume prose; a 1 MB line is a data dump or minified blob. Each line
# costs ~100 bytes of bookkeeping (measured: 9.5 million one-letter lines took 34 s and 930 MB), so a text
# file may also hold at most a million lines, a book of some 20,000 pages.
MAX_LINE_BYTES = 1_000_000
MAX_LINES = 1_000_000
_READ_CHUNK = 1 << 20

_MAGIC = (
    (b"%PDF-", "a PDF file"), (b"PK\x03\x04", "a ZIP archive (or Office document)"),
    (b"\x7fELF", "an ELF executable"), (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"), (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"SQLite format 3\x00", "an SQLite database"), (b"Rar!\x1a\x07", "a RAR archive"),
)


def read_document(path: Path, max_bytes: int = 20_000_000) -> ParsedDocument:
    kind = _KINDS.get(path.suffix.lower())
    if kind is None:
        raise SkipFile(f"unsupported file type ({path.suffix or 'no extension'})")
    try:
        data = _read_capped(path, max_bytes, check_lines=kind in ("markdown", "rst", "text"))
        _check_magic(data, kind)
        doc = READERS[kind](data, path)
    except (SkipFile, ReadFailure):
        raise
    except OSError as exc:
        raise ReadFailure(f"cannot read file: {exc.strerror or exc}") from exc
    except Exception as exc:  # a parser bug on one hostile file must not abort a whole ingest
        raise ReadFailure(f"could not parse as {_LABELS[kind]}: {brief(exc)}") from exc
    sections = [s for s in doc.sections if s.text.strip()]
    if not sections:
        raise ReadFailure("no extractable text (scanned PDF?)" if kind == "pdf" else "no extractable text")
    return ParsedDocument(title=doc.title.strip() or path.stem, sections=sections, kind=kind, encoding=doc.encoding)


def _read_capped(path: Path, max_bytes: int, check_lines: bool) -> bytes:
    """Read at most max_bytes, in chunks, giving up at the first over-long line before it is all in memory."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ReadFailure("not a regular file")
    too_big = ReadFailure(f"file is larger than {max_bytes / 1_000_000:g} MB")
    if info.st_size > max_bytes:
        raise too_big
    chunks: list[bytes] = []
    total = run = lines = 0  # run: length of the line still open at the end of the previous chunk
    with path.open("rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            total += len(chunk)
            if total > max_bytes:  # the file grew after stat()
                raise too_big
            if check_lines:
                lengths = [len(piece) for piece in chunk.split(b"\n")]
                lengths[0] += run
                run = lengths[-1]
                if max(lengths) > MAX_LINE_BYTES:
                    raise ReadFailure("a single line longer than 1 MB (not prose)")
                lines += len(lengths) - 1
                if lines > MAX_LINES:
                    raise ReadFailure(f"more than {MAX_LINES:,} lines, more than is read per file (split it)")
            chunks.append(chunk)
    if total == 0:
        raise ReadFailure("file is empty")
    return b"".join(chunks)


def _check_magic(data: bytes, kind: str) -> None:
    for magic, name in _MAGIC:
        if data.startswith(magic) and not (kind == "pdf" and magic == b"%PDF-") and not (
                kind == "docx" and magic == b"PK\x03\x04"):
            raise ReadFailure(f"looks like {name}, not {_LABELS[kind]}")



READERS: dict[str, Callable[[bytes, Path], ParsedDocument]] = {
    "pdf": pdf.read_pdf, "html": html.read_html, "markdown": markdown.read_markdown,
    "rst": rst.read_rst, "text": text.read_text, "docx": word.read_docx,
}
