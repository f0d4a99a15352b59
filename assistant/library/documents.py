"""Typed results of reading a document: what every reader returns and the chunker consumes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Section:
    """A run of text under one heading breadcrumb (and, for PDFs, one page)."""

    text: str
    section_path: list[str] = field(default_factory=list)
    page: int | None = None  # 1-based page number for PDFs


@dataclass
class ParsedDocument:
    title: str
    sections: list[Section]
    kind: str  # pdf | html | markdown | rst | text


class SkipFile(Exception):
    """A file of no supported type: reported in `files_skipped` with this reason."""


class ReadFailure(Exception):
    """A supported file that could not be read: reported in `files_failed` with this message."""
