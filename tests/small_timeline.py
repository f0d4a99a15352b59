"""A release timeline built from a few pages written in a test (no index, no embedding): `docs` maps each release to
its files, each file to its sections as (heading path, text), as a manifest would hand them to Timeline.refresh."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assistant.library.timeline import Timeline


@dataclass
class _Row:
    hash: str
    recipe: str = "r1"
    status: str = "indexed"


class _Manifest:
    """What Timeline.refresh reads of a manifest: the files of a release and their sections' text."""

    def __init__(self, docs: dict[str, dict[str, list[tuple[str, str]]]]) -> None:
        self.docs = docs

    def files(self, product, release):
        return {p: _Row(str(hash(str(s)))) for p, s in self.docs[release].items()}

    def section_cores(self, product, release, path):
        return self.docs[release][path]


def small_timeline(path: Path, product: str, docs: dict[str, dict[str, list[tuple[str, str]]]]) -> Timeline:
    timeline = Timeline(path)
    manifest = _Manifest(docs)
    for release in docs:
        timeline.refresh(product, release, manifest)
    return timeline
