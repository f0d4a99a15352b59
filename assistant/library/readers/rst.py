"""reStructuredText as a reader of the built docs sees it: sections from adorned titles, Sphinx markup rendered.

- Version notes read as Sphinx prints them: `.. versionadded:: 2.2` -> "Added in version 2.2.", and likewise
  "Changed in version", "Deprecated since version", "Removed in version" (the timeline quotes such statements).
- An object description (`.. py:data:: SESSION_COOKIE_NAME`, `.. option:: --port`, `.. autofunction:: url_for`)
  is an entry of the reference it sits in: its own section under the current heading, opening with its signature
  (all an autodoc entry has here) and ending where the text goes back to the directive's indentation.
- Roles read as their text: :attr:`~flask.Flask.debug` -> `debug`, :doc:`Title <path>` -> Title; code roles stay
  in backticks so identifiers are found.
- Admonitions keep their label ("Note: ..."); markup-only directives (code-block, toctree, image, tabs, ...) and
  directive options (`:maxdepth: 2`) are dropped, their bodies kept; comments and `.. _target:` lines are dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from assistant.library.documents import ParsedDocument, SkipFile
from assistant.library.readers.common import SectionBuilder, decode

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*\s*$")  # one repeated ASCII punctuation character
_RST_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(.*))?$")
_DIRECTIVE = re.compile(r"^([\w:+-]+)::(?:\s+(.*))?$")
_OPTION = re.compile(r"^\s+:[\w -]+:(?:\s|$)")  # `:noindex:`, `:type: bool` under a directive

_VERSION_NOTES = {"versionadded": "Added in version", "versionchanged": "Changed in version",
                  "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
_OBJECT = re.compile(r"^(?:(?:py|std|rst|js|c|cpp):)?(?:auto)?(?:data|function|class|method|attribute|exception|"
                     r"decorator|property|module-level|option|cmdoption|envvar|confval|describe|object)$")
_ADMONITIONS = {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important", "caution": "Caution",
                "danger": "Danger", "attention": "Attention", "hint": "Hint", "error": "Error", "seealso": "See also",
                "todo": "To do"}
_MARKUP_ONLY = {"code-block", "sourcecode", "code", "highlight", "literalinclude", "image", "figure", "toctree",
                "include", "tabs", "tab", "group-tab", "code-tab", "rst-class", "only", "index", "raw", "currentmodule",
                "module", "py:currentmodule", "py:module", "automodule", "contents", "program", "container", "meta"}

_ROLE = re.compile(r":(?P<role>[\w:+-]+):`(?P<body>[^`]+)`")
_TEXT_ROLES = {"ref", "doc", "term", "abbr", "pep", "rfc", "issue", "pr", "gh", "user", "numref", "download",
               "guilabel", "menuselection", "dfn", "title", "emphasis", "strong", "sub", "sup"}


def render_roles(line: str) -> str:
    """Sphinx roles as a reader of the built page sees them."""
    def one(m: re.Match) -> str:
        role, body = m.group("role").split(":")[-1], m.group("body").strip()
        labelled = re.match(r"^(.*?)\s*<([^>]+)>$", body, re.S)
        if labelled and labelled.group(1):
            body = labelled.group(1)
        elif labelled:
            body = labelled.group(2)
        body = body.lstrip("!")
        if body.startswith("~"):
            body = body[1:].rsplit(".", 1)[-1]
        if role in ("pep", "rfc"):
            return f"{role.upper()} {body}"
        if role in ("issue", "pr", "gh"):
            return f"#{body}"
        if role in _TEXT_ROLES:
            return body.rsplit("/", 1)[-1].replace("-", " ") if role == "doc" and not labelled else body
        return f"`{body}`"
    return _ROLE.sub(one, line)


def read_rst(data: bytes, path: Path) -> ParsedDocument:
    decoded = decode(data)
    lines = decoded.text.splitlines()
    styles: list[tuple[str, bool]] = []  # docutils: a style's level is the order in which it first appears
    out = SectionBuilder()
    title = None
    parent: tuple[int, str] | None = None  # the heading an entry sits under, reopened when the entry ends
    entry: int | None = None  # indentation of the open entry's directive
    skip_deeper: int | None = None  # inside a comment: its indented lines are dropped
    options = False  # just after a directive line: its option lines are dropped
    i = 0
    while i < len(lines):
        found = _rst_heading(lines, i)
        if found:
            text, style, used = found
            if style not in styles:
                styles.append(style)
            parent, entry, skip_deeper, options = (styles.index(style) + 1, text), None, None, False
            out.heading(*parent)
            title = title or text
            i += used
            continue
        line = lines[i]
        i += 1
        indent = len(line) - len(line.lstrip())
        if options and _OPTION.match(line):
            continue
        if not line.strip():
            if skip_deeper is None:
                out.add("")
            continue
        options = False
        if skip_deeper is not None and indent > skip_deeper:
            continue
        skip_deeper = None
        explicit = _RST_EXPLICIT.match(line)
        rest = (explicit.group(2) or "").strip() if explicit else ""
        directive = _DIRECTIVE.match(rest) if explicit else None
        name = directive.group(1).lower() if directive else ""
        arg = render_roles((directive.group(2) or "").strip()) if directive else ""
        described = bool(_OBJECT.match(name) and arg)  # an object description: `.. py:data:: NAME`
        if entry is not None and indent <= entry and not described:
            entry = None  # back at the directive's indentation: the entry has ended
            if parent:
                out.heading(*parent)
        if not explicit:
            out.add(render_roles(line))
        elif not directive:  # a comment (its indented lines too), a `.. _target:` or a substitution: not text
            if rest.startswith("["):  # a footnote reads as its text
                out.add(line[:indent] + render_roles(rest))
            else:
                skip_deeper = indent
        elif described and (entry is None or indent <= entry):
            out.heading((parent[0] if parent else 0) + 1, arg)  # an entry of the reference: its own section,
            out.add(line[:indent] + arg)  # opening with its signature, as the built page shows it (autodoc: only that)
            entry, options = indent, True
        else:  # every other directive; a method inside a class entry stays a line of the class's section
            _directive(out, line[:indent], name, arg)
            options = True
    sections = out.finish()
    if not any(s.text.strip() for s in sections) and any(_RST_EXPLICIT.match(line) for line in lines):
        # `changes.rst` = a title and `.. include:: ../CHANGES.rst`: nothing of its own, which is not a failure
        raise SkipFile("no body text (only Sphinx markup, such as an include of another file)")
    return ParsedDocument(title=title or path.stem, sections=sections, kind="rst", encoding=decoded.encoding)


def _directive(out: SectionBuilder, lead: str, name: str, arg: str) -> None:
    """One directive line as the built page shows it (its body lines follow as ordinary text)."""
    if name in _VERSION_NOTES:
        version, _, note = arg.partition(" ")
        out.add(f"{lead}{_VERSION_NOTES[name]} {version}" + (f": {note.strip()}" if note.strip() else "."))
    elif _OBJECT.match(name) and arg:
        out.add(f"{lead}{arg}")
    elif name in _ADMONITIONS:
        out.add(f"{lead}{_ADMONITIONS[name]}:" + (f" {arg}" if arg else ""))
    elif name == "admonition":
        out.add(f"{lead}{arg}")
    elif arg and not (name in _MARKUP_ONLY or name.endswith("-block")):  # an unknown one with no argument: markup
        out.add(f"{lead}{name}:: {arg}")


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
