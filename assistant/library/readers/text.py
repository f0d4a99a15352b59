"""Plain text: one section, titled by its first short line."""

from __future__ import annotations

from pathlib import Path

from assistant.library.documents import ParsedDocument, Section
from assistant.library.readers.common import decode, tidy


def read_text(data: bytes, path: Path) -> ParsedDocument:
    decoded = decode(data)
    lines = decoded.text.splitlines()
    first = next(line.strip() for line in lines if line.strip())  # _decode rejected blank files
    title = first if len(first) <= 80 and len(lines) > 1 else path.stem
    return ParsedDocument(title=title, sections=[Section(text=tidy(lines))], kind="text", encoding=decoded.encoding)


