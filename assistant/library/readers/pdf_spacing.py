"""Word spaces that a PDF draws as character spacing, written back as spaces before text extraction.

A manual typeset by groff and converted by Ghostscript (man pages printed to PDF: Debian's `bash.pdf`) justifies a
line by widening the character spacing (`Tc`) of a few short runs instead of drawing space glyphs: "index 0
contains" is drawn as `(inde)`, then `(x0c)` at 2.83 pt spacing, then `(ontains)`. pypdf places glyphs by the
strings' start points, so it reads "index0contains" in layout mode and "an ypart" / "sa vedinthe" in plain mode:
words no search can match. On that manual 1,400 of its 6,300 `Tc` operators open gaps of 2 pt or more (a space is
2.5 pt at 10 pt), and no PDF made by pdfTeX (`bashref.pdf`, `gnuplot.pdf`, `octave.pdf`) uses `Tc` at all.

A gap of WORD_GAP of the font size or more between two glyphs of one string is a word space: the string is
rewritten with real spaces between those glyphs, before the page is extracted. A `TJ` kern that closes such a gap
again ("(di) 295 (nt)" at 2.95 pt: "d in t") joins its neighbours. Only the page object held in memory changes.
"""

from __future__ import annotations

from pypdf import PageObject
from pypdf.generic import ByteStringObject, ContentStream, NameObject, NumberObject, FloatObject

__all__ = ["spaces_from_character_spacing"]

_ONE_BYTE = ("/Type1", "/TrueType", "/MMType1")
WORD_GAP = 0.2  # of the font size: Times' space is 0.25 em, groff's widest letter spacing in a word 0.05 em


def spaces_from_character_spacing(page: PageObject) -> bool:
    """Rewrite the page's strings shown with word-wide character spacing so that they carry their spaces; whether
    any was. A page without a `Tc` operator is not parsed."""
    contents = page.get_contents()
    if contents is None or b"Tc" not in contents.get_data():
        return False
    stream = ContentStream(contents, page.pdf)
    fonts = _one_byte_fonts(page)
    spacing, size, saved = 0.0, 0.0, []
    changed = False
    operations = []
    for operands, operator in stream.operations:
        if operator == b"q":
            saved.append((spacing, size))
        elif operator == b"Q" and saved:
            spacing, size = saved.pop()
        elif operator == b"Tc" and operands:
            spacing = float(operands[0])
        elif operator == b"Tf" and len(operands) == 2:
            # A two-byte (Type0) font's codes cannot take a one-byte space: its strings are left as drawn.
            size = abs(float(operands[1])) if operands[0] in fonts else 0.0
        elif operator in (b"Tj", b"TJ") and operands and size and spacing >= WORD_GAP * size:
            parts = operands[0] if operator == b"TJ" else [operands[0]]
            operands, operator, changed = [ByteStringObject(_spaced(parts, spacing, size))], b"Tj", True
        operations.append((operands, operator))
    if changed:
        stream.operations = operations
        page[NameObject("/Contents")] = stream
    return changed


def _one_byte_fonts(page: PageObject) -> set[str]:
    """The page's fonts whose strings are one byte a glyph, where code 32 is the space (simple fonts)."""
    try:
        fonts = page["/Resources"]["/Font"]
        return {name for name in fonts if fonts[name].get_object().get("/Subtype") in _ONE_BYTE}
    except Exception:
        return set()


def _spaced(parts, spacing: float, size: float) -> bytes:
    """One string's glyph codes with a space wherever the gap after a glyph is WORD_GAP of the size or more: after
    every glyph but the last of each string, and at a `TJ` number when the kern leaves the gap that wide."""
    out = bytearray()
    for part in parts:
        if isinstance(part, (NumberObject, FloatObject, int, float)):
            # A TJ number moves the next glyph back by n/1000 of the size: what is left of the spacing's gap.
            if out and out[-1] != 0x20 and spacing - float(part) / 1000 * size >= WORD_GAP * size:
                out += b" "
            continue
        codes = part.get_original_bytes() if hasattr(part, "get_original_bytes") else bytes(part)
        for i, code in enumerate(codes):
            if i and code != 0x20 and out and out[-1] != 0x20:
                out += b" "
            out.append(code)
    return bytes(out)
