"""A typeset manual built from real corpus text (etcd v3.6 op-guide), as a PDF a user would drop in the library:
roman-numbered front matter (printed labels differ from page indexes), running header and footer, numbered headings
in a larger bold font, justified-width lines with words hyphenated at line ends, and a flag table whose description
cells wrap onto a second line. Optionally with an outline (bookmarks)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from assistant.evaluation.pdf_typeset import label_pages
from assistant.library.readers import read_document

HEADER = "etcd Operations Guide v3.6"
BODY_FONT, BODY_SIZE = "Helvetica", 10
HEAD_FONT, HEAD_SIZE = "Helvetica-Bold", 14
LINE_CHARS = 88  # characters per body line; longer words are hyphenated across the break
_TOP, _BOTTOM, _LEFT = 770, 70, 60
FLAG_COLUMNS = (60, 250, 330)  # flag, default, description
DESCRIPTION_CHARS = 48


@dataclass
class Manual:
    path: Path
    headings: list[tuple[str, int]] = field(default_factory=list)  # (printed heading, page index)
    hyphenated: list[str] = field(default_factory=list)  # words printed split across two lines
    flags: list[tuple[str, str, str]] = field(default_factory=list)  # the flag table's rows
    steps: list[str] = field(default_factory=list)  # a numbered list printed in body type under heading 1


def _plain(text: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("`", "").replace("**", "")


def _wrap(paragraph: str, hyphenated: list[str]) -> list[str]:
    lines, line = [], ""
    for word in paragraph.split():
        if len(line) + 1 + len(word) <= LINE_CHARS or not line:
            line = f"{line} {word}".strip()
            continue
        room = LINE_CHARS - len(line) - 2
        if word.isalpha() and len(word) >= 8 and room >= 3 and len(word) - room >= 3:
            lines.append(f"{line} {word[:room]}-")
            hyphenated.append(word)
            line = word[room:]
        else:
            lines.append(line)
            line = word
    return lines + [line] if line else lines


def _flag_rows(corpora: Path) -> list[tuple[str, str, str]]:
    """(flag, default, description) of the first member flags of etcd v3.6's configuration reference."""
    text = (corpora / "etcd/v3.6/op-guide/configuration.md").read_text()
    rows = re.findall(r"^(--[a-z-]+) '([^']*)'\n  (.+)$", text, flags=re.M)
    return [(flag, default or "''", desc) for flag, default, desc in rows[:8]]


def make_manual(corpora: Path, path: Path, *, outline: bool) -> Manual:
    manual = Manual(path)
    doc = read_document(corpora / "etcd/v3.6/op-guide/maintenance.md")
    # Steps from etcd's data corruption guide, typeset without end punctuation: "2. Backing up ..." could follow
    # heading 1 by its number; only its body-size type says it is no heading.
    corruption = (corpora / "etcd/v3.6/op-guide/data_corruption.md").read_text()
    manual.steps = [line.rstrip(".") for line in re.findall(r"^\d\. [A-Z][^`\n]*$", corruption, flags=re.M)[:2]]
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pages: list[list[tuple[str, str, int, float]]] = [[]]  # per page: (kind, text, x, size)
    y = [_TOP]

    def put(kind: str, text: str, x: int = _LEFT, height: int = 14) -> None:
        if y[0] - height < _BOTTOM:
            pages.append([])
            y[0] = _TOP
        pages[-1].append((kind, text, x, y[0]))
        y[0] -= height

    counters: list[int] = []
    for sec in doc.sections[:6]:
        depth = len(sec.section_path)
        counters = (counters + [0] * depth)[:depth]
        counters[-1] += 1
        heading = " ".join(map(str, counters)).replace(" ", ".") + " " + sec.section_path[-1]
        y[0] -= 10
        put("head", heading, height=22)
        manual.headings.append((heading, 0))
        body = [ln for ln in sec.text.split("\n") if not ln.startswith("```")]
        for paragraph in re.split(r"\n\s*\n", _plain("\n".join(body))):
            for line in _wrap(" ".join(paragraph.split()), manual.hyphenated):
                put("body", line)
            y[0] -= 6
        if len(counters) == 1 and counters[0] == 1:
            for step in manual.steps:  # a numbered list in body type, as a heading would be numbered next
                put("body", step)
    counters = [counters[0] + 1]
    y[0] = _BOTTOM  # the flag table starts a page of its own
    put("head", f"{counters[0]} Member flags", height=22)
    manual.headings.append((f"{counters[0]} Member flags", 0))
    manual.flags = _flag_rows(corpora)
    put("row", "Flag\tDefault\tDescription")
    for flag, default, desc in manual.flags:
        words, first, rest = desc.split(), "", ""
        for word in words:
            if not rest and len(first) + len(word) + 1 <= DESCRIPTION_CHARS:
                first = f"{first} {word}".strip()
            else:
                rest = f"{rest} {word}".strip()
        put("row", "\t".join((flag, default, first)))
        if rest:
            put("row", "\t".join(("", "", rest)))
        y[0] -= 4

    front = 2  # a title page and a contents page, labelled i and ii
    _draw_front(pdf, manual)
    for number, items in enumerate(pages, 1):
        pdf.setFont(BODY_FONT, 9)
        pdf.drawString(_LEFT, 810, HEADER)
        pdf.drawString(500, 30, f"Page {number}")
        for kind, text, x, at in items:
            if kind == "head":
                pdf.setFont(HEAD_FONT, HEAD_SIZE)
                pdf.drawString(x, at, text)
                index = next(i for i, (h, p) in enumerate(manual.headings) if h == text and not p)
                manual.headings[index] = (text, front + number)
                if outline:
                    key = f"h{index}"
                    pdf.bookmarkHorizontal(key, 0, at + 20)
                    pdf.addOutlineEntry(text, key, level=text.split(" ")[0].count("."))
            elif kind == "row":
                pdf.setFont(BODY_FONT, BODY_SIZE)
                for column, cell in zip(FLAG_COLUMNS, text.split("\t")):
                    pdf.drawString(column, at, cell)
            else:
                pdf.setFont(BODY_FONT, BODY_SIZE)
                pdf.drawString(x, at, text)
        pdf.showPage()
    pdf.save()
    label_pages(path, front)
    return manual


def _draw_front(pdf: canvas.Canvas, manual: Manual) -> None:
    pdf.setFont(HEAD_FONT, 20)
    pdf.drawString(_LEFT, 600, "etcd Operations Guide")
    pdf.setFont(BODY_FONT, BODY_SIZE)
    pdf.drawString(_LEFT, 570, "Maintenance and member flags, release v3.6")
    pdf.showPage()
    pdf.setFont(BODY_FONT, 9)
    pdf.drawString(_LEFT, 810, HEADER)
    pdf.drawString(500, 30, "Page ii")
    pdf.setFont(BODY_FONT, BODY_SIZE)
    pdf.drawString(_LEFT, 740, "Contents")
    for i, (heading, _) in enumerate(manual.headings):
        pdf.drawString(_LEFT, 710 - 16 * i, f"{heading} ....")
    pdf.showPage()
