"""HTML: the main content only (navigation and scripts dropped), sections from h1-h6."""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString

from assistant.library.documents import ParsedDocument, ReadFailure, Section
from assistant.library.readers.common import SectionBuilder, decode

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


def read_html(data: bytes, path: Path) -> ParsedDocument:
    if data.count(b"<") > MAX_HTML_TAGS:
        raise ReadFailure(f"HTML has more than {MAX_HTML_TAGS:,} tags, more than is read per file (split it)")
    declared = _META_CHARSET.search(data[:4096])
    decoded = decode(data, declared.group(1).decode() if declared else None)
    soup = BeautifulSoup(decoded.text, "html.parser")
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
    return ParsedDocument(title=title or path.stem, sections=_html_sections(root), kind="html",
                          encoding=decoded.encoding)


def _html_sections(root: Tag) -> list[Section]:
    out = SectionBuilder()
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

