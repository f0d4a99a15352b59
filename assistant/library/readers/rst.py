"""reStructuredText: sections from adorned titles, directives and comments dropped."""

from __future__ import annotations

import re
from pathlib import Path

from assistant.library.documents import ParsedDocument
from assistant.library.readers.common import SectionBuilder, decode

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*\s*$")  # one repeated ASCII punctuation character
_RST_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(.*))?$")


def read_rst(data: bytes, path: Path) -> ParsedDocument:
    decoded = decode(data)
    lines = decoded.text.splitlines()
    styles: list[tuple[str, bool]] = []  # docutils: a style's level is the order in which it first appears
    out = SectionBuilder()
    title = None
    i = 0
    while i < len(lines):
        found = _rst_heading(lines, i)
        if found:
            text, style, used = found
            if style not in styles:
                styles.append(style)
            out.heading(styles.index(style) + 1, text)
            title = title or text
            i += used
            continue
        explicit = _RST_EXPLICIT.match(lines[i])
        if not explicit:
            out.add(lines[i])
        elif explicit.group(2) and not explicit.group(2).startswith("_"):  # drop `.. _target:` lines
            out.add(explicit.group(1) + explicit.group(2))  # `.. note:: Mind this` -> `note:: Mind this`
        i += 1
    return ParsedDocument(title=title or path.stem, sections=out.finish(), kind="rst", encoding=decoded.encoding)


def _rst_heading(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    line = lines[i].rstrip()
    over = _ADORNMENT.match(line)
    if over and i + 2 < len(lines):
        text = lines[i + 1].strip()
        if text and not _ADORNMENT.match(text) and lines[i + 2].rstrip() == line and len(line) >= len(text):
            return text, (over.group(1), True), 3
    if over or not line or line[0].isspace() or i + 1 >= len(lines):
        return None
    under = _ADORNMENT.match(lines[i + 1].rstrip())
    after_break = i == 0 or not lines[i - 1].strip() or _ADORNMENT.match(lines[i - 1].rstrip())
    if under and len(lines[i + 1].rstrip()) >= len(line) and after_break:
        return line.strip(), (under.group(1), False), 2
    return None


# ---------------------------------------------------------------- plain text
