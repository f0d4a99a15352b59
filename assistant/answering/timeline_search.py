"""Timeline questions about a feature said in plain words, decided from search (issue 16, round 7).

The timeline knows identifiers and headings. A question that says its subject in other words ("recovering from a
minority failure in the runtime reconfig docs, since which version?", "the storage docs used to suggest RAID, which
version stopped?") gave the term finder a fragment of ordinary words ("reconfig", "cluster over") or nothing, and was
answered for that fragment or searched with no release decided. Here the question's subject is searched once in each
release of the product (one query embedding, each release's dense and BM25 search), and:

- the best-matching section anywhere is the feature; a release has it when its own hits hold that section (same file,
  same last heading: the breadcrumb loses the page title between Prometheus 2.x and 3.x; or the same heading of two
  words or more in a page that moved) scoring within MARGIN of the best; a section whose text lost what was asked
  scores lower and so counts as absent;
- introduced: the first release that has it; removed: the first release after the last one that has it; in_release:
  whether the asked release has it; which_releases: those that have it. The passage is cited;
- weak evidence (the best section under FLOOR) decides nothing: today's behaviour stands (the fragment's timeline
  answer, or search for a question with no term), since a wrong confident release is worse than a searched answer.

A fragment the term finder read is kept when one of the best few passages holds it as a whole token ("brew install"
in the install section): it is what the question means. `decide` and `subject` are pure; `searched_answer` is the
stage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.answering.change_questions import answer_timeline_question, as_list, as_the_docs_write
from assistant.answering.retrieval import HybridRetriever, ReleaseIndex, RetrievalParams
from assistant.answering.routing import detect
from assistant.answering.timeline_questions import (Cited, TimelineAnswer, TimelineQuestion, answer_term_question,
                                                   excerpt, parse_timeline_question, phrase_kind)
from assistant.answering.timeline_words import STOP, code_word
from assistant.library.catalogue import ProductInfo
from assistant.library.terms import identifiers, token_pattern
from assistant.library.timeline import Timeline
from assistant.library.versions import sort_releases

__all__ = ["Hit", "decide", "subject", "searched_answer", "MARGIN", "FLOOR"]

# Tuned on timeline5.tune and timeline4.tune (README "Release timelines", seventh round): with the search deciding
# all 35 of their introduced/removed/in-release/which-releases items, margins 0, 0.01, 0.02, 0.03, 0.05, 0.08 name
# the right release in 23, 25, 25, 25, 27, 26. An unchanged section scores the same in every release; one that lost
# or changed the sentences asked about scores lower.
MARGIN = 0.05
# The best section's cosine under which the search found nothing that is clearly the feature: searched as before.
FLOOR = 0.5
KINDS = ("introduced", "removed", "in_release", "which_releases")
PER_RELEASE = 8  # dense and BM25 hits asked of each release
TOP = 3  # a fragment held by one of the best few passages is what the question means

# Words of the question that say when or where it asks, not what: left out of the searched subject.
_ASKING = {"covered", "cover", "covers", "start", "started", "starting", "stopped", "stops", "carrying", "carry",
           "guide", "guides", "walkthrough", "used", "say", "says", "mention", "mentions", "mentioned", "get", "gets",
           "section", "describe", "described", "explain", "explained"}
_VERSION = re.compile(r"\bv?\d+(?:\.\d+)+\b")
# "Do the 3.4 security docs say whether etcd encrypts data on disk?": whether a release's docs cover a topic, a
# presence asked with no term (never how or what: "do the docs say how to ..." is searched).
_DOCS_SAY = re.compile(r"^\s*(?:do|does|did)\s+(?:the\s+)?(?:[\w.\-]+\s+){0,3}(?:docs|documentation|guides?|pages?|faq)"
                       r"\s+(?:say|mention|cover|explain|describe|discuss|tell)\s+(?:(?:me|us)\s+)?(?:whether|if|"
                       r"anything\s+(?:about|on))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Hit:
    """A searched passage of one release, with its cosine to the question's subject."""

    release: str
    path: str
    section: str
    score: float
    text: str

    @property
    def key(self) -> tuple[str, str]:
        return self.path, self.section.split(" > ")[-1].strip().lower()


def subject(question: str, product_words: set[str] = frozenset()) -> str:
    """What the question asks about, without its words of time, asking and place ("recovering from a minority
    failure in the runtime reconfig docs, since which version" -> "recovering minority failure runtime reconfig")."""
    words = re.findall(r"[A-Za-z][\w\-]*", _VERSION.sub(" ", question))
    skip = STOP | _ASKING | {w.lower() for w in product_words}
    short = [p.lower() for p in product_words]  # "prom" for prometheus, as routing reads it
    return " ".join(w for w in words if w.lower() not in skip
                    and not (len(w) >= 4 and any(p.startswith(w.lower()) for p in short)))


def decide(hits: list[Hit], releases: list[str], margin: float = MARGIN,
           floor: float = FLOOR) -> dict[str, Hit] | None:
    """The releases that have the feature, each with its passage, or None when no section matches well."""
    if not hits:
        return None
    best = max(hits, key=lambda h: h.score)
    if best.score < floor:
        return None
    out: dict[str, Hit] = {}
    for r in releases:
        same = [h for h in hits if h.release == r and _same_section(h, best) and h.score >= best.score - margin]
        if same:
            out[r] = max(same, key=lambda h: h.score)
    return out


def _same_section(hit: Hit, best: Hit) -> bool:
    """The same file's same heading, or the same heading of two words or more in another file: pages move between
    releases keeping their headings (etcd 3.4's op-guide/authentication.md is op-guide/authentication/rbac.md in 3.5,
    its tutorials/ pages are under tasks/ in 3.6). A one-word heading ("Overview", "Usage") names nothing outside its
    own file."""
    if hit.key == best.key:
        return True
    return hit.key[1] == best.key[1] and len(best.key[1].split()) >= 2


def search(query: str, indexes: list[ReleaseIndex], embed_model: BaseEmbedding, params: RetrievalParams) -> list[Hit]:
    """Each release searched once for the query (one embedding), its hits with their cosines."""
    wide = replace(params, threshold=None, use_mmr=False, margin=None, dense_k=PER_RELEASE, bm25_k=PER_RELEASE,
                   limit_k=0, candidates=2 * PER_RELEASE * len(indexes))
    found = HybridRetriever(indexes, embed_model, wide).search([query])
    return [Hit(n.node.metadata["release"], n.node.metadata["path"], n.node.metadata.get("section", ""),
                float(n.node.metadata.get("dense", 0.0)), n.node.get_content())
            for n in found.candidates if "dense" in n.node.metadata]


def answer(kind: str, product: str, present: dict[str, Hit], releases: list[str], asked: str | None,
           best: Hit) -> TimelineAnswer | None:
    """The answer from the releases that have the feature (`present`); None where they answer nothing."""
    have = [r for r in releases if r in present]
    if not have:
        return None
    heading = " \u203a ".join(best.section.split(" > ")[-2:])  # a step's own heading says little alone
    name = f"the section \u201c{heading}\u201d ({best.path})"
    lead = name[0].upper() + name[1:]  # at a sentence's start
    ans = TimelineAnswer(kind, product, best.section.split(" > ")[-1], "", [])

    def cite(r: str) -> str:
        h = present[r]
        return ans.cite(Cited(r, h.path, h.section, excerpt(h.text, None)))

    if kind == "introduced":
        first = have[0]
        before = releases[: releases.index(first)]
        ans.answer = f"{lead} first appears in {product} {first} {cite(first)}" + (
            f"; {before[-1]} has no such section." if before else
            " (the oldest release in the library, so it may be older still).")
        ans.releases = [first]
    elif kind == "removed":
        last = have[-1]
        after = releases[releases.index(last) + 1:]
        if not after:
            ans.answer = f"{lead} is still in the newest release, {product} {last} {cite(last)}."
            ans.releases = [last]
        else:
            ans.answer = (f"{lead} went in {product} {after[0]}: the last release that has it is {last} {cite(last)}, "
                          f"and {after[0]} does not.")
            ans.releases = [after[0], last]
    elif kind == "in_release":
        if asked is None:
            return None
        if asked in present:
            ans.answer = f"Yes: {product} {asked} has {name} {cite(asked)}."
        else:
            ans.answer = f"No: {product} {asked} has no section on this; {name} appears in {', '.join(have)} " \
                         f"{cite(have[0])}."
            ans.absent_in, ans.other_releases = [asked], have
        ans.releases = [asked]
    else:  # which_releases
        ans.answer = f"{lead} is in {product} " + ", ".join(f"{r} {cite(r)}" for r in have) + "."
        absent = [r for r in releases if r not in present]
        if absent:
            ans.answer += f"\nNot in {', '.join(absent)}."
        ans.releases = have
    return ans


def _plain(question: str, term: str, timeline: Timeline, product: str) -> bool:
    """A run of ordinary words the term finder read ("cluster over", "reconfig"), not a name the timeline records
    nor one the question or the docs write as a name ("the Downgrade RPC", "STACKIT", `limitk`)."""
    said = re.search(re.escape(term), question, re.IGNORECASE)
    if said is None or not said.group(0).islower() or identifiers(term) or timeline.occurrences(product, term,
                                                                                                scan=False):
        return False
    if timeline.page_releases(product, term):  # a page's file name: "bashcomplete" for bashcomplete.rst
        return False
    before, after = question[said.start() - 1: said.start()], question[said.end():]
    if re.match(r"[/`\-_.]", before) or re.match(r"[/`_.(]\S", after):
        return False  # written as code in the question: "/livez", "`limitk`", "info()"
    # Written as code in the docs ("limitk" in backticks, "pre-vote" a flag's name) is a name; a hyphen alone
    # ("info-level") is English.
    code = code_word([term], timeline, [product])
    return code is None or code[0] == term and bool(re.search(r"[-_]", term))


def _from_timeline(q: TimelineQuestion | None, question: str, catalogue: list[ProductInfo], timeline: Timeline,
                   pinned_product: str | None) -> TimelineAnswer | None:
    """The timeline's own answer to a question already parsed (`q`), without parsing it twice."""
    if q is None or q.kind not in KINDS:
        return answer_timeline_question(question, catalogue, timeline, pinned_product=pinned_product) if q else None
    found = answer_term_question(q, timeline)
    found.product_source = q.product_source
    found.answer = as_list(as_the_docs_write(found.answer, q, timeline, question))
    return found


def searched_answer(question: str, catalogue: list[ProductInfo], timeline: Timeline,
                    indexes: Callable[[str], list[ReleaseIndex]], embed_model: BaseEmbedding, params: RetrievalParams,
                    *, pinned_product: str | None = None) -> TimelineAnswer | None:
    """The timeline stage: a question about a feature said in plain words is decided from search, any other timeline
    question from the timeline (change_questions.answer_timeline_question); None for an ordinary question."""
    docs_say = bool(_DOCS_SAY.search(question))
    if not docs_say and not any(phrase_kind(question, True, n) in KINDS for n in (0, 1, 2)):
        return answer_timeline_question(question, catalogue, timeline, pinned_product=pinned_product)
    q = parse_timeline_question(question, catalogue, timeline, pinned_product=pinned_product)
    if q is not None and (q.kind not in KINDS or q.term is None or q.place
                          or not _plain(question, q.term, timeline, q.product)):
        return _from_timeline(q, question, catalogue, timeline, pinned_product)
    timed = ("introduced", "removed", "which_releases")
    if q is None and not docs_say and not any(phrase_kind(question, True, n) in timed for n in (0, 1, 2)):
        return None  # no term and no time asked ("is there a size cap on X?"): search, with no routing paid here
    routing = detect(question, catalogue, pinned_product=pinned_product)
    product = q.product if q is not None else routing.product
    if product is None or product not in timeline.products():
        return None
    named = sort_releases(routing.releases) if routing.product == product and routing.mentions else []
    kind = q.kind if q is not None else "in_release" if docs_say else phrase_kind(question, True, len(named))
    # With no term at all, only a time asked (when, since, which releases) or what a release's docs say is taken:
    # "is a sample on the range's edge included in 3.5.0?" reads as in_release but asks how something behaves.
    if kind not in KINDS or kind == "in_release" and (len(named) != 1 or q is None and not docs_say):
        return _from_timeline(q, question, catalogue, timeline, pinned_product)
    words = {w.lower() for c in catalogue for w in [c.name, c.display_name, *c.aliases]}
    # No product named: the fragment's product is a guess ("info-level" is in etcd's logging docs too); the search
    # decides among the products, as routing does from evidence.
    guessed = q is not None and q.product_source == "inferred"
    found = {p: search(subject(question, words), indexes(p), embed_model, params)
             for p in ([c.name for c in catalogue if c.name in timeline.products()] if guessed else [product])}
    product = max(found, key=lambda p: max((h.score for h in found[p]), default=0.0))
    hits, releases = found[product], timeline.releases(product)
    present = decide(hits, releases)
    best = max(hits, key=lambda h: h.score) if hits else None
    top = sorted(hits, key=lambda h: -h.score)[:TOP]
    if q is not None and (present is None or any(token_pattern(q.term).search(h.text) for h in top)):
        # The fragment is what the best sections are about ("limitk" in the limitk section), or nothing matches well:
        # the timeline answers for it as before.
        return _from_timeline(q, question, catalogue, timeline, pinned_product)
    if present is None:
        return None
    answered = answer(kind, product, present, releases, named[0] if named else None, best)
    if answered is not None:
        answered.product_source = q.product_source if q is not None else routing.product_source
    return answered
