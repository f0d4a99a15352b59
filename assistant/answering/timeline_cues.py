"""Shapes of change questions (issue 16) read from what a question says: a listing of what a release added or removed
("which feature gates came with 3.6?", "what new scrape options did 2.53 bring?"), releases offered as alternatives
("X, new in 3.5 or older?"), "same in A and B?", the releases a "which of A / B" lists, and a yes/no that asks
nothing else. The kind of a question about one term is decided in one place, timeline_evidence.decide_kind (round
10 retired this module's `cue_kind` into it).
"""

from __future__ import annotations

import re

from assistant.answering.timeline_words import YESNO_CLAUSE

__all__ = ["comparison_fragment", "listing", "either_kind", "asks_same", "asks_yes_no", "listed_releases", "ASKS", "HOW_TO", "ONE_THING", "SAME",
           "WHICH_LISTED"]

ONE_THING = re.compile(r"\b(?:in\s+favou?r\s+of|instead\s+of|in\s+place\s+of|replac\w*|succeed\w*|supersed\w*)\b",
                        re.IGNORECASE)
# "Which flags were added in 3.6?", "what went away in prom 3.5?": a list of changes, no one term asked about
# (never "which release was X added": the thing listed is no release or version).
_LISTING = re.compile(r"\b(?:which|what)\s+(?P<what>(?:(?!releases?\b|versions?\b)[\w\-]+\s+){0,3}?)(?:(?:were|was|got|"
                      r"have\s+been|has\s+been|are|is)\s+(?P<verb>added|removed|dropped|deprecated|introduced|new|gone|"
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
    if ONE_THING.search(question):
        return None
    m = _LISTING.search(question)
    if m is not None:
        nouns = [w for w in m.group("what").split() if w.lower() not in ("the", "a", "an", "of", "new")]
        if nouns and not nouns[-1].lower().endswith("s") and re.match(r"(?:is|was|has)\b", question[m.end("what"):],
                                                                       re.IGNORECASE):
            return None
        verb = "added" if m.group("came") else (m.group("verb") or "removed").lower().replace("gone", "removed")
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
    if not _EITHER.search(question) or ASKS.search(question) or HOW_TO.search(question):
        return None
    if re.search(r"\bdeprecat", question, re.IGNORECASE):
        return "deprecated"
    return "removed" if _GONE_ASKED.search(question) else "introduced"


SAME = re.compile(r"\bsame\b|\bunchanged\b|\bidentical\b", re.IGNORECASE)


def asks_same(question: str) -> bool:
    """"X: same default in A and B?" asks whether it stayed, so its yes means unchanged (the opposite of "did X
    change?")."""
    return bool(SAME.search(question))


HOW_TO = re.compile(r"\bhow\s+(?:do|can|should|would|could)\s+(?:i|we|you)\b|\bhow\s+to\b", re.IGNORECASE)

# Asks for more than yes or no: a wh-word, or another thing in the term's place ("is there an alternative to X in
# 3.5?" is answered by naming one, not by X's absence).
_ASKS_MORE = re.compile(r"\b(?:what|which|how|where|why|who|when|alternatives?|equivalents?|instead|replac\w*|"
                        r"similar|workarounds?|substitutes?)\b", re.IGNORECASE)


def asks_yes_no(question: str) -> bool:
    """A question answered "yes" or "no" that asks nothing else (no what/which/how/when): "can i switch on X via
    --feature-gates on etcd 3.5", "X - does 2.53 support reading it from a file"."""
    return bool(YESNO_CLAUSE.search(question)) and not _ASKS_MORE.search(question)

# The releases listed with "which" asked of them: "which of 3.4 / 3.5 / 3.6 document X", "2.45, 2.53 or 3.5: which
# have X?", "in which of etcd 3.5 and 3.6 is X listed".
_REL = r"(?:v|version\s+|release\s+)?\d+\.\d+(?:\.\d+)?"
_RELS = rf"{_REL}(?:\s*(?:/|,|&|\bor\b|\band\b|,\s*or\b|,\s*and\b)\s*{_REL})+"
_DOCUMENT = r"(?:have|has|had|document\w*|list\w*|includ\w*|mention\w*|ship\w*|support\w*|contain\w*|carr\w*)"
WHICH_LISTED = re.compile(rf"\bwhich\s+of\s+(?:the\s+)?(?:[a-z]+\s+)?{_RELS}|{_RELS}\s*[:\-–—,?]+\s*which\b"
                           rf"(?:\s+(?:of\s+them\s+|ones?\s+)?{_DOCUMENT}\b|\s*\?*\s*$)", re.IGNORECASE)


def listed_releases(question: str, held: list[str]) -> list[str]:
    """The held releases a "which of A / B / C" question lists ("3.5" is v3.5 or v3.5.0), in held order; [] when it
    lists none."""
    m = WHICH_LISTED.search(question)
    said = {t.lower().lstrip("v") for t in re.findall(r"\d+\.\d+(?:\.\d+)?", m.group(0))} if m else set()
    return [r for r in held if any(r.lower().lstrip("v") == t or r.lower().lstrip("v").startswith(t + ".")
                                   for t in said)]


ASKS = re.compile(r"\b(?:what|which|how|where|why|who)\b", re.IGNORECASE)


# A topic in a few words, then the two releases and nothing more: "urlize filter between 2.11 and 3.0", "password
# hashing default 2.0.3 vs 3.0.6". Anything asked of it in words (how, why, which, a verb) is no such fragment.
_FRAGMENT = re.compile(r"^\s*(?P<what>[A-Za-z][\w/.\-]*(?:\s+[A-Za-z][\w/.\-]*){0,3}?)\s*[:,\-–—]?\s*"
                       r"(?P<pair>between\s+(?:\w+\s+)?v?\d[\w.]*\s+and|(?:in\s+)?(?:\w+\s+)?v?\d[\w.]*\s+"
                       r"(?:vs\.?|versus|and|->|→))\s+(?:\w+\s+)?v?\d[\w.]*\s*\??\s*$", re.IGNORECASE)
_ASKED_IN_WORDS = re.compile(r"\b(?:how|why|what|which|when|where|who|is|are|does|do|did|can|should|was|were)\b",
                             re.IGNORECASE)


def comparison_fragment(question: str) -> str | None:
    """A fragment of one to four words compared between two releases, asked as the parser reads a comparison ("how
    did urlize filter change between 2.11 and 3.0?"); None for any other question. One word is the parser's own
    (timeline_evidence._BETWEEN_ONLY)."""
    m = _FRAGMENT.match(question)
    if m is None or _ASKED_IN_WORDS.search(m.group("what")):
        return None
    rest = question[m.start("pair"):].strip().rstrip("?")
    if not rest.lower().startswith("between"):
        rest = "between " + re.sub(r"\s+(?:vs\.?|versus|and|->|→)\s+", " and ", re.sub(r"^in\s+", "", rest))
    return f"how did {m.group('what')} change {rest}?"
