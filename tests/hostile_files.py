"""Broken, disguised and awkward files for reader tests, written fresh so no binary fixtures live in git.

`make_hostile_corpus` returns {file name: expected outcome}; the outcome is "ok" (reads), "failed"
(ReadFailure) or "skipped" (SkipFile).
"""

from __future__ import annotations

import random
import struct
import zipfile
import zlib
from pathlib import Path

from pypdf import PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

OK, FAILED, SKIPPED = "ok", "failed", "skipped"
HUGE_LINE_BYTES = 50_000_000
_COLUMN_WIDTH = 130  # points between table cells, so layout extraction sees separate columns


def make_pdf(
    path: Path,
    pages: list[str],
    header: str | None = None,
    footer: bool = True,
    *,
    title: str | None = None,
    outline: list[tuple[int, str] | None] | None = None,
) -> Path:
    """One page per string; a tab in a line draws its parts as table cells in separate columns.

    `header` is drawn at the top of every page, `footer` puts "Page N" at the bottom, and
    `outline[i]` = (level, text) adds a bookmark for page i+1.
    """
    pdf = canvas.Canvas(str(path), pagesize=A4)
    if title:
        pdf.setTitle(title)
    _, height = A4
    for number, body in enumerate(pages, 1):
        if header:
            pdf.drawString(72, height - 40, header)
        if outline and outline[number - 1]:
            level, text = outline[number - 1]
            pdf.bookmarkPage(f"page{number}")
            pdf.addOutlineEntry(text, f"page{number}", level=level)
        y = height - 100
        for line in body.splitlines():
            for column, cell in enumerate(line.split("\t")):
                pdf.drawString(72 + column * _COLUMN_WIDTH, y, cell)
            y -= 16
        if footer:
            pdf.drawString(72, 30, f"Page {number}")
        pdf.showPage()
    pdf.save()
    return path


def encrypt_pdf(source: Path, target: Path, user_password: str) -> Path:
    writer = PdfWriter(clone_from=source)
    writer.encrypt(user_password=user_password, owner_password="owner-secret")
    with target.open("wb") as handle:
        writer.write(handle)
    return target


def png_bytes() -> bytes:
    """A valid 1x1 white PNG."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\xff\xff")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


GOOD_MD = """\
---
title: "Widget Guide"
weight: 10
---

# Widgets

Widgets turn knobs.

## Install

Run the installer:

```sh
# not a heading: a shell comment
./install --all
```

{{% alert color="info" %}}
Installing twice is harmless.
{{% /alert %}}

## Configure

| key | default |
| --- | ------- |
| knobs | 3 |
"""

GOOD_HTML = """\
<!doctype html>
<html><head><title>Gadget Reference</title><style>.x { color: red }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/docs">Docs menu</a></nav>
<header><p>Site banner text</p></header>
<main>
<h1>Gadgets</h1>
<p>Gadgets hold widgets.</p>
<h2>Sizes</h2>
<table><tr><th>Size</th><th>Weight</th></tr><tr><td>small</td><td>1 kg</td></tr></table>
<ul><li>first item</li><li>second item</li></ul>
<script>var tracking = "secret-tracker";</script>
</main>
<footer>Copyright footer text</footer>
</body></html>
"""

GOOD_PDF_PAGES = [
    "Chapter one explains widgets.\nWidgets turn knobs.",
    "Chapter two explains gadgets.\nName\tValue\tUnit\nalpha\t12\tms",
    "Chapter three explains sprockets.\nSprockets mesh gears.",
]


def make_hostile_corpus(dir: Path) -> dict[str, str]:
    dir.mkdir(parents=True, exist_ok=True)
    expected: dict[str, str] = {}

    def write(name: str, data: bytes, outcome: str) -> None:
        (dir / name).write_bytes(data)
        expected[name] = outcome

    good_pdf = make_pdf(dir / "good.pdf", GOOD_PDF_PAGES, header="ACME Manual")
    expected["good.pdf"] = OK
    pdf_bytes = good_pdf.read_bytes()
    write("truncated.pdf", pdf_bytes[: int(len(pdf_bytes) * 0.4)], FAILED)
    write("empty.pdf", b"", FAILED)
    encrypt_pdf(good_pdf, dir / "encrypted.pdf", "secret")
    expected["encrypted.pdf"] = FAILED
    encrypt_pdf(good_pdf, dir / "encrypted_empty_pw.pdf", "")
    expected["encrypted_empty_pw.pdf"] = OK

    scanned = canvas.Canvas(str(dir / "scanned.pdf"), pagesize=A4)
    scanned.rect(72, 72, 300, 400, fill=1)  # ink but no text, like a page scan
    scanned.showPage()
    scanned.save()
    expected["scanned.pdf"] = FAILED
    write("not_really.pdf", b"Just some words in a file named like a PDF.\n", FAILED)

    write("junk.md", random.Random(1234).randbytes(4096), FAILED)
    # Bytes undefined in cp1252 and C1 controls in Latin-1, which no detected encoding reads cleanly either.
    write("bad_utf8.txt", b"Caf\x81\x8d\x9d menu\nMore text.\n", FAILED)
    write("latin1.txt", "Caf\u00e9 menu, cr\u00e8me br\u00fbl\u00e9e\nMore text.\n".encode("latin-1"), OK)
    write("cp1252.md", "# Prices\n\nThe caf\u00e9\u2019s \u201cmenu\u201d costs 5 \u20ac.\n".encode("cp1252"), OK)
    write("front_matter_only.md", b"---\ntitle: Section\ndescription: Pages about the section\n---\n\n", SKIPPED)
    write("empty.md", b"", FAILED)
    write("whitespace.txt", b"  \n\t\n   \r\n", FAILED)
    write("fake.md", png_bytes(), FAILED)
    write("fake.rst", b"\x7fELF\x02\x01\x01" + bytes(64), FAILED)
    write("only_script.html", b"<html><body><script>alert(1)</script><nav>menu</nav></body></html>", FAILED)
    with (dir / "huge_line.txt").open("wb") as handle:
        block = b"a" * 1_000_000
        for _ in range(HUGE_LINE_BYTES // len(block)):
            handle.write(block)
    expected["huge_line.txt"] = FAILED
    archive = dir / "archive.txt"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("inner.txt", "zipped text")
    expected["archive.txt"] = FAILED

    write("image.png", png_bytes(), SKIPPED)
    write("data.bin", random.Random(99).randbytes(512), SKIPPED)
    write("no_extension", b"plain words but no suffix", SKIPPED)

    write("good.md", GOOD_MD.encode(), OK)
    write("good.html", GOOD_HTML.encode(), OK)
    write("utf16.txt", "\ufeffUTF-16 notes\nwith a BOM\n".encode("utf-16-le"), OK)
    write("deep.html", b"<div>" * 20_000 + b"deep text" + b"</div>" * 20_000, OK)  # far past the recursion limit

    make_docx(dir / "good.docx")
    expected["good.docx"] = OK
    write("truncated.docx", (dir / "good.docx").read_bytes()[:-300], FAILED)
    write("not_a_package.docx", b"Plain words in a file named like a Word document.\n", FAILED)
    write("old_word.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512), FAILED)
    docx_bomb(dir / "bomb.docx")
    expected["bomb.docx"] = FAILED
    docx_with_parts(dir / "huge.docx", 10_001)
    expected["huge.docx"] = FAILED
    return expected


DOCX_PARAGRAPH = "Rotate the signing key every 90 days with keyctl rotate."


def make_docx(path: Path, title: str = "Key service specification") -> Path:
    """A small real Word document: a title, headings, prose, a list and a table."""
    from docx import Document

    doc = Document()
    doc.core_properties.title = title
    doc.add_heading(title, level=0)
    doc.add_heading("Key rotation", level=1)
    doc.add_paragraph(DOCX_PARAGRAPH)
    doc.add_paragraph("Old keys stay valid for decryption.", style="List Bullet")
    doc.add_heading("Limits", level=2)
    table = doc.add_table(rows=3, cols=2)
    for row, (name, value) in zip(table.rows, [("Setting", "Default"), ("max-keys", "512"), ("ttl", "24h")]):
        row.cells[0].text, row.cells[1].text = name, value
    doc.add_heading("Audit", level=1)
    doc.add_paragraph("Every rotation is written to the audit log.")
    doc.save(str(path))
    return path


def docx_bomb(path: Path, unpacked: int = 60_000_000) -> Path:
    """A real document whose document.xml is padded with 60 MB of spaces: a few KB packed."""
    good = zipfile.ZipFile(make_docx(path.with_suffix(".tmp")))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in good.infolist():
            data = good.read(info)
            if info.filename == "word/document.xml":
                data = data.replace(b"<w:body>", b"<w:body>" + b" " * unpacked, 1)
            bomb.writestr(info.filename, data)
    path.with_suffix(".tmp").unlink()
    return path


def docx_with_parts(path: Path, parts: int) -> Path:
    """A real document carrying `parts` extra tiny parts: more than a Word file is read with."""
    good = zipfile.ZipFile(make_docx(path.with_suffix(".tmp")))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as huge:
        for info in good.infolist():
            huge.writestr(info.filename, good.read(info))
        for i in range(parts):
            huge.writestr(f"extra/part{i}.xml", b"<x/>")
    path.with_suffix(".tmp").unlink()
    return path
