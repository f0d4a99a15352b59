"""What every text reader shares: decoding with a clear failure, tidy lines, sections under a heading path."""

from __future__ import annotations

import codecs

from assistant.library.documents import ReadFailure, Section

# C0 controls other than tab, newline, vertical tab, form feed and carriage return: rare in real text.
_CONTROL_BYTES = bytes(range(0, 9)) + bytes(range(14, 32))



def brief(exc: Exception) -> str:
    """An exception as one short line for the ingest report."""
    text = " ".join(str(exc).split())
    return (text or type(exc).__name__)[:160]


def decode(data: bytes, fallback: str | None = None) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise ReadFailure("not valid UTF-16 text") from None
    else:
        sample = data[:8192]
        if b"\x00" in data or len(sample) - len(sample.translate(None, _CONTROL_BYTES)) > max(1, len(sample) // 100):
            raise ReadFailure("not valid UTF-8 text (looks binary)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            try:
                text = data.decode(fallback) if fallback else None
            except (LookupError, UnicodeDecodeError):
                text = None
            if text is None:
                raise ReadFailure(f"not valid UTF-8 text (bad byte at offset {exc.start})") from None
    if not text.strip():
        raise ReadFailure("file is empty")
    return text


def tidy(lines: list[str]) -> str:
    """Right-strip lines and squeeze runs of blank lines, so empty sections are recognisable."""
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


class SectionBuilder:
    """Collects lines under the current heading breadcrumb; each heading closes the running section."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.crumbs: list[tuple[int, str]] = []
        self.lines: list[str] = []

    def heading(self, level: int, title: str) -> None:
        self.flush()
        if not title:
            return
        while self.crumbs and self.crumbs[-1][0] >= level:
            self.crumbs.pop()
        self.crumbs.append((level, title))

    def add(self, line: str) -> None:
        self.lines.append(line)

    def flush(self) -> None:
        text = tidy(self.lines)
        if text:
            self.sections.append(Section(text=text, section_path=[title for _, title in self.crumbs]))
        self.lines = []

    def finish(self) -> list[Section]:
        self.flush()
        return self.sections

