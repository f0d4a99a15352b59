"""Turn one file into a ParsedDocument: PDF, HTML, Markdown, reStructuredText or plain text.

Whatever a user's file does to us ends as SkipFile (not a type we read) or ReadFailure (our type,
unreadable) with a short message for the ingest report; nothing else leaves read_document.
"""

from __future__ import annotations

import codecs
import io
import re
import stat
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import yaml
from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString
from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError

from assistant.documents import ParsedDocument, ReadFailure, Section, SkipFile

_KINDS = {
    ".pdf": "pdf", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown",
    ".rst": "rst", ".txt": "text", ".text": "text",
}
SUPPORTED_SUFFIXES = tuple(_KINDS)
# Bump whenever a reader's output changes for some file (a sync then re-reads every file indexed before; see
# ingest.index_recipe). 2: Markdown backslash escapes undone outside code.
READER_VERSION = 2
_LABELS = {"pdf": "a PDF", "html": "HTML", "markdown": "Markdown", "rst": "reStructuredText", "text": "plain text"}

# Line-based parsers (and their regexes) assume prose; a 1 MB line is a data dump or minified blob. Each line
# costs ~100 bytes of bookkeeping (measured: 9.5 million one-letter lines took 34 s and 930 MB), so a text
# file may also hold at most a million lines, a book of some 20,000 pages.
MAX_LINE_BYTES = 1_000_000
MAX_LINES = 1_000_000
_READ_CHUNK = 1 << 20
# A PDF's page tree and content streams may be shared, so a small file can declare 100,000 pages or inflate to
# gigabytes of text (measured: a 600 KB file repeating one page 100,000 times took 45 s and 165 MB to read; an
# 80 KB page inflated to 2 million characters). Extraction costs ~1.5 us and ~20 bytes of transient memory per
# byte of page content: the caps below bound one PDF to ~100 MB over the baseline and, for a hostile file, under
# a minute (issue 6). Real manuals stay far below them; past one the file fails with its reason.
MAX_PDF_PAGES = 10_000
MAX_PDF_TEXT_CHARS = 20_000_000
MAX_PDF_PAGE_CONTENT_BYTES = 5_000_000
MAX_PDF_CONTENT_BYTES = 200_000_000

_MAGIC = (
    (b"%PDF-", "a PDF file"), (b"PK\x03\x04", "a ZIP archive (or Office document)"),
    (b"\x7fELF", "an ELF executable"), (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"), (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office file"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"SQLite format 3\x00", "an SQLite database"), (b"Rar!\x1a\x07", "a RAR archive"),
)
# C0 controls other than tab, newline, vertical tab, form feed and carriage return: rare in real text.
_CONTROL_BYTES = bytes(range(0, 9)) + bytes(range(14, 32))


def read_document(path: Path, max_bytes: int = 20_000_000) -> ParsedDocument:
    kind = _KINDS.get(path.suffix.lower())
    if kind is None:
        raise SkipFile(f"unsupported file type ({path.suffix or 'no extension'})")
    try:
        data = _read_capped(path, max_bytes, check_lines=kind in ("markdown", "rst", "text"))
        _check_magic(data, kind)
        doc = _READERS[kind](data, path)
    except (SkipFile, ReadFailure):
        raise
    except OSError as exc:
        raise ReadFailure(f"cannot read file: {exc.strerror or exc}") from exc
    except Exception as exc:  # a parser bug on one hostile file must not abort a whole ingest
        raise ReadFailure(f"could not parse as {_LABELS[kind]}: {_brief(exc)}") from exc
    sections = [s for s in doc.sections if s.text.strip()]
    if not sections:
        raise ReadFailure("no extractable text (scanned PDF?)" if kind == "pdf" else "no extractable text")
    return ParsedDocument(title=doc.title.strip() or path.stem, sections=sections, kind=kind)


def _brief(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return (text or type(exc).__name__)[:160]


def _read_capped(path: Path, max_bytes: int, check_lines: bool) -> bytes:
    """Read at most max_bytes, in chunks, giving up at the first over-long line before it is all in memory."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ReadFailure("not a regular file")
    too_big = ReadFailure(f"file is larger than {max_bytes / 1_000_000:g} MB")
    if info.st_size > max_bytes:
        raise too_big
    chunks: list[bytes] = []
    total = run = lines = 0  # run: length of the line still open at the end of the previous chunk
    with path.open("rb") as handle:
        while chunk := handle.read(_READ_CHUNK):
            total += len(chunk)
            if total > max_bytes:  # the file grew after stat()
                raise too_big
            if check_lines:
                lengths = [len(piece) for piece in chunk.split(b"\n")]
                lengths[0] += run
                run = lengths[-1]
                if max(lengths) > MAX_LINE_BYTES:
                    raise ReadFailure("a single line longer than 1 MB (not prose)")
                lines += len(lengths) - 1
                if lines > MAX_LINES:
                    raise ReadFailure(f"more than {MAX_LINES:,} lines, more than is read per file (split it)")
            chunks.append(chunk)
    if total == 0:
        raise ReadFailure("file is empty")
    return b"".join(chunks)


def _check_magic(data: bytes, kind: str) -> None:
    for magic, name in _MAGIC:
        if data.startswith(magic) and not (kind == "pdf" and magic == b"%PDF-"):
            raise ReadFailure(f"looks like {name}, not {_LABELS[kind]}")


def _decode(data: bytes, fallback: str | None = None) -> str:
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


def _tidy(lines: list[str]) -> str:
    """Right-strip lines and squeeze runs of blank lines, so empty sections are recognisable."""
    out: list[str] = []
    for line in lines:
        line = line.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


class _SectionBuilder:
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
        text = _tidy(self.lines)
        if text:
            self.sections.append(Section(text=text, section_path=[title for _, title in self.crumbs]))
        self.lines = []

    def finish(self) -> list[Section]:
        self.flush()
        return self.sections


# ---------------------------------------------------------------- PDF

_PAGE_NUMBER = re.compile(r"(?i)^[\s\-–—|]*(page\s*)?\d{1,5}(\s*(of|/)\s*\d{1,5})?[\s\-–—|]*$")
_COLUMN_GAP = re.compile(r" {3,}")  # layout mode pads table columns with spaces; justified prose gets two
_BULLET_GAP = re.compile(r"^([•◦▪‣·*-]) \| ")
_EDGE_LINES = 2  # running headers and footers live in the first and last two lines of a page
_PLACEHOLDER_TITLES = {"", "untitled", "anonymous", "unknown"}


def _read_pdf(data: bytes, path: Path) -> ParsedDocument:
    if b"%PDF-" not in data[:1024]:
        raise ReadFailure("not a PDF (no %PDF header)")
    # pypdf in lenient mode can return the first pages of a cut-off file; a partial manual is worse than a clear error.
    if data.rfind(b"%%EOF", max(0, len(data) - 65536)) < 0:
        raise ReadFailure("PDF is damaged or truncated: end-of-file marker missing")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise ReadFailure("PDF is encrypted and needs a password")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise ReadFailure(f"PDF has {len(reader.pages)} pages, more than the {MAX_PDF_PAGES} read per file (split it)")
        pages = list(reader.pages)
    except DependencyError:
        raise ReadFailure("PDF uses AES encryption, which needs the 'cryptography' package") from None
    except ReadFailure:
        raise
    except Exception as exc:
        raise ReadFailure(f"PDF is damaged or truncated: {_brief(exc)}") from exc

    extracted, chars, content = [], 0, 0
    for number, page in enumerate(pages, 1):
        size = _content_bytes(page)
        content += size
        if size > MAX_PDF_PAGE_CONTENT_BYTES or content > MAX_PDF_CONTENT_BYTES:
            limit = (f"{MAX_PDF_PAGE_CONTENT_BYTES // 1_000_000} MB per page" if size > MAX_PDF_PAGE_CONTENT_BYTES
                     else f"{MAX_PDF_CONTENT_BYTES // 1_000_000} MB per file")
            raise ReadFailure(f"PDF page {number} has too much drawing content to read (limit {limit}; split it)")
        extracted.append(_page_lines(page, number))
        chars += sum(len(line) for line in extracted[-1])
        if chars > MAX_PDF_TEXT_CHARS:
            raise ReadFailure(f"PDF expands to more than {MAX_PDF_TEXT_CHARS // 1_000_000} million characters of text "
                              f"by page {number} (split it)")
    page_lines = _strip_running_lines(extracted)
    paths = _outline_paths(reader, len(pages))
    sections = [Section(text=_tidy(lines), section_path=paths[i], page=i + 1) for i, lines in enumerate(page_lines)]
    first_line = next((line for lines in page_lines for line in lines if line.strip()), "")
    title = _pdf_meta_title(reader) or (first_line if len(first_line) <= 120 else "") or path.stem
    return ParsedDocument(title=title, sections=sections, kind="pdf")


def _content_bytes(page: PageObject) -> int:
    """Decoded size of a page's content streams (pypdf caps each stream at 75 MB; shared streams count per page)."""
    try:
        contents = page.get_contents()
        return len(contents.get_data()) if contents is not None else 0
    except Exception:
        return 0  # unreadable contents: extract_text below reports the damage


def _page_lines(page: PageObject, number: int) -> list[str]:
    try:
        raw = page.extract_text(extraction_mode="layout")  # keeps table rows on one line
    except Exception:
        try:  # layout mode is stricter about fonts; plain mode still gets the words
            raw = page.extract_text()
        except Exception as exc:
            raise ReadFailure(f"PDF is damaged: cannot extract text from page {number}: {_brief(exc)}") from exc
    lines = (_COLUMN_GAP.sub(" | ", line.strip()).replace("  ", " ") for line in raw.splitlines())
    return [_BULLET_GAP.sub(r"\1 ", line) for line in lines]


def _normalise(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line).lower().split())


def _strip_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Drop bare page numbers and lines repeated at the top or bottom of more than half the pages."""
    edges = []
    for lines in pages:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges.append(set(filled[:_EDGE_LINES] + filled[-_EDGE_LINES:]))
    counts: Counter[str] = Counter()
    for lines, edge in zip(pages, edges):
        counts.update({_normalise(lines[i]) for i in edge})
    repeated = {line for line, count in counts.items() if count >= 2 and count * 2 > len(pages)}
    return [
        [line for i, line in enumerate(lines)
         if not (i in edge and (_normalise(line) in repeated or _PAGE_NUMBER.match(line)))]
        for lines, edge in zip(pages, edges)
    ]


def _pdf_meta_title(reader: PdfReader) -> str:
    try:
        title = " ".join(str(reader.metadata.title or "").split()) if reader.metadata else ""
    except Exception:
        return ""
    return "" if title.lower() in _PLACEHOLDER_TITLES else title


def _outline_paths(reader: PdfReader, page_count: int) -> list[list[str]]:
    """Bookmark breadcrumb in force on each page; empty everywhere when there are none or they are broken."""
    starts: list[tuple[int, list[str]]] = []

    def walk(items: list, parents: list[str]) -> None:
        last = parents
        for item in items:
            if isinstance(item, list):
                walk(item, last)  # pypdf puts an entry's children in a list right after it
            else:
                last = parents + [" ".join(str(item.title).split())]
                page = reader.get_destination_page_number(item)
                if page is not None and page >= 0:
                    starts.append((page, last))

    try:
        walk(reader.outline, [])
    except Exception:
        return [[] for _ in range(page_count)]
    starts.sort(key=lambda start: start[0])  # stable: the deepest entry on a page stays last
    paths, current, j = [], [], 0
    for page in range(page_count):
        while j < len(starts) and starts[j][0] <= page:
            current = starts[j][1]
            j += 1
        paths.append(list(current))
    return paths


# ---------------------------------------------------------------- HTML

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_DROP_TAGS = ["script", "style", "noscript", "template", "nav", "aside", "form", "svg", "iframe", "button"]
_DROP_ROLES = ["navigation", "banner", "contentinfo", "search"]
_BLOCK_TAGS = {
    "html", "body", "main", "article", "section", "header", "footer", "div", "p", "ul", "ol", "li", "dl", "dt", "dd",
    "table", "thead", "tbody", "tfoot", "caption", "blockquote", "figure", "figcaption", "hr", "address", "details",
    "summary",
}
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset=["']?([\w-]{1,40})""", re.IGNORECASE)
# BeautifulSoup costs ~1.4 KB and ~0.1 ms per element (measured: 100,000 tags took 142 MB and 9 s), so a 20 MB file
# of bare tags would need gigabytes. Counting "<" bounds the element count before anything is parsed.
MAX_HTML_TAGS = 200_000


def _read_html(data: bytes, path: Path) -> ParsedDocument:
    if data.count(b"<") > MAX_HTML_TAGS:
        raise ReadFailure(f"HTML has more than {MAX_HTML_TAGS:,} tags, more than is read per file (split it)")
    declared = _META_CHARSET.search(data[:4096])
    soup = BeautifulSoup(_decode(data, declared.group(1).decode() if declared else None), "html.parser")
    first_h1 = soup.find("h1")
    title = (soup.title.get_text(" ", strip=True) if soup.title else "") or (
        first_h1.get_text(" ", strip=True) if first_h1 else "")
    # The <title> is the document's title, not its text: a page without a body must not index its title as content.
    doomed = soup.find_all(_DROP_TAGS + ["title"]) + soup.find_all(attrs={"role": _DROP_ROLES})
    # A <header> inside the article often holds its h1; only page-level banners and footers go.
    doomed += [tag for tag in soup.find_all(["header", "footer"]) if not tag.find_parent(["main", "article"])]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    articles = soup.find_all("article")
    root = soup.find("main") or (articles[0] if len(articles) == 1 else None) or soup.body or soup
    return ParsedDocument(title=title or path.stem, sections=_html_sections(root), kind="html")


def _html_sections(root: Tag) -> list[Section]:
    out = _SectionBuilder()
    words: list[str] = []
    marker = ""  # "- " while a list item's first line is still to come

    def flush() -> None:
        nonlocal marker
        line = " ".join("".join(words).split())
        words.clear()
        if line:
            out.add(marker + line)
            marker = ""

    # An explicit stack, not recursion: hostile pages nest thousands of tags deep.
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            flush()
            marker = ""
        elif isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):  # comments, doctypes, CDATA
                words.append(str(node))
        elif node.name in _HEADINGS:
            flush()
            out.heading(_HEADINGS[node.name], " ".join(node.get_text(" ").split()).rstrip("¶ ")[:200])
        elif node.name == "pre":
            flush()
            for line in node.get_text().splitlines():
                out.add(line)
            out.add("")
        elif node.name == "tr":
            flush()
            cells = node.find_all(["td", "th"], recursive=False)
            out.add(" | ".join(" ".join(cell.get_text(" ").split()) for cell in cells))
        elif node.name == "br":
            flush()
        else:
            if node.name in _BLOCK_TAGS:
                flush()
                stack.append((node, True))
            if node.name == "li":
                marker = "- "
            stack.extend((child, False) for child in reversed(node.contents))
    flush()
    return out.finish()


# ---------------------------------------------------------------- Markdown

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_OR_QUOTE = re.compile(r"^\s*([-*+>|]|\d+[.)])(\s|$)")
_SHORTCODE_OPEN, _SHORTCODE_CLOSE = re.compile(r"\{\{[<%]"), re.compile(r"[>%]\}\}")  # Hugo {{< x >}}, {{% x %}}
_COMMENT_OPEN, _COMMENT_CLOSE = re.compile("<!--"), re.compile("-->")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MAX_HEADING_CHARS = 300  # longer lines are prose; also keeps the heading regex linear in practice


def _read_markdown(data: bytes, path: Path) -> ParsedDocument:
    lines = _decode(data).splitlines()
    title, start = _front_matter(lines)
    rows = _markdown_rows(lines[start:])
    out = _SectionBuilder()
    first_h1 = None
    i = 0
    while i < len(rows):
        text, is_code = rows[i]
        level, heading = (0, None) if is_code else _atx_heading(text)
        if heading is None and not is_code and i + 1 < len(rows) and _is_setext(rows, i):
            level, heading = (1 if "=" in rows[i + 1][0] else 2), text
            i += 1
        if heading is None:
            out.add(text if is_code else _unescape(text))
        else:
            heading = _clean_heading(_unescape(heading))
            out.heading(level, heading)
            first_h1 = first_h1 or (heading if level == 1 else None)
        i += 1
    return ParsedDocument(title=title or first_h1 or path.stem, sections=out.finish(), kind="markdown")


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation makes it literal
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _unescape(text: str) -> str:
    """`db\\.m5\\.large` -> `db.m5.large` outside inline code, where backslashes are literal. Converted docs escape
    every dot and underscore (the AWS guides: 200,000 of them), which would split identifiers and cost word pieces."""
    if "\\" not in text:
        return text
    out, pos = [], 0
    for span in _CODE_SPAN.finditer(text):
        out += [_ESCAPED.sub(r"\1", text[pos:span.start()]), span.group(0)]
        pos = span.end()
    out.append(_ESCAPED.sub(r"\1", text[pos:]))
    return "".join(out)


def _front_matter(lines: list[str]) -> tuple[str | None, int]:
    """Title from YAML (---) or TOML (+++) front matter, and where the body starts."""
    fence = lines[0].strip() if lines else ""
    if fence not in ("---", "+++"):
        return None, 0
    for end in range(1, min(len(lines), 2000)):
        if lines[end].strip() == fence:
            block = "\n".join(lines[1:end])
            try:
                meta = yaml.safe_load(block) if fence == "---" else tomllib.loads(block)
            except Exception:
                return None, 0  # not front matter after all: a thematic break opening the text
            if not isinstance(meta, dict):
                return None, 0
            title = meta.get("title") or meta.get("linkTitle")
            return (" ".join(str(title).split()) or None) if title else None, end + 1
    return None, 0


def _markdown_rows(lines: list[str]) -> list[tuple[str, bool]]:
    """Each line as (text, inside a code fence), without Hugo shortcodes, and outside code without HTML comments."""
    rows: list[tuple[str, bool]] = []
    fence: str | None = None
    in_comment = in_shortcode = False
    for line in lines:
        # Hugo expands shortcodes inside code blocks too; a blank line ends one left open by mistake.
        line, in_shortcode = _strip_spans(line, in_shortcode and bool(line.strip()), _SHORTCODE_OPEN, _SHORTCODE_CLOSE)
        if fence:
            closer = line.strip()
            if len(closer) >= len(fence) and set(closer) == {fence[0]}:
                fence = None
            rows.append((line, True))
        elif not in_comment and (opener := _FENCE.match(line)):
            fence = opener.group(1)
            rows.append((line, True))
        else:
            line, in_comment = _strip_spans(line, in_comment, _COMMENT_OPEN, _COMMENT_CLOSE)
            rows.append((line, False))
    return rows


def _strip_spans(line: str, inside: bool, opener: re.Pattern[str], closer: re.Pattern[str]) -> tuple[str, bool]:
    """Cut out spans that may run over several lines; `inside` says whether one is open at the line's start."""
    kept, pos = [], 0
    while found := (closer if inside else opener).search(line, pos):
        if not inside:
            kept.append(line[pos:found.start()])
        pos, inside = found.end(), not inside
    if not inside:
        kept.append(line[pos:])
    return "".join(kept), inside


def _atx_heading(line: str) -> tuple[int, str | None]:
    if len(line) > _MAX_HEADING_CHARS or not line.lstrip(" ").startswith("#"):
        return 0, None
    match = _ATX.match(line)
    return (len(match.group(1)), match.group(2) or "") if match else (0, None)


def _is_setext(rows: list[tuple[str, bool]], i: int) -> bool:
    # Only a one-line paragraph counts: a multi-line paragraph over "---" is far more often a rule than a title.
    text, (under, under_is_code) = rows[i][0], rows[i + 1]
    return (
        not under_is_code and bool(text.strip()) and len(text) <= _MAX_HEADING_CHARS
        and _SETEXT.match(under) is not None and not _LIST_OR_QUOTE.match(text)
        and (i == 0 or not rows[i - 1][0].strip())
    )


def _clean_heading(text: str) -> str:
    text = re.sub(r"\s*\{#[^}]*\}\s*$", "", text)  # {#custom-anchor}
    text = re.sub(r"<[^>]{0,200}>", "", _LINK.sub(r"\1", text))
    return " ".join(text.replace("`", "").replace("**", "").split())[:200]


# ---------------------------------------------------------------- reStructuredText

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*\s*$")  # one repeated ASCII punctuation character
_RST_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(.*))?$")


def _read_rst(data: bytes, path: Path) -> ParsedDocument:
    lines = _decode(data).splitlines()
    styles: list[tuple[str, bool]] = []  # docutils: a style's level is the order in which it first appears
    out = _SectionBuilder()
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
    return ParsedDocument(title=title or path.stem, sections=out.finish(), kind="rst")


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

def _read_text(data: bytes, path: Path) -> ParsedDocument:
    lines = _decode(data).splitlines()
    first = next(line.strip() for line in lines if line.strip())  # _decode rejected blank files
    title = first if len(first) <= 80 and len(lines) > 1 else path.stem
    return ParsedDocument(title=title, sections=[Section(text=_tidy(lines))], kind="text")


_READERS: dict[str, Callable[[bytes, Path], ParsedDocument]] = {
    "pdf": _read_pdf, "html": _read_html, "markdown": _read_markdown, "rst": _read_rst, "text": _read_text,
}
