"""Questions about the library itself, answered from its catalogue with no search and no LLM call (issue 14):
which releases of a product there are, how many, the newest, the oldest, and whether a release exists (when it
does not, the nearest releases that do).

A question is a catalogue question only when nothing is left of it once its product, its release mentions and the
words of such questions are taken away: "what is the latest etcd release?" is one; "what is the default snapshot
count in the latest etcd release?" is a documentation question ("default", "snapshot" remain).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assistant.answering.product_names import ProductNames
from assistant.answering.routing import detect
from assistant.library.catalogue import ProductInfo
from assistant.library.versions import release_sort_key, sort_releases

__all__ = ["CatalogueAnswer", "answer_catalogue_question"]

Kind = Literal["list", "count", "newest", "oldest", "exists"]

_COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", re.IGNORECASE)
_NEWEST = re.compile(r"\b(?:newest|latest|most\s+recent|current|last|highest|recent)\b", re.IGNORECASE)
_OLDEST = re.compile(r"\b(?:oldest|earliest|first|lowest|least\s+recent)\b", re.IGNORECASE)
# "and in 3.6?" is a follow-up about a topic, not about the library: existence is asked in so many words.
_EXISTS = re.compile(r"\b(?:exists?|existing|have|has|got|available|indexed|library|there|covered|cover|docs|"
                     r"documentation|include[sd]?|loaded|stored|ingested|know|support(?:ed)?)\b", re.IGNORECASE)
_RELEASE_WORD = re.compile(r"\b(?:releases?|versions?|vers|editions?|builds?)\b", re.IGNORECASE)
# Words that carry no topic in a question about the catalogue.
_FILLER = set(
    """a an the of for in on to is are was were be do does did have has had you your we our i me my there here it
    its which what whats what's when who list show tell give all any every please can could would will should
    available indexed library docs doc documentation documents documented loaded stored held hold holds covered
    cover covers include included includes exist exists existing support supported supports know about
    many how number count newest latest most recent current last highest oldest earliest first lowest least
    release releases version versions vers edition editions build builds got get kept keep contain contains
    containing up ingested added so far currently right now at moment this that these those one ones of
    or and any yet still also else other else's whether if see find check""".split()
)


@dataclass(frozen=True)
class CatalogueAnswer:
    kind: Kind
    product: str | None  # None: the question is about every product
    answer: str
    releases: list[str]  # the releases the answer names


def _kind(question: str, has_release: bool) -> Kind | None:
    if _COUNT.search(question):
        return "count"
    if _NEWEST.search(question):
        return "newest"
    if _OLDEST.search(question):
        return "oldest"
    if has_release:
        return "exists" if _EXISTS.search(question) else None
    if _RELEASE_WORD.search(question):
        return "list"
    return None


def _leftover(question: str, spans: list[tuple[int, int]]) -> list[str]:
    text = list(question)
    for start, end in spans:
        text[start:end] = " " * (end - start)
    words = re.findall(r"[a-z][a-z'’]*", "".join(text).lower())
    return [w for w in words if w.replace("’", "'") not in _FILLER]


def _nearest(spelling: str, releases: list[str]) -> list[str]:
    """The releases just older and just newer than a release the library lacks."""
    key = release_sort_key(spelling)
    older = [r for r in releases if release_sort_key(r)[:2] < key[:2]]
    newer = [r for r in releases if release_sort_key(r)[:2] > key[:2]]
    return ([older[-1]] if older else []) + ([newer[0]] if newer else [])


def _span_of(question: str, raw: str) -> tuple[int, int] | None:
    at = question.lower().find(raw.lower())
    return (at, at + len(raw)) if at >= 0 else None


def answer_catalogue_question(question: str, catalogue: list[ProductInfo], *,
                              pinned_product: str | None = None) -> CatalogueAnswer | None:
    """The answer when `question` asks about the library itself; None for any other question."""
    if not catalogue or len(question) > 200:
        return None
    names = ProductNames(catalogue)
    spans = [(m.start, m.start + len(m.text)) for m in names.matches(question)]
    hit = names.named(question)
    product = names.lookup(hit.product if hit else pinned_product)
    if product is None and len(catalogue) == 1:
        product = catalogue[0]
    mentions: list[str] = []
    routing = detect(question, catalogue, pinned_product=product.name) if product else None
    if routing is not None:
        mentions = list(routing.mentions) + list(routing.unknown_mentions)
    spans += [s for raw in mentions if (s := _span_of(question, raw))]
    if _leftover(question, spans):
        return None
    kind = _kind(question, bool(mentions))
    if kind is None or (kind != "exists" and mentions):
        return None
    if product is None:
        if kind != "list":
            return None
        parts = [f"{p.display_name}: {', '.join(p.releases) or 'no release yet'}" for p in catalogue]
        return CatalogueAnswer("list", None, "The library holds " + "; ".join(parts) + ".",
                               [r for p in catalogue for r in p.releases])
    return _answer(kind, product, routing)


def _answer(kind: Kind, product: ProductInfo, routing) -> CatalogueAnswer:
    name, releases = product.display_name, sort_releases(product.releases)
    if not releases:
        return CatalogueAnswer(kind, product.name, f"The library has no {name} release yet.", [])
    listed = ", ".join(releases)
    if kind == "count":
        n = len(releases)
        text = f"The library has {n} {name} release{'s' if n != 1 else ''}: {listed}."
        return CatalogueAnswer(kind, product.name, text, releases)
    if kind == "newest":
        return CatalogueAnswer(kind, product.name, f"The newest {name} release in the library is {releases[-1]} "
                               f"(of {listed}).", [releases[-1]])
    if kind == "oldest":
        return CatalogueAnswer(kind, product.name, f"The oldest {name} release in the library is {releases[0]} "
                               f"(of {listed}).", [releases[0]])
    if kind == "exists":
        if routing.unknown_mentions and not routing.releases:
            asked = routing.unknown_mentions[0]
            near = _nearest(re.sub(r"^(?:release|version|ver|rel)\.?[\s-]*", "", asked, flags=re.IGNORECASE), releases)
            return CatalogueAnswer(kind, product.name, f"No: the library has no {name} release {asked}. The nearest "
                                   f"it has: {', '.join(near)} (all: {listed}).", near)
        found = ", ".join(routing.releases)
        return CatalogueAnswer(kind, product.name, f"Yes: the library has {name} {found} (all: {listed}).",
                               list(routing.releases))
    return CatalogueAnswer(kind, product.name, f"The library has {len(releases)} {name} release"
                           f"{'s' if len(releases) != 1 else ''}: {listed}.", releases)
