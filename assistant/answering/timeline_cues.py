"""Cues of time and change (issue 16) read from what a question says, not from its verbs alone.

A question that names a term the release timeline holds asks about time or change when it carries a cue in any form:
"is X still listed in 2.53?" (in a release), "X: same default in A and B?" (did it change), "X - deprecated?" (its
deprecation), "which feature gates came with 3.6?" or "what new scrape options did 2.53 bring?" (a listing of what
was added). `cue_kind` is read only after the stricter phrasings of timeline_questions._kind found none, and only
for a term the timeline holds, so "how do I set X?" or "what does X do?" stay ordinary questions.
"""

from __future__ import annotations

import re

from assistant.answering.timeline_words import CAME, CAN, GONE, PRESENT, STILL, YESNO_CLAUSE

__all__ = ["listing", "cue_kind", "either_kind", "asks_same", "listed_releases"]

_ONE_THING = re.compile(r"\b(?:in\s+favou?r\s+of|instead\s+of|in\s+place\s+of|replac\w*|succeed\w*|supersed\w*)\b",
                        re.IGNORECASE)
# "Which flags were added in 3.6?", "what went away in prom 3.5?": a list of changes, no one term asked about
# (never "which release was X added": the thing listed is no release or version).
_LISTING = re.compile(r"\b(?:which|what)\s+(?P<what>(?:(?!releases?\b|versions?\b)[\w\-]+\s+){0,3}?)(?:(?:were|was|got|"
                      r"have\s+been|has\s+been|are|is)\s+(?P<verb>added|removed|dropped|deprecated|introduced|new|"
                      r"renamed)|(?:went|have\s+gone|has\s+gone)\s+(?P<away>away)|"
                      r"(?P<came>c[oa]me\s+(?:with|in)|arrived\s+in|appeared\s+in|showed\s+up\s+in))\b", re.IGNORECASE)
# "What new scrape config options did 2.53 bring?", "which new flags does 3.6 have?": a plural noun after "new".
_NEW_THINGS = re.compile(r"\b(?:which|what)\s+new\s+(?P<what>(?:(?!releases?\b|versions?\b)[\w\-]+\s+){0,3}?"
                         r"(?!releases\b|versions\b)[\w\-]+s)\b(?!\s+(?:is|was|has)\b)", re.IGNORECASE)

# "New feature flags in prom 3.5.0?", "any new metrics with 3.6?", "are there new metrics in 3.6": a plural noun after
# a leading "new", also after the area it is about ("promtool: new flags in 3.5.0?").
_NEW_LEAD = re.compile(r"(?:^\s*(?:[\w\-]+\s*[:–—]\s*|[\w\-]+\s+-\s+)?|\b(?:are|were)\s+there\s+)(?:any\s+|the\s+|so\s+)?new\s+(?P<what>(?:[\w\-]+\s+){0,2}[\w\-]+s)\s+(?:in|with|for|since)\b",
                       re.IGNORECASE)
# "Removed flags in etcd 3.6?", "flags gone in etcd 3.6?": the change said beside a plural noun that opens the question.
_CHANGED_LEAD = re.compile(r"^\s*(?:any\s+|the\s+)?(?:(?P<verb>removed|dropped|deprecated|added|renamed)\s+"
                           r"(?P<what>(?:[\w\-]+\s+){0,2}[\w\-]+s)|(?P<what2>(?:[\w\-]+\s+){0,2}[\w\-]+s)\s+"
                           r"(?P<verb2>gone|removed|dropped|deprecated|added|renamed))\s+(?:in|with|for|since)\b",
                           re.IGNORECASE)
_VERB_FIRST = re.compile(r"\b(?P<verb>added|removed|dropped|deprecated|introduced|renamed)\s+(?:which|what)\s+"
                         r"(?P<what>(?:[\w\-]+\s+){0,2}[\w\-]+s)\b", re.IGNORECASE)


def listing(question: str) -> tuple[str, str] | None:
    """(what is listed, the change asked: added, removed, deprecated...) for a listing question ("which flags were
    removed in 3.6?", "which feature gates came with 3.6?", "what new options did 2.53 bring?"); never one asking
    for ONE named thing: "which flag is deprecated in favour of --x?" names a singular noun, or the thing it
    replaces, and is an ordinary question for search."""
    if _ONE_THING.search(question):
        return None
    m = _LISTING.search(question)
    if m is not None:
        nouns = [w for w in m.group("what").split() if w.lower() not in ("the", "a", "an", "of", "new")]
        if nouns and not nouns[-1].lower().endswith("s") and re.match(r"(?:is|was|has)\b", question[m.end("what"):],
                                                                       re.IGNORECASE):
            return None
        verb = "added" if m.group("came") else (m.group("verb") or "removed").lower()
        return m.group("what"), verb
    m = _VERB_FIRST.search(question)  # "etcd 3.6 removed what flags exactly?"
    if m:
        return m.group("what"), m.group("verb").lower()
    m = _CHANGED_LEAD.search(question)
    if m:
        verb = (m.group("verb") or m.group("verb2")).lower()
        return m.group("what") or m.group("what2"), "removed" if verb in ("gone", "dropped") else verb
    m = _NEW_THINGS.search(question) or _NEW_LEAD.search(question)
    return (m.group("what"), "added") if m else None


# Releases offered as alternatives, closing the question: "X, new in 3.5 or older?", "X: 3.5 or 3.6?", "X - in 2.53
# or only in 3.5?": which release it belongs to, i.e. when it came (or went, or was deprecated, when that is said).
_EITHER = re.compile(r"\bv?\d+(?:\.\d+)+\s+or\s+(?:only\s+(?:in\s+)?)?(?:v?\d+(?:\.\d+)+|older|earlier|before|later|"
                     r"newer|after|(?:an?\s+)?(?:older|earlier|later|newer)\s+(?:one|release|version))\s*\??\s*$",
                     re.IGNORECASE)
_GONE_ASKED = re.compile(r"\b(?:removed|dropped|gone|went\s+away|deleted)\b", re.IGNORECASE)


def either_kind(question: str) -> str | None:
    """The kind a question asks by offering releases as alternatives at its end ("X, new in 3.5 or older?", "X: 3.5
    or 3.6?"): its deprecation or removal when it says so, else its coming; None when it offers none or asks how,
    what or why ("what does X default to in 3.5 or 3.6?" is a value, searched)."""
    if not _EITHER.search(question) or _ASKS.search(question) or _HOW_TO.search(question):
        return None
    if re.search(r"\bdeprecat", question, re.IGNORECASE):
        return "deprecated"
    return "removed" if _GONE_ASKED.search(question) else "introduced"


_SAME = re.compile(r"\bsame\b|\bunchanged\b|\bidentical\b", re.IGNORECASE)


def asks_same(question: str) -> bool:
    """"X: same default in A and B?" asks whether it stayed, so its yes means unchanged (the opposite of "did X
    change?")."""
    return bool(_SAME.search(question))


# "X on 3.6, works?": whether the release still takes it.
_WORKS = re.compile(r"[,:\-–—]\s*(?:still\s+)?(?:works?|ok(?:ay)?|usable|valid)\s*\?\s*$", re.IGNORECASE)
# "X: 3.4 too?", "X also in 2.45?": whether that release has it as well.
_TOO = re.compile(r"\bv?\d+(?:\.\d+)+\s+(?:too|also|as\s+well)\s*\?\s*$|\balso\s+(?:in|on)\s+(?:\w+\s+)?v?\d+(?:\.\d+)+"
                  r"\s*\?\s*$", re.IGNORECASE)
# "X - deprecated?", "X: deprecated in 3.6? what's it called now", "can I keep passing X after 3.6 or is it deprecated":
# its deprecation asked as a yes/no clause of its own, whatever else follows.
_ASKED_DEPRECATED = re.compile(r"\bdeprecat\w*(?:\s+(?:in|on|as\s+of|since)\s+(?:\w+\s+)?v?\d[\w.]*)?\s*\?"
                               r"|\bor\s+(?:is|was|has)\s+(?:it|that|this)\s+(?:been\s+|now\s+)?deprecat\w*",
                               re.IGNORECASE)
# Whether a release offers it, asked of what the user may do: "X in 2.53, can I use it?", "can 2.53 delay the
# compaction start (X flag)?"; only with one release and a held name (cue_kind's own condition). Never "can I set
# X to ...", "can I configure X": how to use it, searched.
_USABLE = re.compile(r"\bcan\s+(?:i|we|you)\s+(?:still\s+)?(?:use|enable|turn\s+on)\b|"
                     r"^\s*can\s+(?:\w+\s+)?v?\d+(?:\.\d+)+\s+[a-z]", re.IGNORECASE)
_HOW_TO = re.compile(r"\bhow\s+(?:do|can|should|would|could)\s+(?:i|we|you)\b|\bhow\s+to\b", re.IGNORECASE)

# Asks for more than yes or no: a wh-word, or another thing in the term's place ("is there an alternative to X in
# 3.5?" is answered by naming one, not by X's absence).
_ASKS_MORE = re.compile(r"\b(?:what|which|how|where|why|who|when|alternatives?|equivalents?|instead|replac\w*|"
                        r"similar|workarounds?|substitutes?)\b", re.IGNORECASE)


def asks_yes_no(question: str) -> bool:
    """A question answered "yes" or "no" that asks nothing else (no what/which/how/when): "can i switch on X via
    --feature-gates on etcd 3.5", "X - does 2.53 support reading it from a file"."""
    return bool(YESNO_CLAUSE.search(question)) and not _ASKS_MORE.search(question)

# What a question asks about the term, in any words: its removal, its coming, its deprecation, its presence.
_DID_DROP = re.compile(r"\bdid\b.*\b(?:drop|remove|delete|retire)\b", re.IGNORECASE)  # "did 3.6 drop X?"
# Asking for a time in any words: "when?", "since?", "how long has X been around", "which version", "in which".
_TIME = re.compile(r"\bwhen\s+(?:was|were|did|has|had)\b|^\s*when\s+(?:is|are|does|do)\b|\bwhen\s*\?|"
                   r"\bsince\s+(?:when|which|what)\b|\bsince\s*\?|\bhow\s+long\s+(?:has|have)\b|"
                   r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:release|version)s?\b|\bin\s+which\b|\bin\s*\?\s*$",
                   re.IGNORECASE)  # "X: appeared in?"
_WHICH_OF = re.compile(r"\bwhich\s+of\s+the\s+(?:\w+\s+){0,2}(?:releases|versions)\b|\ball\s+(?:the\s+)?(?:three|3|"
                       r"held)\s+(?:\w+\s+)?(?:releases|versions)\b", re.IGNORECASE)
# The releases listed with "which" asked of them: "which of 3.4 / 3.5 / 3.6 document X", "2.45, 2.53 or 3.5: which
# have X?", "in which of etcd 3.5 and 3.6 is X listed".
_REL = r"(?:v|version\s+|release\s+)?\d+\.\d+(?:\.\d+)?"
_RELS = rf"{_REL}(?:\s*(?:/|,|&|\bor\b|\band\b|,\s*or\b|,\s*and\b)\s*{_REL})+"
_DOCUMENT = r"(?:have|has|had|document\w*|list\w*|includ\w*|mention\w*|ship\w*|support\w*|contain\w*|carr\w*)"
_WHICH_LISTED = re.compile(rf"\bwhich\s+of\s+(?:the\s+)?(?:[a-z]+\s+)?{_RELS}|{_RELS}\s*[:\-–—,?]+\s*which\b"
                           rf"(?:\s+(?:of\s+them\s+|ones?\s+)?{_DOCUMENT}\b|\s*\?*\s*$)", re.IGNORECASE)


def listed_releases(question: str, held: list[str]) -> list[str]:
    """The held releases a "which of A / B / C" question lists ("3.5" is v3.5 or v3.5.0), in held order; [] when it
    lists none."""
    m = _WHICH_LISTED.search(question)
    said = {t.lower().lstrip("v") for t in re.findall(r"\d+\.\d+(?:\.\d+)?", m.group(0))} if m else set()
    return [r for r in held if any(r.lower().lstrip("v") == t or r.lower().lstrip("v").startswith(t + ".")
                                   for t in said)]


_MOVED = re.compile(r"\b(?:go(?:ne)?\s+(?:up|down)|went\s+(?:up|down)|increas\w*|decreas\w*|raised|lowered|bump\w*|"
                    r"moved|shifted)\b",
                    re.IGNORECASE)
_IN_Y = re.compile(r"[-:–—,]\s*(?:in|on)\s+(?:\w+\s+)?v?\d[\w.]*\s*\?\s*$", re.IGNORECASE)  # "X - in prom 2.45?"
_TIME_LAST = re.compile(r"[-:–—,]\s*(?:in\s+)?(?:which|what)\s+(?:\w+\s+)?(?:release|version)\s*\??\s*$",
                        re.IGNORECASE)
_SINCE = re.compile(r"\bsince\s+(?:when|which|what)\b|\bsince\s*\?|\bhow\s+long\s+(?:has|have)\b",
                    re.IGNORECASE)
_COMPARED = re.compile(r"\bcompared\s+(?:to|with)\b|\bvs\.?\b|\bversus\b", re.IGNORECASE)
# What one release allows that the other did not: "which X can I list in 3.5 that I couldn't in 2.53?".
_CONTRAST = re.compile(r"\bthat\s+(?:i|you|we)\s+(?:couldn'?t|could\s+not|can'?t|cannot)\b|\bthat\s+(?:weren'?t|"
                       r"were\s+not|wasn'?t|was\s+not)\s+(?:there|available|allowed|possible|supported)\b",
                       re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+(?:\w+\s+)?v?\d[\w.]*\s+(?:to|->|→)\s+(?:\w+\s+)?v?\d", re.IGNORECASE)
_NEWS = re.compile(r"\b(?:anything|something|what'?s|what\s+is)\s+new\b", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:what|which|how|where|why|who)\b", re.IGNORECASE)
_WHEN_USE = re.compile(r"\bwhen\s+(?:should|do|does|can|would|will|to|is\s+it|are)\b|\bwhen\s+(?:i|you|we|it)\b",
                       re.IGNORECASE)


def cue_kind(question: str, named: int) -> str | None:
    """The timeline kind a question about a held term asks by a cue the stricter phrasings miss, else None.

    Two releases named: "same/unchanged ... A and B?" did it change; "X in A compared to B" (asking nothing else)
    what changed. One: "X gone in Y?" its removal, "was X added in Y?" its coming, "is X still listed / did X exist
    back in Y?" whether Y has it. A time asked in any words ("X added when?", "how long has X been around", "which
    version stopped documenting X") with what it asks of the term; "X - deprecated?" its deprecation. "When should I
    use X?" asks no time."""
    if _HOW_TO.search(question) or _ONE_THING.search(question):
        return None
    yes_no = bool(YESNO_CLAUSE.search(question)) or not _ASKS.search(question) and question.rstrip().endswith("?")
    if named >= 1 and yes_no and _MOVED.search(question):  # "did X's capacity go up in 3.5.0?": its value
        return "did_change"
    if named == 0 and _WHICH_OF.search(question):  # "which of the etcd versions document X", "X: all three?"
        return "which_releases"
    if named >= 1 and _WHICH_LISTED.search(question) and not (GONE.search(question) or CAME.search(question)):
        return "which_releases"  # which of the releases listed document it; "which of 3.5 / 3.6 dropped X" is not
    if named == 2:
        if _SAME.search(question):
            return "did_change"
        if _CONTRAST.search(question):  # what changed between the two, about the term
            return "changed_between"
        if _FROM_TO.search(question) and re.search(r"\bdefaults?\b", question, re.IGNORECASE) \
                and not _ASKS.search(question):  # "X default from 3.4 to 3.6?": its value
            return "did_change"
        if _COMPARED.search(question) and not _ASKS.search(question):  # "X default, 2.45 vs 3.5": its value
            return "did_change" if re.search(r"\bdefaults?\b", question, re.IGNORECASE) else "changed_between"
        return None
    if named <= 1 and _ASKED_DEPRECATED.search(question):
        return "deprecated"
    timed = bool(_TIME.search(question)) and not _WHEN_USE.search(question)
    if named == 1 and _NEWS.search(question):  # "anything new for remote write in 3.5?": its changes
        return "changed_in"
    if named == 1 and (yes_no or timed):
        if GONE.search(question) or _DID_DROP.search(question):
            return "removed"
        if CAME.search(question) or timed and CAN.search(question):
            return "introduced"
        if STILL.search(question) or PRESENT.search(question) or _IN_Y.search(question) or \
                yes_no and _USABLE.search(question) or _WORKS.search(question) or _TOO.search(question):
            return "in_release"
        return None
    if named == 0 and (timed or yes_no):
        if GONE.search(question):
            return "removed"
        if re.search(r"\bdeprecat", question, re.IGNORECASE):
            return "deprecated"
        if (CAME.search(question) or CAN.search(question)) and timed or _SINCE.search(question):
            return "introduced"
        if STILL.search(question):
            return "removed"
        if _TIME_LAST.search(question):  # "lease checkpoint persist gate - which release": when it came
            return "introduced"
    return None
