"""Typed results of reading a document: what every reader returns and the chunker consumes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Section:
    """A run of text under one heading breadcrumb (and, for PDFs, one page)."""

    text: str
    section_path: list[str] = field(default_factory=list)
    page: int | None = None  # 1-based page index for PDFs (what a viewer opens)
    page_label: str | None = None  # the printed page label ("iv", "A-3") where it differs from the index


@dataclass
class ParsedDocument:
    title: str
    sections: list[Section]
    kind: str  # pdf | html | markdown | rst | text | docx
    encoding: str | None = None  # how a text format was decoded (recorded in the manifest); None for PDF and DOCX


class SkipFile(Exception):
    """A file of no supported type: reported in `files_skipped` with this reason."""


class NoBodyText(SkipFile):
    """A page of front matter only (a Hugo section index): nothing to index, its title and description kept."""

    def __init__(self, title: str = "", description: str = "") -> None:
        super().__init__("no body text (front matter only)")
        self.title = title
        self.description = description


class ReadFailure(Exception):
    """A supported file that could not be read: reported in `files_failed` with this message."""


def give_back_memory() -> None:
    """Return the heap pages freed since the last call to the system (glibc keeps them otherwise). Reading a file
    near a cap (a 20,000-page PDF, 200,000 HTML tags) frees hundreds of MB in small blocks that would stay in the
    process's RSS under the embedding model's peak: measured, 2.24 GB against 2.05 GB for the sync of the files at
    every cap (tests/test_reliability_hostile.py)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to do
        pass
