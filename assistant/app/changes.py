"""The Library page's "What changed" view (issue 16): two releases of a product in, the sections added, removed,
changed and renamed out (each with its text, old beside new); a term in, its timeline (release, file, section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.library.diffs import diff_releases, is_release_notes
from assistant.library.timeline import Timeline

__all__ = ["ChangeRow", "what_changed", "term_timeline", "display_markdown"]


@dataclass(frozen=True)
class ChangeRow:
    kind: str          # added | removed | changed | renamed
    path: str
    heading: str       # the newer heading (the older one for a removed section)
    old_heading: str
    old_text: str
    new_text: str
    release_notes: bool  # from a changelog, release notes or upgrade guide

    @property
    def label(self) -> str:
        where = self.heading or "(top of the page)"
        if self.kind == "renamed":
            where = f"{self.old_heading} → {self.heading}"
        return f"{self.kind}: {self.path} › {where}"


def what_changed(timeline: Timeline, product: str, old: str, new: str) -> list[ChangeRow]:
    """Release notes first, then by file; empty when nothing differs."""
    diff = diff_releases(timeline, product, old, new)
    rows = [ChangeRow(c.kind, c.path, c.heading, c.old.heading if c.old else "", c.old.text if c.old else "",
                      c.new.text if c.new else "", is_release_notes(c.path, c.heading)) for c in diff.changes]
    return sorted(rows, key=lambda r: (not r.release_notes, r.path))


def term_timeline(timeline: Timeline, product: str, term: str) -> list[dict]:
    """One row per release of the product: whether the term is there, and where."""
    found = timeline.occurrences(product, term) if term.strip() else []
    out = []
    for release in timeline.releases(product):
        here = [o for o in found if o.release == release]
        out.append({"release": release, "present": bool(here),
                    "where": "; ".join(f"{o.path} › {o.heading or '(top)'}" for o in here[:5])
                    + (f" (+{len(here) - 5} more)" if len(here) > 5 else "")})
    return out


_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]*)[^)]*\)")
_SHORTCODE = re.compile(r"^\s*\{\{[<%].*[%>]\}\}\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def _prose(line: str) -> str:
    """One line outside code, made safe for st.markdown: no image is fetched (its alt text stays), a link that is
    not http(s) keeps its text only, a heading becomes bold (no page-sized titles inside a diff), and `$`, which
    Streamlit reads as LaTeX, is escaped. Inline code spans are left as they are."""
    if _SHORTCODE.match(line):
        return ""  # a Hugo shortcode line ({{% alert %}}) renders as nothing on the docs site either
    heading = _HEADING.match(line)
    if heading:
        line = f"**{heading.group(1)}**" if heading.group(1) else ""
    out, last = [], 0
    for m in _INLINE_CODE.finditer(line):
        out.append(_plain(line[last:m.start()]))
        out.append(m.group())
        last = m.end()
    out.append(_plain(line[last:]))
    return "".join(out)


def _plain(text: str) -> str:
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: m.group() if re.match(r"https?://", m.group(2)) else m.group(1), text)
    return text.replace("$", "\\$")


def display_markdown(text: str) -> str:
    """A section's Markdown source as the What-changed view renders it (st.markdown, HTML not allowed): code blocks
    (fenced or indented) untouched, prose made safe line by line (_prose). An unclosed code block is closed at the end."""
    out, fence, indented = [], None, False
    for line in text.splitlines():
        m = _FENCE.match(line)
        # An indented code block: four spaces in, after a blank line (or going on from one).
        indented = bool(re.match(r"(?: {4}|\t)", line)) and (indented or not out or not out[-1].strip())
        if fence is None and m:
            fence = m.group(2)[0] * len(m.group(2))
            out.append(line)
        elif fence is not None:
            out.append(line)
            if m and m.group(2).startswith(fence):
                fence = None
        else:
            out.append(line if indented else _prose(line))
    if fence is not None:
        out.append(fence)
    return "\n".join(out)
