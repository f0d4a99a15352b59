"""Change questions (issue 16): what changed in a release, between two, and whether a term changed (its default,
its line) between two; answered from the section diffs (library/diffs.py) with paired citations, old beside new,
no search and no LLM call. `answer_timeline_question` is the one entry: it parses a question and answers any
timeline or change question (timeline_questions.py holds the parsing and the term questions).
"""

from __future__ import annotations

import difflib
import re

from assistant.answering.timeline_questions import (
    Cited,
    TimelineAnswer,
    TimelineQuestion,
    answer_term_question,
    excerpt,
    parse_timeline_question,
    term_lines,
)
from assistant.backends.chat import LLMError
from assistant.library.catalogue import ProductInfo
from assistant.library.diffs import ReleaseDiff, SectionChange, diff_releases, is_release_notes, notes_rank
from assistant.library.terms import identifiers, is_identifier, token_pattern
from assistant.library.timeline import Timeline

__all__ = ["answer_timeline_question", "answer_change_question", "phrase", "term_value"]

MAX_LISTED = 8    # changed sections listed in an answer
MAX_TERMS = 20    # identifiers listed as added or removed
_VALUE_AFTER = re.compile(r"""^\s*[:=]?\s*['"`]([^'"`]*)['"`]""")
_DEFAULT = re.compile(r"""\bdefault(?:s)?(?:\s+(?:value|is|to|of))*\s*[:=]?\s*['"`]?([^\s'"`,;|\]\)]+)""",
                      re.IGNORECASE)


def answer_timeline_question(question: str, catalogue: list[ProductInfo], timeline: Timeline, *,
                             pinned_product: str | None = None) -> TimelineAnswer | None:
    """The answer when `question` is a timeline or change question, else None (an ordinary question)."""
    q = parse_timeline_question(question, catalogue, timeline, pinned_product=pinned_product)
    if q is None:
        return None
    found = answer_change_question(q, timeline) if q.kind in ("changed_in", "changed_between", "did_change") \
        else answer_term_question(q, timeline)
    found.product_source = q.product_source
    found.answer = _as_list(found.answer)
    return found


def _as_list(text: str) -> str:
    """Lines after the first as a Markdown list, so the chat shows old and new on lines of their own."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [ln if ln.startswith("- ") else f"- {ln}" for ln in rest if ln.strip()])


def _pair(q: TimelineQuestion) -> tuple[str, str] | None:
    """The two releases compared: the two named, or the one named and the release before it."""
    rels = q.all_releases
    if len(q.releases) >= 2:
        return q.releases[0], q.releases[-1]
    if q.releases and q.releases[0] in rels and rels.index(q.releases[0]) > 0:
        new = q.releases[0]
        return rels[rels.index(new) - 1], new
    return None


def term_value(text: str, term: str, heading: str = "") -> tuple[str, str] | None:
    """(value, line) of a term's setting in a section: `--flag 'value'`, `key: <type> | default = value`, or a
    "default" within the term's line and the two after it (not past the next flag or key)."""
    lines = text.splitlines()
    pattern = token_pattern(term)
    if heading and pattern.search(heading.rsplit(" > ", 1)[-1]):  # "### --max-request-bytes", then "+ default: ..."
        for ln in lines[:3]:
            d = _DEFAULT.search(ln)
            if d:
                return d.group(1).rstrip(".").strip("'\"`"), ln.strip()
    for i in term_lines(text, term):
        line = lines[i]
        hit = pattern.search(line)
        after = line[hit.end():]
        if after[:1] in "`'\"" and line[hit.start() - 1: hit.start()] == after[:1]:
            after = after[1:]  # the quote closing a quoted name ("`--x`: ... defaults to `15d`") is no value
        m = _VALUE_AFTER.match(after)
        if m:
            return m.group(1), line.strip()
        window = [line] + [ln for ln in lines[i + 1: i + 3]]
        for j, ln in enumerate(window):
            if j and re.match(r"^\s*(?:--?\w|\[?\s*\w+:)", ln):
                break
            d = _DEFAULT.search(ln if j else after)
            if d:
                return d.group(1).rstrip(".").strip("'\"`"), " ".join(w.strip() for w in window[: j + 1])
            # Prose that breaks the line between "defaults to" and the value ("... defaults to\n`15d`.").
            joined = " ".join(w.strip() for w in [after, *window[1: j + 2]])
            d = _DEFAULT.search(joined)
            if d and j + 1 < len(window):
                return d.group(1).rstrip(".").strip("'\"`"), " ".join(w.strip() for w in window[: j + 2])
    return None


def _section_delta(c: SectionChange) -> tuple[str, str]:
    """The first lines that differ in a changed section (old, new), for the answer to show side by side."""
    old = [ln for ln in c.old.text.splitlines() if ln.strip()]
    new = [ln for ln in c.new.text.splitlines() if ln.strip()]
    removed, added = [], []
    for op in difflib.ndiff(old, new):
        if op.startswith("- "):
            removed.append(op[2:].strip())
        elif op.startswith("+ "):
            added.append(op[2:].strip())
    return (removed[0][:160] if removed else ""), (added[0][:160] if added else "")


def _relevant(changes: list[SectionChange], term: str | None, topic: list[str]) -> list[SectionChange]:
    """The changes a question is about: those holding its term; else those whose file name and heading best match
    its other words (a file name counts double: "the basics page" is querying/basics.md); else all."""
    if term:
        return [c for c in changes if any(token_pattern(term).search(s.heading + "\n" + s.text) or
                                          term in s.text.lower() for s in (c.old, c.new) if s is not None)]
    if not topic:
        return changes

    def score(c: SectionChange) -> int:
        name = c.path.rsplit("/", 1)[-1].lower()
        headings = " ".join(s.heading for s in (c.old, c.new) if s is not None).lower()
        return sum(2 * (w in name) + (w in headings) for w in topic)

    best = max((score(c) for c in changes), default=0)
    return [c for c in changes if score(c) == best] if best else changes


def _cite_section(ans: TimelineAnswer, s, term: str | None) -> str:
    return ans.cite(Cited(s.release, s.path, s.heading, excerpt(s.text, term)))


def answer_change_question(q: TimelineQuestion, timeline: Timeline) -> TimelineAnswer:
    ans = TimelineAnswer(q.kind, q.product, q.term, "", [])
    pair = _pair(q)
    if pair is None:
        ans.missing = True
        ans.answer = (f"{q.releases[0] if q.releases else 'That release'} is the oldest {q.product} release in the "
                      f"library ({', '.join(q.all_releases)}): there is no earlier release to compare it with.")
        return ans
    old, new = pair
    # "What changed in 3.6?" is about 3.6 (the release before is only its baseline); a comparison is about both.
    ans.releases = [new] if q.kind == "changed_in" else [new, old]
    diff = diff_releases(timeline, q.product, old, new)
    if q.kind == "did_change":
        return _did_change(q, timeline, diff, ans)
    return _what_changed(q, diff, ans, _listed(q, timeline, new))


_VERBS = {"added": "add|new|introduc", "new": "add|new|introduc", "introduced": "add|new|introduc",
          "removed": "remov|drop|no longer", "dropped": "remov|drop|no longer", "deprecated": "deprecat"}


def _listed(q: TimelineQuestion, timeline: Timeline, release: str) -> list:
    """For "which flags were removed in 3.6?": the release notes sections of the release that list such changes, by
    their heading ("Flags removed") or their opening words ("The following feature flags have been removed"), the
    notes naming the release's version first."""
    if q.listing is None:
        return []
    what, verb = q.listing
    nouns = [w.lower()[:5] for w in re.findall(r"[A-Za-z]{4,}", what)]
    verbs = re.compile(_VERBS.get(verb, "remov"), re.IGNORECASE)
    found = []
    for s in timeline.sections(q.product, release):
        leaf = s.heading.rsplit(" > ", 1)[-1].lower()
        if not is_release_notes(s.path, s.heading) or (nouns and not any(n in leaf for n in nouns)):
            continue
        if verbs.search(leaf) or verbs.search(s.text[:300]) and identifiers(s.text):
            found.append(s)
    return sorted(found, key=lambda s: (notes_rank(s.path, release), s.path, s.ord))


def _definition_first(term: str):
    """Sort key of a term's sections: a section named after it or a line opening with it (a reference entry) first,
    release notes last (their values are examples)."""
    key = term.lower()

    def order(s) -> tuple:
        opens = any(ln.lstrip("+-# ").lower().startswith(key) for ln in s.text.splitlines())
        return (is_release_notes(s.path, s.heading), key not in s.heading.lower() and not opens, s.path, s.ord)
    return order


def _notes_values(timeline: Timeline, q: TimelineQuestion, diff: ReleaseDiff) -> tuple | None:
    """(old value, new value, section) from an upgrade guide of the newer release that shows the term's setting
    as a diff ("-etcd --x='a'" then "+etcd --x='b'"): the docs' own statement of the change."""
    for c in diff.changes:
        if c.kind not in ("added", "changed") or not is_release_notes(c.path, c.heading):
            continue
        lines = c.new.text.splitlines()
        minus = [ln for ln in lines if ln.startswith("-") and token_pattern(q.term).search(ln)]
        plus = [ln for ln in lines if ln.startswith("+") and token_pattern(q.term).search(ln)]
        v_old = term_value("\n".join(minus), q.term) if minus else None
        v_new = term_value("\n".join(plus), q.term) if plus else None
        if v_new is not None:
            return v_old, v_new, c.new
    return None


def _did_change(q: TimelineQuestion, timeline: Timeline, diff: ReleaseDiff, ans: TimelineAnswer) -> TimelineAnswer:
    old, new, name = diff.old_release, diff.new_release, f"`{q.term}`"
    found = {}
    for rel in (old, new):
        rows = [timeline.section(q.product, rel, o.path, o.ord) for o in timeline.occurrences(q.product, q.term)
                if o.release == rel]
        best = None
        for s in sorted((s for s in rows if s), key=_definition_first(q.term)):
            v = term_value(s.text, q.term, s.heading)
            if v is not None:
                best = (v, s)
                break
            best = best or (None, s)
        found[rel] = best
    if not is_identifier(q.term) and timeline.terms_containing(q.product, q.term):
        return _names_changed(q, timeline, diff, ans)
    stated = _notes_values(timeline, q, diff)
    if stated is not None and found[old] is not None:
        v_old, v_new, section = stated
        if v_old is None or (found[old][0] is not None and found[old][0][0] == v_old[0]):
            v_old = found[old][0] or v_old
        if v_old is not None:
            found[new] = (v_new, section)
            found[old] = (v_old, found[old][1])
    if not found[old] and not found[new]:
        ans.missing = True
        ans.answer = f"Neither {q.product} {old} nor {new} mentions {name}."
        return ans
    if not found[old] or not found[new]:
        has, lacks = (new, old) if found[new] else (old, new)
        s = found[has][1]
        ans.answer = (f"Yes: {name} is in {q.product} {has} {_cite_section(ans, s, q.term)} but not in {lacks} "
                      f"({'added' if has == new else 'removed'} between them).")
        return ans
    (v_old, s_old), (v_new, s_new) = found[old], found[new]
    c_old, c_new = _cite_section(ans, s_old, q.term), _cite_section(ans, s_new, q.term)
    if v_old is not None and v_new is not None:
        v1, v2 = v_old[0], v_new[0]
        if v1 != v2:
            ans.answer = (f"Yes: the default of {name} changed from {v1} in {old} {c_old} to {v2} in {new} "
                          f"{c_new}.\n{old}: \"{v_old[1]}\"\n{new}: \"{v_new[1]}\"")
        else:
            ans.answer = (f"No: {name} is {v1} in both {old} {c_old} and {new} {c_new}.\n{old}: \"{v_old[1]}\"\n"
                          f"{new}: \"{v_new[1]}\"")
        return ans
    l_old = [ln.strip() for ln in s_old.text.splitlines() if token_pattern(q.term).search(ln)]
    l_new = [ln.strip() for ln in s_new.text.splitlines() if token_pattern(q.term).search(ln)]
    if l_old == l_new:
        ans.answer = f"No: {name} reads the same in {old} {c_old} and {new} {c_new}: \"{(l_old or [''])[0][:200]}\""
    else:
        gone = [ln for ln in l_old if ln not in l_new][:2]
        came = [ln for ln in l_new if ln not in l_old][:2]
        ans.answer = (f"Yes: what the docs say about {name} changed between {old} {c_old} and {new} {c_new}.\n"
                      + "".join(f"{old}: \"{ln[:200]}\"\n" for ln in gone)
                      + "".join(f"{new}: \"{ln[:200]}\"\n" for ln in came)).strip()
    return ans


def _names_changed(q: TimelineQuestion, timeline: Timeline, diff: ReleaseDiff, ans: TimelineAnswer) -> TimelineAnswer:
    """A word that is no name of its own ("GOMEMLIMIT"): compare the identifiers that carry it in both releases."""
    old, new = diff.old_release, diff.new_release
    names = {rel: timeline.terms_containing(q.product, q.term, rel) for rel in (old, new)}
    if not names[old] and not names[new]:
        ans.missing = True
        ans.answer = f"Neither {q.product} {old} nor {new} mentions `{q.term}`."
        return ans

    def cited(rel: str) -> str:
        for term in names[rel][:1]:
            o = next((o for o in timeline.occurrences(q.product, term) if o.release == rel), None)
            s = timeline.section(q.product, rel, o.path, o.ord) if o else None
            if s is not None:
                return _cite_section(ans, s, term)
        return ""

    same = names[old] == names[new]
    ans.answer = (f"{'No' if same else 'Yes'}: the names with `{q.term}` in them "
                  f"{'are the same' if same else 'differ'} in {q.product} {old} and {new}.\n"
                  f"{old}: {', '.join(names[old]) or 'none'} {cited(old)}\n"
                  f"{new}: {', '.join(names[new]) or 'none'} {cited(new)}").strip()
    return ans


def _what_changed(q: TimelineQuestion, diff: ReleaseDiff, ans: TimelineAnswer, listed: list) -> TimelineAnswer:
    old, new = diff.old_release, diff.new_release
    changes = _relevant(diff.changes, q.term, q.topic if q.kind == "changed_between" else [])
    if q.term is None and q.kind == "changed_between" and not changes:
        changes = diff.changes
    about = f" about `{q.term}`" if q.term else ""
    lines = [f"What changed in {q.product} from {old} to {new}{about}: {sum(c.kind == 'changed' for c in changes)} "
             f"sections changed, {sum(c.kind == 'added' for c in changes)} added, "
             f"{sum(c.kind == 'removed' for c in changes)} removed, {sum(c.kind == 'renamed' for c in changes)} "
             "renamed."]
    for s in listed[:2]:  # what the question asks to list, as the release notes list it
        # Its identifiers and the names it writes as code (`promql-at-modifier`), in the order it gives them.
        spans = [(m.start(), m.group(1)) for m in re.finditer(r"`([^`\s]{3,60})`", s.text)]
        spans += [(s.text.lower().find(t), t) for t in identifiers(s.text) if is_identifier(t)]
        names = list(dict.fromkeys(t for _, t in sorted(spans) if not t.startswith("http")))[:MAX_TERMS]
        lines.append(f"{s.path} › {s.heading} {_cite_section(ans, s, None)}: {', '.join(names) or excerpt(s.text, None)}")
    # The docs' own account first: release notes and upgrade guides new or changed in the newer release.
    notes = sorted((c for c in changes if c.new is not None and c.kind != "removed" and
                    is_release_notes(c.path, c.heading)), key=lambda c: (notes_rank(c.path, new), c.path, c.new.ord))
    in_notes: dict[str, int] = {}
    if notes and not q.term:
        named = list(dict.fromkeys(t for c in notes for t in identifiers(c.new.text)))
        in_notes = {t: i for i, t in enumerate(named)}
        named = named[:MAX_TERMS]
        lines.append(f"The release notes and upgrade guides of {new} "
                     + " ".join(dict.fromkeys(_cite_section(ans, c.new, None) for c in notes[:4]))
                     + (f" name: {', '.join(named)}." if named else "."))
    listed = sorted(changes, key=lambda c: (not is_release_notes(c.path, c.heading) if q.term is None else 0,
                                            {"renamed": 0, "added": 1, "removed": 2, "changed": 3}[c.kind]))
    for c in listed[:MAX_LISTED]:
        where = f"{c.path} › {c.heading or '(top)'}"
        if c.kind == "changed":
            was, now = _section_delta(c)
            lines.append(f"- changed: {where}: {old} {_cite_section(ans, c.old, q.term)} → {new} "
                         f"{_cite_section(ans, c.new, q.term)}" + (f" (\"{was}\" → \"{now}\")" if was or now else ""))
        elif c.kind == "renamed":
            lines.append(f"- renamed: {c.path} › \"{c.old.heading}\" in {old} {_cite_section(ans, c.old, q.term)} "
                         f"→ \"{c.new.heading}\" in {new} {_cite_section(ans, c.new, q.term)}")
        elif c.kind == "added":
            lines.append(f"- added in {new}: {where} {_cite_section(ans, c.new, q.term)}")
        else:
            lines.append(f"- removed in {new}: {where} (last in {old} {_cite_section(ans, c.old, q.term)})")
    if len(changes) > MAX_LISTED:
        lines.append(f"… and {len(changes) - MAX_LISTED} more (the Library page's What changed view lists all).")
    # Identifiers only: a new heading is already listed as a section added.
    added = [t for t in diff.terms_added if is_identifier(t)]
    removed = [t for t in diff.terms_removed if is_identifier(t)]
    if q.term or (q.kind == "changed_between" and q.topic):
        words = [q.term] if q.term else q.topic
        scope = {t for c in changes for s in (c.old, c.new) if s is not None for t in identifiers(s.text)}
        added = [t for t in added if t in scope or any(w and w in t for w in words)]
        removed = [t for t in removed if t in scope or any(w and w in t for w in words)]
    # Flags apart from keys, metrics and paths; each in the order the release's own notes name them.
    order = lambda ts: sorted(ts, key=lambda t: (in_notes.get(t, len(in_notes)), t))
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
