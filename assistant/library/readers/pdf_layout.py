"""A PDF's page text made back into a document (issue 15, point 4): lines of each page go in, and out come lines
without running headers and footers, with words hyphenated across line breaks joined, with table rows whose cells
wrap kept on one line, and the headings found in them. Pure functions over text: pypdf stays in pdf.py.
"""

from __future__ import annotations

import re
from collections import Counter

_PAGE_NUMBER = re.compile(r"(?i)^[\s\-–—|]*(page\s*)?(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|/)\s*\d{1,5})?[\s\-–—|]*$")
_ROMAN = re.compile(r"(?i)\b(?=[ivxlcdm]+\b)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})\b")
_EDGE_LINES = 2  # running headers and footers live in the first and last two lines of a page
_RUNNING_MIN = 2  # pages a header or footer carrying the page number must be seen on (a short chapter's odd pages)
_RUNNING_WORDS = 12  # and at most this many words: a running head is a title, not a sentence
_COLUMN_GAP = re.compile(r" {3,}")  # layout mode pads table columns with spaces; justified prose gets two
_BULLET_GAP = re.compile(r"^([•◦▪‣·*-]) \| ")
_HYPHENATED = re.compile(r"([A-Za-z]{2,})-$")
_WORD_START = re.compile(r"^([a-z][A-Za-z]*)(.*)$")
# "3.2.1 Title" or "3.2. Title": a number path, then a short title starting with a capital, not ending as a sentence
# (a question may end one: FAQs are headed "6.1 What is etcd?").
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,5})\.?\s+([A-Z].{0,78}[^.,;:!\s])$")
_MAX_HEADING_WORDS = 10
# A line the PDF prints whole in heading type may be longer: FAQ headings are whole questions.
_NUMBERED_STYLED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,5})\.?\s+([A-Z].{0,158}[^.,;:!\s])$")
_MAX_STYLED_WORDS = 25
# A contents entry: the heading's title, then its page number after a column gap (" | 23") or dot leaders.
_CONTENTS_ENTRY = re.compile(r"(?i)(\s\|\s*|\.{2,}\s*|\s{2,})(\d{1,4}|[ivxlc]{1,6})$")
_ALIGN = 2  # characters of slack when matching a wrapped cell to its column
# A contents line as table_lines gives it: a title with words, then one column gap or dot leaders, then a page number.
_CONTENTS_LINE = re.compile(r"(?i)^[^|]*[a-z]{2,}[^|]*?(?:\s\|\s|\s*\.{3,}\s*)(\d{1,4}|[ivxlc]{1,6})$")
_CONTENTS_SHARE = 0.6  # of a page's lines, for the page to be a contents page
_CONTENTS_MIN = 5


# Glyphs a PDF's fonts print that no one types: ligatures ("ﬁle" is "file" to a reader and to BM25), the typeset
# minus sign of an option ("−e"), C1 control codes some fonts map their bullets to.
_GLYPHS = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                         "\ufb05": "st", "\ufb06": "st", "\u2212": "-", **{chr(c): "•" for c in range(0x80, 0xA0)}})


def plain_glyphs(line: str) -> str:
    """A line with ligatures spelled out, the minus sign as a hyphen-minus and control-code bullets as bullets."""
    return line.translate(_GLYPHS)


def _normalise(line: str) -> str:
    """A running line with its page number (arabic or roman) blanked, so every page's copy reads the same."""
    line = _ROMAN.sub(lambda m: "#" if m.group(0) else "", line.lower())
    return " ".join(re.sub(r"\d+", "#", line).split())


def strip_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Drop bare page numbers (arabic or roman), lines repeated at the top or bottom of more than half the pages,
    and headers or footers that carry the page's number (a chapter's running header, an even or odd page's)."""
    edges = _edges(pages)
    counts: Counter[str] = Counter()
    for lines, edge in zip(pages, edges):
        counts.update({_normalise(lines[i]) for i in edge})
    repeated = {line for line, count in counts.items() if count >= 2 and count * 2 > len(pages)}
    repeated |= _page_numbered(pages, edges).keys()
    return [
        [line for i, line in enumerate(lines)
         if not (i in edge and (_normalise(line) in repeated or _PAGE_NUMBER.match(line)))]
        for lines, edge in zip(pages, edges)
    ]


def printed_page_numbers(pages: list[list[str]]) -> list[str | None]:
    """The page number printed in each page's running header or footer, for a PDF that carries no page labels: None
    where it is the page's index, or where none is printed and the pages either side do not agree on it."""
    offsets: list[int | None] = [None] * len(pages)
    for by_page in _page_numbered(pages, _edges(pages)).values():
        for index, offset in by_page.items():
            offsets[index] = offset
    known = [i for i, offset in enumerate(offsets) if offset is not None]
    for before, after in zip(known, known[1:]):
        if offsets[before] == offsets[after]:  # a chapter's first page often prints no header
            offsets[before:after] = [offsets[before]] * (after - before)
    return [str(index + offset) if offset not in (None, 1) and index + offset > 0 else None
            for index, offset in enumerate(offsets)]


def _edges(pages: list[list[str]]) -> list[set[int]]:
    edges = []
    for lines in pages:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges.append(set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:]))
    return edges


def _page_numbered(pages: list[list[str]], edges: list[set[int]]) -> dict[str, dict[int, int]]:
    """Edge lines that print the page's number, each with {page index: printed number - index}: lines that read
    the same but for an arabic number at their start or end, on at least two pages, the number running with the
    page. A line of code at a page's edge ("exit 1") repeats too, but its number does not run."""
    seen: dict[str, dict[int, int]] = {}
    for index, (lines, edge) in enumerate(zip(pages, edges)):
        for i in sorted(edge):
            tokens = [t for t in re.split(r"[\s|]+", lines[i]) if t]
            number = next((int(t) for t in (tokens[-1:] + tokens[:1]) if t.isdigit() and len(t) <= 4), None)
            if number is not None and len(tokens) <= _RUNNING_WORDS:
                seen.setdefault(_normalise(lines[i]), {}).setdefault(index, number - index)
    running = {}
    for line, by_page in seen.items():
        offset, count = Counter(by_page.values()).most_common(1)[0]
        if count >= _RUNNING_MIN:
            running[line] = {index: o for index, o in by_page.items() if o == offset}
    return running


def table_lines(raw: list[str]) -> list[str]:
    """Layout-mode lines with table cells separated by " | ". A line whose text sits only under the second and later
    columns of the table row above it is that row's wrapped cells: its pieces are appended to those cells, so a
    row stays one line (one blank line between them is allowed: layout mode leaves one for a small gap)."""
    out: list[tuple[list[int], list[str]] | str] = []
    last_row = -1  # index in out of the last table row, while only blank lines follow it
    for line in raw:
        cells = _cells(line)
        if not cells:
            out.append("")
            if last_row >= 0 and len(out) - last_row > 2:
                last_row = -1
            continue
        if last_row >= 0 and _continues(out[last_row], cells):
            starts, texts = out[last_row]
            for start, text in cells:
                k = min(range(len(starts)), key=lambda c: abs(starts[c] - start))
                texts[k] = f"{texts[k]} {text}"
            del out[last_row + 1:]  # the blank line between a row and its wrapped part
            continue
        if len(cells) >= 2:
            out.append(([s for s, _ in cells], [t for _, t in cells]))
            last_row = len(out) - 1
        else:
            out.append(line.strip().replace("  ", " "))
            last_row = -1
    lines = [" | ".join(item[1]) if isinstance(item, tuple) else item for item in out]
    return [_BULLET_GAP.sub(r"\1 ", line) for line in lines]


def _cells(line: str) -> list[tuple[int, str]]:
    """(column, text) of each run of text separated by three or more spaces."""
    out, pos = [], 0
    for piece in _COLUMN_GAP.split(line.rstrip()):
        start = line.index(piece, pos) if piece else pos
        if piece.strip():
            out.append((start + len(piece) - len(piece.lstrip()), piece.strip().replace("  ", " ")))
        pos = start + len(piece)
    return out


def _continues(row: tuple[list[int], list[str]] | str, cells: list[tuple[int, str]]) -> bool:
    if isinstance(row, str):
        return False
    starts = row[0]
    return (cells[0][0] > starts[0] + _ALIGN
            and all(any(abs(start - s) <= _ALIGN for s in starts[1:]) for start, _ in cells))


def join_hyphenated(pages: list[list[str]]) -> list[list[str]]:
    """"config-" at a line's end and "uration" starting the next line (or the next page) become "configuration".
    The document's own words decide a real compound: when "well-known" occurs elsewhere in it and "wellknown" does
    not, the hyphen stays. A table row (a line with " | ") is never joined."""
    words = Counter(w.lower() for lines in pages for line in lines for w in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*", line))

    def joined(head: str, tail: str) -> str:
        keep = words[f"{head}-{tail}".lower()] > 0 and words[f"{head}{tail}".lower()] == 0
        return f"{head}-{tail}" if keep else f"{head}{tail}"

    out = [list(lines) for lines in pages]
    for lines in out:
        i = 0
        while i < len(lines) - 1:
            end, nxt = _HYPHENATED.search(lines[i]), _WORD_START.match(lines[i + 1].lstrip())
            if end and nxt and " | " not in lines[i] and " | " not in lines[i + 1]:
                lines[i] = lines[i][: end.start()] + joined(end.group(1), nxt.group(1)) + nxt.group(2)
                del lines[i + 1]
                continue
            i += 1
    # Across a page break the word's start stays on its page (the page it is cited on) and takes its end along.
    for lines, following in zip(out, out[1:]):
        last = max((i for i, line in enumerate(lines) if line.strip()), default=None)
        first = next((i for i, line in enumerate(following) if line.strip()), None)
        if last is None or first is None or " | " in lines[last] or " | " in following[first]:
            continue
        end, nxt = _HYPHENATED.search(lines[last]), _WORD_START.match(following[first].lstrip())
        if end and nxt:
            lines[last] = lines[last][: end.start()] + joined(end.group(1), nxt.group(1))
            following[first] = nxt.group(2).lstrip()
    return out


def numbered_heading(line: str, styled: bool = False) -> tuple[tuple[int, ...], str] | None:
    """(number path, title) of a line that reads like a numbered heading, else None. `styled`: the whole line is
    printed in heading type, so a longer title is still a heading."""
    match = (_NUMBERED_STYLED if styled else _NUMBERED).match(line.strip())
    words = _MAX_STYLED_WORDS if styled else _MAX_HEADING_WORDS
    if not match or len(match.group(2).split()) > words or _CONTENTS_ENTRY.search(match.group(2)):
        return None  # a contents page lists every heading, in order and often in the headings' own font
    return tuple(int(n) for n in match.group(1).split(".")), match.group(2).strip()


def follows(previous: tuple[int, ...] | None, number: tuple[int, ...]) -> bool:
    """Whether a heading numbered `number` can come next after `previous`: its first child, or the next number at
    its own or an outer level (one number may be skipped, for a heading the reader missed). A numbered list inside
    a section ("1. Open the file" after "3.2") fails this, which is what keeps list items out of the path."""
    if previous is None:
        return len(number) == 1 or number == (1,) * len(number)
    if number == previous + (1,):
        return True
    k = len(number) - 1
    return k < len(previous) and number[:k] == previous[:k] and 1 <= number[k] - previous[k] <= 2


def title_line(lines: list[str], title: str) -> int | None:
    """Index of the line that prints an outline entry's title (alone, or after its number), else None."""
    want = " ".join(title.lower().split())
    if not want:
        return None
    for i, line in enumerate(lines):
        text = " ".join(line.lower().split())
        if text == want or (text.endswith(want) and re.fullmatch(r"[\d.]+\s*", text[: len(text) - len(want)])):
            return i
    return None


def contents_page(lines: list[str]) -> bool:
    """Whether a page is a table of contents: mostly lines of a title and a page number, the numbers in order. Its
    entries repeat the headings' words with none of their text, so indexed they would answer every question about a
    heading (as a two-column table, one search chunk per entry)."""
    filled = [line.strip() for line in lines if line.strip()]
    found = [m for m in map(_CONTENTS_LINE.match, filled) if m]
    numbers = [int(m.group(1)) for m in found if m.group(1).isdigit()]
    return (len(found) >= _CONTENTS_MIN and len(found) >= _CONTENTS_SHARE * len(filled)
            and numbers == sorted(numbers))
