"""Markdown: sections from ATX and setext headings, front matter read for the title, escapes undone."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from assistant.library.documents import NoBodyText, ParsedDocument
from assistant.library.readers.common import SectionBuilder, decode

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_OR_QUOTE = re.compile(r"^\s*([-*+>|]|\d+[.)])(\s|$)")
_SHORTCODE_OPEN, _SHORTCODE_CLOSE = re.compile(r"\{\{[<%]"), re.compile(r"[>%]\}\}")  # Hugo {{< x >}}, {{% x %}}
_COMMENT_OPEN, _COMMENT_CLOSE = re.compile("<!--"), re.compile("-->")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,20}(?:\s[^<>]{0,200})?/?>")
_MAX_HEADING_CHARS = 300  # longer lines are prose; also keeps the heading regex linear in practice


def read_markdown(data: bytes, path: Path) -> ParsedDocument:
    decoded = decode(data)
    lines = decoded.text.splitlines()
    (title, description), start = _front_matter(lines)
    rows = _markdown_rows(lines[start:])
    out = SectionBuilder()
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
    sections = out.finish()
    if start and not any(s.text.strip() for s in sections):
        raise NoBodyText(title or "", description or "")
    return ParsedDocument(title=title or first_h1 or path.stem, sections=sections, kind="markdown",
                          encoding=decoded.encoding)


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


def _front_matter(lines: list[str]) -> tuple[tuple[str | None, str | None], int]:
    """(title, description) from YAML (---) or TOML (+++) front matter, and where the body starts."""
    fence = lines[0].strip() if lines else ""
    none = (None, None), 0
    if fence not in ("---", "+++"):
        return none
    for end in range(1, min(len(lines), 2000)):
        if lines[end].strip() == fence:
            block = "\n".join(lines[1:end])
            try:
                meta = yaml.safe_load(block) if fence == "---" else tomllib.loads(block)
            except Exception:
                return none  # not front matter after all: a thematic break opening the text
            if not isinstance(meta, dict):
                return none
            return (_one_line(meta.get("title") or meta.get("linkTitle")), _one_line(meta.get("description"))), end + 1
    return none


def _one_line(value: object) -> str | None:
    return " ".join(str(value).split())[:500] or None if value else None


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
    # HTML tags go, but not inside code: Prometheus names its configuration blocks `<scrape_config>`, and those
    # headings came out empty, leaving 60 sections of its configuration reference without their heading path.
    # Only what reads as a tag goes: etcd's "listen-<client,peer>-urls" keeps its words.
    text = "".join(part if part.startswith("`") else _HTML_TAG.sub("", _LINK.sub(r"\1", part))
                   for part in re.split(r"(`[^`]+`)", text))
    return " ".join(text.replace("`", "").replace("**", "").split())[:200]


# ---------------------------------------------------------------- reStructuredText

