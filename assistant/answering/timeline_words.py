"""Plain words to timeline terms (issue 16): a question names a flag, key or heading in prose as often as by name.

- "log scrape failures to a file" names `scrape_failure_log_file`, and "the promtool push metrics command" names the
  heading `promtool push metrics`: every part of the name is a word of the question (`named_by_words`);
- "the default retention time" names `--storage.tsdb.retention.time`: the question's adjacent words are the name's
  last parts, its own words after a namespace (`named_by_phrase`);
- "limitk" or "concurrent-rule-eval": a word the docs write as code, or shaped like a name, before any plain-word
  reading (`code_word`); `find_term` tries each way in turn, the surest first;
- "deprecated in v3.5" or "v3.5 will deprecate": the release a statement of the docs names (`stated_release`).
"""

from __future__ import annotations

import re

from assistant.answering.product_names import OTHER_SOFTWARE
from assistant.answering.timeline_joined import joined, spelled_apart
from assistant.answering.timeline_spelling import respelled
from assistant.library.terms import identifiers, is_identifier, strength, token_pattern
from assistant.library.timeline import Timeline, like_literal

__all__ = ["STOP", "words_of", "named_by_words", "named_by_phrase", "find_term", "code_word", "stated_release",
           "heading_match"]

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
        like = "%" + like_literal(w) + "%"
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
            # An internal label (`__scrape_timeout__`) after the setting the words name (`scrape_timeout`).
            rank = (-len(set(parts)), t.startswith("_"), len(timeline.occurrences(p, t, scan=False)), len(t))
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


def named_by_most(question: str, content: list[str], timeline: Timeline, products: list[str], product_words:
                  set[str] = frozenset(), least: int = 3, share: float = 0.75) -> tuple[str, str] | None:
    """(term, product): a name of three parts or more, most of which the question says (at least `least` and
    `share` of them, two content words among them): "out of order ingestion window" is `out_of_order_time_window`
    though it never says "time". The name sharing the most parts wins, then the larger share, then the rarest."""
    said = {stem(w) for w in words_of(question)} - {stem(w) for w in product_words}
    keys = {stem(w) for w in content}
    best = None
    for p in products:
        for t in _candidates(timeline, p, [w for w in content if len(w) >= 4]):
            parts = set(_parts(t))
            shared = parts & said
            if len(parts) < 3 or len(shared) < least or len(shared) < share * len(parts) or len(keys & parts) < 2:
                continue
            rank = (-len(shared), -len(shared) / len(parts), len(timeline.occurrences(p, t, scan=False)), len(t))
            if best is None or rank < best[0]:
                best = (rank, t, p)
    return (best[1], best[2]) if best else None


# Words that carry no term: question words, timeline words, generic doc nouns.
STOP = set("""a an the of for in on to is are was were be been do does did have has had which what when who why how
since release releases version versions first last introduced introduce added add appear appeared removed remove
removal deprecated deprecate deprecation change changed changes between and or from with without default docs doc
documentation document documents documented flag flags option options setting settings feature features
metric metrics field fields function functions endpoint endpoints there this that these those can could use used
using did does go away gone come came show shows showed up new still any every same way become became its it
relative compared versus against than about part available support supports supported exist exists existed
include includes included where whether ever become been tool tools page pages compare went get got thing still
happen happened arrive arrived arrival land landed ship shipped bring brought rename renamed drop dropped stop
stopped start started allow allows allowed still anymore listed mentioned know knows knew mention mentions""".split())


def find_term(question: str, spans: list[tuple[int, int]], timeline: Timeline, products: list[str],
              product_words: set[str]) -> tuple[str | None, str | None]:
    """(term, product): the first identifier the docs hold, else the question's rarest word the docs hold."""
    text = list(question)
    for s, e in spans:
        text[s:e] = " " * (e - s)
    rest = "".join(text)
    seq = [w.lower() for w in re.findall(r"[A-Za-z][\w\-]*[A-Za-z0-9]", rest)]  # the question's words, in order
    words = [w for w in dict.fromkeys(seq) if w not in STOP and w not in product_words and len(w) >= 4]
    ids = sorted((t for t in identifiers(rest.replace("*", "")) if t not in product_words), key=strength)
    # "_COMPLETE=source_bash", an assignment the docs never write whole (`_FOO_BAR_COMPLETE=source_bash`), names its
    # value too: of the two, the rarer name is what the question asks about (the variable is in every release).
    ids += [v for t in ids if "=" in t and identifiers(v := t.split("=", 1)[1]) and v not in ids
            and not any(timeline.occurrences(p, t, scan=False) for p in products)]
    # Of the names the docs hold, the surest kind first, then the rarest: "remote_write max_samples_per_send" asks
    # about max_samples_per_send, the section remote_write only places it.
    held = [(strength(t), len(occ), i, t, p) for i, t in enumerate(ids) for p in products
            if (occ := timeline.occurrences(p, t))]
    if held and min(held)[0] == 0:
        _, _, _, t, p = min(held)
        # A flag's name written without its dashes ("query.max-concurrency") is the flag, not a JSON key echoing it.
        flag = "--" + t if t[:1].isalpha() and "." in t else ""
        return (flag, p) if flag and timeline.occurrences(p, flag, scan=False) else (t, p)
    if held:  # a CamelCase word ("PromQL") is often a product word: a rarer word written as code goes first
        code = code_word([w for w in words if w not in {t.lower() for t in ids}], timeline, products)
        _, n, _, t, p = min(held)
        if code and len(timeline.occurrences(code[1], code[0])) < n:
            return code
        return t, p
    for t in ids:  # a family named by its stem ("--experimental-compact-hash-check" for its -enabled and -time)
        for p in products:
            if t[0].isalpha() and timeline.occurrences(p, "--" + t, scan=False):  # "web.read-timeout" is the flag
                return "--" + t, p
            if tail := dotted_tail(timeline, p, t):
                return tail, p
            family = [x for x in timeline.terms_like(p, t) if x[len(t):len(t) + 1] in ("-", ".", "_")]
            if family:
                return min(family, key=len), p
    if ids:  # an identifier the docs never name: mistyped, else asked about, and missing
        return respelled(ids, timeline, products, names=True) or (ids[0], products[0] if len(products) == 1 else None)
    short = named_by_short(rest, timeline, products, product_words)
    if short:
        return short
    # A name said as its words in order ("auto compaction mode" for `--auto-compaction-mode`) before a heading made
    # of fewer of them ("auto compaction").
    apart = spelled_apart(seq, timeline, products, STOP | product_words)
    if apart:
        return apart
    # Headings are terms too: "Time Durations" as two or three words of the question.
    grams = [" ".join(words[i:i + n]) for n in (3, 2) for i in range(len(words) - n + 1)]
    # A heading may hold a word the finder skips as a word of asking: "Allowed Hosts", "Supported Versions". Two or
    # three adjacent words as typed, one of them a content word, none a function word: the heading they are.
    grams += [" ".join(run) for n in (3, 2) for i in range(len(seq) - n + 1) if (run := seq[i:i + n])
              and not set(run) & (_FUNCTION | product_words) and not set(run) <= STOP and set(run) & STOP]
    for g in grams:
        for p in products:
            if timeline.occurrences(p, g, scan=False):
                return g, p
    code = code_word(words, timeline, products)
    if code:
        # A code word that is one part of a longer name the question says whole ("round robin dns": not the
        # function `round`) yields to that name.
        whole = named_by_words(rest, words, timeline, products, product_words)
        return whole if whole and code[0].lstrip("-") in _parts(whole[0]) and len(_parts(whole[0])) > 1 else code
    # Names said in plain words: "log scrape failures to a file", "the default retention time".
    # Three parts said before a two-part tail; a CamelCase name said as three words or more ("lease checkpoint
    # persist" is the feature gate LeaseCheckpointPersist) before a flag ending in two of them.
    for named in (named_by_words, named_by_most, None, named_by_phrase):
        found = joined(seq, (4, 3), timeline, products, STOP) if named is None else \
            named(rest, words, timeline, products, product_words)
        if found:
            return found
    found = joined(seq, (2,), timeline, products, STOP)
    if found:
        return found
    described = named_by_description(rest, timeline, products, product_words)
    if described:
        return described
    # A word written in capitals ("GOMEMLIMIT", "STACKIT") names something: it goes first, then two or three
    # adjacent words as the docs' text has them ("etcdctl downgrade", the rarest such phrase), then the rarest word.
    capitals = {m.lower() for m in re.findall(r"\b[A-Z][A-Z0-9]{2,}\b", rest)}
    counted = [(w not in capitals, n, w, p) for w in words for p in products
               if (n := len(timeline.occurrences(p, w)) or len(timeline.terms_containing(p, w)))]
    if any(not c[0] for c in counted):
        return min(counted)[2:]
    for n in (3, 2):
        phrases = {" ".join(seq[i:i + n]) for i in range(len(seq) - n + 1)
                   if not any(w in STOP or w in product_words for w in seq[i:i + n])}
        seen = [(len(occ), g, p) for g in sorted(phrases) for p in products if (occ := timeline.occurrences(p, g))]
        if seen:
            return min(seen)[1:]
    if counted:
        return min(counted)[2:]
    return respelled(words, timeline, products) or (None, None)  # no word held: one of them mistyped?


def dotted_tail(timeline: Timeline, product: str, name: str) -> str | None:
    """The one dotted flag or key whose last parts the name is ("for-grace-period" is
    `--rules.alert.for-grace-period`), else None."""
    if not name[:1].isalpha():
        return None
    tails = {x for x in timeline.terms_containing(product, name) if x.endswith("." + name)}
    return tails.pop() if len(tails) == 1 else None


def named_by_short(question: str, timeline: Timeline, products: list[str],
                   product_words: set[str] = frozenset()) -> tuple[str, str] | None:
    """(term, product): a flag or key whose every part the question says, in any order, two of them no common word
    and one an abbreviation of three letters ("min tls version" is `--tls-min-version`, "max wal files" is
    `--max-wals`): short words are no content words elsewhere, so names made of them are looked for here. The name
    with the most parts wins, then the one the docs use most."""
    said = {stem(w) for w in words_of(question)} - {stem(w) for w in product_words}
    shorts = [w for w in dict.fromkeys(stem(w) for w in words_of(question))
              if len(w) == 3 and w.isalpha() and w not in STOP and w in said]
    best = None
    for p in products if shorts else []:
        for t in _candidates(timeline, p, shorts):
            parts = _parts(t)
            if " " in t or not set(parts) <= said or len(set(parts) - STOP) < 2 or not set(parts) & set(shorts):
                continue
            rank = (-len(set(parts)), -len(timeline.occurrences(p, t, scan=False)), len(t))
            if best is None or rank < best[0]:
                best = (rank, t, p)
    return (best[1], best[2]) if best else None


# "The metric that tells which feature gates are enabled", "the flag for the raft write timeout": a kind of name
# described by what it does.
_DESCRIBED = re.compile(r"\b(?P<kind>metric|flag|option|setting|key|endpoint)\s+(?:that|which|for|to|showing|telling|"
                        r"reporting|exposing)\b(?P<what>.*)", re.IGNORECASE)


def named_by_description(question: str, timeline: Timeline, products: list[str],
                         product_words: set[str] = frozenset()) -> tuple[str, str] | None:
    """(term, product): a name of the kind said (a metric is snake_case, a flag starts with "--", an endpoint with
    "/") sharing two words at least with the description after it; the one sharing most, then with the fewest parts
    not said, then the rarest."""
    m = _DESCRIBED.search(question)
    if m is None:
        return None
    kind = m.group("kind").lower()
    # Doc nouns count here ("feature" in `etcd_server_feature_enabled`); question words look nothing up.
    said = {stem(w) for w in words_of(m.group("what"))} - {stem(w) for w in product_words}
    asked = {"when", "which", "what", "since", "that", "there", "this", "these", "those", "release", "version"}
    fits = {"metric": lambda t: "_" in t and t[:1].isalpha() and " " not in t, "flag": lambda t: t.startswith("--"),
            "endpoint": lambda t: t.startswith("/")}.get(kind, lambda t: " " not in t and is_identifier(t))
    best = None
    for p in products:
        for t in _candidates(timeline, p, sorted(w for w in said - asked if len(w) >= 4)):
            parts = set(_parts(t)) - {stem(w) for w in product_words}
            shared = parts & (said - asked)
            if len(shared) < 2 or not fits(t):
                continue
            rank = (-len(shared), len(parts - said), len(timeline.occurrences(p, t, scan=False)), len(t))
            if best is None or rank < best[0]:
                best = (rank, t, p)
    return (best[1], best[2]) if best else None


def code_word(words: list[str], timeline: Timeline, products: list[str]) -> tuple[str, str] | None:
    """(term, product): a word of the question written as code, named before any plain-word reading: a flag the
    docs hold without its dashes ("pre-vote" is `--pre-vote`), a word shaped like a name ("concurrent-rule-eval"),
    or one the docs write in backticks ("limitk")."""
    found = []
    for w in words:
        for p in products:
            if "-" in w and timeline.occurrences(p, "--" + w, scan=False):
                return "--" + w, p
            if "-" in w and (tail := dotted_tail(timeline, p, w)):
                return tail, p
            occ = timeline.occurrences(p, w)
            if not occ or len(occ) > 40:
                continue
            if re.search(r"[-_]", w):
                found.append((len(occ), w, p))
                continue
            # Written as code where the docs name it: most of its lines show it in backticks.
            texts = [row.text.lower() for o in occ[:12] if (row := timeline.section(p, o.release, o.path, o.ord))]
            lines = [ln for t in texts for ln in t.splitlines() if token_pattern(w).search(ln)]
            # Or a key of the configuration reference: "[ gogc: <int> | default = 75 ]".
            if lines and (2 * sum(bool(re.search(rf"`{re.escape(w)}[`(]", ln)) for ln in lines) > len(lines) or
                          any(re.match(rf"\s*\[?\s*{re.escape(w)}:\s*<", ln) for ln in lines)):
                found.append((len(occ), w, p))
    return min(found)[1:] if found else None  # the rarest: "limitk", not "promql"


_GOES_IN = re.compile(r"\b(?:remov|decommission|dropp|delet|retir)\w*\s+(?:(?:in|from|by|with|as\s+of)\s+)?$",
                      re.IGNORECASE)


def stated_release(text: str, releases: list[str], path: str = "", near: str = "deprecat") -> str | None:
    """The release a statement names ("deprecated in v3.5", "v3.5 will deprecate"): of the held releases it names,
    the one nearest the word `near` ("still served in v3.4 ... will be deprecated in v3.5" is v3.5); else the one
    an upgrade guide's file name names ("upgrade_3_5.md" speaks of v3.5); None when neither names one."""
    def held(version: str) -> str | None:
        v = version.lstrip("vV")  # "3.5" is v3.5.0, "3.4.29" is in v3.4
        return next((r for r in releases if r.lstrip("vV") == v or r.lstrip("vV").startswith(v + ".")
                     or v.startswith(r.lstrip("vV") + ".")), None)

    anchors = [m.start() for m in re.finditer(near, text, re.IGNORECASE)] or [0]
    # "Deprecated and to be decommissioned in v3.6": the release it goes in, no release deprecating it.
    named = [(min(abs(m.start() - a) for a in anchors), r) for m in
             re.finditer(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)?)(?![\w.]*\d)", text) if (r := held(m.group(1)))
             and (near != "deprecat" or not _GOES_IN.search(text[max(0, m.start() - 40):m.start()]))]
    if named:
        return min(named)[1]
    m = re.search(r"(?<!\d)(\d+)[._](\d+)(?:[._](\d+))?(?!\d)", path.rsplit("/", 1)[-1])
    if m:
        return held(".".join(g for g in m.groups() if g))
    return None


_FUNCTION = set("a an the of for in on to is are was were be do does did it its this that and or with by as at i we "
                "should can my our".split())


def heading_match(question: str, timeline: Timeline, products: list[str],
                  least: int = 3) -> tuple[str, str, str] | None:
    """(heading, its place, product) for a thing said in plain words that a section's heading path names: "kubernetes
    SD endpoints role" is the section `<kubernetes_sd_config> > endpoints`. The heading's last two levels are split
    into words; the section whose words the question says most (at least `least`, its own heading's words all
    said) wins, the one whose heading the question says first on a tie (what is asked comes before "should I
    switch to ..."). The place is those two levels, as every release writes them."""
    seq = [stem(w) for w in words_of(question)]
    said = set(seq) - _FUNCTION
    keys = [w for w in dict.fromkeys(w.lower() for w in words_of(question)) if len(w) >= 4 and w not in STOP]
    best = None
    for p in products:
        heads: set[str] = set()
        for w in keys:
            heads.update(h for (h,) in timeline.db.execute(
                "SELECT DISTINCT heading FROM tl_sections WHERE product=? AND heading LIKE ? ESCAPE '\\' LIMIT 200",
                (p, "%" + like_literal(w) + "%")))
        for h in heads:
            place = " > ".join(h.split(" > ")[-2:])
            leaf = {stem(w) for w in words_of(h.rsplit(" > ", 1)[-1])} - _FUNCTION  # "and" is never in `said`
            words = {stem(w) for w in words_of(place)} - _FUNCTION
            if not leaf or not leaf <= said or len(words & said) < least:
                continue
            # Then the place with fewer words unsaid, then by name: `heads` is a set, and two places of one heading
            # ("promtool test > promtool test rules", "Flags > promtool test rules") tied by hash order from run to run.
            rank = (-len(words & said), min(seq.index(w) for w in leaf), len(words - said), h)
            if best is None or rank < best[0]:
                best = (rank, h.rsplit(" > ", 1)[-1].lower(), place, p)
    return best[1:] if best else None


# -- Cues of time and change (issue 16, round 9): one vocabulary, read by every stage that classifies a question ----
# The auxiliaries of a yes/no question, read three ways: opening the question (YESNO_LEAD: "did X change?"), opening
# a clause after its topic (YESNO_CLAUSE: "etcd 3.5: is --x there", "X - was it dropped?"), or making a question of a
# fragment at all (QUESTION: "v3.5 --x" is none, "--x in 3.5, would it work" or "--x in 3.5?" is).
AUX = r"did|does|do|has|have|is|are|was|were"
YESNO_LEAD = re.compile(rf"^\s*(?:{AUX})\b", re.IGNORECASE)
YESNO_CLAUSE = re.compile(rf"(?:^|[:\-–—,]\s)\s*(?:{AUX}|can)\b|\bor\s+not\s*\??\s*$", re.IGNORECASE)  # "X - there or not"
QUESTION = re.compile(rf"\?\s*$|(?:^|[,:;\-–—]\s*)(?:{AUX}|can|could|would|will)\b", re.IGNORECASE)
# "What happened to X?", "where did X go?": its fate (its removal, or with two releases what changed).
FATE = re.compile(r"\bwhat\s+(?:happened|became)\s+(?:to|of)\b|\bwhere\s+did\b.*\bgo\b", re.IGNORECASE)
# Typed as it comes: "deprected", "depricated".
DEPRECATED = re.compile(r"\bdepr[ei]c?a?t\w*|\bon\s+(?:its|the)\s+way\s+out\b|\bphas(?:ed|ing)\s+out\b|\bsunset\w*",
                        re.IGNORECASE)  # "is X on its way out"
# Its removal. REMOVED with a time asked ("when was X removed", "the last version with X"); GONE, verbs only, with a
# yes/no or a time ("X gone in 3.6?", "which version stopped documenting X"): "member removal" names a feature.
# "get rid of", "killed off", "used to suggest X ... which version stopped": its going in broader words.
_RID = (r"(?:get|got|getting|gotten)\s+rid\s+of|kill(?:ed|s)?\s+(?:it\s+)?off|axed|ditched|scrapped|used\s+to\s+"
        r"(?:suggest|say|recommend|mention|document|list|have|include|show)\w*|stopped(?=\s*\??\s*$)|yank\w*|pulled|"
        r"vanish\w*|taken\s+out|done\s+away\s+with")
REMOVED = re.compile(rf"\b(?:{_RID}|removed?|removal|drop(?:ped)?|go(?:ne)?\s+away|went\s+away|no\s+longer|last\s+(?:\w+\s+)?"
                     r"(?:release|version)|deleted|disappear\w*|retired)\b", re.IGNORECASE)
GONE = re.compile(rf"\b(?:{_RID}|gone|dropped|removed|deleted|went\s+away|go\s+away|disappear\w*|retired|"
                  r"decommission\w*|no\s+longer|stopp?(?:ed|s)?\s+(?:documenting|supporting|shipping|listing|being)|"
                  r"renam\w*)\b", re.IGNORECASE)
# Its coming. INTRODUCED with a time asked ("since which release is X available"); CAME with a yes/no or a time
# ("was X added in 3.5?", "X showed up when?"); CAN, what a release allows, only with a time asked.
INTRODUCED = re.compile(r"\b(?:introduc\w*|added|appear\w*|first|since|c[oa]me\s+in|new\s+in|show(?:s|ed)?\s+up|"
                        r"arriv\w*|available\s+from|from\s+(?:which|what)|begin|began|start\w*|exist\w*|get|got|"
                        r"gain\w*|br(?:ing|ings|ought)|g[ai]ve\s+us|debut\w*|been\s+around|earliest|born|roll(?:ed|s)?\s+out)"
                        r"\b(?!\s+rid\b)", re.IGNORECASE)
CAME = re.compile(r"\b(?:added|introduc\w*|appear\w*|new|first|show(?:s|ed)?\s+up|c[oa]me\s+(?:in|out|with)|arriv\w*|"
                  r"land(?:ed|s)?|ship(?:ped)?|brought|g[ai]ve\s+us|debut\w*|born|roll(?:ed|s)?\s+out)\b", re.IGNORECASE)
CAN = re.compile(r"\b(?:allow\w*|support\w*|accept\w*|enabl\w*|start\w*)\b", re.IGNORECASE)
# Its presence in a release: "is X still listed / documented / around / a flag in Y?", "is X there anymore?" (STILL,
# never what it still does: "does X still default to 50?"); "did X exist back in Y?", "is X a thing in Y?" (PRESENT).
STILL = re.compile(r"\bstill\s+(?:(?:be\s+)?(?:listed|documented|mentioned|covered|there|around|present|available|"
                   r"supported|needed|required|valid|accepted|included|in\b|ok(?:ay)?\b|work(?:s|ing)?|a\s+(?:thing|flag|option|"
                   r"setting|feature)|an\s+option|part\s+of|exists?|(?:list|document|mention|cover|show)s?)|exist\w*)\b|"
                   r"\b(?:there|around|available|supported|"
                   r"documented|listed)\s+any\s*more\b", re.IGNORECASE)
PRESENT = re.compile(r"\b(?:exist\w*|back\s+in|still\s+(?:have|has|had|ship|carr(?:y|ies))|(?:has|have)\s+it|"
                     r"available|usable|there|present|documented|covered|listed|included|a\s+thing)\b", re.IGNORECASE)
# A time asked, in any words (the one time vocabulary of the timeline stage): "when was X removed", "introduced when
# exactly", "when could I start using X", "since which release", "which etcd gave us X", "the last version with X",
# "how long has X been around", "X: appeared in?", "X was taken out when"; never a "when" of use or of a clause
# ("when should I", "when I restart", "fails when the target sends ...").
# Another thing's versions ("which python versions does flask 2.2 support"), never the product's releases asked.
OTHERS = rf"(?!(?:{'|'.join(sorted(OTHER_SOFTWARE | {'os', 'browser'}))})\s)"
# "X added in? (2.x i think)": an aside in brackets may follow the question mark.
TIME = re.compile(r"\bwhen\s+(?:was|were|did|has|had|is|are|does|do|could|can|exactly)\b|\bwhen\s*(?:[?,.!:;]|$)|"
                  rf"\b(?:wh?ich|what)\s+{OTHERS}(?:\w+\s+){{0,2}}(?:releases?|versions?)\b|"
                  r"\b(?:wh?ich|what)\s+\w+\s+(?:gave|brought|added|introduced|shipped|removed|dropped|killed|deprecated|got\s+rid)\b|\bsince\s*(?:\?|$)|"
                  r"\bsince\s+(?:when|which|what|v?\d|releases?|versions?)\b|\bin\s+which\b|"
                  r"\bin\s*\?\s*(?:\([^()]*\)\s*)?$|"
                  r"\b(?:first|last|latest|earliest)\s+(?:\w+\s+)?(?:releases?|versions?)\b|\bhow\s+long\s+(?:has|have)\b",
                  re.IGNORECASE)
# Its presence asked of what the user may do with it: "will 3.5 let me pass X", "X - can I set it in 2.53", "does
# 3.5 understand / take / know about X".
USABLE = re.compile(r"\blet\s+(?:me|us|you)\b|\b(?:(?:can|could|may)\s+(?:i|we|you|my\s+\w+(?:\s+\w+)?)|able\s+to)\s+"
                    r"(?:still\s+)?(?:use|set|pass|enable|turn\s+on|run\s+with)\b|\b(?:understand|take|know(?:s)?\s+(?:about|of)|accept|recogni[sz]e)s?\b",
                    re.IGNORECASE)
