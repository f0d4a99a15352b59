"""Release names as versions: natural ordering and mapping a user's spelling to a release folder.

Pure functions, no I/O. A release folder name is whatever the library holds ("v3.5", "v2.53.0",
"Release 17.20", "2024.04"); its *numeric core* is the first run of dot-separated digit groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["release_sort_key", "sort_releases", "newest", "normalise_release"]

# The numeric core of a release name: "v2.53.0" -> "2.53.0", "Release 17.20" -> "17.20".
_CORE = re.compile(r"\d+(?:\.\d+)*")

# Pre-release and post-release tags that may follow the core ("3.5.0-rc1", "1.2b3", "2.0.post1").
_TAG = re.compile(
    r"^[-._+ ]?(?P<stage>dev|alpha|a|beta|b|preview|pre|rc|c|post)[-._]?(?P<num>\d*)(?![a-z])",
    re.IGNORECASE,
)
_STAGE_RANK = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "preview": 3, "pre": 3, "rc": 4, "c": 4}
_FINAL_RANK = 5
_POST_RANK = 6


def release_sort_key(name: str) -> tuple:
    """Key for natural version order: "1.9" < "1.10", "3.5.0-rc1" < "3.5.0", "R9" < "R17.2".

    Names without digits sort before all versioned names (alphabetically among themselves). The name
    itself is the last element, so distinct names never tie and the order is total.
    """
    match = _CORE.search(name)
    if match is None:
        return (0, name.casefold(), name)
    numbers = tuple(int(part) for part in match.group().split("."))
    stage, stage_number = _tag_rank(name[match.end():])
    return (1, numbers, stage, stage_number, name.casefold(), name)


def _tag_rank(suffix: str) -> tuple[int, int]:
    tag = _TAG.match(suffix)
    if tag is None:
        return (_FINAL_RANK, 0)
    stage = tag.group("stage").lower()
    number = int(tag.group("num")) if tag.group("num") else 0
    return (_STAGE_RANK.get(stage, _POST_RANK), number)


def sort_releases(names: Iterable[str]) -> list[str]:
    """Oldest first."""
    return sorted(names, key=release_sort_key)


def newest(names: Iterable[str]) -> str | None:
    names = list(names)
    return max(names, key=release_sort_key) if names else None


@dataclass(frozen=True)
class _Version:
    digits: tuple[str, ...]  # the components as written ("04" keeps its zero: it tells zero-padded months)
    tag: str  # normalised pre-release tag ("rc1"), "" for a final release
    wildcard: bool  # "3.5.x"

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.digits)


# In a mention, the core may follow a lone v/V/R ("v3.5", "R17.2") but not other letters ("k8s", "m5.12xlarge").
_MENTION = re.compile(
    r"(?:(?<![A-Za-z0-9])|(?<=(?<![A-Za-z0-9])[vVrR]))"
    r"(?P<core>\d+(?:\.\d+)*)(?P<wild>\.[xX*])?"
    r"(?P<tag>[-.]?(?:rc|alpha|beta|pre|dev)[.\-]?\d*)?"
)


def _parse(text: str, *, mention: bool) -> _Version | None:
    match = (_MENTION if mention else _CORE).search(text)
    if match is None:
        return None
    tag = ""
    if mention:
        tag = _normal_tag(match.group("tag") or "")
        wildcard = bool(match.group("wild"))
        core = match.group("core")
    else:
        core = match.group()
        wildcard = False
        tagged = _TAG.match(text[match.end():])
        if tagged is not None and tagged.group("stage").lower() != "post":
            tag = _normal_tag(tagged.group())
    return _Version(tuple(core.split(".")), tag, wildcard)


def _normal_tag(tag: str) -> str:
    return re.sub(r"[^a-z0-9]", "", tag.lower())


def _strip_zeros(numbers: tuple[int, ...]) -> tuple[int, ...]:
    end = len(numbers)
    while end > 1 and numbers[end - 1] == 0:
        end -= 1
    return numbers[:end]


def normalise_release(mention: str, available: list[str]) -> str | None:
    """The release folder in `available` that a user's spelling names, or None.

    Tried in order, first hit wins:
    1. the folder name itself, case-insensitively ("V3.5" -> "v3.5");
    2. the same numbers, ignoring trailing zeros ("3.5.0" -> "v3.5", "2.53" -> "v2.53.0", "3.5.x" -> "v3.5");
       a shorter spelling that is a prefix of several releases names the line, so the newest of them
       ("3" -> newest 3.x; "2.53" -> "v2.53.1" when v2.53.0 and v2.53.1 both exist);
    3. a last component written without its trailing zero, where the releases of that line use wider
       components without leading zeros ("R17.2" -> "Release 17.20", but "2024.1" never -> "2024.10"
       when the line is written "2024.04");
    4. a patch release of a folder that documents a whole major.minor line ("3.4.29" -> "v3.4",
       "3.5.1" -> "v3.5.0").
    Anything else is None: "3.7" among v3.4..v3.6 must not snap to a neighbour.
    """
    spelled = mention.strip()
    for name in available:
        if name.casefold() == spelled.casefold():
            return name
    wanted = _parse(spelled, mention=True)
    if wanted is None:
        return None

    releases = [(name, _parse(name, mention=False)) for name in available]
    releases = [(name, v) for name, v in releases if v is not None and v.tag == wanted.tag]
    if not releases:
        return None
    m = wanted.numbers

    # 2. Equal numbers, or the newest of a line named by a prefix. A spelling with as many components
    # as the folder ("2.53.0") names exactly that folder; a shorter one ("2.53", "2.53.x") names the line.
    exact = [name for name, v in releases if _strip_zeros(v.numbers) == _strip_zeros(m)]
    full = [name for name, v in releases if name in exact and len(v.digits) <= len(m)]
    if full:
        return newest(full)
    line = [name for name, v in releases if len(m) < len(v.numbers) and v.numbers[: len(m)] == m]
    if line or exact:
        return newest(line + exact)

    # 3. "17.2" written for "17.20".
    padded = _padded_matches(wanted, releases)
    if padded:
        return newest(padded)

    # 4. A patch spelling of a major.minor folder.
    patch = [
        name
        for name, v in releases
        if len(_strip_zeros(v.numbers)) >= 2
        and len(m) > len(_strip_zeros(v.numbers))
        and m[: len(_strip_zeros(v.numbers))] == _strip_zeros(v.numbers)
    ]
    if patch:
        return newest(patch)
    return None


def _padded_matches(wanted: _Version, releases: list[tuple[str, _Version]]) -> list[str]:
    n = len(wanted.digits)
    if n < 2 or wanted.wildcard:
        return []
    head = wanted.numbers[:-1]
    last = wanted.digits[-1].lstrip("0") or "0"
    series = [(name, v) for name, v in releases if len(v.digits) >= n and v.numbers[: n - 1] == head]
    # A component written with a leading zero ("04") means the line pads on the left, like months.
    if any(len(v.digits[n - 1]) > 1 and v.digits[n - 1].startswith("0") for _, v in series):
        return []
    hits = []
    for name, v in series:
        component = v.digits[n - 1]
        rest_zero = all(int(d) == 0 for d in v.digits[n:])
        if rest_zero and len(component) > len(last) and component == last.ljust(len(component), "0"):
            hits.append(name)
    return hits
