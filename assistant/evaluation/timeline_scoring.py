"""Scoring timeline and change answers (issue 16) against eval/timeline.jsonl (schema: eval/TIMELINE_ROUTING.md).

`score_timeline` is pure: an item and an answer's text in, whether the right release (or change) is named out.

- introduced, removed, deprecated: the first release the answer names is `expected_release`;
- in_release: the answer opens with the right yes or no;
- which_releases: the releases named on the answer's first line are exactly the expected ones;
- did_change: the right yes or no, and both values (old and new) named;
- changed_in, changed_between: at least one of `expected_changes` named (`change_recall`: the share named).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TimelineScore", "score_timeline", "releases_named"]


@dataclass(frozen=True)
class TimelineScore:
    id: str
    kind: str
    right: bool
    change_recall: float | None = None  # change kinds only
    why: str = ""


def releases_named(text: str, releases: list[str]) -> list[str]:
    """The product's releases the text names, in the order it names them ("3.5" names v3.5; v3.5.0 is not v3.5)."""
    found = []
    for r in releases:
        core = re.escape(r.lstrip("vV"))
        m = re.search(rf"(?<![\w.])v?{core}(?![\w]|\.\d)", text, re.IGNORECASE)
        if m:
            found.append((m.start(), r))
    return [r for _, r in sorted(found)]


_NOT_IN = re.compile(r"\b(?:not|never)\s+(?:[\w\-]+\s+){0,2}(?:in|from)\s+v?\d+(?:\.\d+)+", re.IGNORECASE)


def _named(value: str, text: str) -> bool:
    return value.lower() in text.lower()


def score_timeline(item: dict, answer: str, releases: list[str]) -> TimelineScore:
    """`releases`: every release of the item's product, oldest first."""
    kind, text = item["kind"], answer or ""
    named = releases_named(text, releases)
    if kind in ("introduced", "removed", "deprecated"):
        ok = bool(named) and named[0] == item["expected_release"]
        return TimelineScore(item["id"], kind, ok, why=f"first named {named[:1]}, want {item['expected_release']}")
    yes = re.match(r"\s*(yes|no)\b", text, re.IGNORECASE)
    said = yes.group(1).lower() if yes else None
    if kind == "in_release":
        return TimelineScore(item["id"], kind, said == item["expected_yes_no"], why=f"said {said}")
    if kind == "which_releases":
        first = releases_named(text.splitlines()[0] if text else "", releases)
        # "v3.5 and v3.6 (listed among the flags not available in 3.4)": a release said to lack it is not wanted.
        want = releases_named(_NOT_IN.sub(" ", item["expected_answer"]), releases)
        return TimelineScore(item["id"], kind, set(first) == set(want), why=f"named {first}, want {want}")
    changes = item.get("expected_changes") or []
    recall = sum(_named(c, text) for c in changes) / len(changes) if changes else 0.0
    if kind == "did_change":
        # "same in A and B?" is answered "Yes, the same" / "No, it changed": read what it says of a change.
        sense = re.match(r"\s*(?:yes,\s+(?P<same>the\s+same)|no,\s+it\s+changed)\b", text, re.IGNORECASE)
        said = ("no" if sense.group("same") else "yes") if sense else said
        ok = said == item["expected_yes_no"] and all(_named(c, text) for c in changes)
        return TimelineScore(item["id"], kind, ok, recall, why=f"said {said}, values {recall:.0%} named")
    return TimelineScore(item["id"], kind, recall > 0, recall, why=f"{recall:.0%} of the changes named")
