"""Did a term change between two releases (issue 16): its value in each (`--flag 'value'`, `key: <type> | default =
value`, "default: value" under a heading named after it), followed across a rename by an "experimental-" prefix, or
as an upgrade or downgrade guide writes it (`-old` beside `+new`); the lines that name it otherwise. Answered with
both releases cited, old beside new, no search and no LLM call (change_questions.py holds the other change kinds).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from assistant.answering.product_names import OTHER_SOFTWARE
from assistant.answering.timeline_words import STOP
from assistant.answering.timeline_questions import Cited, TimelineAnswer, TimelineQuestion, excerpt, term_lines
from assistant.library.diffs import ReleaseDiff, entries_saying, entry_says, is_release_notes
from assistant.library.terms import is_identifier, normal_term, token_pattern
from assistant.library.timeline import Timeline

__all__ = ["did_change", "term_value", "cite_section", "misspelt_value", "shown", "spelled_key", "value_in_words"]

_VALUE_AFTER = re.compile(r"""^\s*[:=]?\s*['"`]([^'"`]*)['"`]""")
# "default: value"; an empty pair of quotes ("+ default: \"\"") is the empty value, never the colon before it.
# A reStructuredText literal (``timedelta(hours=12)``, ``'session'``) is read whole.
_DEFAULT = re.compile(r"""\bdefault(?:s)?(?:\s+(?:value|is|to|of))*\s*+[:=]?+\s*+(?:(?P<empty>""|''|``)(?![^\s.,;)])|"""
                      r"""``(?P<literal>[^`\n]+)``|['"`]?(?P<value>[^\s'"`,;|\]\)]+))""", re.IGNORECASE)
# A reference entry's own "Default: value" line, anywhere in the entry (Sphinx entries end with it).
_DEFAULT_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\**default\**\s*:", re.IGNORECASE)


def _stated(d: re.Match) -> str:
    """The value a "default" match states: "" for an empty pair of quotes."""
    if d.group("empty"):
        return ""
    return d.group("literal").strip("'\"") if d.group("literal") else d.group("value").rstrip(".").strip("'\"`")


def shown(value: str) -> str:
    """A value as an answer writes it: an empty one is "empty" (`--cors` in v3.4: `default: ""`)."""
    return value if value.strip() else "empty"


def term_value(text: str, term: str, heading: str = "") -> tuple[str, str] | None:
    """(value, line) of a term's setting in a section: `--flag 'value'`, `key: <type> | default = value`, or a
    "default" within the term's line and the two after it (not past the next flag or key)."""
    lines = text.splitlines()
    pattern = token_pattern(term)
    if heading and pattern.search(heading.rsplit(" > ", 1)[-1]):  # "### --max-request-bytes", then "+ default: ..."
        own = [ln for ln in lines if _DEFAULT_LINE.match(ln)]  # the entry's "Default: value" line, wherever it is
        for ln in own[:1] + [ln for ln in lines if ln.strip()][:3]:  # past a note ("**Available from v3.4.**")
            d = _DEFAULT.search(ln)
            if d:
                return _stated(d), ln.strip()
    for i in term_lines(text, term):
        line = lines[i]
        hit = pattern.search(line)
        after = line[hit.end():]
        if after[:1] in "`'\"" and line[hit.start() - 1: hit.start()] == after[:1]:
            after = after[1:]  # the quote closing a quoted name ("`--x`: ... defaults to `15d`") is no value
        m = _VALUE_AFTER.match(after)
        if m:
            return m.group(1), line.strip()
        # A reference table's row: "| `--x` | what it does | `10m` |", the value in the last cell.
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if len(cells) >= 3 and pattern.search(cells[0]) and 0 < len(value := cells[-1].strip("`'\" ")) <= 40:
            return value, line.strip()
        window = [line] + [ln for ln in lines[i + 1: i + 3]]
        for j, ln in enumerate(window):
            if j and re.match(r"^\s*(?:--?\w|\[?\s*\w+:)", ln):
                break
            d = _DEFAULT.search(ln if j else after)
            if d:
                return _stated(d), " ".join(w.strip() for w in window[: j + 1])
            # Prose that breaks the line between "defaults to" and the value ("... defaults to\n`15d`.").
            joined = " ".join(w.strip() for w in [after, *window[1: j + 2]])
            d = _DEFAULT.search(joined)
            if d and j + 1 < len(window):
                return _stated(d), " ".join(w.strip() for w in window[: j + 2])
    return None


def misspelt_value(q: TimelineQuestion) -> bool:
    """A comparison of a name that asks its value in a misspelt word ("max ops per txn defualt 3.4 vs 3.6, did it
    move"): a word of the question close to "default" or "value" but none of their own forms."""
    return bool(q.term) and is_identifier(q.term) and any(
        not w.startswith(("default", "value")) and difflib.get_close_matches(w, ("default", "value"), 1, 0.8)
        for w in q.topic)


# A default said in words: "X out of the box", "X when left unset", "the factory / stock setting of X".
_DEFAULT_WORDS = re.compile(r"\bout[\s\-]+of[\s\-]+the[\s\-]+box\b|\b(?:factory|stock)\s+(?:value|setting)s?\b|"
                            r"\b(?:when|if)\s+(?:left\s+)?(?:unset|not\s+set)\b", re.IGNORECASE)
# A change of a value said in words ("did 3.5 flip the default of X?", "X default 2.45 vs 3.5 - bumped?").
_CHANGE_WORDS = re.compile(r"\b(?:(?:flip|bump)(?:s|ped|ping)?|(?:switch|tweak|lower|alter)(?:s|es|ed|ing)?|"
                           r"(?:rais|increas|decreas)(?:e|es|ed|ing)|modif(?:y|ies|ied|ying))\b", re.IGNORECASE)
_VALUE_WORD = re.compile(r"\b(?:defaults?|values?)\b", re.IGNORECASE)


def value_in_words(question: str) -> str | None:
    """The question with a default said in words written "default" and a change of it said in words written
    "change" ("did 3.5 flip the default of X?" is "did 3.5 change the default of X?", "X out of the box, 3.4 vs 3.6,
    any difference" is "X default, ..."), for the parser to read as a value compared; None when it says neither."""
    text = _DEFAULT_WORDS.sub("default", question)
    if _VALUE_WORD.search(text):
        text = _CHANGE_WORDS.sub("change", text)
    return text if text != question else None


def cite_section(ans: TimelineAnswer, s, term: str | None) -> str:
    return ans.cite(Cited(s.release, s.path, s.heading, excerpt(s.text, term)))


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


def _value_in(timeline: Timeline, product: str, term: str, release: str, within: str = "") -> tuple | None:
    """(value or None, section) of the term in a release: its definition first (a section named after it, or a
    section named after `within`), a section with no value when none has one; None when the release lacks it."""
    rows = [timeline.section(product, release, o.path, o.ord) for o in timeline.occurrences(product, term)
            if o.release == release]
    key = _definition_first(term)
    best = None
    for s in sorted((s for s in rows if s), key=lambda s: (bool(within) and normal_term(within) not in
                                                           s.heading.lower(), key(s))):
        v = term_value(s.text, term, s.heading)
        if v is not None:
            return v, s
        best = best or (None, s)
    return best


def _named_in(timeline: Timeline, product: str, term: str, release: str) -> str:
    """The term as a release names it: itself, else the flag it was renamed from or to by an "experimental-" prefix
    (v3.4's `--experimental-backend-bbolt-freelist-type` is v3.5's `--backend-bbolt-freelist-type`)."""
    if not term.startswith("--") or any(o.release == release for o in timeline.occurrences(product, term)):
        return term
    core = term[2:].removeprefix("experimental-")
    names = [t for t in timeline.terms_containing(product, core, release) if t.startswith("--") and "=" not in t
             and t[2:].removeprefix("experimental-") == core]
    return min(names, key=len) if names else term


def _guide_pair(term: str, diff: ReleaseDiff) -> tuple | None:
    """((old value, line), (new value, line), section) from an upgrade or downgrade guide of the newer release that
    writes the term's setting as a diff pair, "-etcd --pre-vote=true" beside "+etcd --pre-vote=false". In a
    downgrade guide "-" is the newer release and "+" the older; in an upgrade guide the other way round."""
    pattern = token_pattern(term)
    for c in diff.changes:
        if c.new is None or c.kind == "removed" or not is_release_notes(c.path, c.heading):
            continue
        lines = c.new.text.splitlines()
        for i, ln in enumerate(lines[:-1]):
            nxt = lines[i + 1]
            if ln[:1] != "-" or nxt[:1] != "+" or not (pattern.search(ln) or pattern.search(nxt)):
                continue
            values = [re.search(r"--[\w.\-]+=['\"]?([^\s'\"]+)", x) for x in (ln, nxt)]
            if all(values):
                (minus, plus) = [(v.group(1), x[1:].strip()) for v, x in zip(values, (ln, nxt))]
                return (plus, minus, c.new) if "downgrad" in c.path.lower() else (minus, plus, c.new)
    return None


def _verdict(q: TimelineQuestion, changed: bool) -> str:
    """The answer's first words in the question's own sense: "did X change?" is answered "Yes" or "No", "X: same
    default in A and B?" "Yes, the same" or "No, it changed" (seen in the app: "No: X is 5m in both" to a "same?")."""
    if q.asks_same:
        return "No, it changed" if changed else "Yes, the same"
    return "Yes" if changed else "No"


_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")


def _plain(line: str) -> str:
    """A quoted line without the HTML some reference pages write in Markdown (`<code class="text-nowrap">`)."""
    return _TAG.sub("", line)


def did_change(q: TimelineQuestion, timeline: Timeline, diff: ReleaseDiff, ans: TimelineAnswer) -> TimelineAnswer:
    old, new, name = diff.old_release, diff.new_release, f"`{q.term}`"
    found = {rel: _value_in(timeline, q.product, _named_in(timeline, q.product, q.term, rel), rel)
             for rel in (old, new)}
    if not any(found[rel] and found[rel][0] for rel in (old, new)) and not q.term.startswith("-"):
        # "the default remote write queue capacity": no value of `<remote_write>` itself; the setting asked is the
        # question's last word with a value in both releases, inside the term's own sections.
        for w in reversed([w for w in q.topic if w != q.term.lower()]):
            inner = {rel: _value_in(timeline, q.product, w, rel, within=q.term) for rel in (old, new)}
            if all(inner[rel] and inner[rel][0] and normal_term(q.term) in inner[rel][1].heading.lower()
                   for rel in (old, new)):
                q, found, name = replace(q, term=w), inner, f"`{w}`"
                ans.term = w
                break
    paired = _guide_pair(q.term, diff) if found[old] is None or found[new] is None else None
    if paired is not None:  # a guide's "-etcd --x=true" / "+etcd --x=false" where one release lacks a value
        for rel, value in zip((old, new), paired[:2]):
            if found[rel] is None or found[rel][0] is None:
                found[rel] = (value, paired[2])
    valued = all(found[rel] and found[rel][0] for rel in (old, new))
    if not is_identifier(q.term) and not valued and timeline.terms_containing(q.product, q.term):
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
        ans.answer = (f"{_verdict(q, True)}: {name} is in {q.product} {has} {cite_section(ans, s, q.term)} but not in "
                      f"{lacks} "
                      f"({'added' if has == new else 'removed'} between them).")
        return ans
    (v_old, s_old), (v_new, s_new) = found[old], found[new]
    c_old, c_new = cite_section(ans, s_old, q.term), cite_section(ans, s_new, q.term)
    if v_old is not None and v_new is not None:
        v1, v2 = v_old[0], v_new[0]
        if v1 != v2:
            ans.answer = (f"{_verdict(q, True)}: the default of {name} changed from {shown(v1)} in {old} {c_old} to "
                          f"{shown(v2)} in {new} {c_new}.\n{old}: \"{_plain(v_old[1])}\"\n"
                          f"{new}: \"{_plain(v_new[1])}\"")
        else:
            ans.answer = (f"{_verdict(q, False)}: {name} is {shown(v1)} in both {old} {c_old} and {new} {c_new}.\n"
                          f"{old}: \"{_plain(v_old[1])}\"\n{new}: \"{_plain(v_new[1])}\"")
        return ans
    l_old = [ln.strip() for ln in s_old.text.splitlines() if token_pattern(q.term).search(ln)]
    l_new = [ln.strip() for ln in s_new.text.splitlines() if token_pattern(q.term).search(ln)]
    said = _changelog_says(q, timeline, old, new) if l_old == l_new and not is_identifier(q.term) else None
    if said is not None:  # the pages read alike, the changelog says what changed ("password hashing default")
        text, notes = said
        ans.answer = (f"{_verdict(q, True)}: {old} {c_old}: \"{_plain((l_old or [''])[0])[:200]}\"\n{new} {c_new} "
                      f"reads the same; its changelog, {notes.heading.rsplit(' > ', 1)[-1]} "
                      f"{cite_section(ans, notes, None)}: \"{text[:300]}\"")
    elif l_old == l_new:
        ans.answer = (f"{_verdict(q, False)}: {name} reads the same in {old} {c_old} and {new} {c_new}: "
                      f"\"{_plain((l_old or [''])[0])[:200]}\"")
    else:
        gone = [ln for ln in l_old if ln not in l_new][:2]
        came = [ln for ln in l_new if ln not in l_old][:2]
        ans.answer = (f"{_verdict(q, True)}: what the docs say about {name} changed between {old} {c_old} and {new} "
                      f"{c_new}.\n" + "".join(f"{old}: \"{_plain(ln)[:200]}\"\n" for ln in gone)
                      + "".join(f"{new}: \"{_plain(ln)[:200]}\"\n" for ln in came)).strip()
    return ans


def _changelog_says(q: TimelineQuestion, timeline: Timeline, old: str, new: str) -> tuple | None:
    """(entry, section): the newer changelog's entry, in the versions after `old`, that says every word of a term
    said in words and one more the question asks, "default" counted ("password hashing default":
    "``generate_password_hash`` uses scrypt by default."); None when none does: an entry naming the term alone
    ("Add secure password hashing functions.") says nothing of what is asked of it."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", q.term)}
    asked = words | {w.lower() for w in q.topic if w.lower() not in STOP} | {"default"}
    found = [e for e in entries_saying(timeline, q.product, old, new, asked, least=len(words) + 1)
             if all(entry_says(e[0], w) for w in words)]
    return found[0] if found else None


def _names_changed(q: TimelineQuestion, timeline: Timeline, diff: ReleaseDiff, ans: TimelineAnswer) -> TimelineAnswer:
    """A word that is no name of its own ("GOMEMLIMIT"): compare the identifiers that carry it in both releases."""
    old, new = diff.old_release, diff.new_release
    # Its words in any spelling: "shared-buffer" is also the feature gate `TxnModeWriteWithSharedBuffer`.
    spellings = {q.term, _squashed(q.term)} if len(_squashed(q.term)) >= 6 else {q.term}
    names = {rel: sorted({t for w in spellings for t in timeline.terms_containing(q.product, w, rel)})
             for rel in (old, new)}
    if not names[old] and not names[new]:
        ans.missing = True
        ans.answer = f"Neither {q.product} {old} nor {new} mentions `{q.term}`."
        return ans

    def cited(rel: str) -> str:
        for term in names[rel][:1]:
            o = next((o for o in timeline.occurrences(q.product, term) if o.release == rel), None)
            s = timeline.section(q.product, rel, o.path, o.ord) if o else None
            if s is not None:
                return cite_section(ans, s, term)
        return ""

    same = names[old] == names[new]
    ans.answer = (f"{'No' if same else 'Yes'}: the names with `{q.term}` in them "
                  f"{'are the same' if same else 'differ'} in {q.product} {old} and {new}.\n"
                  f"{old}: {', '.join(names[old]) or 'none'} {cited(old)}\n"
                  f"{new}: {', '.join(names[new]) or 'none'} {cited(new)}").strip()
    paired = None if same else _guide_lines(diff, q.term)
    if paired is not None:  # the newer release's guide writes the change itself, old setting beside new
        (was, now), section = paired
        ans.answer += (f"\nThe {new} notes {cite_section(ans, section, q.term)}: \"{was.strip()}\" becomes "
                       f"\"{now.strip()}\"")
    return ans


def _squashed(text: str) -> str:
    """A name with its case and separators gone: "shared-buffer", "SharedBuffer" and "shared_buffer" alike."""
    return re.sub(r"[\s_\-.]+", "", text).lower()


def _guide_lines(diff: ReleaseDiff, term: str) -> tuple[tuple[str, str], object] | None:
    """((old line, new line), section): an upgrade or downgrade guide of the newer release writing a setting that
    holds the term's words, in any spelling, as a diff pair ("-etcd --experimental-x-shared-buffer=false" beside
    "+etcd --feature-gates=XSharedBuffer=false"); in a downgrade guide "-" is the newer release."""
    key = _squashed(term)
    for c in diff.changes:
        if c.new is None or c.kind == "removed" or not is_release_notes(c.path, c.heading):
            continue
        lines = [ln for ln in c.new.text.splitlines() if ln.strip()]  # a blank line may part the pair
        for ln, nxt in zip(lines, lines[1:]):
            if ln[:1] == "-" and nxt[:1] == "+" and key in _squashed(ln) and key in _squashed(nxt) \
                    and ln[1:] != nxt[1:]:
                pair = (nxt[1:], ln[1:]) if "downgrad" in c.path.lower() else (ln[1:], nxt[1:])
                return pair, c.new
    return None


def _spelling(timeline: Timeline, product: str, release: str, key: str) -> tuple[str, object] | None:
    """(the key as the release writes it, its section): "traceid" is `traceID` in a v2.45.0 page."""
    for o in timeline.occurrences(product, key, scan=False):
        s = timeline.section(product, release, o.path, o.ord) if o.release == release else None
        m = s and re.search(rf"(?<![\w.\-]){re.escape(key).replace('_', '_?')}(?![\w\-])", s.text, re.IGNORECASE)
        if m:
            return m.group(0), s
    return None


def spelled_key(q: TimelineQuestion, timeline: Timeline, question: str, old: str, new: str,
                ans: TimelineAnswer) -> TimelineAnswer | None:
    """Did a key said in words change its spelling ("did the trace id label name change between 2.45 and 2.53"):
    two or three adjacent words of the question, run together with `_`, `-` or nothing (a CamelCase name), that
    are a name in both releases written differently (`traceID` → `trace_id`): "Yes", both cited. None when no
    such name is in both, or it is written alike, or a value is asked (the question is answered as before)."""
    if re.search(r"\b(?:defaults?|values?)\b", question, re.IGNORECASE):
        return None  # a value asked: did_change compares it
    seq = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", question)]
    for n in (3, 2):
        for i in range(len(seq) - n + 1):
            words = seq[i:i + n]
            if sum(len(w) >= 4 and w not in STOP for w in words) < 1 or any(w in STOP for w in words):
                continue
            found = {}
            for rel in (old, new):
                for key in ("_".join(words), "-".join(words), "".join(words)):
                    if spelled := _spelling(timeline, q.product, rel, key):
                        found[rel] = spelled
                        break
            if len(found) < 2 or found[old][0] == found[new][0]:
                continue  # written alike in both: no answer of its own (the question is answered as before)
            (was, s_old), (now, s_new) = found[old], found[new]
            ans.term = now
            ans.answer = (f"{_verdict(q, True)}: {' '.join(words)} is written `{was}` in {q.product} {old} "
                          f"{cite_section(ans, s_old, was)} and `{now}` in {new} {cite_section(ans, s_new, now)} "
                          "(renamed between them).")
            return ans
    return None


# Another software's versions the docs require, compared as the docs state them ("Flask supports Python 3.8 and
# newer"): asked as "python version", "python support", or the software after a word of its lowest version ("did the
# minimum python change", "min node bumped?").
_SOFTWARE_ASKED = re.compile(rf"\b({'|'.join(sorted(OTHER_SOFTWARE))})\s+(?:versions?|support|requirements?)\b|"
                             rf"\b(?:min(?:imum)?|minimal|lowest|oldest|required|supported)\s+"
                             rf"({'|'.join(sorted(OTHER_SOFTWARE))})\b", re.IGNORECASE)
_REQUIRES = re.compile(r"\b(?:supports?|supported|requires?|required|minimum|newer|later|higher|above|at\s+least)\b",
                       re.IGNORECASE)


def software_asked(question: str) -> str | None:
    m = _SOFTWARE_ASKED.search(question)
    return (m.group(1) or m.group(2)).lower() if m else None


def _requirement(timeline: Timeline, product: str, release: str, software: str) -> tuple[str, str, object] | None:
    """(first version, sentence, section): where a release's docs (not its notes: those tell of old versions too)
    state which versions of `software` it supports; an installation page first."""
    version = re.compile(rf"\b{re.escape(software)}\s+v?(\d+(?:\.\d+)+)", re.IGNORECASE)
    found = []
    for s in timeline.sections(product, release):
        if is_release_notes(s.path, s.heading):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(s.text.split())):
            m = version.search(sentence)
            if m and _REQUIRES.search(sentence):
                found.append(("install" not in s.path.lower(), s.path, s.ord, m.group(1), sentence, s))
    if not found:
        return None
    best = min(found, key=lambda f: f[:3])
    return best[3], best[4][:300], best[5]


def software_change(q: TimelineQuestion, timeline: Timeline, software: str, old: str, new: str,
                    ans: TimelineAnswer) -> TimelineAnswer | None:
    """"Did the minimum python version change from 2.2 to 3.0?": the versions of `software` (`software_asked`) each
    release's docs say it supports, both quoted and cited; None when either release states none."""
    a = _requirement(timeline, q.product, old, software)
    b = _requirement(timeline, q.product, new, software) if a else None
    if b is None:
        return None
    changed = a[0] != b[0]
    ans.kind, ans.term, ans.releases = "did_change", f"{software} version", [new, old]
    ans.answer = (f"{_verdict(q, changed)}: the {software.capitalize()} versions {q.product} supports "
                  f"{'changed' if changed else 'are the same'}: \"{a[1]}\" in {old} {cite_section(ans, a[2], None)}, "
                  f"\"{b[1]}\" in {new} {cite_section(ans, b[2], None)}.")
    return ans
