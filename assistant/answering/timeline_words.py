"""Plain words to timeline terms (issue 16): a question names a flag, key or heading in prose as often as by name.

- "log scrape failures to a file" names `scrape_failure_log_file`, and "the promtool push metrics command" names the
  heading `promtool push metrics`: every part of the name is a word of the question (`named_by_words`);
- "the default retention time" names `--storage.tsdb.retention.time`: the question's adjacent words are the name's
  last parts, its own words after a namespace (`named_by_phrase`);
- "deprecated in v3.5" or "v3.5 will deprecate": the release a statement of the docs names (`stated_release`).
"""

from __future__ import annotations

import re

from assistant.library.timeline import Timeline

__all__ = ["words_of", "named_by_words", "named_by_phrase", "stated_release"]

_SPLIT = re.compile(r"[\s_\-.=/`'\"()\[\]{}<>:,]+")


def stem(word: str) -> str:
    """A plural's singular, roughly ("failures" -> "failure", "learners" -> "learner", "entries" -> "entry")."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)]


def _parts(term: str) -> list[str]:
    return [stem(p) for p in _SPLIT.split(term) if p]


def _candidates(timeline: Timeline, product: str, words: list[str], limit: int = 400) -> list[str]:
    """The timeline's terms holding one of the words (identifiers and headings), read once per word."""
    out: dict[str, None] = {}
    for w in words:
        like = "%" + w.replace("%", "").replace("_", "\\_") + "%"
        for (t,) in timeline.db.execute("SELECT DISTINCT term FROM tl_terms WHERE product=? AND term LIKE ? "
                                        "ESCAPE '\\' LIMIT ?", (product, like, limit)):
            out[t] = None
    return list(out)


def named_by_words(question: str, content: list[str], timeline: Timeline, products: list[str],
                   product_words: set[str] = frozenset()) -> tuple[str, str] | None:
    """(term, product): the longest name of two parts or more whose every part the question says (in any order),
    holding two of its content words at least; the name the docs use least on a tie (the most specific). The
    product's own name is no part said: "heartbeat interval in etcd" is `--heartbeat-interval`, not the
    environment variable `ETCD_HEARTBEAT_INTERVAL`."""
    said = {stem(w) for w in words_of(question)} - {stem(w) for w in product_words}
    keys = {stem(w) for w in content}
    best = None
    for p in products:
        for t in _candidates(timeline, p, [w for w in content if len(w) >= 4]):
            parts = _parts(t)
            if len(parts) < 2 or not set(parts) <= said or len(keys & set(parts)) < 2:
                continue
            rank = (-len(set(parts)), len(timeline.occurrences(p, t, scan=False)), len(t))
            if best is None or rank < best[0]:
                best = (rank, t, p)
    return (best[1], best[2]) if best else None


def named_by_phrase(question: str, content: list[str], timeline: Timeline, products: list[str],
                    product_words: set[str] = frozenset()) -> tuple[str, str] | None:
    """(term, product): a flag or key whose last two parts or more are adjacent words of the question ("retention
    time" for `--storage.tsdb.retention.time`), one of them a content word; of several, the spelling the docs use
    most (the flag, not the bare key an old deprecation note names), then the shortest."""
    seq = [stem(w) for w in words_of(question)]
    grams = {tuple(seq[i:i + n]) for n in (2, 3) for i in range(len(seq) - n + 1)}
    keys = {stem(w) for w in content}
    best = None
    for p in products:
        for t in _candidates(timeline, p, [w for w in content if len(w) >= 4]):
            if " " in t:  # a heading is matched whole (named_by_words), not by its tail
                continue
            parts = _parts(t)
            tails = [tuple(parts[-n:]) for n in (3, 2) if len(parts) > n]
            if any(tail in grams and keys & set(tail) for tail in tails):
                rank = (-len(timeline.occurrences(p, t, scan=False)), len(parts), len(t))
                if best is None or rank < best[0]:
                    best = (rank, t, p)
    return (best[1], best[2]) if best else None


def stated_release(text: str, releases: list[str], path: str = "", near: str = "deprecat") -> str | None:
    """The release a statement names ("deprecated in v3.5", "v3.5 will deprecate"): of the held releases it names,
    the one nearest the word `near` ("still served in v3.4 ... will be deprecated in v3.5" is v3.5); else the one
    an upgrade guide's file name names ("upgrade_3_5.md" speaks of v3.5); None when neither names one."""
    def held(version: str) -> str | None:
        v = version.lstrip("vV")  # "3.5" is v3.5.0, "3.4.29" is in v3.4
        return next((r for r in releases if r.lstrip("vV") == v or r.lstrip("vV").startswith(v + ".")
                     or v.startswith(r.lstrip("vV") + ".")), None)

    anchors = [m.start() for m in re.finditer(near, text, re.IGNORECASE)] or [0]
    named = [(min(abs(m.start() - a) for a in anchors), r) for m in
             re.finditer(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)?)(?![\w.]*\d)", text) if (r := held(m.group(1)))]
    if named:
        return min(named)[1]
    m = re.search(r"(?<!\d)(\d+)[._](\d+)(?:[._](\d+))?(?!\d)", path.rsplit("/", 1)[-1])
    if m:
        return held(".".join(g for g in m.groups() if g))
    return None
