"""The Library page's "What changed" view (issue 16): two releases of a product in, the sections added, removed,
changed and renamed out (each with its text, old beside new); a term in, its timeline (release, file, section).
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.library.diffs import diff_releases, is_release_notes
from assistant.library.timeline import Timeline

__all__ = ["ChangeRow", "what_changed", "term_timeline"]


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
