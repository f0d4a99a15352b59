"""Knowledge check (stage 8, iKnow): is the retrieved context enough to answer?

Two calibrated signals, then the LLM's verdict where a preset asks for it:
- literal coverage: identifiers in the question (flags, snake_case keys, dotted settings, camelCase fields, API
  paths, hyphenated feature names) that appear nowhere in the target release's documents mean that release does not
  document them, whatever the vectors say (not a phrase hyphenated around a function word, "hub-and-spoke", that
  no release documents: the user's English, not a name); so does a plain word of the question (`limitk`) that the target
  release never uses while another release of the product does (issue 15: a feature absent from a release went
  unflagged when a neighbouring term was present); a command of several words (`etcdctl downgrade enable`) is
  checked as a phrase against the release timeline, as every word of it is in the release's vocabulary;
- relevance: the best candidate's relevance (cross-encoder score when reranked, else dense cosine) under a
  threshold means nothing retrieved is about the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from dataclasses import dataclass, field

from assistant.backends.chat import ChatModel, ask_json
from assistant.library.lexical import STOP_WORDS, tokenize
from assistant.library.terms import token_pattern

# `--log-format`, `query_offset`, `storage.tsdb.retention`, `--auto-gomemlimit.ratio`, `dbSizeQuota`,
# `/api/v1/notifications`, `promql-duration-expr`, and anything in backticks.
_IDENT = re.compile(r"`([^`]{2,60})`|(?<![\w-])(--?[a-z][\w.\-]*\.[\w.\-]*|--[a-z0-9][\w.\-]*"
                    r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_\-]*)+"
                    r"|[a-z]+[A-Z][A-Za-z0-9]*|[a-z][a-z0-9]*(?:-[a-z0-9]+){2,})|(?<![\w.])(/[a-z][\w\-]*(?:/[\w\-{}:]+)+)")
_PLAIN = re.compile(r"[a-z][a-z0-9]{3,}")
# A hyphenated name said as a word ("the delayed-compaction feature flag"); two hyphens or more are identifiers.
_COMPOUND = re.compile(r"[a-z][a-z0-9]+-[a-z][a-z0-9]+")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*[a-z0-9]|[a-z]")
_JOINED = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}")


@dataclass
class KnowledgeVerdict:
    missing: bool
    reason: str
    relevance: float
    absent_terms: list[str] = field(default_factory=list)
    other_releases: list[str] = field(default_factory=list)
    suggestion: str | None = None
    llm_verdict: bool | None = None


def identifiers(question: str) -> list[str]:
    out = []
    for quoted, ident, path in _IDENT.findall(question):
        term = (quoted or ident or path).strip().rstrip(".?,:;")
        if term.endswith("-"):
            continue  # a name's prefix ("a --no- form", "the --log- flags"), absent from any release as written
        if term and term.lower() not in {t.lower() for t in out}:
            out.append(term)
    return out


def plain_words(question: str, skip: Container[str] = (), common: Container[str] = ()) -> list[str]:
    """The question's plain words that could name a feature: no identifier punctuation, 4+ characters, not stop
    words, not in `skip` (the product's and release's names), not `common` (everyday words: 'automatic',
    'problems' are absent from some release by chance, `etcdutl` and `limitk` by design)."""
    words = [w for w in tokenize(question) if (_PLAIN.fullmatch(w) or _COMPOUND.fullmatch(w))
             and w not in STOP_WORDS and w not in skip and w not in common]
    return list(dict.fromkeys(words))


def command_phrases(question: str, skip: Container[str] = (),
                    common: Container[str] = ()) -> list[tuple[list[str], bool]]:
    """Names of several words, each with its shorter forms (longest first) and whether the docs must name it (as an
    identifier or a heading) for it to count: a backticked term with a space (`etcdctl downgrade enable`), found in
    any text; and the three and two adjacent words led by one that is no everyday word, a tool's name ("promtool
    push metrics"), counted only where a release names it: a prose phrase ("freelist type") is worded otherwise by
    another release's docs ("--backend-bbolt-freelist-type") without being absent. Every word of such a name is in
    the release's vocabulary while the command is not (issue 15: unflagged multi-word commands)."""
    out = [([t], False) for t in identifiers(question) if " " in t.strip()]
    words = _WORD.findall(question.lower())
    for i, w in enumerate(words):
        if not _PLAIN.fullmatch(w) or w in STOP_WORDS or w in skip or w in common:
            continue
        tail = words[i + 1:i + 3]
        forms = [" ".join([w, *tail[:n]]) for n in (2, 1)
                 if len(tail) >= n and not any(x in STOP_WORDS for x in tail[:n])]
        if forms and not any(forms[0] in " ".join(o) for o, _ in out):
            out.append((forms, True))
    return out


def release_only_phrases(phrases: list[tuple[list[str], bool]], releases_of,
                         other_releases: Container[str]) -> list[str]:
    """The longest form of each name that some release holds (`releases_of(form, named)`), when only other releases
    of the product do."""
    absent = []
    for forms, named in phrases:
        for form in forms:
            where = releases_of(form, named)
            if where:
                if all(r in other_releases for r in where):
                    absent.append(form)
                break
    return absent


def timeline_lookup(timeline, product: str, targets: list[str]) -> Callable[[str, bool], set[str]]:
    """`releases_of(name, named)` over the release timeline: the releases whose identifiers or headings hold the name
    (with `named` False, any text: the timeline's whole-token scan). A target release missing from the answer is
    scanned word for word before the name counts as absent there (a heading elsewhere may be prose here)."""
    def releases_of(name: str, named: bool) -> set[str]:
        where = {o.release for o in timeline.occurrences(product, name, scan=not named)}
        if where and not where & set(targets):
            pattern = token_pattern(name)
            where |= {r for r in targets if any(pattern.search(s.text) or pattern.search(s.heading)
                                                 for s in timeline.sections(product, r))}
        return where
    return releases_of


def release_only_words(words: list[str], vocab: Container[str], other_vocabs: dict[str, Container[str]]) -> list[str]:
    """Words the target release never uses while another release of the product does: a feature of that other
    release, absent here. (With no other release, nothing can be told apart from an unusual word.)"""
    return [w for w in words if w not in vocab and any(w in v for v in other_vocabs.values())]


def unused_words(words: list[str], library: Container[str], passages, common: Container[str] = ()) -> list[str]:
    """Words no document of the library uses, in any product or release, that no retrieved passage spells nearly
    alike: a thing the docs do not cover at all ("simulink" asked of Octave, "jupyter" of gnuplot). A word another
    product uses is left to routing ("tojson" routed to etcd is Jinja's; "bugfix" is in Werkzeug's changelogs). Asked
    of a product with one release (`check`): it has no other release to tell a feature apart by
    (`release_only_words`), so this is its only literal signal.
    Letters only (a word with digits is a version or a size), and a misspelt word is no missing feature: typed
    "corutine" or "coprocesss", the passages retrieved for it hold the word it was meant to be. Nor is an everyday
    word with an ending the model's vocabulary lacks ("repetitions": "repetition"), or one letter from one (aws5's
    "after I shrank the spooler": "shrink")."""
    near = {t for p in passages for t in tokenize(p) if t.isalpha()}
    return [w for w in words if w.isalpha() and w not in library
            and not any(w[:-k] in common for k in (1, 2, 3) if len(w) - k >= 4)
            and not any(e in common for e in _edits(w)) and not _misspelt(w, near)]


def _edits(word: str) -> set[str]:
    """Every spelling one letter changed from `word`."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {word[:i] + c + word[i + 1:] for i in range(len(word)) for c in letters}


def _misspelt(word: str, words: set[str]) -> bool:
    """Whether `word` is one edit (a letter dropped, added, changed or two swapped) from one of `words`, or shares all
    but its last letters with one (a plural or another ending of it)."""
    for w in words:
        if abs(len(w) - len(word)) > 2:
            continue
        stem = max(len(w), len(word)) - 2
        if stem >= 4 and w[:stem] == word[:stem]:
            return True
        if _one_edit(word, w):
            return True
    return False


def _one_edit(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    if abs(len(a) - len(b)) != 1:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1:]


def term_present(term: str, vocab: Container[str]) -> bool:
    """A term is documented when every whole token of it is among the release's indexed words."""
    toks = tokenize(term)
    whole = [t for t in toks if t == term.lower().strip("-`./") or not re.search(r"[\-_./]", t)]
    check = whole or toks
    return bool(check) and all(t in vocab for t in check)


def named_within(term: str, passages) -> bool:
    """A name the user shortened to its tail: `for-grace-period` for `--rules.alert.for-grace-period`,
    `delete_series` for `/api/v1/admin/tsdb/delete_series`. The index holds the long name as one word, so the
    short one is not among its words; a retrieved passage that holds it after a dot or a slash documents it."""
    if not re.search(r"[\-_.]", term):
        return False
    tail = re.compile(r"(?<=[./])" + re.escape(term) + r"(?![\w\-])", re.IGNORECASE)
    return any(tail.search(p) for p in passages)


def prose_compound(term: str, question: str, other_vocabs: dict[str, Container[str]]) -> bool:
    """A phrase written as one word around a function word ("hub-and-spoke", "end-to-end", "point-in-time"): the
    user's English, not a name, unless backticked or some other release documents it (`type-and-unit-labels`,
    a Prometheus 3.5 feature flag asked of 2.53). Absent from every release, it tells nothing of this one: aws5's
    "the hub-and-spoke router attachment" (the docs say "centralized router") was answered "not documented"."""
    parts = term.split("-")
    if not _JOINED.fullmatch(term) or f"`{term}`" in question or not any(p in STOP_WORDS for p in parts[1:-1]):
        return False
    return not any(term_present(term, vocab) for vocab in other_vocabs.values())


def decide(relevance: float, absent: list[str], threshold: float) -> tuple[bool, str]:
    """The pure decision, tested on its own."""
    if absent:
        return True, "not mentioned in this release's documents: " + ", ".join(absent)
    if relevance < threshold:
        return True, f"no retrieved passage is relevant enough (best {relevance:.2f} < {threshold:.2f})"
    return False, "retrieved passages cover the question"


def check(question: str, *, relevance: float, threshold: float, release_vocab: Container[str] | None,
          other_vocabs: dict[str, Container[str]], suggestion: str | None,
          llm: ChatModel | None = None, context: list[str] | None = None,
          ignore_words: Container[str] = (), common_words: Container[str] = (),
          releases_of: Callable[[str, bool], set[str]] | None = None,
          library_vocab: Container[str] | None = None) -> KnowledgeVerdict:
    """`releases_of` (timeline_lookup): where the product's releases hold a name; with it, names of several words
    are checked as phrases. `library_vocab`: every release's words, of every product (`unused_words`)."""
    terms = identifiers(question)
    absent = [t for t in terms if release_vocab is not None and not term_present(t, release_vocab)
              and not named_within(t, context or ()) and not prose_compound(t, question, other_vocabs)]
    if release_vocab is not None:
        covered = {p for t in terms for p in tokenize(t)}
        words = plain_words(question, covered | set(ignore_words), common_words)
        if other_vocabs:
            absent += release_only_words(words, release_vocab, other_vocabs)
            if releases_of is not None:
                phrases = command_phrases(question, set(ignore_words), common_words)
                absent += [p for p in release_only_phrases(phrases, releases_of, other_vocabs) if p not in absent]
        # Only where the product has no other release to tell a feature apart by: with several, a word no release
        # uses is more often the user's English ("writable", "summarise" on routing.tune: 7 false flags).
        if common_words and library_vocab is not None and not other_vocabs:
            absent += [w for w in unused_words(words, library_vocab, context or (), common_words) if w not in absent]
    missing, reason = decide(relevance, absent, threshold)
    others = sorted((r for r, vocab in other_vocabs.items() if absent and all(term_present(t, vocab) for t in absent)),
                    key=_release_key)
    verdict = KnowledgeVerdict(missing, reason, relevance, absent, others, suggestion if missing else None)
    if llm is not None and not missing and context:
        verdict.llm_verdict = llm_says_answerable(question, context, llm)
        if verdict.llm_verdict is False:
            verdict.missing, verdict.reason, verdict.suggestion = True, "the language model found no answer in the context", suggestion
    return verdict


def _release_key(release: str) -> list:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.\-]", release.lstrip("vV"))]


def llm_says_answerable(question: str, context: list[str], llm: ChatModel) -> bool | None:
    numbered = "\n\n".join(f"[{i}] {c[:800]}" for i, c in enumerate(context[:4], 1))
    reply = ask_json(llm, "Decide whether the passages contain the answer to the question. "
                          "Reply with JSON: {\"answerable\": true} or {\"answerable\": false}.",
                     f"Passages:\n{numbered}\n\nQuestion: {question}", max_tokens=20)
    value = (reply or {}).get("answerable")
    return value if isinstance(value, bool) else None


def degraded_answer(verdict: KnowledgeVerdict, product: str, releases: list[str]) -> str:
    """What the assistant says when the documents do not cover the question (iKnow's degraded answer)."""
    where = f"{product} {' and '.join(releases)}".strip()
    lines = [f"I don't know: the {where} documentation does not cover this."]
    if verdict.absent_terms:
        lines[0] = (f"I don't know: {', '.join(f'`{t}`' for t in verdict.absent_terms)} is not documented in {where}.")
    if verdict.other_releases:
        lines.append(f"It is documented in: {', '.join(verdict.other_releases)}.")
    if verdict.suggestion:
        lines.append(f"A question these documents can answer: \"{verdict.suggestion}\"")
    return "\n".join(lines)


def suggest_question(title: str, section: str, product: str, release: str) -> str:
    """A question the top passage answers, named by its heading; a one-word heading ("Stable", "Usage") says
    little alone, so its parent heading (or the page title) comes with it."""
    path = [h.strip() for h in section.split(" > ") if h.strip()] if section else []
    topic = path[-1] if path else title
    parent = path[-2] if len(path) > 1 else title
    if path and len(topic.split()) == 1 and parent and parent.lower() != topic.lower():
        topic = f"{topic} in {parent}"
    return f"What does the {product} {release} documentation say about {topic}?"


def everyday_words(tokenizer) -> frozenset[str]:
    """Everyday words: the whole words of the embedding model's vocabulary (WordPiece keeps ~20k of them)."""
    vocab = getattr(tokenizer, "get_vocab", dict)()
    return frozenset(w for w in vocab if w.isalpha() and w.islower())


def naming_words(product: str | None, mentions, catalogue) -> set[str]:
    """The words that name the product or its release ("prom", "prometheus", "v2.53"): never a feature of it."""
    names = [product or "", *mentions]
    names += [a for c in catalogue or [] if c.name == product for a in getattr(c, "aliases", None) or []]
    return {w for name in names for w in tokenize(name)}
