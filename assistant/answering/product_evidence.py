"""Product from evidence (issue 14): a question that names no product is searched in every product's routed release,
and the documents decide.

`gather` runs the normal hybrid search once over every product's release (one query embedding, each release's
dense and BM25 search, one fused ranking); `choose` is the pure decision: one clear winner, two close products
(both answered, sources labelled by product), or nothing anywhere ("not in the library").

The "not in the library" floor is judged on passages that both searches found (`Evidence.agreed`), or on a cosine
found by embedding alone that clears it by UNCORROBORATED. A short reference entry (issue 15 splits flag lists into
one chunk per flag) can sit close to any question in embedding space: "what is the recommended marinade time for
tandoori chicken?" reaches 0.39 with etcd's 12-word `--backend-batch-interval` entry and 0.34 with a Prometheus YAML
example, over the 0.30 floor, while no passage that also shares the question's words comes near it (best 0.23).
A real question's answer is nearly always found by its words too (the lowest agreed cosine of
eval/routing.tune.jsonl's etcd and Prometheus questions is their lowest best cosine, 0.345); when BM25's few hits
miss it ("log failed scrapes" against `scrape_failure_log_file`: 0.79 by embedding alone), the cosine is high.
Products are judged each on its own, so a runner-up that reaches the floor is answered when the first does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.answering.knowledge import identifiers, plain_words
from assistant.answering.limits import guides_named
from assistant.answering.retrieval import HybridRetriever, ReleaseIndex, RetrievalParams
from assistant.library.lexical import STOP_WORDS, tokenize

__all__ = ["Evidence", "choose", "clearly_held", "gather", "outweighed", "owned", "sole_owner"]

# Tuned on eval/routing.tune.jsonl only (question text, no product given); see README "Product from evidence".
TOP = 10  # fused candidates that vote
PER_PRODUCT = 5  # dense and BM25 hits asked of each product's release
VOTE_WEIGHT = 0.10  # a product's share of the top candidates, added to its best cosine
# A second product this close to the first is answered too, and the fused ranking orders the two products' passages.
# 0.02 was tuned on eval/routing.tune.jsonl alone. Over the held-back tuning halves (heldback2_ranking,
# heldback_ranking, heldback_probe_ranking) and ranking3.tune, 3 of the 8 questions whose margin was 0.02 to 0.05 had
# the wrong product first (0.028, 0.029, 0.048); answering both gained 2 gold files in the top 3 (hit@3 0.731 -> 0.769,
# 0.878 -> 0.902) and lost none. On the real PDF manuals, "save the plot as a 600x400 png" (gnuplot behind Octave's
# 1,158 pages by 0.022) now reaches its gnuplot page.
CLOSE = 0.05
# How much higher than the floor a cosine must be when BM25 did not find that passage too (see the module's doc).
UNCORROBORATED = 0.15


@dataclass(frozen=True)
class Evidence:
    product: str
    release: str
    best: float  # the best dense cosine of the product's candidates (comparable across products: one model)
    share: float  # the product's share of the top fused candidates
    bm25_hits: int  # candidates of the product that BM25 found
    agreed: float | None = None  # the best cosine among candidates that dense and BM25 search both found
    guides: tuple[str, ...] = ()  # the release's guide folders (limits.guide_folders): a question may name one

    def reaches(self, floor: float) -> bool:
        """About the question: a passage both searches found reaches the floor, or one found by embedding alone
        clears it by UNCORROBORATED (where `agreed` was not measured, the best cosine is judged as before)."""
        if self.agreed is None:
            return self.best >= floor
        return self.agreed >= floor or self.best >= floor + UNCORROBORATED

    @property
    def score(self) -> float:
        return self.best + VOTE_WEIGHT * self.share


def gather(question: str, indexes: list[ReleaseIndex], embed_model: BaseEmbedding,
           params: RetrievalParams) -> list[Evidence]:
    """Search every index with the question as typed; one Evidence per product, strongest first."""
    # A product's evidence is its best few hits: PER_PRODUCT of each kind keeps the cost per product small (every
    # candidate's vector is read back for its cosine), which is what holds ten products near the one-product path.
    wide = replace(params, threshold=None, use_mmr=False, margin=None, dense_k=PER_PRODUCT, bm25_k=PER_PRODUCT,
                   limit_k=0, dense_slot=0, changelog_factor=1.0, changelog_slot=0,
                   candidates=max(TOP, PER_PRODUCT * len(indexes)))
    found = HybridRetriever(indexes, embed_model, wide).search([question])
    best: dict[str, float] = {}
    votes: dict[str, int] = {}
    lexical: dict[str, int] = {}
    agreed: dict[str, float] = {}
    for rank, n in enumerate(found.candidates):
        md = n.node.metadata
        product = md["product"]
        if "dense" in md:
            best[product] = max(best.get(product, float("-inf")), float(md["dense"]))
        if "bm25" in md:
            lexical[product] = lexical.get(product, 0) + 1
            if "dense" in md:
                agreed[product] = max(agreed.get(product, float("-inf")), float(md["dense"]))
        if rank < TOP:
            votes[product] = votes.get(product, 0) + 1
    top = sum(votes.values()) or 1
    out = [
        Evidence(ix.product, ix.release, best.get(ix.product, 0.0), votes.get(ix.product, 0) / top,
                 lexical.get(ix.product, 0), agreed.get(ix.product, 0.0) if ix.product in best else None,
                 tuple(ix.guides))
        for ix in indexes
    ]
    return sorted(out, key=lambda e: -e.score)


def choose(evidence: list[Evidence], floor: float, close: float = CLOSE) -> list[Evidence]:
    """The products to answer from: [] when nothing reaches `floor` (the relevance under which retrieved text is
    not about the question: `Evidence.reaches`), the winner, or the winner and a runner-up within `close` of it."""
    ranked = sorted((e for e in evidence if e.reaches(floor)), key=lambda e: -e.score)
    if not ranked:
        return []
    if len(ranked) > 1 and ranked[0].score - ranked[1].score <= close:
        return ranked[:2]
    return ranked[:1]


def clearly_held(evidence: list[Evidence], floor: float) -> bool:
    """Whether some product holds a passage about the question beyond doubt: one that dense and BM25 search both
    found, UNCORROBORATED above the floor. The query check asks it before declining a question as out of scope. On the
    AWS library (etcd, Prometheus, the 14 AWS guides) the 75 everyday requests of the scope seeds and tests reach at
    most 0.38 ("nvidia stock price": Amazon Forecast); aws6-047's weekly forecast from daily price data 0.58."""
    return any(e.agreed is not None and e.agreed >= floor + UNCORROBORATED for e in evidence)


def sole_owner(terms: list[str], products_of) -> str | None:
    """The product whose documents alone hold the question's names (`products_of(term)`: the products that hold
    it), when every name any product holds points to that one product; None when a name is shared or none is held."""
    held = [owners for owners in map(products_of, terms) if owners]
    if not held or any(len(owners) != 1 for owners in held) or len(set().union(*held)) != 1:
        return None
    return next(iter(held[0]))


def owned(evidence: list[Evidence], question: str, timeline, common_words,
          holds: Callable[[str, str], bool] | None = None) -> list[Evidence]:
    """A question naming no product is answered from the product whose documents alone hold its identifiers and rare
    words (`--auto-gomemlimit.ratio`, "OTLP": Prometheus), when there is one: dense search can find a closer passage
    in another product's text on the same subject, which never names them (README: "Ranking (issue 15)"). Every
    product is still searched and shown; the floor still applies to the owner.

    A product one of whose guides the question names ("... in IoT Analytics?": `aws-iotanalytics-developer-guide`)
    owns it first: the guide's name is no indexed word ("iot" is too short to count, "analytics" an everyday word),
    and a closer passage of another product sharing the question's words ("refresh interval": Prometheus's
    `refresh_interval`) would win by cosine. It does not when a word of the question is absent from that product's
    documents and present in another's (`holds(product, word)`: the release's search index): "How do I discover EC2
    instances as scrape targets?" names EC2, but no AWS guide says "scrape"; the evidence decides (Prometheus's
    `ec2_sd_config`)."""
    terms = identifiers(question)
    terms += plain_words(question, {p.lower() for t in terms for p in t.split()}, common_words)
    # Only whether one product alone holds them matters: the lookup stops at a second product (`sole_owner` over
    # each name's owners gives the same answer, at one timeline lookup per name and product).
    holders = timeline.holding([e.product for e in evidence], terms, stop_at=2)
    owner = next(iter(holders)) if len(holders) == 1 else None
    if owner is not None and outweighed(owner, evidence):
        owner = None
    naming = {e.product for e in evidence if guides_named(e.guides, question, common_words)}
    if len(naming) == 1 and (owner is None or owner in naming) and not _foreign_word(naming, evidence, question, holds):
        # A guide named yields only to names no other product holds ("relabel targets found by EC2 discovery").
        owner = next(iter(naming))
    return [e for e in evidence if e.product == owner] if owner else evidence


def outweighed(owner: str, evidence: list[Evidence], margin: float = CLOSE) -> bool:
    """Whether another product's passages that both searches found (`Evidence.agreed`) sit closer to the question
    than the owner's by more than `margin`: a rare word one product alone holds is then incidental, and the evidence
    decides. Over the tuning halves, of 5 answerable questions whose sole owner was not the product with the best
    evidence, 4 owners were wrong ("fit a quadratic to measured data": Octave alone says "quadratic", gnuplot's `fit`
    page agrees at 0.49 against 0.42; "show a progress bar while looping over items": Jinja2's loops, Click's
    progress bar 0.62 against 0.24), each trailing by 0.07 to 0.39 in agreed cosine; of the 28 right owners none
    trailed by more than 0.03 ("v3.0.3 bugfix for PackageLoader": Jinja2), and OTLP's (Prometheus 0.32) leads the
    closer passage of etcd, which embedding alone found (0.23)."""
    mine = next((e.agreed for e in evidence if e.product == owner), None)
    if mine is None:
        return False
    return any(e.agreed is not None and e.agreed > mine + margin for e in evidence if e.product != owner)


def _foreign_word(naming: set[str], evidence: list[Evidence], question: str,
                  holds: Callable[[str, str], bool] | None) -> bool:
    """Whether a word of the question (four letters or more, no stop word) is missing from the named guide's product
    and held by another product searched. Asked only of a question that names a guide: a few index look-ups."""
    if holds is None:
        return False
    named = next(iter(naming))
    others = [e.product for e in evidence if e.product != named]
    words = [w for w in dict.fromkeys(tokenize(question)) if len(w) >= 4 and w.isalpha() and w not in STOP_WORDS]
    return any(not holds(named, w) and any(holds(o, w) for o in others) for w in words)
