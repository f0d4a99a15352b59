"""Which files of a release are read, and which are skipped unread with their reason: links out of the library,
hidden names, names that are not UTF-8 and unsupported types. Skipped is not failed: nothing is wrong with them."""

from __future__ import annotations

from pathlib import Path

from assistant.library.catalogue import Library
from assistant.library.readers import SUPPORTED_SUFFIXES


def scan_release(library: Library, product: str, release: str) -> tuple[dict[str, Path], list[dict]]:
    """({relative path: file to read}, [{"path", "reason"} skipped unread])."""
    base = library.release_dir(product, release)
    on_disk: dict[str, Path] = {}
    skipped = [{"path": printable(path.relative_to(base).as_posix()), "reason": _link_reason(path)}
               for path in library.outside_links(product, release)]
    skipped += [{"path": printable(path.relative_to(base).as_posix()),
                 "reason": f"hidden {'folder' if path.is_dir() else 'file'} (name starts with '.')"}
                for path in library.hidden(product, release)]
    for path in library.files(product, release):
        rel = path.relative_to(base).as_posix()
        if printable(rel) != rel:  # undecodable bytes: no id, database or JSON can hold the name
            skipped.append({"path": printable(rel), "reason": "file name is not valid UTF-8 (rename it)"})
        elif path.suffix.lower() not in SUPPORTED_SUFFIXES:
            skipped.append({"path": rel, "reason": _skip_reason(path)})
        else:
            on_disk[rel] = path
    return on_disk, skipped


def printable(rel: str) -> str:
    """A path as text: bytes that are not UTF-8 (Python keeps them as lone surrogates) shown as U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _link_reason(path: Path) -> str:
    try:
        path.resolve()
    except (OSError, RuntimeError):
        return "link cannot be resolved (a loop); not followed"
    return "link points outside the release folder (not followed)"


def _skip_reason(path: Path) -> str:
    suffix = path.suffix.lower()
    return f"unsupported file type {suffix}" if suffix else "no file extension (unsupported type)"
