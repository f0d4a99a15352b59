"""What every text reader shares: decoding with a clear failure, tidy lines, sections under a heading path."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from charset_normalizer import from_bytes

from assistant.library.documents import ReadFailure, Section

# C0 controls other than tab, newline, vertical tab, form feed and carriage return: rare in real text.
_CONTROL_BYTES = bytes(range(0, 9)) + bytes(range(14, 32))



def brief(exc: Exception) -> str:
    """An exception as one short line for the ingest report."""
    text = " ".join(str(exc).split())
    return (text or type(exc).__name__)[:160]


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # as recorded in the manifest: utf-8, utf-16, cp1252, latin-1, or charset-normalizer's name


# charset-normalizer "recognises with confidence" when its guess reads cleanly (mess ratio, 0 = clean) and looks
# like a language (coherence). Short random bytes read cleanly as cp437 or cp932 with coherence 0, so both count.
MAX_CHAOS = 0.1
MIN_COHERENCE = 0.2
_C1 = re.compile("[\x80-\x9f]")
_WESTERN = ("cp1252", "latin_1", "iso8859_15")


def decode(data: bytes, declared: str | None = None) -> Decoded:
    """UTF-8 first, then by detection: a UTF-16 BOM, the charset a page declares, charset-normalizer's best guess
    when it is confident (Western European text is read as cp1252, or Latin-1 when no byte needs cp1252), and
    cp1252/Latin-1 when nothing else fits. Bytes no encoding reads cleanly fail the file with their offset."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return _non_empty(data.decode("utf-16"), "utf-16")
        except UnicodeDecodeError:
            raise ReadFailure("not valid UTF-16 text") from None
    sample = data[:8192]
    if b"\x00" in data or len(sample) - len(sample.translate(None, _CONTROL_BYTES)) > max(1, len(sample) // 100):
        raise ReadFailure("not valid UTF-8 text (looks binary)")
    try:
        return _non_empty(data.decode("utf-8-sig"), "utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
    for encoding in filter(None, (_declared(declared), _detected(data))):
        if encoding in _WESTERN:
            found = _western(data)
            if found is not None:
                return _non_empty(*found)
            continue
        try:
            return _non_empty(data.decode(encoding), encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    found = _western(data)
    if found is None:
        raise ReadFailure(f"not valid UTF-8 text (bad byte at offset {bad}) and no other encoding fits it")
    return _non_empty(*found)


def _non_empty(text: str, encoding: str) -> Decoded:
    if not text.strip():
        raise ReadFailure("file is empty")
    return Decoded(text, encoding)


def _declared(name: str | None) -> str | None:
    try:
        return codecs.lookup(name).name if name else None
    except LookupError:
        return None


def _detected(data: bytes) -> str | None:
    """cp1252 when any clean guess could be it (charset-normalizer names Western text cp1250 or cp852 as often as
    cp1252, and those garble it), else the first clean, coherent guess (Cyrillic, Greek, Central European...)."""
    clean = [m for m in from_bytes(data) if m.chaos <= MAX_CHAOS and not m.encoding.startswith(("utf_16", "utf_32"))]
    if any({"cp1252", "latin_1", "iso8859_15"} & set(m.could_be_from_charset) for m in clean):
        return "cp1252"
    return next((m.encoding for m in clean if m.coherence >= MIN_COHERENCE), None)


def _western(data: bytes) -> tuple[str, str] | None:
    if not any(0x80 <= b <= 0x9F for b in data):
        return data.decode("latin-1"), "latin-1"  # the same text as cp1252 gives: call it by the narrower name
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return None  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: undefined in cp1252, C1 controls in Latin-1
    return (text, "cp1252") if not _C1.search(text) else None


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

