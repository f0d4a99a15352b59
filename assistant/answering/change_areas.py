"""Change questions about an area (issue 16): "the tutorials section in 3.5 vs 3.6, what happened to it?", "grpc
gateway /v3beta paths, 3.4 -> 3.5, what's different?". The area is the folder or page whose name or title (in either
release) the question's content words say, or a heading of the newer release's notes; the answer is the change
inside it: its pages moved (the same file name in another folder, that folder's title named), its sections changed,
added and removed, and what the newer release's notes say under a heading naming it. When no area matches well the
question is answered as before (`find_area` gives None). The change lines every change answer shares (a section
changed with its lines old beside new, added, removed, renamed; a page's headings gained and lost) live here too.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from assistant.answering.timeline_questions import TimelineAnswer, TimelineQuestion
from assistant.answering.timeline_words import STOP, stem, words_of
from assistant.answering.value_changes import cite_section
from assistant.library.diffs import ReleaseDiff, SectionChange, is_release_notes, notes_rank
from assistant.library.terms import identifiers, is_identifier, token_pattern
from assistant.library.timeline import SectionRow, Timeline

__all__ = ["Area", "area_asked", "asked_words", "name_words", "find_area", "area_changes", "moved_pages", "notes_on",
           "prose_lines", "in_area", "change_lines", "section_delta", "outline", "names_in", "MAX_LISTED", "MAX_TERMS"]

MAX_LISTED = 8    # changed sections listed in an answer
MAX_TERMS = 20    # identifiers listed as added or removed

# Words of a path or title that name no area ("how-to-...", "index.md"), and words a question asks with.
_GENERIC = set("index md readme how to why what the and of for in a an with on docs doc guide guides page pages "
               "overview introduction intro".split())
_ASKING = set("whats different difference differ section sections area part parts folder chapter happen happened "
              "moved move stuff went look looks compare".split())
# Question words that name no area: STOP but for the nouns that can name a page ("supported platforms", "flags").
_TIME = STOP - set("supported support feature features flag flags option options setting settings metric metrics "
                   "field fields function functions endpoint endpoints tool tools page pages documentation".split()) \
    | set("doc docs etc you your my our can will would should".split())
_INDEX = ("_index.md", "index.md", "README.md", "readme.md")


def _root(word: str) -> str:
    """A word's stem, a participle's too ("supported", "supporting" are "support")."""
    w = stem(word)
    return re.sub(r"(?<=[a-z]{4})(?:ed|ing)$", "", w)


def name_words(text: str) -> set[str]:
    """The words of a path, title, heading or name, each as its root, generic words left out."""
    return {_root(w) for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) >= 2 and w not in _GENERIC}


def asked_words(q: TimelineQuestion, question: str = "") -> set[str]:
    """The question's content words that could name an area: its words of three letters or more but words of
    asking, of time and change, and the product's name ("supported" and "flags" stay: "the supported platforms
    page" is `supported-platform.md`); its topic and a term said in words when the text is not given."""
    if question:
        said = [w for w in words_of(question) if len(w) >= 3 and w.lower() not in _TIME
                and w.lower() != q.product.lower()]
    else:
        said = list(q.topic) + ([q.term] if q.term and not is_identifier(q.term) else [])
    # The product said by a shorter name ("jinja" for jinja2, "prom") names no area: its index page's title is it.
    own = {w for t in said for w in name_words(t) if len(w) >= 4 and q.product.lower().startswith(w)}
    return {w for t in said for w in name_words(t)} - {_root(w) for w in _ASKING} - own


@dataclass
class Area:
    key: str                 # a folder ("tutorials/") or a page ("dev-guide/api_grpc_gateway.md")
    title: str               # its title in either release, "" when none is recorded
    hit: set[str] = field(default_factory=set)  # the question's words it names

    @property
    def label(self) -> str:
        return f"`{self.key}`" + (f" (\"{self.title}\")" if self.title else "")

    def holds(self, path: str) -> bool:
        return path.startswith(self.key) if self.key.endswith("/") else path == self.key


def _paths(timeline: Timeline, product: str, release: str) -> list[str]:
    return [r[0] for r in timeline.db.execute("SELECT path FROM tl_files WHERE product=? AND release=?",
                                              (product, release))]


def folder_title(titles: dict[str, str], folder: str) -> str:
    return next((titles[folder + n] for n in _INDEX if folder + n in titles), "")


def find_area(q: TimelineQuestion, timeline: Timeline, releases: list[str], asked: set[str],
              least: float = 0.5, changed: frozenset[str] = frozenset()) -> Area | None:
    """The folder or page the question's words name best: the most words named (a word said may be the start of
    one: "the grpc api ref" names "API reference"), then one holding a page of `changed` (the paths the diff
    changed, when given: "anything different about the http/json gateway's errors" is the gateway page that changed,
    not the one that did not), then the larger share of its name's (or title's) own words said (at least `least`),
    then a folder before a page, then the shortest path."""
    if not asked:
        return None
    best = None
    changed_keys = {"/".join(p.split("/")[:i]) + "/" for p in changed for i in range(1, p.count("/") + 1)} | changed
    for rel in releases:
        titles = timeline.titles(q.product, rel)
        keys = set()
        for path in _paths(timeline, q.product, rel):
            parts = path.split("/")
            keys.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
            keys.add(path)
        for key in keys:
            folder = key.endswith("/")
            name = key.rstrip("/").rsplit("/", 1)[-1]
            name = name if folder else name.rsplit(".", 1)[0]
            title = folder_title(titles, key) if folder else titles.get(key, "")
            named = [w for w in (name_words(name), name_words(title)) if w]
            said = asked | {w for ws in named for w in ws if any(len(a) >= 3 and len(w) > len(a) and w.startswith(a)
                                                                  and not q.product.startswith(a) for a in asked)}
            hit = said & set().union(*named) if named else set()
            if not hit:
                continue
            cover = max(len(said & w) / len(w) for w in named)
            if cover < least:
                continue
            rank = (-len(hit), bool(changed) and key not in changed_keys, -cover, not folder, len(key))
            if best is None or rank < best[0]:
                best = (rank, Area(key, title, hit))
    return best[1] if best else None


def area_changes(area: Area, diff: ReleaseDiff) -> list[SectionChange]:
    return [c for c in diff.changes if area.holds(c.path)]


def moved_pages(area: Area, timeline: Timeline, diff: ReleaseDiff) -> dict[str, list[tuple[str, str]]]:
    """The area's pages gone from it in the newer release that it holds elsewhere under the same file name, by the
    folder they are in now: {"tasks/operator/": [(old path, new path), ...]}."""
    old = set(_paths(timeline, diff.product, diff.old_release))
    new = set(_paths(timeline, diff.product, diff.new_release))
    by_name: dict[str, list[str]] = {}
    for p in sorted(new - old):
        by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    out: dict[str, list[tuple[str, str]]] = {}
    for p in sorted(old - new):
        if not area.holds(p) or p.rsplit("/", 1)[-1] in _INDEX:
            continue
        there = [n for n in by_name.get(p.rsplit("/", 1)[-1], []) if not area.holds(n)]
        if len(there) == 1:
            out.setdefault(there[0].rsplit("/", 1)[0] + "/", []).append((p, there[0]))
    return out


def notes_on(area: Area, q: TimelineQuestion, timeline: Timeline, release: str, asked: set[str],
             most: int = 2) -> list[SectionRow]:
    """Sections of the release's own notes (upgrade guides, changelogs) whose heading names the area: two words of
    the question at least, one of them the area's ("Changed gRPC gateway HTTP endpoints (deprecated `/v3beta`)")."""
    found = []
    for s in timeline.sections(q.product, release):
        if not is_release_notes(s.path, s.heading):
            continue
        hit = name_words(s.heading.rsplit(" > ", 1)[-1]) & asked
        if len(hit) >= 2 and hit & area.hit:
            found.append((notes_rank(s.path, release), -len(hit), s.path, s.ord, s))
    found.sort(key=lambda f: f[:4])  # the notes naming the release's version, when any does, alone
    return [f[-1] for f in found if f[0][0] == found[0][0][0]][:most]


def prose_lines(text: str, limit: int = 300) -> str:
    """A section's prose: its lines outside code blocks, one-word lines ("Before", "After") left out."""
    out, code = [], False
    for ln in text.splitlines():
        if ln.lstrip().startswith("```"):
            code = not code
            continue
        if not code and len(ln.split()) > 1:
            out.append(ln.strip())
    text = " ".join(out)
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


# "What did 2.53 add to the rule unit test notation?", "what did etcd 3.6 change in the tutorials?", "what was added
# to the gateway docs in 3.5?": a change asked of one release, the area after the verb.
_AREA_ASKED = re.compile(r"\bwhat\s+(?:did|does|has)\s+(?:\w+\s+)?v?\d[\w.]*\s+(?:add|bring|change)\s+"
                         r"(?:to|in|for|about)\s+(?P<area>[^?]+)|"
                         r"\bwhat\s+(?:was|got|has\s+been)\s+(?:added|changed)\s+(?:to|in)\s+(?P<area2>[^?]+?)\s+"
                         r"(?:in|with)\s+(?:\w+\s+)?v?\d", re.IGNORECASE)


def area_asked(question: str) -> str | None:
    """The area a "what did <release> add to <area>" question names, else None: never the user's own system ("what
    did 3.5 add to my cluster?" asks what the upgrade does to it, searched)."""
    m = _AREA_ASKED.search(question)
    area = (m.group("area") or m.group("area2")).strip() if m else None
    return None if area is None or re.match(r"(?:my|our|your)\b", area, re.IGNORECASE) else area


# -- the answer inside an area (and the change lines every change answer shares) ---------------------------------
def section_delta(c: SectionChange, most: int = 3, names: list[str] = ()) -> list[tuple[str, str]]:
    """The lines that differ in a changed section, each old line beside the new line most like it ("capacity ...
    2500" beside "capacity ... 10000", not beside the next line added), at most `most` pairs; those naming the
    question's term (or a name it stands for) first."""
    old = [ln.strip() for ln in c.old.text.splitlines() if ln.strip()]
    new = [ln.strip() for ln in c.new.text.splitlines() if ln.strip()]
    ops = list(difflib.ndiff(old, new))
    removed = [op[2:] for op in ops if op.startswith("- ")]
    added = [op[2:] for op in ops if op.startswith("+ ")]
    pairs = []
    for was in removed:
        now = max(added, key=lambda a: difflib.SequenceMatcher(None, was, a).ratio(), default="")
        if now and difflib.SequenceMatcher(None, was, now).ratio() >= 0.6:
            pairs.append((was[:160], now[:160]))
            added.remove(now)
    if not pairs and (removed or added):
        pairs = [((removed or [""])[0][:160], (added or [""])[0][:160])]
    pats = [token_pattern(t) for t in names]
    # A key's own comment above it, old beside new, when it was reworded ("# Per-scrape limit on length of labels
    # name ..." above "[ label_name_length_limit: <int> ]" became "# Limit on the length (in bytes) ..."): line by
    # line, its lines pair with those of a neighbour key's comment written alike.
    entries = [_commented(old, pats), _commented(new, pats)]
    head = [tuple(" ".join(ln.lstrip("# ") for ln in e)[:160] for e in entries)] \
        if all(entries) and entries[0] != entries[1] else []
    # Lines new in the section that name what is asked ("# Native histogram notation:"), with nothing they replace.
    pairs += [("", a[:160]) for a in added if (a[:160] not in {p[1] for p in pairs}) and any(x.search(a) for x in pats)]
    return (head + sorted(pairs, key=lambda p: not any(x.search(p[0] + "\n" + p[1]) for x in pats)))[:most]


def _commented(lines: list[str], pats: list) -> list[str]:
    """The comment lines ("# ...") right above the first line naming what is asked: what a reference listing says
    of a key; [] when none is."""
    for i, line in enumerate(lines):
        if any(x.search(line) for x in pats):
            j = i
            while j > 0 and lines[j - 1].startswith("#") and not any(x.search(lines[j - 1]) for x in pats):
                j -= 1
            if j < i:
                return lines[j:i]
    return []


def outline(changes: list[SectionChange], new: str) -> list[str]:
    """A page reorganised: the headings it gained and lost (no one flag's own section), one line per page."""
    out = []
    for path in dict.fromkeys(c.path for c in changes):
        def leaves(kind: str) -> list[str]:
            heads = [(c.new if kind == "added" else c.old).heading for c in changes if c.path == path and
                     (c.kind == kind or c.kind == "renamed")]
            return list(dict.fromkeys(h.rsplit(" > ", 1)[-1] for h in heads if h and
                                      not identifiers(h.rsplit(" > ", 1)[-1])))[:12]
        came, went = leaves("added"), leaves("removed")
        if len(came) + len(went) >= 4:
            out.append(f"{path}: headings new in {new}: {', '.join(came) or 'none'}; gone: {', '.join(went) or 'none'}.")
    return out[:2]


def names_in(text: str) -> list[str]:
    """The names a section gives, in its order: its identifiers, the names it writes as code (`promql-at-modifier`)
    and CamelCase names as written (a feature gate `CompactHashCheck` in a table)."""
    spans = [(m.start(), m.group(1)) for m in re.finditer(r"`([^`\s]{3,60})`", text)]
    spans += [(text.lower().find(t), t) for t in identifiers(text) if is_identifier(t)]
    held = set(identifiers(text))
    spans += [(m.start(), m.group(0)) for m in re.finditer(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b", text)
              if m.group(0).lower() in held]
    return list(dict.fromkeys(t for _, t in sorted(spans) if not t.startswith(("http", "_"))
                              and not t.endswith(("_", "."))))[:MAX_TERMS]  # emphasis (`_this_`) is no name


def change_lines(changes: list[SectionChange], ans: TimelineAnswer, term: str | None, names, old: str,
                  new: str, given: bool = False) -> list[str]:
    """One line per change, paired citations old beside new; a changed section with its lines that changed; with
    `given`, a section added or removed with the first names it gives ("Serve old Prometheus UI":
    `--enable-feature=old-ui`)."""
    lines = []
    for c in changes:
        where = f"{c.path} › {c.heading or '(top)'}"
        if c.kind == "changed":
            pairs = section_delta(c, 3 if term or names else 1, names)  # the lines naming what is asked
            lines.append(f"- changed: {where}: {old} {cite_section(ans, c.old, term)} → {new} "
                         f"{cite_section(ans, c.new, term)}"
                         + "".join(f" (\"{was}\" → \"{now}\")" if was else f" (+ \"{now}\")"
                                   for was, now in pairs if was or now))
        elif c.kind == "renamed":
            lines.append(f"- renamed: {c.path} › \"{c.old.heading}\" in {old} {cite_section(ans, c.old, term)} "
                         f"→ \"{c.new.heading}\" in {new} {cite_section(ans, c.new, term)}")
        elif c.kind == "added":
            lines.append(f"- added in {new}: {where} {cite_section(ans, c.new, term)}" + _given(c.new.text, given))
        else:
            lines.append(f"- removed in {new}: {where} (last in {old} {cite_section(ans, c.old, term)})"
                         + _given(c.old.text, given))
    return lines


def _names_of(texts: list[str]) -> list[str]:
    """The first name each section gives that most of them do not (`--enable-feature=old-ui`, not the
    `--enable-feature` every feature flag's section names)."""
    given = [names_in(t) for t in texts]
    common = {n for n in {n for g in given for n in g} if 2 * sum(n in g for g in given) > len(given) >= 3}
    return list(dict.fromkeys(n for g in given for n in [x for x in g if x not in common][:1]))


def _given(text: str, given: bool) -> str:
    names = names_in(text)[:1] if given else []
    return f": {', '.join(f'`{n}`' for n in names)}" if names else ""


def in_area(q: TimelineQuestion, timeline: Timeline, diff: ReleaseDiff, ans: TimelineAnswer,
            question: str = "", beside: set[str] = frozenset()) -> TimelineAnswer | None:
    """A change inside an area the question's words name (change_areas): its pages moved, what the newer release's
    notes say under a heading naming it, and its sections changed, added and removed; None when no area matches
    or nothing in it changed (the question is then answered as before)."""
    old, new = diff.old_release, diff.new_release
    asked = asked_words(q, question)
    # `beside`: words saying what is listed ("new downgrade messages in the grpc api ref"), which name no area.
    area = find_area(q, timeline, [old, new], asked - {w for t in beside for w in name_words(t)},
                     changed=frozenset(c.path for c in diff.changes))
    if area is None:
        return None
    changes = area_changes(area, diff)
    moved = moved_pages(area, timeline, diff)
    notes = notes_on(area, q, timeline, new, asked)
    if not changes and not notes:
        return None
    gone = {p for pairs in moved.values() for p, _ in pairs}
    lines = [f"What changed in {q.product} from {old} to {new} in {area.label}: "
             f"{sum(c.kind == 'changed' for c in changes)} sections changed, "
             f"{sum(c.kind == 'added' for c in changes)} added, {sum(c.kind == 'removed' for c in changes)} removed, "
             f"{sum(c.kind == 'renamed' for c in changes)} renamed."]
    titles = timeline.titles(q.product, new)
    for folder, pairs in moved.items():
        (was, now), title = pairs[0], folder_title(titles, folder)
        first = [timeline.sections(q.product, rel, path)[:1] for rel, path in ((old, was), (new, now))]
        cites = [cite_section(ans, s[0], None) if s else "" for s in first]
        lines.append(f"- moved in {new}: {len(pairs)} of its pages are now under `{folder}`"
                     + (f" (\"{title}\")" if title else "") + f": {', '.join(n.rsplit('/', 1)[-1] for _, n in pairs)}"
                     f" (`{was}` {old} {cites[0]} → `{now}` {new} {cites[1]})")
    for s in notes:
        lines.append(f"The {new} notes, {s.path} › {s.heading.rsplit(' > ', 1)[-1]} {cite_section(ans, s, None)}: "
                     f"\"{prose_lines(s.text)}\"")
    rest = [c for c in changes if c.path not in gone]
    rest.sort(key=lambda c: {"renamed": 0, "added": 1, "removed": 2, "changed": 3}[c.kind])
    # The lines of a changed section that name the question's other words first ("arm64" in a support table).
    others = sorted(w for w in asked - area.hit if len(w) >= 4)
    lines += change_lines(rest[:MAX_LISTED], ans, None, others, old, new, given=True)
    # Names new in or gone from the newer release that the area's sections hold or that hold the question's words
    # ("cluster discovery": `--discovery-token`), those holding more of its words first, flags first.
    scope = {t for c in changes for x in (c.old, c.new) if x is not None for t in identifiers(x.text)}
    words = [w for w in asked if len(w) >= 4]
    for label, terms in ((f"New in {new}", diff.terms_added), (f"No longer in {new}", diff.terms_removed)):
        kept = [t for t in terms if is_identifier(t) and " " not in t and not t.startswith("_")  # no emphasis
                and not t.endswith(("_", ".")) and (t in scope or name_words(t) & set(words))]
        kept.sort(key=lambda t: (-len(name_words(t) & set(words)), not t.startswith("-"), t))
        if kept:
            lines.append(f"{label}, names: {', '.join(kept[:MAX_TERMS])}.")
    if len(rest) > MAX_LISTED:  # a page reorganised: the headings it gained and lost, the names they give
        lines += outline(rest, new)
        for kind, label in (("added", f"New in {new}"), ("removed", f"No longer in {new}")):
            if names := _names_of([(c.new or c.old).text for c in rest if c.kind == kind]):
                lines.append(f"{label}, the names its sections give: {', '.join(names[:MAX_TERMS])}.")
        lines.append(f"… and {len(rest) - MAX_LISTED} more (the Library page's What changed view lists all).")
    ans.answer = "\n".join(lines)
    return ans
