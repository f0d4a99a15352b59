"""Does a retrieved source match a gold reference? Tolerant of where the dataset and the library root paths.

A dev-set gold path is relative to the product folder and starts with the release folder ("v3.5/op-guide/x.md");
a source is (release, path inside the release). awsdocs gold paths keep the corpus's own prefix
("documents/<guide>/doc_source/<file>.md") while a library ingest of `documents/` has "<guide>/doc_source/<file>.md".
So: a gold that starts with the source's release folder is compared without it; one that starts with another
known release folder never matches (that is contamination, not a hit); otherwise the two paths match when one
ends with the other on a folder boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.evaluation.dataset import Gold


@dataclass(frozen=True)
class Retrieved:
    """One ranked context as the metrics see it."""

    release: str
    path: str
    page: int | None = None
    text: str = ""


def _norm(path: str) -> str:
    return path.replace("\\", "/").strip().strip("/").removeprefix("./")


def _suffix_match(a: str, b: str) -> bool:
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def file_matches(gold: str, release: str, path: str, known_releases: frozenset[str] | set[str] = frozenset()) -> bool:
    g, p = _norm(gold), _norm(path)
    head, _, rest = g.partition("/")
    if rest and head == release:
        return _suffix_match(rest, p) or _suffix_match(g, p)
    if rest and head in known_releases:
        return False
    return _suffix_match(g, p) or _suffix_match(g, f"{release}/{p}")


def same_file_in_other_release(gold: str, release: str, path: str,
                               known_releases: frozenset[str] | set[str] = frozenset()) -> bool:
    """The gold names a file of one known release and the source is that file in another release (same path inside
    the release folder, compared on folder boundaries as file_matches does)."""
    g = _norm(gold)
    head, _, rest = g.partition("/")
    return bool(rest) and head in known_releases and head != release and _suffix_match(rest, _norm(path))


def page_matches(gold: Gold, source: Retrieved, known_releases: frozenset[str] | set[str] = frozenset()) -> bool:
    """A gold page counts when the retrieved chunk covers it (chunks of PDFs carry the page they come from)."""
    if not file_matches(gold.file, source.release, source.path, known_releases):
        return False
    return gold.page is None or source.page == gold.page
