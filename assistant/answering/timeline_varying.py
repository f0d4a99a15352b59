"""The name a presence question asks about, when it says two (issue 16, round 13): "when did generate_password_hash
switch to scrypt", "scrypt password hashing in 2.0?". The term finder takes the surest name (the identifier, the
heading), here one that every release documents: asked when it came, it answers "the oldest release, maybe older";
asked of one release, the timeline sees no difference and leaves it to search. The other name said is the one whose
presence differs between releases, the only one a question of its coming or its presence can be about.

Read only when the name found is in every release (or, its coming asked, in any: the other must come later): then
the question's rarest other word held by some releases but not all (a word of 4 letters or more, no word of asking
or the product's name) is the term, and the name found becomes context (its words are no other thing asked:
timeline_evidence.unasked_words).
"""

from __future__ import annotations

import re

from assistant.answering.routing import detect
from assistant.answering.timeline_evidence import propose
from assistant.answering.timeline_words import STOP, stem, words_of
from assistant.library.catalogue import ProductInfo
from assistant.library.terms import identifiers
from assistant.library.timeline import Timeline
from assistant.library.versions import sort_releases

__all__ = ["swap", "varying", "varying_term"]


def varying_term(question: str, term: str, product: str, releases: list[str], timeline: Timeline,
                 skip: set[str] = frozenset(), came: bool = False) -> str | None:
    """The question's rarest other name or word that some releases of `product` document and some do not, when
    `term` is documented in every one of `releases`; else None. `skip`: the product's names. `came`: its coming
    asked, so the other must come later than the term: a word the oldest release has answers no better ("promtool"
    for "... with promtool - since?"), and a thing described by two names came when the later one did ("config
    from a TOML file with tomllib": `config.from_file` came in 2.2.5, `tomllib` in 3.0.3)."""
    own = {o.release for o in timeline.occurrences(product, term)} & set(releases)
    if len(releases) < 2 or not own or own != set(releases) and not came:
        return None
    first = min(releases.index(r) for r in own)
    parts = {stem(p) for p in words_of(term)}
    said = identifiers(question) + [w.lower() for w in re.findall(r"[A-Za-z][\w\-]*[A-Za-z0-9]", question)]
    best = None
    for w in dict.fromkeys(said):
        if len(w) < 4 or w in STOP or w in skip or stem(w) in parts or w == term.lower() or w in term.lower():
            continue
        occ = timeline.occurrences(product, w)
        have = {o.release for o in occ}
        held = [releases.index(r) for r in have if r in releases]
        later = bool(held) and min(held) > first if came else have != set(releases)
        if have and later and (best is None or len(occ) < best[0]):
            best = (len(occ), w)
    return best[1] if best else None


def varying(question: str, term: str, products: list[str], timeline: Timeline, skip: set[str] = frozenset(),
            came: bool = False) -> tuple[str, str] | None:
    """(name, product): `varying_term` in the first of `products` (the term's own first) where it finds one. With no
    product named, the one whose docs hold both names: "generate_password_hash" is in Flask's tutorial and
    Werkzeug's reference, "scrypt" in Werkzeug's notes only."""
    for p in products:
        if other := varying_term(question, term, p, timeline.releases(p), timeline, skip, came):
            return other, p
    return None


def swap(question: str, term: str, products: list[str], named: list[str], catalogue: list[ProductInfo],
         timeline: Timeline, skip: set[str] = frozenset()) -> tuple[str, str | None, str, list[str]]:
    """(term, context, product, releases named): the other name (`varying`) as the term and the one found as its
    context, for a question whose words propose its coming, its presence in a release or nothing yet; in the product
    whose docs hold both, the releases named read again for it. Else the term found, no context, as they were."""
    asked = propose(question, len(named))
    found = varying(question, term, products, timeline, skip, came=asked == "introduced") \
        if asked in (None, "introduced", "in_release") else None
    if found is None:
        return term, None, products[0], named
    other, product = found
    if product != products[0]:  # "generate_password_hash" is in Flask's tutorial too; "scrypt" only in Werkzeug's
        routing = detect(question, catalogue, pinned_product=product)
        named = sort_releases(routing.releases) if routing.product == product and routing.mentions else []
    return other, term, product, named
