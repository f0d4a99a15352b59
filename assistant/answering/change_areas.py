"""Change questions about an area (issue 16): "the tutorials section in 3.5 vs 3.6, what happened to it?", "grpc
gateway /v3beta paths, 3.4 -> 3.5, what's different?". The area is the folder or page whose name or title (in either
release) the question's content words say, or a heading of the newer release's notes; the answer is the change
inside it: its pages moved (the same file name in another folder, that folder's title named), its sections changed,
added and removed, and what the newer release's notes say under a heading naming it. When no area matches well the
question is answered as before (`find_area` gives None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant.answering.timeline_questions import TimelineQuestion
from assistant.answering.timeline_words import STOP, stem, words_of
from assistant.library.diffs import ReleaseDiff, SectionChange, is_release_notes, notes_rank
from assistant.library.terms import is_identifier
from assistant.library.timeline import SectionRow, Timeline

__all__ = ["Area", "area_asked", "asked_words", "name_words", "find_area", "area_changes", "moved_pages", "notes_on",
           "prose_lines"]

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
    return {w for t in said for w in name_words(t)} - {_root(w) for w in _ASKING}


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
              least: float = 0.5) -> Area | None:
    """The folder or page the question's words name best: the most words named, then the larger share of its
    name's (or title's) own words said (at least `least`), then a folder before a page, then the shortest path."""
    if not asked:
        return None
    best = None
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
            hit = asked & set().union(*named) if named else set()
            if not hit:
                continue
            cover = max(len(asked & w) / len(w) for w in named)
            if cover < least:
                continue
            rank = (-len(hit), -cover, not folder, len(key))
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
