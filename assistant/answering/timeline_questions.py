"""Timeline questions (issue 16) answered from the release timeline with citations, no search and no LLM call:
when a term was introduced, removed or deprecated, whether it is in a release, which releases have it. Change
questions (what changed in a release, between two, did a term change) are answered in change_questions.py.

A question is one only when it names a term the product's docs hold (a flag, key, metric, path or, failing those,
its rarest word found in the docs) and asks about releases in so many words; "what is the default
--snapshot-count in 3.5?" names no timeline ("when", "since", "which releases", "removed"...) and is searched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from assistant.answering import citations as cite
from assistant.answering.product_names import ProductNames
from assistant.answering.routing import detect
from assistant.answering.timeline_cues import asks_same, listed_releases, listing
from assistant.answering.timeline_evidence import decide_kind, may_decide, may_take, propose, unasked_words
from assistant.answering.timeline_varying import swap
from assistant.answering.timeline_words import (FATE, REMOVED, STOP, TIME, code_word, find_term, heading_match,
                                               stated_release, words_of)
from assistant.library.catalogue import ProductInfo
from assistant.library.diffs import history_version, is_release_notes, release_of
from assistant.library.terms import identifiers, is_identifier, normal_term, qualified_pattern, token_pattern
from assistant.library.timeline import Occurrence, Timeline
from assistant.library.versions import sort_releases

__all__ = ["Cited", "TimelineAnswer", "TimelineQuestion", "parse_timeline_question", "answer_term_question", "spelled",
           "term_lines", "excerpt", "phrase_kind"]

Kind = Literal["introduced", "removed", "deprecated", "in_release", "which_releases", "changed_in",
               "changed_between", "did_change"]

@dataclass(frozen=True)
class TimelineQuestion:
    kind: Kind
    product: str
    term: str | None          # None: a change question about a whole release
    releases: list[str]       # the releases the question names, oldest first
    all_releases: list[str]   # every release of the product the timeline holds, oldest first
    topic: list[str] = field(default_factory=list)  # other words, to narrow a change question
    product_source: str = "named"  # as routing says (named, alias, pinned...), or "inferred" from the term's docs
    listing: tuple[str, str] | None = None  # "which flags were removed": ("flags", "removed"), what to list
    place: str | None = None  # a heading said in words: its section's last two heading levels, where to read it
    asks_same: bool = False  # "same in A and B?": a yes means unchanged


@dataclass(frozen=True)
class Cited:
    """A passage an answer cites: opens like any source (release, file, section) in the chat."""

    release: str
    path: str
    section: str
    text: str


@dataclass
class TimelineAnswer:
    kind: Kind
    product: str
    term: str | None
    answer: str
    releases: list[str]       # the release(s) the answer is about, the one it names first first
    cited: list[Cited] = field(default_factory=list)  # [n] in the answer is cited[n - 1]
    missing: bool = False     # nothing in the library supports an answer
    product_source: str = "named"
    absent_in: list[str] = field(default_factory=list)  # the asked release(s) that lack the term (an answer "No")
    other_releases: list[str] = field(default_factory=list)  # then: the releases that do have it

    def knowledge(self) -> dict:
        """The knowledge verdict (knowledge.KnowledgeVerdict's fields) this answer carries. Missing when the library
        holds nothing on the term, and when the release asked about lacks it: the user gets the not-covered warning,
        naming the releases that do document it."""
        if self.absent_in:
            where = f"{self.product} {' and '.join(self.absent_in)}"
            return {"missing": True, "relevance": 0.0, "absent_terms": [self.term], "other_releases":
                    self.other_releases, "reason": f"`{self.term}` is not documented in {where}"
                    + (f"; it is in {', '.join(self.other_releases)}" if self.other_releases else "")
                    + " (release timeline)"}
        reason = "the release timeline" + (" holds nothing on it" if self.missing else f" ({len(self.cited)} passages)")
        return {"missing": self.missing, "reason": reason, "relevance": 0.0 if self.missing else 1.0,
                "absent_terms": [self.term] if self.missing and self.term else [], "other_releases": []}

    def sources(self) -> list[cite.Source]:
        """The cited passages as the answer's sources, numbered as the answer cites them."""
        return [cite.Source(n=i, product=self.product, release=c.release, path=c.path, page=None, section=c.section,
                            title="", score=1.0, text=c.text) for i, c in enumerate(self.cited, start=1)]

    def query(self) -> str:
        """The question as the timeline reads it (shown as the rewritten query)."""
        return " ".join(x for x in (self.kind.replace("_", " "), self.term or "", self.product, *self.releases) if x)

    def cite(self, c: Cited) -> str:
        """The marker of a passage, adding it once."""
        if c not in self.cited:
            self.cited.append(c)
        return f"[{self.cited.index(c) + 1}]"


# -- parsing ------------------------------------------------------------------------------------------------------
def phrase_kind(question: str, has_term: bool, named: int) -> Kind | None:
    """The kind its words ask, for a term or none, before any evidence (timeline_search reads it)."""
    return propose(question, named, has_term=has_term)


def parse_timeline_question(question: str, catalogue: list[ProductInfo], timeline: Timeline, *,
                            pinned_product: str | None = None) -> TimelineQuestion | None:
    """The timeline or change question this is, or None for any other question."""
    if len(question) > 300 or not catalogue:
        return None
    # Cheap first: a question no term could make a timeline question is never looked up in the timeline.
    if not may_decide(question) and not may_take(question):
        return None
    routing = detect(question, catalogue, pinned_product=pinned_product)
    first_product = routing.product
    held = set(timeline.products())
    products = [routing.product] if routing.product else [c.name for c in catalogue]
    products = [p for p in products if p in held]
    if not products:
        return None
    spans = [(m.start(), m.end()) for raw in routing.mentions  # "v2" in "v2-deprecation" is the name's
             for m in re.finditer(rf"(?<!-){re.escape(raw)}(?!-)", question, re.IGNORECASE)]
    # Derived aliases too: "jinja" names jinja2 (routing reads it so), never a term or a topic of its docs.
    product_words = {w.lower() for c in catalogue for w in [c.name, c.display_name, *c.aliases]} | \
        ProductNames(catalogue).spellings
    term, product = find_term(question, spans, timeline, products, product_words)
    if product is None:
        if term is None and len(products) == 1:
            product = products[0]
        else:
            return None
    if routing.product is None:
        routing = detect(question, catalogue, pinned_product=product)
    # Releases the question names: a release routing chose by default (the newest) is no release asked about.
    named = sort_releases(routing.releases) if routing.product == product and routing.mentions else []
    # Two names said, the one found in every release: its coming or presence is asked of the other (timeline_varying).
    others = [x for x in products if x != product and not first_product]  # no product named: the one holding both
    term, context, product, named = swap(question, term, [product, *others], named, catalogue, timeline,
                                         product_words) if term is not None else (term, None, product, named)
    # A name, not one plain word of the question as it stands ("behaviour"): cues in any words apply to it.
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    # A name as the question writes it, too: "JSONEncoder" is CamelCase there, the timeline keys it "jsonencoder".
    written = re.search(r"(?<![\w-])" + re.escape(term) + r"(?![\w-])", question, re.IGNORECASE) if term else None
    a_name = term is not None and (bool(identifiers(term)) or bool(re.search(r"[\s_\-.]", term)) or term.lower() not
                                   in said or written is not None and bool(identifiers(written.group(0)))
                                   or bool(timeline.page_releases(product, term)))  # a page's file: "bashcomplete"
    # "SetMemberLocalAddr gate, introduced when?": a CamelCase name; with a release named, the knowledge check's "No"
    # spells it as asked.
    spelled = re.search(re.escape(term), question, re.IGNORECASE) if term and not named else None
    # The one decision (timeline_evidence.decide_kind): the cue words propose, the timeline's evidence decides. A name
    # ("limitk" written as code too) brings its evidence; a plain word only its cue words.
    documented, unasked = None, []
    if term is not None and (context or a_name or code_word([term], timeline, [product]) or
                             spelled is not None and identifiers(spelled.group(0))):
        r = _Reader(timeline, TimelineQuestion("in_release", product, term, named, timeline.releases(product)))
        documented = r.releases(live=True) or r.releases()
        unasked = unasked_words(question, term, product_words | set(words_of(context or "")), [
            o.heading + "\n" + "\n".join(r.lines(o)) for o in r.occ if o.release == named[0]][:40]) if named else []
    kind = decide_kind(question, len(named), documented, timeline.releases(product), named[0] if named else None,
                       unasked, a_name, term is not None)
    if kind is None and len(named) == 1 and term is not None and is_identifier(term) and FATE.search(question) \
            and _fate_of(question, term, product_words) and not _DOC.search(question):
        # "What became of --x in 3.6?" (no guide asked about): its removal when 3.6 never names it, else what the
        # notes and the diff of 3.6 say of it.
        kind = "changed_in" if named[0] in {o.release for o in timeline.occurrences(product, term)} else "removed"
    if kind is None or kind == "removed" and not named and not _fate_of(question, term):
        return None
    rels = timeline.releases(product)
    if kind == "which_releases" and len(listed := listed_releases(question, rels)) >= 2:
        named = listed  # "which of 3.5 / 3.6 document X": answered among those listed
    if kind == "changed_in" and named[0] in rels[:-1] and \
            re.search(r"\b(?:after|since)\s+(?:\w+\s+)?v?\d", question, re.IGNORECASE):
        kind, named = "changed_between", [named[0], rels[rels.index(named[0]) + 1]]  # "changed after 3.4?"
    if kind in ("changed_in", "changed_between") and term is not None and not identifiers(term) \
            and len(timeline.occurrences(product, term)) > 40:
        term = None  # a common word is a topic, not a term
    if kind in ("changed_in", "changed_between") and term is not None and not identifiers(term) \
            and listing(question):
        term = None  # "which flags were added in 3.6?": the words say what to list, they name no term
    place = None
    if kind in ("introduced", "removed", "deprecated", "in_release", "which_releases") and term is not None \
            and not identifiers(term) and not context:  # plain words: a heading path the question says more of
        found = heading_match(question, timeline, [product])
        if found and found[0] != term and len(found[1].split()) > len(term.split()):
            term, place = found[0], found[1]
    topic = [w for w in re.findall(r"[a-z][\w\-]+", question.lower()) if w not in STOP and w not in product_words
             and len(w) >= 4]
    source = routing.product_source if first_product else "inferred"
    listed = listing(question) if kind in ("changed_in", "changed_between") and term is None else None
    listed = (" ".join(w for w in listed[0].split() if w.lower() not in product_words), listed[1]) if listed else None
    return TimelineQuestion(kind, product, term, named, timeline.releases(product), topic, source, listed, place,
                            asks_same(question))


_DOC = re.compile(r"\b(?:guides?|docs|documentation|pages?|notes|changelog|readme)\b", re.IGNORECASE)
_KIND_NOUNS = {"command", "commands", "subcommand", "key", "keys", "api", "guide", "variable", "parameter", "section",
               "heading", "chapter"}


def _fate_of(question: str, term: str | None, ignore: set[str] = frozenset()) -> bool:
    """A removal asked in so many words, or "what happened to X?" whose object is the term and nothing else ("what
    happened to etcdctl migrate?"; never "what happened to my scrapes after the upgrade?")."""
    fate = FATE.search(question)
    if fate is None or REMOVED.search(question) and TIME.search(question):
        return True
    if term is None:
        return False
    said = {w.lower() for w in re.findall(r"[A-Za-z][\w\-]*", question[fate.end():])} - STOP - _KIND_NOUNS - ignore
    parts = {w.lower() for w in re.findall(r"[A-Za-z][\w\-]*", term)}
    return is_identifier(term) and said <= parts | {term.lower().lstrip("-")} or said <= parts


# -- reading the docs ---------------------------------------------------------------------------------------------
def spelled(name: str, text: str) -> str:
    """A name as `text` first writes it (`SESSION_COOKIE_SAMESITE` for the timeline's `session_cookie_samesite`),
    else as given."""
    m = token_pattern(name).search(text) if name else None
    return m.group(0) if m else name


def term_lines(text: str, term: str) -> list[int]:
    """Indexes of the lines of `text` that hold the term as a whole token; for a bare API name that no line holds
    whole, the lines that qualify it (`MultiCommand.resultcallback`), as `Timeline.occurrences` finds them."""
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if token_pattern(term).search(line)]
    if not hits and (qualified := qualified_pattern(term)):
        hits = [i for i, line in enumerate(lines) if qualified.search(line)]
    return hits


def excerpt(text: str, term: str | None, *, around: int = 1, limit: int = 420) -> str:
    """The lines around the first mention of the term (the whole start of the section when none)."""
    lines = text.splitlines()
    hits = term_lines(text, term) if term else []
    if not hits:
        return text[:limit].strip()
    i = hits[0]
    out = "\n".join(lines[max(0, i - around): i + around + 1]).strip()
    return out if len(out) <= limit else out[:limit].rsplit(" ", 1)[0] + " …"


_HISTORY = re.compile(r"\b(?:renamed|removed|no\s+longer|was\s+called|formerly|replaced|has\s+been\s+dropped)\b",
                      re.IGNORECASE)
_GONE = re.compile(r"\b(?:removed|no\s+longer|dropped|deleted|went\s+away|renamed|was\s+called|formerly)\b",
                   re.IGNORECASE)
# A version note of a reference entry, as Sphinx prints it ("Added in version 1.0.", "Deprecated since version 2.2").
_VERSION_NOTE = re.compile(r"^\s*(?:added|new|changed|deprecated|removed)\s+(?:in|since)\s+version\b", re.IGNORECASE)
_STATED = {
    "introduced": re.compile(r"\b(?:added|introduced|new|available|since|starting|from|as\s+of|requires?)\b[^.\n]{0,40}?"
                             r"\bv?\d+\.\d+(?:\.\d+)?", re.IGNORECASE),
    "deprecated": re.compile(r"deprecat", re.IGNORECASE),
    "removed": re.compile(r"\b(?:removed|no\s+longer\s+(?:supported|available|exists?))\b", re.IGNORECASE),
}


def _superseded(term: str, line: str) -> bool:
    """A release note saying another name takes the term's place ("``pass_context`` replaces ``contextfunction``",
    "X is replaced by Y"): the term is deprecated in that version, though the word is said only above it."""
    t = token_pattern(term).pattern
    return bool(re.search(rf"\breplaces\b[^.;]*?{t}|{t}[^.;]*?\b(?:is|are|was|were|has\s+been|have\s+been)\s+"
                          rf"(?:replaced|superseded)\b", line, re.IGNORECASE | re.MULTILINE))


class _Reader:
    """A term's occurrences in one product, with the texts of their sections read once."""

    def __init__(self, timeline: Timeline, q: TimelineQuestion) -> None:
        self.timeline, self.q = timeline, q
        self.occ = timeline.occurrences(q.product, q.term) if q.term else []
        if q.term and not q.place:  # a bare API name whose own entry is qualified: "API > Utilities > jinja2.contextfilter"
            key, seen = normal_term(q.term), {(o.release, o.path, o.ord) for o in self.occ}
            own = [o for o in timeline.qualifying(q.product, q.term) if (o.release, o.path, o.ord) not in seen
                   and o.heading.rsplit(" > ", 1)[-1].lower().endswith("." + key)]
            order = {r: i for i, r in enumerate(q.all_releases)}
            self.occ = sorted(self.occ + own, key=lambda o: order.get(o.release, len(order))) if own else self.occ
        if q.place:  # a heading said in words is read in its own section only
            self.occ = [o for o in self.occ if o.heading.lower().endswith(q.place.lower())]
        versions = [history_version(o.path, o.heading) for o in self.occ]
        if any(v is None for v in versions):
            # Documented beside its changelog: a changelog's section of an older version, which every later
            # release carries again, tells of that version, not of the later release ("JSONEncoder" in 3.0.3's
            # history of 2.2.0 is no sign that 3.0.3 has it). A name only the changelogs hold keeps every mention.
            held = q.all_releases or timeline.releases(q.product)
            self.occ = [o for o, v in zip(self.occ, versions) if v is None or release_of(v, held) == o.release]
        self._texts: dict[tuple[str, str, int], str] = {}

    def text(self, o: Occurrence) -> str:
        key = (o.release, o.path, o.ord)
        if key not in self._texts:
            row = self.timeline.section(self.q.product, o.release, o.path, o.ord)
            self._texts[key] = row.text if row else ""
        return self._texts[key]

    def lines(self, o: Occurrence) -> list[str]:
        lines = self.text(o).splitlines()
        return [lines[i] for i in term_lines(self.text(o), self.q.term)]

    def historical(self, o: Occurrence) -> bool:
        """Mentioned only as history: an upgrade guide or changelog, or a line that says it was renamed/removed."""
        lines = self.lines(o)
        return is_release_notes(o.path, o.heading) or bool(lines) and all(_HISTORY.search(ln) for ln in lines)

    def gone(self, release: str) -> bool:
        """Named in the release only where its notes say it went ("removed", "no longer"), never as an addition."""
        occ = [o for o in self.occ if o.release == release]
        return bool(occ) and all(self.historical(o) and _GONE.search(self.text(o)) and
                                 not any(ln.lstrip().startswith("+") for ln in self.lines(o)) for o in occ)

    def releases(self, live: bool = False) -> list[str]:
        return sort_releases({o.release for o in self.occ if not live or not self.historical(o)})

    def best(self, release: str, live: bool = True) -> Occurrence | None:
        """The passage to cite in a release: a section named after the term, then a reference page, then any."""
        found = [o for o in self.occ if o.release == release]
        if not found:
            return None
        key = normal_term(self.q.term)
        return min(found, key=lambda o: (live and self.historical(o), key not in o.heading.lower(),
                                         not self.lines(o), o.path, o.ord))

    def cited(self, o: Occurrence) -> Cited:
        return Cited(o.release, o.path, o.heading, excerpt(self.text(o), self.q.term))

    def stated(self, kind: str) -> tuple[Occurrence, str] | None:
        """Where the docs say it themselves ("added in v3.5", "deprecated"): the first such line, oldest first. A
        flag is also looked for without its dashes, as a config file key ("experimental-x" beside `// Deprecated`)."""
        pattern = _STATED.get(kind)
        if pattern is None:
            return None
        for term in dict.fromkeys([self.q.term, self.q.term.lstrip("-")]):
            occ = self.occ if term == self.q.term else self.timeline.occurrences(self.q.product, term)
            if term == self.q.term:  # and where the docs qualify it: "``click.get_terminal_size()`` is deprecated"
                seen = {(o.release, o.path, o.ord) for o in occ}
                order = {r: i for i, r in enumerate(self.q.all_releases)}
                occ = sorted(occ + [o for o in self.timeline.qualifying(self.q.product, term)
                                    if (o.release, o.path, o.ord) not in seen],
                             key=lambda o: (order.get(o.release, len(order)), o.path, o.ord))
            for o in occ:
                lines = self.text(o).splitlines()
                for i in term_lines(self.text(o), term):
                    window = " ".join(ln.strip() for ln in lines[max(0, i - 1): i + 2])
                    if pattern.search(window) or kind == "deprecated" and is_release_notes(o.path, o.heading) \
                            and _superseded(term, window):
                        return o, window[:300]
                if token_pattern(term).search(o.heading.rsplit(" > ", 1)[-1]):  # the term's own entry: its notes
                    notes = [ln.strip() for ln in lines if _VERSION_NOTE.match(ln) and pattern.search(ln)]
                    if notes:
                        return o, notes[0][:300]
        if kind == "deprecated":  # "the consul SD tags field": a line of its sections naming another word asked
            words = [w for w in self.q.topic if w not in self.q.term.lower()]
            for o in self.occ:
                for line in self.text(o).splitlines():
                    if pattern.search(line) and any(token_pattern(w).search(line) for w in words):
                        return o, " ".join(line.split())[:300]
        return None


# -- answering ----------------------------------------------------------------------------------------------------
def answer_term_question(q: TimelineQuestion, timeline: Timeline) -> TimelineAnswer:
    r = _Reader(timeline, q)
    name = f"`{q.term}`" + (f" (the section {q.place})" if q.place else "")
    ans = TimelineAnswer(q.kind, q.product, q.term, "", [])
    held = q.all_releases
    if not r.occ:
        ans.missing = True
        ans.answer = (f"No release of {q.product} in the library mentions {name} ({', '.join(held)} searched), so "
                      "the docs cannot say when it came or went.")
        return ans
    present = r.releases()
    live = r.releases(live=True) or present
    if q.kind == "introduced":
        first = present[0]
        before = held[: held.index(first)]
        best = r.best(first)
        said = history_version(best.path, best.heading)  # its changelog's own version: the release that brought it
        text = f"{name} first appears in {q.product} {first} {ans.cite(r.cited(best))}" + (
            f", in its changelog's Version {said}" if said and said != first.lstrip("vV") else "")
        text += f"; {before[-1]} does not mention it." if before else \
            " (the oldest release in the library, so it may be older still)."
        stated = r.stated("introduced")
        if stated:
            text += f"\nThe docs state: \"{stated[1]}\" {ans.cite(r.cited(stated[0]))}"
        ans.answer, ans.releases = text, [first]
    elif q.kind == "removed":
        last = live[-1]
        after = held[held.index(last) + 1:]
        stated = r.stated("removed")
        if not after and stated and is_release_notes(stated[0].path, stated[0].heading):
            # Still named in the newest release, but its own upgrade notes say it is gone: their word decides.
            text = (f"{name} is removed in {q.product} {stated[0].release}, as its upgrade notes state: "
                    f"\"{stated[1]}\" {ans.cite(r.cited(stated[0]))}")
            ans.releases, stated = [stated[0].release], None
        elif not after:
            text = f"{name} has not been removed: the newest release, {last}, still documents it " \
                   f"{ans.cite(r.cited(r.best(last)))}."
            ans.releases = [last]
        else:
            gone = after[0]
            text = (f"{name} was removed in {q.product} {gone}: the last release that documents it is {last} "
                    f"{ans.cite(r.cited(r.best(last)))}, and {gone} does not.")
            note = r.best(gone, live=False)
            if note is not None:
                text += f" {gone} mentions it only as a change {ans.cite(r.cited(note))}."
            ans.releases = [gone, last]
        if stated:
            text += f"\nThe docs state: \"{stated[1]}\" {ans.cite(r.cited(stated[0]))}"
        ans.answer = text
    elif q.kind == "deprecated":
        stated = r.stated("deprecated")
        if stated:
            o, line = stated
            # The release the statement names ("v3.5 will deprecate", an upgrade guide to 3.5), else its own.
            said = stated_release(line, held, o.path if is_release_notes(o.path, o.heading) else "") or o.release
            text = f"{name} is deprecated as of {q.product} {said}: \"{line}\" {ans.cite(r.cited(o))}"
            earlier = held[: held.index(said)]
            if earlier and earlier[-1] in present and said == o.release:
                text += f"\n{earlier[-1]} documents it without a deprecation {ans.cite(r.cited(r.best(earlier[-1])))}."
            ans.releases = [said]
        else:
            text = (f"No release of {q.product} calls {name} deprecated; it is documented in {', '.join(live)} "
                    f"{ans.cite(r.cited(r.best(live[-1])))}.")
            ans.releases = live
        ans.answer = text
    elif q.kind == "in_release":
        asked = q.releases[-1]
        if asked in live or asked in present and not r.gone(asked):
            ans.answer = f"Yes: {q.product} {asked} documents {name} {ans.cite(r.cited(r.best(asked)))}."
        else:
            # The releases that have it: never the one asked, whose notes only say it went.
            present = [rel for rel in present if rel != asked] or present
            ans.answer = f"No: {q.product} {asked} does not mention {name}. It appears in {', '.join(present)} " \
                         f"{ans.cite(r.cited(r.best(present[0])))}."
            ans.absent_in, ans.other_releases = [asked], present
        ans.releases = [asked]
    else:  # which_releases: among the releases the question lists, if it lists two or more
        asked = [rel for rel in held if rel in q.releases or len(q.releases) < 2]
        everywhere, live, present = live, [rel for rel in live if rel in asked], [rel for rel in present if rel in asked]
        listed = ", ".join(f"{rel} {ans.cite(r.cited(r.best(rel)))}" for rel in live)
        text = f"{name} is documented in {q.product} {listed}." if live else f"None of {', '.join(asked)} " \
            f"documents {name}; it is in {', '.join(everywhere)} {ans.cite(r.cited(r.best(everywhere[-1])))}."
        absent = [rel for rel in asked if rel not in live] if live else []
        if absent:
            text += f"\nNot in {', '.join(absent)}."
        for rel in (rel for rel in present if rel not in live):
            text += f" {rel} mentions it only as a change {ans.cite(r.cited(r.best(rel, live=False)))}."
        ans.answer, ans.releases = text, live
    return ans
