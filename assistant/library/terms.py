"""What counts as a term of the release timeline (issue 16): the identifiers a doc set names, pulled from text.

Flags (`--snapshot-count`, `--enable-feature=agent`), config keys and metric names (`max_shards`,
`etcd_network_known_peers`), dotted names (`--storage.tsdb.retention`, `endpoints.Manager`), API paths
(`/api/v1/notifications`), functions (`holt_winters()`), CamelCase names (feature gates such as
`StopGRPCServiceOnDefrag`) and error codes. Plain prose words are not terms: a question about one is answered by
scanning the section texts (`token_pattern`), which follows the same token rule.

A token is made of letters, digits, `_` and `-`, with dots between them: `--storage.tsdb.retention` is not found
inside `--storage.tsdb.retention.time` (eval/TIMELINE_ROUTING.md uses the same rule).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["identifiers", "is_identifier", "normal_term", "qualified_pattern", "token_pattern", "strength"]

# A path: two segments or more after a slash that follows no word character ("/api/v1/query", not "and/or").
_PATH = r"(?<![\w/.])/[A-Za-z_{][\w{}.:\-]*(?:/[\w{}.:\-]+)+"
# A token, with an optional `=value` (flags given with their value are terms of their own: --enable-feature=agent).
_WORD = r"(?<![\w.\-])-{0,2}[A-Za-z0-9_][\w\-]*(?:\.[\w\-]+)*(?:=[\w\-]+(?:\.[\w\-]+)*)?"
_TOKEN = re.compile(f"{_PATH}|{_WORD}")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")
_DOTTED = re.compile(r"[A-Za-z_]\.[A-Za-z_]")
_NUMBERISH = re.compile(r"^v?\d+(?:[.\-]\d+)*[a-z]?$", re.IGNORECASE)
# File endings that make a dotted name a file, not a key: README.md names a page, not an identifier of the product.
_FILE = re.compile(r"\.(?:md|html?|png|jpe?g|svg|gif|txt|pdf|rst)$", re.IGNORECASE)


def normal_term(term: str) -> str:
    """The key a term is stored and looked up under: lower case, without call brackets, quotes or end punctuation."""
    t = term.strip().strip("`'\"").strip()
    t = re.sub(r"\(\)$", "", t)
    return t.rstrip(".,;:!?").lower()


@lru_cache(maxsize=1 << 16)
def is_identifier(token: str) -> bool:
    """Whether a token names something (a flag, key, metric, path, CamelCase name) rather than being a prose word."""
    t = token.rstrip("-.")
    if len(t) < 3 or _NUMBERISH.match(t.lstrip("-")) or _FILE.search(t):
        return False
    core = t.lstrip("-")
    if not core or not re.search(r"[A-Za-z]", core):
        return False
    if t.startswith("/") or t.startswith("-"):
        return len(core) >= 2
    return "_" in core or "=" in core or bool(_DOTTED.search(core)) or bool(_CAMEL.search(core))


def strength(term: str) -> int:
    """How surely a term names one thing: flags, paths, keys and dotted names (0) before CamelCase words (1), such
    as "gRPC", which are often product words rather than names."""
    return 0 if term[:1] in "-/" or "_" in term or "=" in term or _DOTTED.search(term) else 1


def identifiers(text: str) -> list[str]:
    """The normalised identifiers in a text, in order, each once (`--flag=value` gives it and then `--flag`)."""
    out: dict[str, None] = {}
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token.isalpha() and (token.islower() or token[1:].islower()) or token.isdigit():
            continue  # a prose word or a number, the bulk of any text: settled without the rules below
        token = token.rstrip("-.:")
        if re.match(r"-[A-Za-z]", token) and (m.start() == 0 or text[m.start() - 1] == "\n"):
            token = token[1:]  # a diff's "-" at the start of a line ("-etcd_debugging_..." in a downgrade guide)
        if is_identifier(token):
            out[normal_term(token)] = None
            if "=" in token:
                out[normal_term(token.split("=", 1)[0])] = None
    return list(out)


@lru_cache(maxsize=512)
def token_pattern(term: str) -> re.Pattern:
    """The term as a whole token, any case: not inside a longer name, not with a dotted part after it."""
    # A "-" or "+" at the start of a line is a diff marker, not part of the name.
    return re.compile(r"(?:(?<=^[-+])|(?<![\w\-.]))" + re.escape(normal_term(term)) + r"(?![\w\-]|\.[\w])",
                      re.IGNORECASE | re.MULTILINE)


_BARE_NAME = re.compile(r"[a-z_][a-z0-9_]{5,}")


def qualified_pattern(term: str) -> re.Pattern | None:
    """A bare API name (`resultcallback`) as the last part of a qualified one (`MultiCommand.resultcallback`), which
    `token_pattern` never matches; None for anything else (a flag's tail never stands for the flag)."""
    key = normal_term(term)
    if not _BARE_NAME.fullmatch(key):
        return None
    return re.compile(rf"(?<=\w\.){re.escape(key)}(?![\w\-]|\.\w)", re.IGNORECASE)
