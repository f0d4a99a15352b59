"""Manuals typeset as PDFs from Markdown files of the corpora (issue 15, point 4): the PDF question set and the PDF
reader's tests need documents like the ones users drop in a library, and the corpora hold none. In: a ManualSpec
(title, running header and footer, Markdown chapters); out: a PDF with a title page and contents in roman-numbered
front matter (printed labels differ from page indexes), numbered headings in a larger bold font, justified-width
prose with long words hyphenated at line ends, tables whose cells wrap inside their column, code in a fixed font,
and an outline (bookmarks) when asked. Deterministic: the same spec gives the same pages.

Needs reportlab (the `test` extra: pip install -e '.[test]')."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from assistant.library.readers import read_document

BODY_FONT, BODY_SIZE, LEADING = "Helvetica", 10, 13
HEAD_FONT = "Helvetica-Bold"
HEAD_SIZES = {1: 16, 2: 13, 3: 11}  # chapter, section, subsection
CODE_FONT, CODE_SIZE = "Courier", 8.5
CELL_SIZE = 9
PAGE_W, PAGE_H = 595.27, 841.89  # A4
LEFT, RIGHT, TOP, BOTTOM = 60, 535, 770, 70
MIN_SPLIT = 8  # words at least this long may be hyphenated at a line end, each part keeping 3 letters or more
CELL_GAP = 14  # points between table columns: layout extraction sees three or more spaces there


@dataclass
class ManualSpec:
    title: str
    subtitle: str
    header: str  # printed at the top of every page
    footer: str  # printed at the bottom left of every page, beside the page label
    chapters: list[Path]  # Markdown files, one chapter each, in order
    outline: bool = False
    page_style: str = "Page {}"  # how the footer prints the page label


@dataclass
class Typeset:
    path: Path
    pages: int = 0
    front: int = 0  # roman-numbered pages before printed page 1
    headings: list[tuple[str, int]] = field(default_factory=list)  # (printed heading, 1-based page index)
    hyphenated: list[tuple[str, int]] = field(default_factory=list)  # (word split over two lines, page index)
    rows: list[tuple[list[str], int]] = field(default_factory=list)  # (table row's cells, page index)


@dataclass
class _Item:
    kind: str  # head1..head3, body, code, cell, rule
    text: str
    x: float
    y: float
    level: int = 0


_LINK = re.compile(r"!?\[([^\]]*)\]\[?[^)\]]*[)\]]")
_TAG = re.compile(r"</?(?:code|br|a|span|p|b|i|em|strong|sup|sub|div|details|summary|img)\b[^<>]{0,200}>")  # not <labelname>
_ASCII = {"\u2014": "-", "\u2013": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2192": "->",
          "\u2026": "...", "\u00a0": " ", "\u2264": "<=", "\u2265": ">=", "\u00d7": "x"}


def _plain(text: str) -> str:
    text = _TAG.sub("", _LINK.sub(r"\1", text))
    text = text.replace("`", "").replace("**", "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = "".join(_ASCII.get(ch, ch) for ch in text)
    return text.encode("cp1252", "ignore").decode("cp1252")  # the standard fonts print WinAnsi only


class _Layout:
    """Places lines top to bottom, page after page; each page a list of items."""

    def __init__(self, result: Typeset) -> None:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        self.width = stringWidth
        self.result = result
        self.pages: list[list[_Item]] = [[]]
        self.y = TOP

    def room(self, height: float) -> None:
        if self.y - height < BOTTOM:
            self.pages.append([])
            self.y = TOP

    def put(self, kind: str, text: str, x: float = LEFT, height: float = LEADING, level: int = 0) -> None:
        self.room(height)
        self.pages[-1].append(_Item(kind, text, x, self.y, level))
        self.y -= height

    def page(self) -> int:
        return len(self.pages)  # body page number (1-based), before the front matter is counted

    def wrap(self, text: str, width: float, font: str, size: float, hyphenate: bool) -> list[str]:
        lines, line = [], ""
        for word in text.split():
            trial = f"{line} {word}".strip()
            if self.width(trial, font, size) <= width or not line:
                line = trial
                continue
            head = self._split(line, word, width, font, size) if hyphenate else None
            if head:
                lines.append(f"{line} {head}-")
                self.result.hyphenated.append((word, self.page()))
                line = word[len(head):]
            else:
                lines.append(line)
                line = word
        return lines + [line] if line else lines

    def _split(self, line: str, word: str, width: float, font: str, size: float) -> str | None:
        if len(word) < MIN_SPLIT or not word.isalpha():
            return None
        for cut in range(len(word) - 3, 2, -1):
            if self.width(f"{line} {word[:cut]}-", font, size) <= width:
                return word[:cut]
        return None


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """A section's Markdown text as ("prose" | "item" | "code" | "table", lines) blocks."""
    blocks: list[tuple[str, list[str]]] = []
    in_code = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if re.match(r"^\s*(```|~~~)", line):
            in_code = not in_code
            blocks.append(("code", []))
            continue
        if in_code:
            if blocks and blocks[-1][0] == "code":
                blocks[-1][1].append(line)
            continue
        if not line.strip():
            blocks.append(("gap", []))
        elif line.lstrip().startswith("|"):
            if blocks and blocks[-1][0] == "table":
                blocks[-1][1].append(line)
            else:
                blocks.append(("table", [line]))
        elif re.match(r"^\s*([-*+]|\d+[.)])\s", line):
            blocks.append(("item", [line.strip()]))
        elif blocks and blocks[-1][0] in ("prose", "item"):
            blocks[-1][1].append(line.strip())
        else:
            blocks.append(("prose", [line.strip()]))
    return [b for b in blocks if b[0] != "gap" and b[1]]


def _table(layout: _Layout, lines: list[str]) -> None:
    rows = [[_plain(c.strip()) for c in line.strip().strip("|").split("|")] for line in lines]
    rows = [r for r in rows if not all(re.fullmatch(r":?-+:?", c) or not c for c in r)]
    if not rows:
        return
    n = max(len(r) for r in rows)
    rows = [r + [""] * (n - len(r)) for r in rows]
    usable = RIGHT - LEFT - CELL_GAP * (n - 1)
    # Each column as wide as its longest word (no word is cut), then the room left shared out by text length.
    least = [max((layout.width(w, BODY_FONT, CELL_SIZE) for r in rows for w in r[c].split()), default=20) for c in range(n)]
    want = [max(sum(len(r[c]) for r in rows), 1) for c in range(n)]
    spare = max(usable - sum(least), 0)
    widths = [least[c] + spare * want[c] / sum(want) for c in range(n)]
    xs = [LEFT + sum(widths[:c]) + CELL_GAP * c for c in range(n)]
    for r, cells in enumerate(rows):
        font = HEAD_FONT if r == 0 else BODY_FONT
        wrapped = [layout.wrap(cell, widths[c], font, CELL_SIZE, False) or [""] for c, cell in enumerate(cells)]
        layout.room(LEADING * max(len(w) for w in wrapped))  # a row is not split over two pages
        if r:
            layout.result.rows.append((cells, layout.page()))
        for k in range(max(len(w) for w in wrapped)):
            for c, w in enumerate(wrapped):
                if k < len(w) and w[k]:
                    layout.pages[-1].append(_Item("cell" if r else "cellhead", w[k], xs[c], layout.y))
            layout.y -= LEADING
        layout.y -= 3


def _chapter(layout: _Layout, number: int, source: Path) -> list[tuple[str, int, int]]:
    """Typesets one Markdown file; returns (heading, level, body page) of each numbered heading."""
    doc = read_document(source)
    sections = [s for s in doc.sections if s.text.strip() or s.section_path]
    root = next((s.section_path[:1] for s in sections if s.section_path), [])
    shared = bool(root) and all(s.section_path[:1] == root for s in sections if s.section_path)
    title, skip = (root[0], 1) if shared else (doc.title, 0)
    base = min((len(s.section_path) - skip for s in sections if len(s.section_path) > skip), default=1)
    heads: list[tuple[str, int, int]] = []
    counters = [number]
    last_path: list[str] = []

    def heading(text: str, level: int) -> None:
        size = HEAD_SIZES[level]
        layout.y -= 8 if level > 1 else 14
        layout.room(size + 4 + 3 * LEADING)  # no heading alone at a page's foot
        layout.put(f"head{level}", text, height=size + 8, level=level)
        heads.append((text, level, layout.page()))

    if layout.pages[-1]:
        layout.pages.append([])  # each chapter starts a page
        layout.y = TOP
    heading(f"{number} {_plain(title)}", 1)
    for sec in sections:
        path = [_plain(p) for p in sec.section_path[skip:]][base - 1:]  # a file whose headings start at ### too
        if path and path != last_path:
            for depth in range(1, min(len(path), 2) + 1):  # a parent heading with no text of its own prints too
                if path[:depth] != last_path[:depth]:
                    counters = (counters + [0] * depth)[:depth + 1]
                    counters[depth] += 1
                    heading(".".join(map(str, counters)) + " " + path[depth - 1], depth + 1)
            if len(path) > 2:  # deeper headings: a bold run-in line, unnumbered
                layout.y -= 4
                layout.put("run", path[-1], height=LEADING + 2)
            last_path = path
        for kind, lines in _blocks(sec.text):
            if kind == "table":
                _table(layout, lines)
            elif kind == "code":
                for line in lines:
                    for piece in layout.wrap(_plain(line), RIGHT - LEFT - 10, CODE_FONT, CODE_SIZE, False) or [""]:
                        layout.put("code", piece, LEFT + 10, height=LEADING - 2)
                layout.y -= 4
            else:
                text = _plain(" ".join(lines))
                indent = 12 if kind == "item" else 0
                if kind == "item":
                    text = re.sub(r"^[-*+]\s+", "\u2022 ", text)
                for line in layout.wrap(text, RIGHT - LEFT - indent, BODY_FONT, BODY_SIZE, True):
                    layout.put("body", line, LEFT + indent)
                layout.y -= 4
    return heads


def typeset_manual(spec: ManualSpec, path: Path) -> Typeset:
    """Writes the manual to `path` and says where its headings, hyphenated words and table rows were printed."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    result = Typeset(path)
    layout = _Layout(result)
    heads: list[tuple[str, int, int]] = []
    for number, source in enumerate(spec.chapters, 1):
        heads += _chapter(layout, number, source)
    contents = [(h, p) for h, level, p in heads if level <= 2]  # body page numbers, as printed
    per_page = (TOP - BOTTOM - 40) // 15
    front = 1 + -(-len(contents) // per_page)
    result.front, result.pages = front, front + len(layout.pages)
    result.headings = [(h, front + p) for h, _, p in heads]
    result.hyphenated = [(w, front + p) for w, p in result.hyphenated]
    result.rows = [(cells, front + p) for cells, p in result.rows]

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setTitle(spec.title) if spec.outline else None  # some manuals say their title, some do not
    pdf.setFont(HEAD_FONT, 22)
    pdf.drawString(LEFT, 600, spec.title)
    pdf.setFont(BODY_FONT, 12)
    pdf.drawString(LEFT, 570, spec.subtitle)
    pdf.showPage()
    romans = ["ii", "iii", "iv", "v", "vi", "vii", "viii"]
    for k in range(front - 1):
        _running(pdf, spec, romans[k])
        pdf.setFont(HEAD_FONT, 14)
        pdf.drawString(LEFT, TOP, "Contents" if k == 0 else "Contents (continued)")
        pdf.setFont(BODY_FONT, BODY_SIZE)
        for i, (heading, page) in enumerate(contents[k * per_page:(k + 1) * per_page]):
            indent = 0 if heading.split(" ")[0].count(".") == 0 else 14
            pdf.drawString(LEFT + indent, TOP - 30 - 15 * i, heading)
            pdf.drawRightString(RIGHT, TOP - 30 - 15 * i, str(page))
        pdf.showPage()
    number = 0
    for index, items in enumerate(layout.pages, front + 1):
        _running(pdf, spec, str(index - front))
        for item in items:
            if item.kind.startswith("head"):
                level = int(item.kind[4:])
                pdf.setFont(HEAD_FONT, HEAD_SIZES[level])
                pdf.drawString(item.x, item.y, item.text)
                if spec.outline:
                    key = f"h{number}"
                    number += 1
                    pdf.bookmarkHorizontal(key, 0, item.y + 20)
                    pdf.addOutlineEntry(item.text, key, level=level - 1)
                continue
            font, size = {"code": (CODE_FONT, CODE_SIZE), "cell": (BODY_FONT, CELL_SIZE),
                          "cellhead": (HEAD_FONT, CELL_SIZE), "run": (HEAD_FONT, BODY_SIZE)}.get(
                item.kind, (BODY_FONT, BODY_SIZE))
            pdf.setFont(font, size)
            pdf.drawString(item.x, item.y, item.text)
        pdf.showPage()
    pdf.save()
    label_pages(path, front)
    return result


def _running(pdf, spec: ManualSpec, label: str) -> None:
    pdf.setFont(BODY_FONT, 8)
    pdf.drawString(LEFT, 805, spec.header)
    pdf.line(LEFT, 800, RIGHT, 800)
    pdf.drawString(LEFT, 40, spec.footer)
    pdf.drawRightString(RIGHT, 40, spec.page_style.format(label))


def label_pages(path: Path, front: int) -> None:
    """Front matter labelled i, ii, ...; the body 1, 2, ... (so the printed label differs from the page index)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(path))
    writer.set_page_label(0, front - 1, style="/r")
    writer.set_page_label(front, len(writer.pages) - 1, style="/D", start=1)
    with path.open("wb") as handle:
        writer.write(handle)
