"""Product names as people write them: the patterns that find a product in a question (routing's first step).

A name matches whatever its case and whatever spaces, dots, hyphens or underscores sit inside it: folder
`nodejs` is found by "Node.js", "NodeJS" and "node js"; folder `aws-elb` by "AWS ELB". A vendor before a product
("Apache Spark", "HashiCorp Vault") is optional, and a folder that carries its vendor (`apache-kafka`) is also found
by the bare product ("Kafka"), and one that carries its major version (`jinja2`) by the name without it ("Jinja").
Derived spellings (an abbreviation, the name without its vendor) are only kept when
they are not ordinary words and no other product claims them: "POST request" must not route to `postgres`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assistant.library.catalogue import ProductInfo

__all__ = ["OTHER_SOFTWARE", "NameMatch", "ProductNames", "name_key"]

# Software a question may name beside the product, whose versions are never the product's releases ("TLS 1.2",
# "Go 1.22", "which python versions does flask 2.2 support"): read by routing and by the timeline's cue words.
OTHER_SOFTWARE = frozenset({"python", "go", "golang", "java", "node", "nodejs", "kubernetes", "k8s", "tls", "ssl",
                            "openssl", "windows", "macos", "docker"})

MatchKind = Literal["named", "alias"]

# Vendors that commonly precede a product name.
VENDORS = (
    "apache", "aws", "amazon", "azure", "microsoft", "google", "gcp", "hashicorp", "elastic", "red hat", "redhat",
    "oracle", "ibm", "cncf", "the", "grafana labs", "confluent", "mongodb", "vmware", "cloudflare", "atlassian",
)
# Everyday and generic technical words: a derived alias equal to one would route ordinary questions.
ORDINARY = set(
    """post data open time read list type test mail fire lamb kube graf cert code file flow link main node page rest
    sale sign work base load cloud server service services store storage search engine compute queue stream streams
    functions function database db cache table tables user guide docs doc api sdk cli app apps web site network
    gateway balancer balancers monitor monitoring metrics logs log events event identity access key keys vault
    config manager management platform cluster container containers registry runtime core kit hub lab labs tools
    tool shell query http https mesh proxy bucket buckets object objects file files block blocks notes release
    hive pig ant beam""".split()
)
# Tools named after a product's abbreviation: "promtool", "promql", "etcdctl", "etcdutl".
_TOOL_SUFFIX = r"(?:ctl|utl|tool|ql)"
_SEP = r"[\s._-]?"  # what may sit inside a name as people write it


def name_key(text: str) -> str:
    """The comparison key of a name: case, spaces, dots, hyphens and underscores dropped ("Node.js" -> "nodejs")."""
    return re.sub(r"[\s._-]+", "", text).casefold()


def _loose(term: str) -> str:
    """A regex for `term` that allows any separators between its characters ("nodejs" ~ "Node.js", "node js")."""
    key = name_key(term)
    return _SEP.join(re.escape(ch) for ch in key)


def _strip_vendor(name: str) -> str | None:
    low = re.sub(r"[\s._-]+", " ", name.casefold()).strip()
    for vendor in VENDORS:
        if low.startswith(vendor + " ") and len(low) > len(vendor) + 1:
            return low[len(vendor) + 1:]
    return None


@dataclass(frozen=True)
class NameMatch:
    product: str
    kind: MatchKind  # "named": its folder or display name; "alias": an alias or a derived spelling
    start: int
    text: str


def _terms(product: ProductInfo, catalogue: list[ProductInfo]) -> tuple[set[str], set[str]]:
    """(names: folder and display name, aliases: given and derived), as comparison keys."""
    names = {name_key(product.name), name_key(product.display_name)} - {""}
    aliases = {name_key(a) for a in product.aliases if a.strip()} - {""}
    others = {
        name_key(t)
        for p in catalogue
        if p.name != product.name
        for t in [p.name, p.display_name, *p.aliases]
    }
    derived: set[str] = set()
    base = name_key(product.name)
    if len(base) >= 6 and base[:4].isalpha():
        derived.add(base[:4])  # "prom" for prometheus
    words = re.findall(r"[A-Za-z]+", product.display_name)
    if len(words) >= 3:
        derived.add("".join(w[0] for w in words).lower())  # "aws" for Amazon Web Services
    unversioned = re.sub(r"(?<=[a-z])\d$", "", base)  # one digit: a major version ("route53" keeps its number)
    if unversioned != base:
        derived.add(unversioned)  # "jinja" for jinja2, "boto" for boto3: the name without its major version
    for name in (product.name, product.display_name):
        bare = _strip_vendor(name)
        if bare:
            derived.add(name_key(bare))  # "kafka" for apache-kafka
    derived = {
        d for d in derived
        if len(d) >= 3 and d not in ORDINARY and d not in names and not any(o == d or o.startswith(d) for o in others)
    }
    return names, (aliases | derived) - names


class ProductNames:
    """Finds the products a text names; built once per catalogue."""

    def __init__(self, catalogue: list[ProductInfo]) -> None:
        self.catalogue = catalogue
        self.by_name = {p.name: p for p in catalogue}
        self._patterns: dict[str, re.Pattern] = {}
        self._kind: dict[str, dict[str, MatchKind]] = {}
        self.spellings: set[str] = set()  # every product's names and aliases, derived ones too ("jinja" for jinja2)
        vendors = "|".join(_loose(v) for v in VENDORS if v != "the")
        for p in catalogue:
            names, aliases = _terms(p, catalogue)
            self.spellings |= names | aliases
            parts, kinds = [], {}
            for key in sorted(names | aliases, key=len, reverse=True):
                kind: MatchKind = "named" if key in names else "alias"
                # A name of 4+ characters may carry a tool suffix or more letters ("etcdctl", "prometheus's").
                tail = (r"[a-z]*" if kind == "named" else _TOOL_SUFFIX + "?") if len(key) >= 4 else ""
                group = f"k{len(kinds)}"
                kinds[group] = kind
                parts.append(f"(?P<{group}>{_loose(key)}{tail})")
            self._kind[p.name] = kinds
            body = "|".join(parts)
            self._patterns[p.name] = re.compile(
                rf"(?<![a-z0-9])(?:(?:{vendors}){_SEP})??(?:{body})(?:['’]s)?(?![a-z0-9])", re.IGNORECASE
            )
        self._before = {
            name: re.compile(pattern.pattern + r"\s*[:-]?\s*(?:release|version)?\s*$", re.IGNORECASE)
            for name, pattern in self._patterns.items()
        }

    def matches(self, text: str) -> list[NameMatch]:
        """Every product named in the text, earliest first."""
        found = []
        for name, pattern in self._patterns.items():
            hit = pattern.search(text)
            if hit:
                kind = next((self._kind[name][g] for g, v in hit.groupdict().items() if v), "named")
                found.append(NameMatch(name, kind, hit.start(), hit.group()))
        return sorted(found, key=lambda m: m.start)

    def named(self, text: str) -> NameMatch | None:
        """The product named earliest in the text."""
        hits = self.matches(text)
        return hits[0] if hits else None

    def cue(self, before: str) -> str | None:
        """The product named right before a release ("etcd 3.5", "Prometheus's v3.5", "prom version 2.53")."""
        for name, pattern in self._before.items():
            if pattern.search(before):
                return name
        return None

    def lookup(self, name: str | None) -> ProductInfo | None:
        """A product by folder name, display name or alias, written any way ("Node.js" -> nodejs)."""
        if name is None:
            return None
        if name in self.by_name:
            return self.by_name[name]
        key = name_key(name)
        for p in self.catalogue:
            if key in {name_key(p.name), name_key(p.display_name), *(name_key(a) for a in p.aliases)}:
                return p
        return None
