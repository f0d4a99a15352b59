"""A name typed with one letter wrong (issue 16, round 13): "enviromentfunction removed in what release" names
`environmentfunction`, which the docs hold, while no word of the question as typed is in them.

Read only when the term finder found no word of the question in the docs at all (timeline_words.find_term's last
resort), or only an identifier they never name ("pass_enviroment"), so a question it answers today is never read
otherwise. A long word (8 letters or more: a short one is an English word as often as a name, "suport" is
"support") or an identifier of 6 characters or more is compared with the names the docs hold, and with each
dotted name's last part (`jinja2.environmentfunction` is documented as `environmentfunction`); one letter missing,
extra, wrong or two swapped is a typo. Two names that near decide nothing.
"""

from __future__ import annotations

from assistant.library.timeline import Timeline

__all__ = ["one_edit", "respelled"]

LONG = 8  # letters: a word this long that the docs lack is no everyday word mistyped as often as a name


def one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one letter inserted, deleted, replaced, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i + 1:] or a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1]


def respelled(words: list[str], timeline: Timeline, products: list[str],
              names: bool = False) -> tuple[str, str] | None:
    """(name, product): the one name the docs hold that a long word of the question misspells by one letter.
    `names`: the words are identifiers the docs never name ("pass_contxt"), of 6 characters or more: shaped as a
    name, no everyday word."""
    for w in (w.lower() for w in words if len(w) >= LONG and w.isalpha() or names and len(w) >= 6):
        near: set[tuple[str, str]] = set()
        for p in products:
            for (term,) in timeline.db.execute("SELECT DISTINCT term FROM tl_terms WHERE product=? AND length(term) "
                                               ">= ?", (p, len(w) - 1)):
                near.update((t, p) for t in {term, term.rsplit(".", 1)[-1]} if one_edit(w, t))
        if len(near) == 1:
            return near.pop()
    return None
