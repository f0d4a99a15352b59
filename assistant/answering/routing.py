"""Which product and which release(s) a question is about (QAMR's version routing, iKnow's term database).

`detect` reads the question, then the conversation, then falls back to the newest release. A release
mention only counts when it normalises to a release of the product, or when it is spelled so clearly as
a version ("v3.7", "release 3.7", "etcd 3.7") that the user must be told the library lacks it; bare
numbers (ports, sizes, durations, status codes, IPs) never become releases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from assistant.answering.identifiers import identifier_spans, in_identifier
from assistant.answering.product_names import OTHER_SOFTWARE, ProductNames
from assistant.library.catalogue import ProductInfo
from assistant.library.versions import newest, normalise_release, sort_releases

__all__ = ["Routing", "detect", "strip_release_mentions"]

# named: its name or display name; alias: an alias or a derived spelling ("prom", "Kafka" for apache-kafka);
# release: only that product has the release named; inferred: chosen by searching every product (product_evidence)
ProductSource = Literal["pinned", "named", "alias", "release", "history", "only", "inferred", "none"]
ReleaseSource = Literal["pinned", "named", "history", "default_newest", "timeline", "none"]


@dataclass
class Routing:
    product: str | None
    product_source: ProductSource  # "release": no product named, but only one product has the release named
    releases: list[str]  # one, or two (older first) for a comparison; empty when only unknown releases were named
    release_source: ReleaseSource  # "none": no product, so no release either
    mentions: list[str] = field(default_factory=list)  # spellings in the question that chose `releases`
    unknown_mentions: list[str] = field(default_factory=list)  # releases named that the product does not have
    is_comparison: bool = False
    also: list[tuple[str, str]] = field(default_factory=list)  # (product, release) of a close second, also searched
    evidence: dict[str, float] = field(default_factory=dict)  # product -> evidence score, when inferred


# --- release mentions -----------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?P<prefix>[vV]|R)?(?P<core>\d+(?:\.\d+)*)(?P<wild>\.[xX*])?"
    r"(?P<tag>-?(?:rc|alpha|beta|pre)[.\-]?\d*(?![A-Za-z]))?"
)
_RELEASE_WORD_BEFORE = re.compile(r"(?<![a-z])(?:release|version|ver|rel)\.?[\s-]*$", re.IGNORECASE)
# "3.4 and 3.7", "3.4 vs 3.7", "3.4-3.6": a bare number joined to a clear version is one too.
_CONNECTOR = re.compile(r"^\s*(?:,|-|/|and|or|to|vs\.?|versus|through|till|until)?\s*$", re.IGNORECASE)
_RELEASE_WORD_AFTER = re.compile(r"^\s*(?:release|version)s?\b", re.IGNORECASE)
# Units after a number make it a quantity: "2.5 GB", "1.5 seconds", "3.5x".
_UNIT_AFTER = re.compile(
    r"^\s*(?:%|percent\b|[kmgtpe]i?b\b|bytes?\b|[kmg]\b|ms\b|s\b|secs?\b|seconds?\b|m\b|mins?\b|minutes?\b"
    r"|h\b|hours?\b|d\b|days?\b|weeks?\b|times\b|x\b|cores?\b|cpus?\b|qps\b|rps\b)",
    re.IGNORECASE,
)
# Words whose numbers are versions of something else: "TLS 1.2", "remote write 2.0", "API v3", "Go 1.22".
_FOREIGN_BEFORE = OTHER_SOFTWARE | {
    "http", "https", "openmetrics", "protobuf", "proto", "api", "apis", "spec", "specification", "protocol", "write",
    "read", "ubuntu", "debian", "rhel", "centos", "alpine", "helm", "grafana", "alertmanager", "grpc", "otlp",
    "opentelemetry", "port", "ports", "code", "status", "step", "steps", "section", "chapter", "table", "figure", "rfc",
}
_FOREIGN_AFTER = re.compile(r"^\s*(?:api|apis|store|protocol|spec|client|format|schema|endpoints?)\b", re.IGNORECASE)
# "which 3.4 patch version": the release is the subject asked about, not the documentation to read.
_PATCH_AFTER = re.compile(r"^(?:\.x)?\s+patch\b", re.IGNORECASE)

_COMPARISON = re.compile(
    r"\b(?:between|vs\.?|versus|compar(?:e|ed|es|ing|ison)|differ\w*|change[sd]?|what'?s new|new in)\b",
    re.IGNORECASE,
)
# Upgrade and downgrade guides live with the newer release (etcd's upgrade_3_6.md is in v3.6,
# downgrade_3_5.md in v3.5; Prometheus's 3.0 migration guide in v3.x).
_MIGRATION = re.compile(
    r"\b(?:upgrad\w*|downgrad\w*|migrat\w*|roll(?:ing)?[\s-]?back|jump\w*|moving)\b|\bback to\b",
    re.IGNORECASE,
)
_LATEST = re.compile(r"\b(?:latest|newest|current|most recent)\s+(?:release|version)\b", re.IGNORECASE)


@dataclass
class _Mention:
    raw: str  # as written, with any "v"/"release " prefix: what strip_release_mentions removes
    spelling: str  # what normalise_release sees: "3.5", "3.5.x", "3.5.0-rc1"
    strong: bool  # spelled clearly as a version, so an unknown one is worth a message
    single: bool  # one component: "v3", "release 3"
    word_cue: bool  # "release 3.5", "etcd 3.5", "the 3.5 release"
    product_cue: str | None  # the product named right before it
    secondary: bool  # "which 3.4 patch version"


def _previous_word(before: str) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", before[-30:])
    return words[-1].lower() if words else ""


def _boundary_ok(text: str, start: int, prefix: str | None) -> bool:
    if start == 0:
        return True
    ch = text[start - 1]
    if ch.isalnum() or ch in "_./@#$\\%'\"`":
        return False
    if ch == ":":  # "image: prom/prometheus:v2.53.0" is a release tag; "localhost:9090" is not
        return bool(prefix) and prefix in "vV"
    if ch == "=":  # "--snapshot-count=10000" is a value; ">=3.5" is a version
        return start >= 2 and text[start - 2] in "<>=!~"
    if ch == "-":  # "3.4-3.6" is a range, "release-3.5" a branch; "--rev=2", "int-004" are not versions
        return start >= 2 and (
            text[start - 2].isdigit() or text[start - 2] in "xX" or bool(_RELEASE_WORD_BEFORE.search(text[:start]))
        )
    return True


def _mentions(text: str, products: ProductNames) -> list[_Mention]:
    found = []
    previous: tuple[int, bool] | None = None  # end and strength of the last mention
    identifiers = identifier_spans(text)
    for m in _NUMBER.finditer(text):
        prefix, core = m.group("prefix"), m.group("core")
        if in_identifier(identifiers, m.start(), m.end()):
            continue  # SPARK-44581, CVE-2023-44487, RFC 7231, a hash, a port, a date
        before = text[: m.start()]
        # "prometheus-2.53.0.linux-amd64.tar.gz": a product name glued to its release by a hyphen ("SPARK-44581",
        # a whole number, is an issue key)
        glued = before.endswith("-") and "." in core and products.cue(before[:-1]) is not None
        if not glued and not _boundary_ok(text, m.start(), prefix):
            continue
        after = text[m.end():]
        if after[:1].isalnum() or after[:1] == "_" or re.match(r"\.\d", after):
            continue
        if after[:1] and after[:1] in "/%":
            continue
        parts = core.split(".")
        if len(parts) > 3:  # an IP address or a build number
            continue
        if len(parts) == 1 and re.match(r"-\d", after):  # a date: 2024-01-15
            continue
        if _UNIT_AFTER.match(after) and not m.group("wild"):
            continue
        product_cue = products.cue(before)
        if _previous_word(before) in _FOREIGN_BEFORE and product_cue is None:
            continue
        single = len(parts) == 1
        if single and _FOREIGN_AFTER.match(after):
            continue
        word_before = _RELEASE_WORD_BEFORE.search(before)
        word_cue = bool(word_before or product_cue or _RELEASE_WORD_AFTER.match(after))
        strong = bool(prefix or word_cue or m.group("wild") or m.group("tag"))
        if not strong and not single and previous and previous[1]:
            strong = _CONNECTOR.match(text[previous[0]: m.start()]) is not None
        if single and not (prefix or word_cue or m.group("wild")):
            continue  # a bare integer is a count, a port or a code
        start = word_before.start() if word_before else m.start()
        found.append(
            _Mention(
                raw=text[start: m.end()].strip(),
                spelling=core + (m.group("wild") or "") + (m.group("tag") or ""),
                strong=strong,
                single=single,
                word_cue=word_cue,
                product_cue=product_cue,
                secondary=bool(_PATCH_AFTER.match(after)),
            )
        )
        previous = (m.end(), strong)
    return found


def _normalise(mention: _Mention, product: ProductInfo) -> str | None:
    release = normalise_release(mention.spelling, product.releases)
    # "Prometheus 3.0" names the 3.x line when the library holds no 3.0 (its migration guide lives in 3.x).
    zero = re.fullmatch(r"(\d+)(?:\.0)+", mention.spelling)
    if release is None and zero and mention.strong:
        release = normalise_release(zero.group(1), product.releases)
    return release


@dataclass
class _Reading:
    releases: list[str]
    unknown: list[str]
    used: list[str]  # raw spellings behind releases and unknown
    is_comparison: bool

    @property
    def found(self) -> bool:
        return bool(self.releases or self.unknown)


def _read_releases(text: str, mentions: list[_Mention], product: ProductInfo) -> _Reading:
    known: list[str] = []
    unknown: list[str] = []
    used: list[str] = []
    named: list[tuple[str, str]] = []
    uses_r = any(r[:1] in "Rr" for r in product.releases)
    precise: set[str] = set()  # releases named with more than a major ("3.5", not "v3")
    for mention in mentions:
        if mention.product_cue not in (None, product.name):
            continue  # "like etcd 3.5" inside a Prometheus question
        release = _normalise(mention, product)
        if release is not None:
            if release not in known:
                known.append(release)
            named.append((mention.raw, release))
            if not mention.single:
                precise.add(release)
        elif mention.strong and (
            not mention.single or mention.word_cue or (mention.raw[:1] == "R" and uses_r)
        ):
            if mention.raw not in unknown:
                unknown.append(mention.raw)
            used.append(mention.raw)
    # "etcd 3.5 with the v3 discovery flags": a major alone names the series of a release named precisely beside it,
    # not a second release, unless the question compares (tuning item rk-078 was routed to v3.5 and v3.6).
    if not _COMPARISON.search(text):
        series = {_major(r) for r in precise}
        known = [r for r in known if r in precise or _major(r) not in series]
    if len(known) <= 1:
        chosen, comparison = known, False
    elif _MIGRATION.search(text) and not _COMPARISON.search(text):
        chosen, comparison = [sort_releases(known)[-1]], False
    else:
        ordered = sort_releases(known)
        chosen, comparison = [ordered[0], ordered[-1]], True
    # Only the spellings behind the chosen releases: "back to 3.4" in a 3.5 downgrade question stays.
    used = [raw for raw, release in named if release in chosen] + used
    return _Reading(chosen, unknown, used, comparison)


def _major(release: str) -> str:
    return release.lstrip("vVrR").split(".")[0]


# --- detect ---------------------------------------------------------------------------------------


def _user_turns(question: str, history: list[dict] | None) -> list[str]:
    """Earlier user turns, most recent first (the question itself dropped if history repeats it)."""
    turns = [t.get("content", "") for t in (history or []) if t.get("role") == "user"]
    if turns and turns[-1].strip() == question.strip():
        turns = turns[:-1]
    return list(reversed(turns))


def _product_by_release(mentions: list[_Mention], products: ProductNames, strong_only: bool) -> str | None:
    """The one product that has the releases named, when the product itself goes unnamed."""
    scores = {}
    for p in products.catalogue:
        scores[p.name] = sum(
            1 for m in mentions if (m.strong or not strong_only) and not m.secondary and _normalise(m, p)
        )
    top = max(scores.values(), default=0)
    winners = [name for name, score in scores.items() if score == top]
    return winners[0] if top > 0 and len(winners) == 1 else None


def _product_of_turn(text: str, products: ProductNames) -> str | None:
    hit = products.named(text)
    return hit.product if hit else _product_by_release(_mentions(text, products), products, strong_only=False)


def detect(
    question: str,
    catalogue: list[ProductInfo],
    *,
    pinned_product: str | None = None,
    pinned_release: str | None = None,
    history: list[dict] | None = None,
) -> Routing:
    """Route a question to a product and one release (two for a comparison).

    Product: named in the question > pinned > the only product with the releases named > the most
    recent user turn that names one (or its release); a library with a single product needs none of that.
    Release: named in the question > pinned > the most recent user turn naming one > a release named
    only as a subject ("which 3.4 patch version") > the newest. A question outranks a pin because it is
    the fresher and more specific statement; the pipeline can show both.
    """
    products = ProductNames(catalogue)
    earlier = _user_turns(question, history)
    mentions = _mentions(question, products)

    hit = products.named(question)
    product = products.lookup(hit.product if hit else None)
    product_source: ProductSource = hit.kind if hit else "named"
    if product is None and (pinned := products.lookup(pinned_product)) is not None:
        product, product_source = pinned, "pinned"
    if product is None and len(catalogue) == 1:
        product, product_source = catalogue[0], "only"
    if product is None:
        by_release = _product_by_release(mentions, products, strong_only=False)
        if by_release is not None and earlier:
            # A bare "2.53" in a conversation about another product is weaker evidence than the conversation.
            strong = _product_by_release(mentions, products, strong_only=True)
            by_release = strong or (None if any(_product_of_turn(t, products) for t in earlier) else by_release)
        if by_release is not None:
            product, product_source = products.by_name[by_release], "release"
    if product is None:
        for turn in earlier:
            name = _product_of_turn(turn, products)
            if name is not None:
                product, product_source = products.by_name[name], "history"
                break
    if product is None:
        return Routing(None, "none", [], "none", [m.raw for m in mentions if m.strong])

    primary = [m for m in mentions if not m.secondary]
    secondary = [m for m in mentions if m.secondary]
    reading = _read_releases(question, primary, product)
    if reading.found:
        return _routing(product, product_source, reading, "named")

    if pinned_release and (release := normalise_release(pinned_release, product.releases)) is not None:
        return Routing(product.name, product_source, [release], "pinned")

    # "the latest version" leaves the conversation's release behind.
    follow_history = not _LATEST.search(question)
    if follow_history and (past := _from_history(earlier, product, products, secondary=False)):
        return _routing(product, product_source, past, "history")
    reading = _read_releases(question, secondary, product)
    if reading.found:
        return _routing(product, product_source, reading, "named")
    if follow_history and (past := _from_history(earlier, product, products, secondary=True)):
        return _routing(product, product_source, past, "history")

    latest = newest(product.releases)
    return Routing(product.name, product_source, [latest] if latest else [], "default_newest")


def _from_history(earlier: list[str], product: ProductInfo, products: ProductNames, *, secondary: bool) -> _Reading | None:
    """The releases of the most recent earlier user turn that names one; its spellings are not the question's."""
    for turn in earlier:
        reading = _read_releases(turn, [m for m in _mentions(turn, products) if m.secondary == secondary], product)
        if reading.found:
            return _Reading(reading.releases, reading.unknown, [], reading.is_comparison)
    return None


def _routing(product: ProductInfo, product_source: ProductSource, reading: _Reading, source: ReleaseSource) -> Routing:
    return Routing(
        product=product.name,
        product_source=product_source,
        releases=reading.releases,
        release_source=source,
        mentions=list(dict.fromkeys(reading.used)),
        unknown_mentions=reading.unknown,
        is_comparison=reading.is_comparison,
    )


# --- versionless query ----------------------------------------------------------------------------

_DANGLING = r"(?:in|for|of|on|from|to|at|since|between|and|vs\.?|versus|with)"


def strip_release_mentions(question: str, routing: Routing) -> str:
    """The question without its release spellings, for QAMR's versionless query.

    "How do I set query_offset in Prometheus v2.45.0?" -> "How do I set query_offset in Prometheus?";
    "rules run one after another in 2.53, can they..." -> "rules run one after another, can they...".
    """
    text = question
    spellings = sorted(set(routing.mentions) | set(routing.unknown_mentions), key=len, reverse=True)
    for raw in spellings:
        pattern = (
            rf"(?:\b{_DANGLING}\s+)?(?:\bthe\s+)?(?<![A-Za-z0-9.])(?<![A-Za-z]-){re.escape(raw)}"
            rf"(?:\.[xX*])?(?:\s+(?:release|version)s?\b)?(?![A-Za-z0-9]|\.\d)"
        )
        text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\(\s*\)|(?<!\S)-(?!\S)", " ", text)
    text = re.sub(r"\s+([?.!,;:])", r"\1", text)
    text = re.sub(r"([,;:])(?=[,;:?.!])", "", text)
    text = re.sub(r"^[\s,;:]+", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def routing_message(routing: Routing, catalogue) -> str:
    """What to tell the user when no (product, release) could be searched."""
    if not catalogue:
        return "The library is empty. Add documents for a product and release in the sidebar (or `assistant ingest`)."
    if routing.product is None:
        names = ", ".join(c.display_name for c in catalogue)
        if routing.product_source == "inferred":
            return (f"Nothing in the library matches this question: no document of {names} is about it. "
                    "Add the product's documents in the sidebar, or rephrase with the terms its documents use.")
        if not any(c.releases for c in catalogue):
            return f"No release of {names} is indexed yet: add documents in the sidebar (or `assistant sync`)."
        return f"No product in the library has the release named. The library has: {names}."
    info = next(c for c in catalogue if c.name == routing.product)
    if routing.unknown_mentions:
        return (f"The library has no {info.display_name} release {', '.join(routing.unknown_mentions)}; "
                f"it has {', '.join(info.releases) or 'none yet'}.")
    return f"No {info.display_name} release is indexed yet."
