"""Change questions (issue 16): what changed in a release, between two, and whether a term changed (its default,
its line) between two; answered from the section diffs (library/diffs.py) with paired citations, old beside new,
no search and no LLM call. `answer_timeline_question` is the one entry: it parses a question and answers any
timeline or change question (timeline_questions.py holds the parsing and the term questions).
"""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.answering.change_areas import (
    MAX_LISTED,
    MAX_TERMS,
    area_asked,
    asked_words,
    change_lines,
    in_area,
    name_words,
    names_in,
    outline,
    prose_lines,
)
from assistant.answering.routing import detect
from assistant.answering.timeline_cues import comparison_fragment
from assistant.answering.timeline_sentences import sentence_compared
from assistant.answering.timeline_questions import (
    TimelineAnswer,
    TimelineQuestion,
    answer_term_question,
    excerpt,
    parse_timeline_question,
    spelled,
    term_lines,
)
from assistant.answering.timeline_words import stem, words_of
from assistant.answering.value_changes import (
    cite_section,
    did_change,
    misspelt_value,
    software_asked,
    software_change,
    spelled_key,
    term_value,
    value_in_words,
)
from assistant.backends.chat import LLMError
from assistant.library.catalogue import ProductInfo
from assistant.library.diffs import (ReleaseDiff, SectionChange, diff_releases, entry_naming, history_rank,
                                     in_headings, is_release_notes, notes_rank)
from assistant.library.terms import identifiers, is_identifier, token_pattern
from assistant.library.timeline import Timeline
from assistant.library.versions import sort_releases

__all__ = ["answer_timeline_question", "answer_change_question", "as_the_docs_write", "phrase", "term_value"]


def answer_timeline_question(question: str, catalogue: list[ProductInfo], timeline: Timeline, *,
                             pinned_product: str | None = None) -> TimelineAnswer | None:
    """The answer when `question` is a timeline or change question, else None (an ordinary question)."""
    q = parse_timeline_question(question, catalogue, timeline, pinned_product=pinned_product)
    plain = value_in_words(question)
    if plain is not None and (q is None or q.kind in ("changed_in", "changed_between") and q.term is not None
                              and is_identifier(q.term)):  # a value compared, said in words: read as "default"
        worded = parse_timeline_question(plain, catalogue, timeline, pinned_product=pinned_product)
        q = worded if worded is not None and worded.kind == "did_change" else q
    if q is None and (said := comparison_fragment(question)) is not None:
        worded = parse_timeline_question(said, catalogue, timeline, pinned_product=pinned_product)
        q = worded if worded is not None and worded.kind in ("changed_between", "did_change") else None
    if q is None:
        return _area_asked(question, catalogue, timeline, pinned_product) or \
            _behaviour_asked(question, catalogue, timeline, pinned_product)
    found = answer_change_question(q, timeline, question) if q.kind in ("changed_in", "changed_between", "did_change") \
        else answer_term_question(q, timeline)
    found.product_source = q.product_source
    found.answer = as_list(as_the_docs_write(found.answer, q, timeline, question))
    return found


def as_the_docs_write(answer: str, q: TimelineQuestion, timeline: Timeline, question: str) -> str:
    """The answer with the term written as the docs spell it (`SESSION_COOKIE_SAMESITE`, `JSONEncoder`), not as the
    timeline keys it (lower case); as the question writes it when the docs hold it nowhere."""
    if not q.term or f"`{q.term}`" not in answer:
        return answer
    occ = timeline.occurrences(q.product, q.term, scan=False)[:1] or timeline.occurrences(q.product, q.term)[:1]
    row = timeline.section(q.product, occ[0].release, occ[0].path, occ[0].ord) if occ else None
    written = spelled(q.term, row.text if row else "")
    written = spelled(q.term, question) if written == q.term else written
    return answer.replace(f"`{q.term}`", f"`{written}`")


def _area_asked(question: str, catalogue: list[ProductInfo], timeline: Timeline,
                pinned_product: str | None) -> TimelineAnswer | None:
    """"What did 2.53 add to the rule unit test input notation?": the change of that release inside the area its
    words name (change_areas); None (searched) when no area of the product matches them or nothing there changed."""
    said = area_asked(question)
    routing = detect(question, catalogue, pinned_product=pinned_product) if said else None
    if routing is None or routing.product not in timeline.products() or len(routing.releases) != 1 \
            or not routing.mentions:
        return None
    product = routing.product
    q = TimelineQuestion("changed_in", product, None, sort_releases(routing.releases), timeline.releases(product),
                         product_source=routing.product_source)
    pair = _pair(q, question)
    if pair is None:
        return None
    ans = TimelineAnswer(q.kind, product, None, "", [pair[1]])
    found = in_area(q, timeline, diff_releases(timeline, product, *pair), ans, said)
    if found is not None:
        found.product_source = q.product_source
        found.answer = as_list(found.answer)
    return found


# A behaviour compared across releases in words: "do samples on the left edge still count in 3.5 like they did in 2.53?"
_STILL = re.compile(r"\b(?:still|anymore|any\s+more|(?:like|as)\s+(?:it|they)\s+did|or\s+does\s+it)\b", re.IGNORECASE)


def _default(question: str) -> set[str]:  # a generic word, but the value asked: "still off by default?"
    return {"default"} if re.search(r"\bdefault\b", question, re.IGNORECASE) else set()


def _behaviour_asked(question: str, catalogue: list[ProductInfo], timeline: Timeline,
                     pinned_product: str | None) -> TimelineAnswer | None:
    """A behaviour said in words, asked as still so in a newer release (no name, left to search by the parser):
    the newer release's notes section whose own heading says three of the question's words at least and half of
    its words ("Range selectors and lookback exclude samples coinciding with the left boundary"), quoted; None when
    no heading says that much."""
    if not _STILL.search(question):
        return None
    routing = detect(question, catalogue, pinned_product=pinned_product)
    if routing.product not in timeline.products() or not routing.mentions or len(routing.releases) not in (1, 2):
        return None
    q = TimelineQuestion("changed_between", routing.product, None, sort_releases(routing.releases),
                         timeline.releases(routing.product), product_source=routing.product_source)
    pair = _pair(q, question)
    if pair is None:
        return None
    old, new = pair
    asked = asked_words(q, question)
    best = None
    for s in timeline.sections(q.product, new):
        leaf = name_words(s.heading.rsplit(" > ", 1)[-1])
        hit = leaf & asked
        if is_release_notes(s.path, s.heading) and len(hit) >= 3 and 2 * len(hit) >= len(leaf) and \
                (best is None or len(hit) > best[0]):
            best = (len(hit), s)
    if best is None:  # no notes heading says it: the docs' sentence that does, old beside new
        return sentence_compared(timeline, q.product, old, new, asked | _default(question),
                                 TimelineAnswer("did_change", q.product, None, "", [new, old],
                                                product_source=q.product_source))
    ans = TimelineAnswer("changed_between", q.product, None, "", [new, old], product_source=q.product_source)
    s = best[1]
    ans.answer = (f"What the {q.product} {new} notes say of it (compared with {old}), {s.path} › "
                  f"{s.heading.rsplit(' > ', 1)[-1]} {cite_section(ans, s, None)}: \"{prose_lines(s.text)}\"")
    return ans


def as_list(text: str) -> str:
    """Lines after the first as a Markdown list, so the chat shows old and new on lines of their own."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [ln if ln.startswith("- ") else f"- {ln}" for ln in rest if ln.strip()])


# "changed since 1.1", "anything different after 3.4": from the release named to the newest.
_SINCE = re.compile(r"\b(?:since|after)\s+(?:[a-z]+\s+)?v?\d", re.IGNORECASE)


def _pair(q: TimelineQuestion, question: str = "") -> tuple[str, str] | None:
    """The two releases compared: the two named; the one named and the newest when asked "since" it; else the one
    named and the release before it."""
    rels = q.all_releases
    if len(q.releases) >= 2:
        return q.releases[0], q.releases[-1]
    if len(q.releases) == 1 and q.releases[0] in rels[:-1] and _SINCE.search(question):
        return q.releases[0], rels[-1]
    if q.releases and q.releases[0] in rels and rels.index(q.releases[0]) > 0:
        new = q.releases[0]
        return rels[rels.index(new) - 1], new
    return None


def _family(timeline: Timeline, product: str, term: str | None) -> list[str]:
    """The names a term said in words stands for: "the experimental distributed tracing flags" are every identifier
    holding all three words (`--experimental-enable-distributed-tracing`, `--experimental-distributed-tracing-*`)."""
    if not term or is_identifier(term):
        return [term] if term else []
    words = [stem(w) for w in words_of(term)]
    longest = max(words, key=len)
    named = timeline.terms_containing(product, longest)
    # The names holding its longest word, those holding all its words first ("the v2 proxy flags": no flag says
    # "v2", every `--proxy-*` flag is one).
    whole = [t for t in named if set(words) <= {stem(w) for w in words_of(t)}]
    return [term] + (whole + [t for t in named if t not in whole])[:40]


def _relevant(changes: list[SectionChange], term: str | None, topic: list[str],
              names: list[str] = ()) -> list[SectionChange]:
    """The changes a question is about: those holding its term (or a name it stands for); else those whose file
    name and heading best match its other words (a file name counts double: "the basics page" is
    querying/basics.md); else all."""
    if term:
        pats = [token_pattern(t) for t in dict.fromkeys([term, *names])]
        return [c for c in changes if any(any(p.search(s.heading + "\n" + s.text) for p in pats) or
                                          term in s.text.lower() for s in (c.old, c.new) if s is not None)]
    if not topic:
        return changes

    def page(c: SectionChange) -> int:  # "the configuration page" is configuration.md, all of it
        name = c.path.rsplit("/", 1)[-1].lower().rsplit(".", 1)[0]
        return sum(2 if w == name else w in re.split(r"[-_.]", name) for w in topic)

    def score(c: SectionChange) -> int:
        name = c.path.rsplit("/", 1)[-1].lower()
        headings = " ".join(s.heading for s in (c.old, c.new) if s is not None).lower()
        return sum(2 * (w in name) + (w in headings) for w in topic)

    for key in (page, score):
        best = max((key(c) for c in changes), default=0)
        if best:
            return [c for c in changes if key(c) == best]
    return changes


def answer_change_question(q: TimelineQuestion, timeline: Timeline, question: str = "") -> TimelineAnswer:
    """`question`: its text, whose words may name an area (change_areas); its topic alone when not given."""
    if q.kind == "changed_between" and misspelt_value(q):  # "X defualt 3.4 vs 3.6": its value, as "default" asks
        q = replace(q, kind="did_change")
    ans = TimelineAnswer(q.kind, q.product, q.term, "", [])
    pair = _pair(q, question)
    if pair is None:
        ans.missing = True
        ans.answer = (f"{q.releases[0] if q.releases else 'That release'} is the oldest {q.product} release in the "
                      f"library ({', '.join(q.all_releases)}): there is no earlier release to compare it with.")
        return ans
    old, new = pair
    # "What changed in 3.6?" is about 3.6 (the release before is only its baseline); a comparison is about both.
    ans.releases = [new] if q.kind == "changed_in" else [new, old]
    diff = diff_releases(timeline, q.product, old, new)
    if q.kind in ("did_change", "changed_between") and question and not ({old, new} & {
            o.release for o in timeline.occurrences(q.product, q.term or "", scan=False)} if q.term else set()):
        # The name read is in neither release: a key said in words ("the trace id label") whose spelling changed?
        found = spelled_key(q, timeline, question, old, new, ans)
        if found is not None:
            return found
    software = software_asked(question) if q.kind in ("did_change", "changed_between") and question else None
    if software:
        found = software_change(q, timeline, software, old, new, ans)  # "min python version change from 2.2 to 3.0?"
        if found is not None:
            return found
    if q.kind == "did_change":
        return did_change(q, timeline, diff, ans)
    if not q.listing and (q.term is None or not is_identifier(q.term)):  # a place said in words, no name
        found = in_area(q, timeline, diff, ans, question)
        if found is not None:
            return found
    listed = _listed(q, timeline, new)
    if q.listing and not listed and q.term is None and question:  # no notes list them: a listing inside an area
        found = in_area(q, timeline, diff, ans, question, beside=set(q.listing[0].split()))  # "new downgrade
        if found is not None:  # messages in the 3.6 grpc api ref?"
            return found
    found = _what_changed(q, diff, ans, listed, _family(timeline, q.product, q.term))
    if q.kind == "changed_between" and q.term and question and _ASKS_CHANGED.search(question) and \
            found.answer.startswith(("What changed", "Nothing")):
        # "setup.py or pyproject? did it change 2.2.5 to 3.0.3": a yes or no asked after another clause, answered so.
        nothing = found.answer.startswith("Nothing")
        found.answer = ("No: " if nothing else "Yes: ") + found.answer[0].lower() + found.answer[1:]
    return found


# A change asked as yes or no in a clause of its own, not opening the question (those are did_change already).
_ASKS_CHANGED = re.compile(r"[?:;,\-–—]\s*(?:did|has|have|does|do|is|was|were)\b[^?]{0,60}?\b(?:chang|differ)\w*",
                           re.IGNORECASE)


_VERBS = {"added": "add|new|introduc", "new": "add|new|introduc", "introduced": "add|new|introduc",
          "removed": "remov|drop|no longer", "dropped": "remov|drop|no longer", "deprecated": "deprecat",
          "renamed": "renam"}


def _listed(q: TimelineQuestion, timeline: Timeline, release: str) -> list:
    """For "which flags were removed in 3.6?": the release notes sections of the release that list such changes, by
    their heading ("Flags removed") or their opening words ("The following feature flags have been removed"), the
    notes naming the release's version first."""
    if q.listing is None:
        return []
    what, verb = q.listing
    nouns = [w.lower()[:5] for w in re.findall(r"[A-Za-z]{4,}", what)]
    verbs = re.compile(rf"\b(?:{_VERBS.get(verb, 'remov')})", re.IGNORECASE)
    found = []
    for s in timeline.sections(q.product, release):
        leaf = s.heading.rsplit(" > ", 1)[-1].lower()
        if not is_release_notes(s.path, s.heading) or (nouns and not any(n in leaf for n in nouns)):
            continue
        opening = re.split(r"(?<=[.!?:])\s", s.text.strip(), maxsplit=1)[0][:300]  # its first sentence
        if verbs.search(leaf) or verbs.search(opening) and identifiers(s.text):
            found.append(s)
    return sorted(found, key=lambda s: (notes_rank(s.path, release), s.path, s.ord))


_KINDS = {"added": ("added", "renamed"), "new": ("added", "renamed"), "introduced": ("added", "renamed"),
          "removed": ("removed", "renamed"), "dropped": ("removed", "renamed"), "renamed": ("renamed",)}


def _area(q: TimelineQuestion, changes: list[SectionChange]) -> list[SectionChange]:
    """A listing of one area ("promtool: new flags in 3.5.0?", "etcdctl: new commands"): the changes of the files
    whose name is a word the question says beside what it lists (command-line/promtool.md); none when no file is."""
    if not q.listing:
        return []
    listed = {w.lower() for w in q.listing[0].split()}
    words = [w for w in q.topic if w not in listed]
    return [c for c in changes if set(re.split(r"[-_.]", c.path.rsplit("/", 1)[-1].lower())) & set(words)]


def _listing_changes(q: TimelineQuestion, changes: list[SectionChange]) -> list[SectionChange]:
    """"Which PromQL functions were added between 2.45 and 2.53?" with no release notes listing them: the sections
    of the asked kind (added, removed) whose file name or heading names what is listed (querying/functions.md)."""
    what, verb = q.listing
    kinds = _KINDS.get(verb, ("added", "removed", "renamed", "changed"))
    nouns = [stem(w)[:5] for w in re.findall(r"[A-Za-z]{4,}", what)]
    of_kind = [c for c in changes if c.kind in kinds]

    def score(c: SectionChange) -> int:  # the file's name or its folder's: "feature gates" is feature-gates/index.md
        name = "/".join(c.path.lower().rsplit("/", 2)[-2:])
        heading = (c.new or c.old).heading.lower()
        return sum(2 * (n in name) + (n in heading) for n in nouns)

    best = max((score(c) for c in of_kind), default=0)
    return [c for c in of_kind if score(c) == best] if best else changes


def _what_changed(q: TimelineQuestion, diff: ReleaseDiff, ans: TimelineAnswer, listed: list,
                  names: list[str] = ()) -> TimelineAnswer:
    old, new = diff.old_release, diff.new_release
    changes = _relevant(diff.changes, q.term, q.topic if q.kind == "changed_between" else [], names)
    if q.term is None and q.kind == "changed_between" and not changes:
        changes = diff.changes
    # A listing of one area ("promtool: new flags in 3.5.0?"): the diff's sections of that area, not the notes' list.
    area = _area(q, diff.changes)
    if area:
        listed = []
    by_diff = bool(q.listing and not listed)  # no release notes list them: the sections of the diff do
    if by_diff:
        changes = _listing_changes(q, area or diff.changes)
    about = f" about `{q.term}`" if q.term else ""
    lines = [f"What changed in {q.product} from {old} to {new}{about}: {sum(c.kind == 'changed' for c in changes)} "
             f"sections changed, {sum(c.kind == 'added' for c in changes)} added, "
             f"{sum(c.kind == 'removed' for c in changes)} removed, {sum(c.kind == 'renamed' for c in changes)} "
             "renamed."]
    # What the question asks to list, as the release notes list it; else the sections of that kind the diff has
    # ("which feature gates came with 3.6?": the table of feature-gates/index.md, new in 3.6).
    shown = listed[:2] or [c.new for c in changes if by_diff and c.kind in ("added", "renamed")][:2]
    for s in shown:
        given = names_in(s.text)
        lines.append(f"{s.path} › {s.heading} {cite_section(ans, s, None)}: {', '.join(given) or excerpt(s.text, None)}")
    # The docs' own account first: release notes and upgrade guides new or changed in the newer release.
    notes = sorted((c for c in changes if c.new is not None and c.kind != "removed" and
                    is_release_notes(c.path, c.heading)),
                   key=lambda c: (notes_rank(c.path, new), history_rank(c.new, new), c.path, c.new.ord))
    in_notes: dict[str, int] = {}
    if notes and not q.term:
        named = list(dict.fromkeys(spelled(t, c.new.text) for c in notes for t in identifiers(c.new.text)))
        in_notes = {t: i for i, t in enumerate(named)}
        shown = in_headings(named, changes)
        named = named[:MAX_TERMS]
        lines.append(f"The release notes and upgrade guides of {new} "
                     + " ".join(dict.fromkeys(cite_section(ans, c.new, None) for c in notes[:4]))
                     + (f" name: {', '.join(named)}." if named else "."))
        if shown:
            lines.append(f"Of the names they give, the reference pages' sections added, removed or renamed in {new} "
                         f"are on: {', '.join(shown[:MAX_TERMS])}.")
    for c in notes[:2] if q.term else []:  # what the notes say of the term (or the names it stands for)
        said = next((t for t in names if term_lines(c.new.text, t)), q.term)
        quote = (entry_naming(c.new.text, said) or " ".join(excerpt(c.new.text, said, around=1, limit=300).split()))[:300]
        # A term said in words ("the v2 proxy flags") stands for the names the notes give holding its words.
        kin = [t for t in identifiers(c.new.text) if t != q.term and not is_identifier(q.term) and t in names]
        lines.append(f"The {new} notes state: \"{quote}\" {cite_section(ans, c.new, said)}"
                     + (f" (names: {', '.join(kin[:MAX_TERMS])})" if len(kin) > 1 else ""))
    listed = sorted(changes, key=lambda c: (not is_release_notes(c.path, c.heading) if q.term is None else 0,
                                            {"renamed": 0, "added": 1, "removed": 2, "changed": 3}[c.kind]))
    lines += change_lines(listed[:MAX_LISTED], ans, q.term, names, old, new)
    if len(changes) > MAX_LISTED and q.term is None and q.topic:
        lines += outline(changes, new)
    if len(changes) > MAX_LISTED:
        lines.append(f"… and {len(changes) - MAX_LISTED} more (the Library page's What changed view lists all).")
    # Identifiers only: a new heading is already listed as a section added.
    added = [t for t in diff.terms_added if is_identifier(t)]
    removed = [t for t in diff.terms_removed if is_identifier(t)]
    if q.term or (q.kind == "changed_between" and q.topic) or by_diff and changes != diff.changes:
        words = list(names) if q.term else [] if q.listing else q.topic  # a listing: the names its sections hold
        scope = {t for c in changes for s in (c.old, c.new) if s is not None for t in identifiers(s.text)}
        added = [t for t in added if t in scope or any(w and w in t for w in words)]
        removed = [t for t in removed if t in scope or any(w and w in t for w in words)]
    # Flags apart from keys, metrics and paths; each in the order the release's own notes name them.
    # A term's own names first ("the distributed tracing flags": those holding its words), then the notes' order.
    said = {stem(w) for w in words_of(q.term or "")}
    order = lambda ts: sorted(ts, key=lambda t: (-len(said & {stem(w) for w in words_of(t)}),
                                                 in_notes.get(t, len(in_notes)), t))
    for label, terms in ((f"New in {new}", added), (f"No longer in {new}", removed)):
        flags = [t for t in terms if t.startswith("-")]
        others = [t for t in terms if not t.startswith("-")]
        if flags:
            lines.append(f"{label}, flags: {', '.join(order(flags)[:MAX_TERMS])}.")
        if others:
            lines.append(f"{label}, names and keys: {', '.join(order(others)[:MAX_TERMS])}.")
    if len(lines) == 1 and not changes:
        ans.missing = bool(q.term)
        lines[0] = f"Nothing{about} changed in {q.product} between {old} and {new}: every section reads the same."
    ans.answer = "\n".join(lines)
    return ans


_PHRASE = ("Rewrite this answer about documentation releases as clear prose for an engineer. Keep every fact, every "
           "release name and value exactly as written, and every citation marker such as [1] next to what it cites. "
           "Add nothing. Reply with the answer only.")


def phrase(answer: TimelineAnswer, question: str, llm) -> str:
    """The answer in the LLM's words, or the answer as it stands when the LLM fails or drops a release, a value or
    a citation: the model only phrases, the timeline decides."""
    if llm is None or answer.missing:
        return answer.answer
    try:
        text = llm.chat([{"role": "system", "content": _PHRASE},
                         {"role": "user", "content": f"Question: {question}\n\nAnswer:\n{answer.answer}"}],
                        max_tokens=700).strip()
    except LLMError:
        return answer.answer
    kept = re.findall(r"\[\d+\]", answer.answer)
    facts = [r for r in answer.releases] + re.findall(r"(?<=from )\S+|(?<=to )\S+(?= in)", answer.answer)
    if not text or any(m not in text for m in kept) or any(f not in text for f in facts):
        return answer.answer
    return text
