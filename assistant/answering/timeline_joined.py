"""Names said as their words run together or apart (issue 16): "lease checkpoint persist" is the feature gate
`LeaseCheckpointPersist`, "the auto compaction mode default" is the flag `--auto-compaction-mode`.

A name whose every part the question says, adjacent and in the name's order, is what the question names: it goes
before a shorter heading the same words begin ("auto compaction", a heading of the same docs), since the question
said more of the name than of the heading.
"""

from __future__ import annotations

from assistant.library.timeline import Timeline

__all__ = ["joined", "spelled_apart"]

# How a name's parts are joined in the docs: a flag or key with hyphens, a key or metric with underscores.
_SEPARATORS = ("-", "_")


def joined(seq: list[str], sizes: tuple[int, ...], timeline: Timeline, products: list[str],
           stop: set[str]) -> tuple[str, str] | None:
    """(term, product): adjacent words of the question that, run together, are a name the docs hold (a CamelCase
    name normalised: "lease checkpoint persist" is `leasecheckpointpersist`)."""
    for n in sizes:
        for i in range(len(seq) - n + 1):
            run = "".join(seq[i:i + n])
            if len(run) >= 12 and not any(w in stop for w in seq[i:i + n]):
                for p in products:
                    if timeline.occurrences(p, run, scan=False):
                        return run, p
    return None


def spelled_apart(seq: list[str], timeline: Timeline, products: list[str], stop: set[str],
                  least: int = 3) -> tuple[str, str] | None:
    """(term, product): `least` adjacent words of the question or more that, joined by a hyphen or an underscore
    (a flag with its dashes), are a name the docs hold: "auto compaction mode" is `--auto-compaction-mode`. The
    longest run first; none of its words a stop word ("was added in"), so a run of asking words names nothing.
    Two-word runs are left to the headings, as before: "auto compaction" is both a heading and, hyphenated, a flag
    family's stem; only a third word said in the name's order decides for the name (timeline7.tune tl-623, 16 -> 17
    of 23, no other tune set moved)."""
    for n in range(min(len(seq), 5), least - 1, -1):
        for i in range(len(seq) - n + 1):
            run = seq[i:i + n]
            if any(w in stop for w in run):
                continue
            for sep in _SEPARATORS:
                name = sep.join(run)
                for p in products:
                    for t in (("--" + name) if sep == "-" else name, name):
                        if timeline.occurrences(p, t, scan=False):
                            return t, p
    return None
