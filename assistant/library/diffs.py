"""What changed between two releases of a product (issue 16): the sections of each file, matched by path and
heading path and compared by content, give sections added, removed, changed and renamed; the identifiers give
terms added and removed. Release notes, changelogs, upgrade and migration guides are found by name and heading so
an answer can prefer what the docs say changed.

`diff_sections` is pure (two lists of sections in, changes out); `diff_releases` reads them from the timeline.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from assistant.library.terms import token_pattern
from assistant.library.timeline import SectionRow, Timeline

__all__ = ["SectionChange", "ReleaseDiff", "diff_sections", "diff_releases", "is_changelog", "is_release_notes",
           "notes_rank", "history_version", "release_of", "in_window", "history_rank", "entries_saying", "entry_naming",
           "entry_says", "in_headings"]

ChangeKind = Literal["added", "removed", "changed", "renamed"]
# A removed and an added section of one file with this much of their words in common are one section renamed.
RENAME_SIMILARITY = 0.6
_NOTES = re.compile(r"change[-_ ]?log|changes|release[-_ ]?notes?|what'?s[-_ ]?new|news|upgrad|migrat|downgrad",
                    re.IGNORECASE)
# A heading says so in its first words ("Upgrade checklists", "Release notes for 3.5"), not in passing
# ("message DowngradeInfo" in an API reference).
_NOTES_HEADING = re.compile(r"^\W*(?:change[-_ ]?log|changes\b|release[-_ ]?notes?|what'?s[-_ ]?new|upgrad\w*\b|"
                            r"migrat\w*\b|downgrad\w*\b)", re.IGNORECASE)
# A cumulative changelog by its file name (`is_changelog`: ranking gives it way to guides): one page holding every
# release's entries (Sphinx's CHANGES.rst, HISTORY, NEWS, CHANGELOG.md, an AWS guide's WhatsNew.md or doc-history.md).
# Upgrade and migration guides are narrative pages and do not count, nor a page about some other history
# ("using-spot-instances-history.md").
_CHANGELOG = re.compile(r"(?:changes|change[-_]?log|history|news|release[-_]?notes|whats[-_]?new|"
                        r"(?:\w+[-_]?)?doc(?:ument)?[-_]?history)(?:\.\w+)?", re.IGNORECASE)

# A changelog's section per version, by its heading's shape ("Version 8.0.0", "v3.5.0", "2.53.0 / 2023-06-20",
# "[1.2.3] - 2024-01-02", "Release 1.2 (unreleased)"): the version, then at most a date, "(unreleased)" or a note in
# brackets. "3.5 upgrade guide" is no such heading.
_VERSION_HEADING = re.compile(r"^\W*(?:(?:version|release)\s+)?\[?v?(\d+(?:\.\d+)+)(?:[-.]?(?:rc|a|b|alpha|beta|dev)\.?"
                              r"\d*)?\]?\s*(?:[-/–—:,]\s*)?"
                              r"(?:\(?(?:released\s+(?:on\s+)?)?\d{4}-\d{1,2}-\d{1,2}\)?|\(?unreleased\)?|\([^)]*\))?\s*$",
                              re.IGNORECASE)


def history_version(path: str, heading: str) -> str | None:
    """The version whose history a section of release notes is (its own heading, or the nearest one above it, is a
    version: "Version 2.2.0 > Deprecated"), else None: a changelog holds every older version's section in every
    later release, and what such a section says happened in that version, not in the release it ships with."""
    if not is_release_notes(path, heading):
        return None
    for part in reversed(heading.split(" > ")):
        m = _VERSION_HEADING.match(part.strip())
        if m:
            return m.group(1)
    return None


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def release_of(version: str, releases: list[str]) -> str | None:
    """The release (oldest first in `releases`) that brought a version's changes: the release it belongs to (v3.5
    holds 3.5.2), else the first one at or after it (2.3.0's changes ship in 3.0.3 when the library holds 2.2.5
    and 3.0.3); None for a version after every release (an unreleased section)."""
    v = _numbers(version)
    for r in releases:
        if v[:len(_numbers(r))] == _numbers(r):
            return r
    return next((r for r in releases if _numbers(r) >= v), None)


def in_window(s: SectionRow, old: str, new: str, releases: list[str]) -> bool:
    """Whether a section tells of a change from `old` to `new`: any section but a changelog's version section, and
    those only for a version brought by a release after `old`, up to `new` (a typo fixed in an old version's section
    is no change of the newer release)."""
    version = history_version(s.path, s.heading)
    if version is None:
        return True
    brought = release_of(version, releases)
    return brought is not None and brought in releases and old in releases and new in releases and \
        releases.index(old) < releases.index(brought) <= releases.index(new)


def history_rank(s: SectionRow, release: str) -> tuple:
    """Sort key of a release's notes sections: a changelog's sections of the release's own line first, oldest first
    ("What's new in 8.1?" reads 8.1.0 before 8.1.7), then its other versions oldest first, then any other section."""
    version = history_version(s.path, s.heading)
    if version is None:
        return (2,)
    line = _numbers(release)[:2]
    return (0 if _numbers(version)[:2] == line else 1, _numbers(version))


# A changelog's entry: a bullet ("-   Use PEP 451 API to load templates with `PackageLoader`. #1168") and its lines.
_ENTRY = re.compile(r"\n(?=\s{0,4}[-*]\s)")


def entry_naming(text: str, term: str) -> str | None:
    """The changelog entry (a bullet and its wrapped lines) that names `term`, squeezed to one line; None when the
    text has no bullet that does. A quote of the entry reads whole: a window of lines around the term began in the
    entry before it ("built-in to the compiler. #1203 - The urlize filter recognizes ... to")."""
    pattern = token_pattern(term)
    for entry in _ENTRY.split("\n" + text):
        if entry.lstrip().startswith(("-", "*")) and pattern.search(entry):
            return " ".join(entry.split()).lstrip("-* ")
    return None


def _version_of(s: SectionRow) -> tuple[int, ...]:
    return _numbers(history_version(s.path, s.heading) or "")


def _entry_words(text: str) -> set[str]:
    """An entry's words, a name's parts among them (`generate_password_hash` says "password" and "hash")."""
    words = re.findall(r"[A-Za-z][a-z0-9]*|[A-Z]+(?![a-z])", text) + re.findall(r"[A-Za-z][A-Za-z0-9]*", text)
    return {w.lower() for w in words if len(w) >= 3}


def entry_says(entry: str, asked: str) -> bool:
    return _says(asked, _entry_words(entry))


def _says(asked: str, words: set[str]) -> bool:
    """A word asked said by the entry: the same root, one a prefix of the other ("hashing", "hash")."""
    return any(w.startswith(asked) or asked.startswith(w) if min(len(w), len(asked)) >= 4 else w == asked
               for w in words)


def entries_saying(timeline: Timeline, product: str, old: str, new: str, asked: set[str],
                   least: int = 2) -> list[tuple[str, SectionRow]]:
    """The entries of the newer release's changelog, in the versions it brought after `old` (in_window), that
    say the most of the asked words, `least` at least: (entry, its version's section), oldest version first. What the
    docs say changed, when the reference pages themselves no longer say it (an autodoc entry with no body, a sentence
    dropped): "``generate_password_hash`` uses scrypt by default." for "password hashing default"."""
    held = timeline.releases(product)
    scored = []
    for s in timeline.sections(product, new):
        if history_version(s.path, s.heading) is None or not in_window(s, old, new, held):
            continue
        for entry in _ENTRY.split("\n" + s.text):
            text = " ".join(entry.split()).lstrip("-* ")
            n = sum(_says(w, _entry_words(text)) for w in asked)
            if n >= least and len(text.split()) >= 3:
                scored.append((n, text, s))
    if not scored:
        return []
    top = max(n for n, _, _ in scored)
    # The oldest version's first: the change came with it, later entries fix it up.
    return sorted(((t, s) for n, t, s in scored if n == top), key=lambda e: _version_of(e[1]))


@dataclass(frozen=True)
class SectionChange:
    kind: ChangeKind
    path: str
    old: SectionRow | None  # None for an added section
    new: SectionRow | None  # None for a removed one

    @property
    def heading(self) -> str:
        return (self.new or self.old).heading


@dataclass
class ReleaseDiff:
    product: str
    old_release: str
    new_release: str
    changes: list[SectionChange] = field(default_factory=list)
    files_added: list[str] = field(default_factory=list)
    files_removed: list[str] = field(default_factory=list)
    terms_added: list[str] = field(default_factory=list)
    terms_removed: list[str] = field(default_factory=list)

    def count(self, kind: ChangeKind) -> int:
        return sum(c.kind == kind for c in self.changes)


def is_changelog(path: str) -> bool:
    """A cumulative changelog, by its file name alone: one page holding every release's entries (a narrower set than
    `is_release_notes`: no upgrade or migration guide, no heading)."""
    return bool(_CHANGELOG.fullmatch(path.rsplit("/", 1)[-1]))


def is_release_notes(path: str, heading: str = "") -> bool:
    """A changelog, release notes, upgrade, downgrade or migration guide, by file name or heading."""
    return bool(_NOTES.search(path.rsplit("/", 1)[-1]) or _NOTES_HEADING.search(heading.split(" > ", 1)[0]))


def notes_rank(path: str, release: str) -> tuple[bool, bool]:
    """Sort key of release notes for a release: those naming its version ("upgrade_3_6.md" for v3.6) first, then
    upgrade guides and changelogs before downgrade guides."""
    core = re.search(r"\d+(?:\.\d+)*", release)
    digits = core.group().split(".") if core else []
    name = path.rsplit("/", 1)[-1].lower()
    named = bool(digits) and bool(re.search(r"(?<!\d)" + r"[._-]?".join(digits[:2]) + r"(?!\d)", name))
    return (not named, "downgrad" in name)


@lru_cache(maxsize=1 << 14)
def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[\w\-.]+", text.lower()))


def _similar(a: SectionRow, b: SectionRow) -> float:
    wa, wb = _words(a.text), _words(b.text)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def _keyed(sections: list[SectionRow]) -> dict[tuple[str, str, int], SectionRow]:
    """Key a section by path, heading path and which of the same heading in that file it is (two "Example"s)."""
    seen: dict[tuple[str, str], int] = defaultdict(int)
    out = {}
    for s in sections:
        n = seen[(s.path, s.heading)]
        seen[(s.path, s.heading)] += 1
        out[(s.path, s.heading, n)] = s
    return out


def _leaf_words(heading: str) -> set[str]:
    return set(re.findall(r"\w+", heading.rsplit(" > ", 1)[-1].lower()))


def _renamed(a: SectionRow, b: SectionRow) -> bool:
    """Same file; most words in common, or one heading's words inside the other's ("Float literals" -> "Float
    literals and time durations") under the same parent."""
    if _similar(a, b) >= RENAME_SIMILARITY:
        return True
    wa, wb = _leaf_words(a.heading), _leaf_words(b.heading)
    pa, pb = a.heading.rpartition(" > ")[0], b.heading.rpartition(" > ")[0]
    same_parent = pa == pb or _tail(pa) == pb or pa == _tail(pb)
    return same_parent and bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _tail(heading: str) -> str:
    """The breadcrumb without the page's own title (a page whose H1 became its front-matter title keeps its
    sections: "Querying Prometheus > Subquery" is "Subquery")."""
    return heading.split(" > ", 1)[1] if " > " in heading else ""


def diff_sections(old: list[SectionRow], new: list[SectionRow]) -> list[SectionChange]:
    """Changes from `old` to `new`, in the new file order (removed sections where they stood)."""
    a, b = _keyed(old), _keyed(new)
    common = a.keys() & b.keys()
    gone = {k: a[k] for k in a.keys() - common}
    came = {k: b[k] for k in b.keys() - common}
    # Second pass: the same section under a page title added or dropped from the breadcrumb.
    pairs = [(a[k], b[k]) for k in common]
    for ka, sa in list(gone.items()):
        for kb, sb in list(came.items()):
            if ka[0] == kb[0] and ka[2] == kb[2] and (_tail(ka[1]) == kb[1] or ka[1] == _tail(kb[1])):
                pairs.append((sa, sb))
                del gone[ka], came[kb]
                break
    out = [SectionChange("changed", sa.path, sa, sb) for sa, sb in pairs if sa.digest != sb.digest]
    left = sorted(came.values(), key=lambda s: (s.path, s.ord))
    # A heading renamed keeps its file and most of its words: pair each gone section with its closest newcomer.
    for g in sorted(gone.values(), key=lambda s: (s.path, s.ord)):
        match = next((c for c in sorted((c for c in left if c.path == g.path), key=lambda c: -_similar(g, c))
                      if _renamed(g, c)), None)
        if match is not None:
            out.append(SectionChange("renamed", g.path, g, match))
            left.remove(match)
        else:
            out.append(SectionChange("removed", g.path, g, None))
    out += [SectionChange("added", c.path, None, c) for c in left]
    return sorted(out, key=lambda c: (c.path, (c.new or c.old).ord, c.kind))


def in_headings(named: list[str], changes: list[SectionChange]) -> list[str]:
    """The names the notes give that head a section the reference pages added, removed or renamed: the changes the
    docs themselves show, among a long changelog's (Werkzeug 2.0's 125 names: `BaseRequest`, `send_file`,
    `TestResponse` in its 22nd, 43rd and 65th places, each an API section gone or new)."""
    heads = " ".join(x.heading.rsplit(" > ", 1)[-1] for c in changes if c.kind in ("added", "removed", "renamed")
                     and not is_release_notes(c.path, c.heading) for x in (c.old, c.new) if x is not None)
    return [t for t in named if re.search(rf"(?<![\w.]){re.escape(t)}(?!\w)", heads, re.IGNORECASE)]


def diff_releases(timeline: Timeline, product: str, old_release: str, new_release: str) -> ReleaseDiff:
    old, new = timeline.sections(product, old_release), timeline.sections(product, new_release)
    old_files, new_files = {s.path for s in old}, {s.path for s in new}
    # A changelog's version sections count for the versions between the two releases only (in_window).
    held = timeline.releases(product)
    changes = [c for c in diff_sections(old, new) if in_window(c.new or c.old, old_release, new_release, held)]
    diff = ReleaseDiff(product, old_release, new_release, changes,
                       sorted(new_files - old_files), sorted(old_files - new_files))
    old_terms, new_terms = timeline.terms_of(product, old_release), timeline.terms_of(product, new_release)
    diff.terms_added = sorted(new_terms - old_terms)
    diff.terms_removed = sorted(old_terms - new_terms)
    return diff
