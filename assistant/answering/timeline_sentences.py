"""A behaviour said in words, asked as still so in a newer release ("async support still disabled by default? 2.11 ->
3.1", "is watchdog still picked automatically when installed (1.0 vs 3.0)"): the sentence of the older release's
docs (never its notes) that says most of the question's words, looked for in the newer release. The same sentence
there: "No", it reads the same, quoted once; else the newer release's sentence that says as much, old beside new
("Yes"). None when no sentence says three of the question's words and half of them.
"""

from __future__ import annotations

import re

from assistant.answering.change_areas import name_words
from assistant.answering.timeline_questions import TimelineAnswer
from assistant.answering.value_changes import cite_section
from assistant.library.diffs import entries_saying, entry_says, is_release_notes
from assistant.library.timeline import Timeline

__all__ = ["sentence_compared"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"(])|\n\s*\n|\n\s*[-*]\s+")
# Words of the comparison itself and pronouns ("still work like they did"), read by their first four letters: they
# say nothing of what is compared, never counted.
_VAGUE = {"like", "work", "does", "same", "they", "them", "thei", "ther", "this", "that", "thes", "thos", "have"}
_CODE = re.compile(r"^\s*(?:\.\.|>>>|\$|[{}<#])")


def _sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCE.split(text):
        s = " ".join(part.split())
        if 3 <= len(s.split()) <= 60 and not _CODE.match(s):
            out.append(s)
    return out


def _hits(asked: set[str], sentence: str) -> int:
    """How many asked roots the sentence says, a root read by its first five letters ("disabl", "disable")."""
    said = name_words(sentence)
    return sum(any(r == w or len(w) >= 4 and len(r) >= 4 and r[:5] == w[:5] for r in said) for w in asked)


def _best(timeline: Timeline, product: str, release: str, asked: set[str]) -> tuple[int, str, object] | None:
    best = None
    for s in timeline.sections(product, release):
        if is_release_notes(s.path, s.heading):
            continue
        for sent in _sentences(s.text):
            n = _hits(asked, sent)
            if n and (best is None or (n, -len(sent)) > (best[0], -len(best[1]))):
                best = (n, sent, s)
    if best is None or best[0] < 3 or 2 * best[0] < len(asked):
        return None
    return best


def sentence_compared(timeline: Timeline, product: str, old: str, new: str, asked: set[str],
                      ans: TimelineAnswer) -> TimelineAnswer | None:
    """`asked`: the question's content roots (change_areas.asked_words), "default" among them when it says it."""
    asked = {w for w in asked if w[:4] not in _VAGUE}
    found = _best(timeline, product, old, asked)
    if found is None:
        return None
    _, sent, s = found
    same = next((t for t in timeline.sections(product, new) if not is_release_notes(t.path, t.heading)
                 and sent in " ".join(t.text.split())), None)
    if same is not None:
        ans.answer = (f"No: it reads the same in {product} {old} {cite_section(ans, s, None)} and {new} "
                      f"{cite_section(ans, same, None)}: \"{sent}\"")
        return ans
    now = _best(timeline, product, new, asked)
    if now is None:
        # The newer docs no longer say it: what its changelog says of a name the older sentence writes as code
        # ("`PackageLoader`" ... "need `setuptools`_": 3.0.0's "Use PEP 451 API to load templates with PackageLoader").
        code = {w for w in asked if any(w in name_words(c) for c in re.findall(r"`+([^`]+)`", sent))}
        entries = [e for e in entries_saying(timeline, product, old, new, asked, least=1)
                   if any(entry_says(e[0], w) for w in code)]
        if not entries:
            return None
        text, notes = entries[0]  # the oldest version's: the change came with it
        ans.answer = (f"Yes: {product} {old} {cite_section(ans, s, None)}: \"{sent}\"\n"
                      f"{new}: its changelog, {notes.heading.rsplit(' > ', 1)[-1]} {cite_section(ans, notes, None)}: "
                      f"\"{text[:300]}\"")
        return ans
    ans.answer = (f"Yes: {product} {old} {cite_section(ans, s, None)}: \"{sent}\"\n"
                  f"{new} {cite_section(ans, now[2], None)}: \"{now[1]}\"")
    return ans
