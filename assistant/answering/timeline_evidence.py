"""Timeline questions decided by the timeline's evidence, not by their verbs (issue 16, fifth round).

Three rounds of cue phrases (timeline_cues.py) each fixed about a quarter of what fresh questions brought: "whether"
questions in words nobody anticipated ("X: does 3.5 understand it?", "any X knob in 3.6?") fell to search. Here the
question is read for what it names, a term the timeline holds and the releases, and the timeline decides:

- one release named and the term documented in some releases but not all: whether that release has it (in_release),
  answered yes or no with the releases that do have it; a term every release documents alike is left to search
  ("--snapshot-count in 3.5?" asks its meaning or value, which search answers). A "no" (the release lacks it)
  answers a question that asks one more thing of the term ("does 3.5 understand X?", "would 2.53 take X?"); a
  "yes" answers only a question that asks nothing but its presence ("X with 3.6, documented?"): "does X need a
  feature flag in 3.5?" asks more than a yes on its presence gives, and a value ("X default in 3.5?") is searched;
- two releases named: a comparison of the term between them (its value when a value is asked, else what changed);
  identical releases are answered "the same", with both cited.

Only questions that ask no "how", "why", "what is" or "which <noun>" (another thing than the term's presence), and
no symptom ("fails", "error"), are read this way: those stay ordinary questions whatever the evidence.
"""

from __future__ import annotations

import re

from assistant.answering.timeline_cues import ASKS, HOW_TO, ONE_THING, SAME, WHICH_LISTED, either_kind, listing
from assistant.answering.timeline_words import (CAME, CAN, DEPRECATED, FATE, GONE, INTRODUCED, OTHERS, PRESENT, QUESTION,
                                               REMOVED, STILL, STOP, TIME, USABLE, YESNO_CLAUSE, YESNO_LEAD, stem,
                                               words_of)

__all__ = ["decide_kind", "evidence_kind", "may_decide", "may_take", "propose", "unasked_words"]

# A how-to, an explanation, a symptom: search answers these, whatever the timeline holds.
# "What's new / different / the story with X" asks about the term itself.
_HOW_WHY = re.compile(r"\b(?:how|why|where|who)\b|\bwhat\s+(?:is|are|was|does|do|did|means?)\b|\bwhat'?s\s+(?!new\b|"
                      r"different\b|(?:the\s+)?(?:story|deal|situation|status)\b)|\bcan\s+(?:i|we|you)\s+(?:set|change|"
                      r"adjust|tune)\b|"
                      r"\b(?:configur\w*|set\s*up|setting\s+up|explain\w*|examples?|tutorial|steps?|install\w*|"
                      r"troubleshoot\w*|debug(?!ger)\w*|meaning|purpose|recommend\w*|best\s+practices?|tune|tuning)\b",
                      re.IGNORECASE)
_SYMPTOM = re.compile(r"\b(?:errors?|fail\w*|crash\w*|panic\w*|warn(?:s|ing)?|broken|stuck|slow|hang\w*|timed?\s+out|"
                      r"refus\w*|reject\w*|denied|invalid|unknown|cannot|can'?t|won'?t|doesn'?t|isn'?t\s+working)\b",
                      re.IGNORECASE)
# "Which flag ...", "what tool ...", "what happened to X in 2.45" (its fate, timeline_words.FATE decides): another
# thing asked for, not the term's place in the releases. "What about X", "what's new", "what changed", "what's
# different", "what's the story" ask about the term itself.
_ASKS_FOR = re.compile(r"\b(?:which|what)\s+(?!(?:about|changed|new|different)\b)[\w\-]", re.IGNORECASE)
# A value asked: compare the term's value (value_changes.did_change), not its sections.
_VALUE = re.compile(r"\b(?:defaults?|values?|limits?|sizes?|set\s+to|equals?)\b", re.IGNORECASE)
_RELEASE = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")
# A change asked of one release ("does 3.6 remove X?", "did 3.5 add X?"): presence answers it only when the release
# lacks the term ("No"); a "yes" would answer a question nobody asked. The cue rules own the other readings.
_CHANGE = re.compile(r"\b(?:adds?|added|remov\w*|introduc\w*|drop\w*|deprecat\w*|renam\w*|replac\w*)\b", re.IGNORECASE)
# Two releases compared in words ("same in 2.53 and 3.5?", "3.5 vs 3.6", "across", "different"); without such a word, or a value
# asked, a question asking anything more of two releases ("can I run 3.4 and 3.5 members in one cluster?", "2.53 to
# 3.5: will my rules keep working?") is one for search.
_COMPARING = re.compile(r"\b(?:across|differ\w*|same|identical|mov(?:e|ed)|vs\.?|versus|compar\w*|between|chang\w*)\b",
                        re.IGNORECASE)
# A word written as code (a flag, key, path, dotted name): a name, whatever its parts say.
_CODE = re.compile(r"[^\s,;:?()]*\w[_\-.=/]\w[^\s,;:?()]*")
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)*\b")
# Words of asking (beside timeline_words.STOP) that ask nothing of the term.
_ASKING = {"would", "will", "should", "present", "too", "also", "really", "yet", "okay", "knob", "knobs", "yes", "right",
           "correct", "true",
          # where in the docs it is asked ("the Allowed Hosts section in the 2.0.3 docs?"), as "docs" is
          "section", "sections", "heading", "chapter"}


def may_decide(question: str) -> bool:
    """Whether the evidence could make a timeline question of this one, read before routing and the timeline (cheap):
    it names a version and asks no how, why, what-is, which-noun or symptom, as a question, not a fragment."""
    versions = len(_RELEASE.findall(question))
    return versions > 0 and _asks_only_of_the_term(question, versions) and (versions > 1 or not _VALUE.search(question))


def _asks_only_of_the_term(question: str, named: int) -> bool:
    words = _CODE.sub(" ", question)  # "--experimental-warning-x" names no symptom
    asked = _ASKS_FOR.search(FATE.sub(" ", question) if named > 1 else question)
    return not (_HOW_WHY.search(words) or _SYMPTOM.search(words) or asked) and bool(QUESTION.search(question))


def unasked_words(question: str, term: str, product_words: set[str], passages: list[str] = ()) -> list[str]:
    """The question's content words that are not the term's parts, the product, a release, words of asking or words
    of the term's own lines and headings in the release asked about, the passage a "yes" cites (`passages`: "the
    keep_dropped_targets scrape setting" is under `<scrape_config>`); a release lacking the term has none:
    what else it asks of the term ("does sort_by_label need a feature flag in 3.5?": `need`)."""
    parts = {stem(p) for p in words_of(term)}
    known = {stem(w) for w in STOP | _ASKING | product_words} | {stem(w) for t in passages for w in words_of(t.lower())}
    short = tuple(p.lower() for p in product_words)  # "prom" for prometheus, as routing reads it
    out, mine = [], False
    for w in words_of(_VERSION.sub(" ", question)):
        product = len(w) >= 4 and any(p.startswith(w.lower()) for p in short) or w.lower() in short
        if mine and not product:  # "my etcd cluster", "our setup": the user's own system, asked nothing of
            mine = False
            continue
        mine = mine or w.lower() in ("my", "our")
        if len(w) >= 3 and stem(w) not in parts | known and not product:
            out.append(w)
    return out


def evidence_kind(question: str, named: int, documented: list[str], held: list[str], asked: str | None = None,
                  unasked: list[str] = ()) -> str | None:
    """The kind of timeline question the evidence makes of a question naming a held term and `named` releases, or
    None (search). `documented`: the releases whose docs hold the term (not only as history); `held`: all releases;
    `asked`: the one release named; `unasked`: what else the question asks of the term (`unasked_words`).

    One release: whether it has the term, when the releases differ on it. Two: how the term compares between them,
    its value when one is asked."""
    if not _asks_only_of_the_term(question, named):
        return None
    if named == 1:
        if not documented or set(documented) == set(held) or _VALUE.search(question):
            return None
        if asked in documented and _CHANGE.search(question):
            return None
        return "in_release" if len(unasked) <= (0 if asked in documented else 1) else None
    if named == 2:
        value = _VALUE.search(question)
        if unasked and not (value or _COMPARING.search(question)):
            return None
        return "did_change" if value else "changed_between"
    return None


# Round 10: the ONE decision for a question about a term (the phrase rules of timeline_questions._kind and
# timeline_cues.cue_kind retired into it). The cue words of timeline_words propose a kind (`propose`); where they
# propose none, the timeline's evidence on the term decides (a use asked of a release that differs on it,
# `evidence_kind`).
_NOT_THE_TERM = re.compile(r"\b(?:how|why|instead|replac\w*|alternatives?|equivalents?|successors?)\b", re.IGNORECASE)
_SET_TO = re.compile(r"\b(?:set|change|raise|lower|increase|decrease)\b[^?]*\bto\b", re.IGNORECASE)  # a value
_SHOULD = re.compile(r"\b(?:should|must|need|recommend\w*|upgrade|install\w*|download\w*|pick|choose)\b", re.IGNORECASE)
_USE_WORDS = re.compile(r"^(?:let|pass|set|use|enable|turn|run|take|understand|know|knows|accept|recogni[sz]e|still|"
                        r"anymore)$", re.IGNORECASE)
# Releases as such asked for ("which releases have X"), or chosen among ("which of the etcd versions", "all three").
_WHICH = re.compile(rf"\b(?:wh?ich|what|list(?:\s+the)?)\s+{OTHERS}(?:\w+\s+)?(?:releases|versions)\b"
                    r"|\b(?:every|each)\s+(?:\w+\s+)?(?:release|version)\b|\bwhich\s+of\s+the\s+(?:\w+\s+){0,2}"
                    r"(?:releases|versions)\b|\ball\s+(?:the\s+)?(?:three|3|held)\s+(?:\w+\s+)?(?:releases|versions)\b"
                    # the releases as the fragment's head: "versions with X?", "flask releases that have X"
                    rf"|^\s*{OTHERS}(?:\w+\s+)?(?:releases|versions)\s+(?:with|having|that\s+(?:have|has|document|"
                    r"support|include|mention|list)s?)\b", re.IGNORECASE)
# Its presence asked of one release in a question's shape: "is/does/can ... X there/supported/documented"; in fewer
# words, of a name (_IN_SHAPE): "X on 3.6, works?", "X: 3.4 too?", "X also in 2.45?", "X - in prom 2.45?", "X in 2.53,
# can i use it?", "can 2.53 delay ... (X flag)?".
_IN_RELEASE = re.compile(r"^\s*(?:is|are|does|do|can|has|was)\b.*\b(?:there|have|has|support\w*|use|using|exist\w*|"
                         r"include\w*|part\s+of|available|document\w*|know|offer\w*|provide\w*|accept\w*|ship\w*|"
                         r"a\s+thing|around|present|valid)\b", re.IGNORECASE)
_IN_SHAPE = re.compile(r"[,:\-–—]\s*(?:still\s+)?(?:works?|ok(?:ay)?|usable|valid)\s*\?\s*$|\bv?\d+(?:\.\d+)+\s+(?:too|"
                       r"also|as\s+well)\s*\?\s*$|\balso\s+(?:in|on)\s+(?:\w+\s+)?v?\d+(?:\.\d+)+\s*\?\s*$|[-:–—,]\s*(?:in|on)\s+"
                       r"(?:\w+\s+)?v?\d[\w.]*\s*\?\s*$", re.IGNORECASE)
_USABLE = re.compile(r"\bcan\s+(?:i|we|you)\s+(?:still\s+)?(?:use|enable|turn\s+on|pass)\b|^\s*can\s+(?:\w+\s+)?v?\d+(?:\.\d+)+"
                     r"\s+[a-z]", re.IGNORECASE)
# Its value moved ("did X's capacity go up in 3.5.0?"); two releases compared ("same", "X in A compared to B", "X
# default from A to B", "what X allows in 3.5 that I couldn't in 2.53").
_MOVED = re.compile(r"\b(?:go(?:ne)?\s+(?:up|down)|went\s+(?:up|down)|increas\w*|decreas\w*|raised|lowered|bump\w*|"
                    r"mov(?:e|ed|es)|shifted)\b", re.IGNORECASE)
_COMPARED = re.compile(r"\bcompared\s+(?:to|with)\b|\bvs\.?\b|\bversus\b", re.IGNORECASE)
_CONTRAST = re.compile(r"\bthat\s+(?:i|you|we)\s+(?:couldn'?t|could\s+not|can'?t|cannot)\b|\bthat\s+(?:weren'?t|"
                       r"were\s+not|wasn'?t|was\s+not)\s+(?:there|available|allowed|possible|supported)\b", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+(?:\w+\s+)?v?\d[\w.]*\s+(?:to|->|→)\s+(?:\w+\s+)?v?\d", re.IGNORECASE)
_DEFAULT = re.compile(r"\bdefaults?\b", re.IGNORECASE)
_NEWS = re.compile(r"\b(?:anything|something|what'?s|what\s+is)\s+new\b", re.IGNORECASE)
# Its deprecation asked as a clause of its own ("X - deprecated?", "... or is it deprecated").
_ASKED_DEPRECATED = re.compile(r"\bdeprecat\w*(?:\s+(?:in|on|as\s+of|since)\s+(?:\w+\s+)?v?\d[\w.]*)?\s*\?"
                               r"|\bor\s+(?:is|was|has)\s+(?:it|that|this)\s+(?:been\s+|now\s+)?deprecat\w*", re.IGNORECASE)
_DID_DROP = re.compile(r"\bdid\b.*\b(?:drop|remove|delete|retire)\b", re.IGNORECASE)  # "did 3.6 drop X?"
_TIME_LAST = re.compile(r"[-:–—,]\s*(?:in\s+)?(?:which|what)\s+(?:\w+\s+)?(?:release|version)\s*\??\s*$",
                        re.IGNORECASE)  # "lease checkpoint persist gate - which release"


# "Different" before a noun is an adjective ("set different log levels per package"), not a change asked about.
_CHANGED = re.compile(r"\bchang\w*|\bdiffer(?:s|ed|ing|ences?)?\b|\bdifferent(?!\s+(?!(?:from|in|between|than|across|"
                      r"after|before|now|to|about)\b)[a-z])|\bthe same\b|what'?s new|\bnew in\b(?!\s+(?:which|what)\b)"
                      r"(?=.*\b(?:release|version|v?\d))|"
                      r"\b(?:reorgani[sz]|restructur|rework|rearrang|evolv)\w*", re.IGNORECASE)


def _change_kind(question: str, has_term: bool, named: int, named_term: bool = True) -> str | None:
    """The kind a change question's phrasing asks (what changed in or between releases, a listing, releases offered
    as alternatives, a term's fate), else None."""
    if has_term and named_term and named in (1, 2) and (either := either_kind(question)):
        return either  # "X, new in 3.5 or older?", "X: 3.5 or 3.6?": which release it belongs to
    if has_term and named == 2 and re.search(r"\bbec[oa]me\s+(?:the\s+)?default\b", question, re.IGNORECASE):
        return "did_change"  # "did pre-vote become the default between 3.4 and 3.5?"
    if has_term and named == 2 and _BETWEEN_ONLY.match(question):
        return "changed_between"  # "resultcallback between 8.0.0 and 8.1.7": one word and the two releases, no more
    if named == 2 and re.match(r"\s*(?:compare|diff)\b", question, re.IGNORECASE):  # "compare X in 3.4 and 3.6"
        return "changed_between"  # never "what flag enables X in 2.53 versus 3.5?": one thing asked, searched
    if has_term and named != 1 and FATE.search(question):  # "what happened to X in 2.45?" is searched
        return "changed_between" if named == 2 else "removed"
    if _CHANGED.search(question) and not HOW_TO.search(question):  # "how do I change X?" is a how-to
        # "Did the X default change", "how did the X default change": its value; "how did the X defaults
        # change": the settings X holds, what changed.
        if has_term and named and re.search(r"\bdefault\b", question, re.IGNORECASE) or \
                has_term and named and YESNO_LEAD.search(question) and re.search(r"\bdefaults\b", question, re.IGNORECASE):
            return "did_change"
        if has_term and (YESNO_LEAD.search(question) or re.search(r"\bthe same\b", question, re.IGNORECASE)):
            return "did_change" if named else None
        if named == 2:
            return "changed_between"
        return "changed_in" if named == 1 else None
    if named and listing(question):
        return "changed_between" if named == 2 else "changed_in"
    return None


# A fragment that is one word (the term), then the two releases it is compared between, and nothing more ("X between A
# and B", "X: A vs B?"); anything asked of it in words (how, why, which) is no fragment of this shape.
_BETWEEN_ONLY = re.compile(r"^\s*[^\s?]+\s*[:,\-–—]?\s*(?:between\s+(?:\w+\s+)?v?\d[\w.]*\s+and|(?:in\s+)?"
                           r"(?:\w+\s+)?v?\d[\w.]*\s+(?:vs\.?|versus|and))\s+(?:\w+\s+)?v?\d[\w.]*\s*\??\s*$",
                           re.IGNORECASE)


# A flag, a snake_case or hyphenated name, whose parts are no cue words ("a v2-deprecation mode ... first documented
# in which release" asks when the mode came, not when something was deprecated).
_NAMES = re.compile(r"(?<![\w-])--[\w.\-=/]+|\b[A-Za-z]\w*(?:_\w+)+(?:\(\))?|\b[A-Za-z]\w*(?:-[A-Za-z0-9]\w*)+")


def propose(question: str, named: int, a_name: bool = True, has_term: bool = True) -> str | None:
    """The kind the question's cue words propose for a term, with `named` releases named, or None. Any term: a time
    asked with its going, deprecation or coming ("when was X removed", "since which release is X available"), the
    releases asked for, its presence in one release in a question's shape. A name (`a_name`: a flag, key, heading,
    not a plain word of the question) also in fewer words: "X gone in 3.6?", "X - deprecated?", "X: same default in A
    and B?", "X in A compared to B", "anything new for X in 3.5?", "how long has X been around"."""
    kind = _change_kind(question, has_term, named, a_name)  # what changed in a release or between two, its fate
    if kind or not has_term:
        return kind
    question = _NAMES.sub("X", question)  # "--enable-feature=agent" says no "enable"
    timed = bool(TIME.search(question))
    if timed and REMOVED.search(question):
        return "removed"
    if DEPRECATED.search(question) and (timed or YESNO_LEAD.search(question)):
        return "deprecated"
    if _WHICH.search(question):
        return "which_releases"
    if timed and INTRODUCED.search(question):
        return "introduced"
    if named == 1 and _IN_RELEASE.search(question):
        return "in_release"
    if not a_name or HOW_TO.search(question) or ONE_THING.search(question):
        return None
    yes_no = bool(YESNO_CLAUSE.search(question)) or not ASKS.search(question) and question.rstrip().endswith("?")
    if named >= 1 and yes_no and _MOVED.search(question):
        return "did_change"
    if named >= 1 and WHICH_LISTED.search(question) and not (GONE.search(question) or CAME.search(question)):
        return "which_releases"  # which of the releases listed document it; "which of 3.5 / 3.6 dropped X" is not
    if named == 2:
        if SAME.search(question):
            return "did_change"
        if _CONTRAST.search(question):
            return "changed_between"
        if (_FROM_TO.search(question) and _DEFAULT.search(question) or _COMPARED.search(question)) and \
                not ASKS.search(question):
            return "did_change" if _DEFAULT.search(question) else "changed_between"
        return None
    if named <= 1 and _ASKED_DEPRECATED.search(question):
        return "deprecated"
    if named == 1 and _NEWS.search(question):
        return "changed_in"
    if named == 1 and (yes_no or timed):
        if GONE.search(question) or _DID_DROP.search(question):
            return "removed"
        if CAME.search(question) or timed and CAN.search(question):
            return "introduced"
        if STILL.search(question) or PRESENT.search(question) or _IN_SHAPE.search(question) or \
                yes_no and _USABLE.search(question):
            return "in_release"
    if named == 0 and (timed or yes_no):
        if GONE.search(question):
            return "removed"
        if DEPRECATED.search(question):
            return "deprecated"
        if (CAME.search(question) or CAN.search(question)) and timed:
            return "introduced"
        if STILL.search(question):
            return "removed"
        if _TIME_LAST.search(question):
            return "introduced"
    return None


def may_take(question: str) -> bool:
    """Cheap, before routing: whether `decide_kind` could take the question (a kind the cue words propose, or a use
    asked of a named release)."""
    return any(propose(question, n) for n in (0, 1, 2)) or bool(_RELEASE.search(question) and USABLE.search(question)) \
        or bool(TIME.search(question) and not _RELEASE.search(question))


def decide_kind(question: str, named: int, documented: list[str] | None, held: list[str], asked: str | None = None,
                unasked: list[str] = (), a_name: bool = True, has_term: bool = True) -> str | None:
    """The kind of a timeline question about a term, or None (search). `documented`: the releases whose docs hold
    the term (None: a plain word of the question, read by its cue words alone); `held`: all releases, oldest first;
    `asked`: the one release named; `unasked`: what else the question asks of the term (`unasked_words`).

    - the kind the cue words propose (`propose`);
    - else, no release named and a time asked in words no cue knows: the releases that document it decide;
    - else one release named and a use asked ("will 3.5 let me pass X", "X - can I set it in 2.53", "does 3.5
      understand X"): whether that release has it, when the releases differ on it;
    - else what the evidence alone makes of it (`evidence_kind`)."""
    kind = propose(question, named, a_name, has_term)
    words = _CODE.sub(" ", question)
    if kind or not documented or _NOT_THE_TERM.search(words) or _SYMPTOM.search(words):
        return kind
    if named == 0 and TIME.search(words) and not _HOW_WHY.search(words) and not _SHOULD.search(words):
        # A time asked in words no cue knows ("X was born in which version", "X taken out when"): the releases
        # decide, its coming when the oldest lacks it and the newest has it, its going the other way round.
        if held[0] not in documented and held[-1] in documented:
            return "introduced"
        if held[0] in documented and held[-1] not in documented:
            return "removed"
        return None
    if named == 1 and set(documented) != set(held) and not (_VALUE.search(question) or _SET_TO.search(words)) and \
            (USABLE.search(words) or STILL.search(words) or PRESENT.search(words)) and \
            (asked not in documented or len([w for w in unasked if not _USE_WORDS.match(w)]) == 0):
        return "in_release"
    return evidence_kind(question, named, documented, held, asked, unasked) if named else None
