"""The search fields of a chunk (DECO's multi-field search, issue 15): what each named vector of a point holds.

Pure functions from a search chunk (its metadata and text) to field texts and sparse vectors, and from a question to
its identifier query; the store writes and searches them, nothing here does I/O.

Fields (named vectors on every point):
- `text-dense` / `text-sparse`: the body as embedded (title and section path, then the chunk), dense and BM25;
- `heading-dense`: the title and heading path embedded alone (embedded once per distinct path at ingestion);
- `title-sparse`, `heading-sparse`, `file-sparse`: BM25 on the page title, the heading path and the file path;
- `ident-sparse`: exact identifiers (flags, config keys, metric names, error codes, API names), whole and
  lowercased, weighted up where the chunk defines them (its heading, or the start of a line: a flag list, a YAML
  key, a table's first cell) rather than mentions them in prose.
"""

from __future__ import annotations

import re

from assistant.library.lexical import document_sparse, term_index

TITLE = "title-sparse"
HEADING = "heading-sparse"
FILE = "file-sparse"
IDENT = "ident-sparse"
HEADING_DENSE = "heading-dense"
SPARSE_FIELDS = (TITLE, HEADING, FILE, IDENT)

# A field's typical length in tokens (BM25's length norm): short fields must not be scored as if ~50 tokens long.
_FIELD_TOKENS = {TITLE: 5.0, HEADING: 8.0, FILE: 6.0}

# An identifier is written the way no prose word is: a flag, snake_case, a dotted key, camelCase or PascalCase with
# an inner capital, UPPER_SNAKE, a word with two or more inner hyphens, or anything in backticks.
_IDENT = re.compile(
    r"`([^`\n]{2,60})`"
    r"|(?<![\w.\-/])(--?[A-Za-z][\w.\-]*"                   # --snapshot-count, -v (kept only when longer)
    r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"               # query_offset, prometheus_tsdb_head_series, AWS_REGION
    r"|[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"   # storage.tsdb.retention.time, s3.amazonaws
    r"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"  # honorLabels, PutObject, AccessDenied
    r"|[a-z][a-z0-9]*(?:-[a-z0-9]+){2,})"                    # metadata-wal-records
)
# Where a term is defined rather than mentioned: at the start of a line, after list, table or YAML punctuation.
_LINE_START = re.compile(r"^\s*(?:[>*+|#\[]+\s*|-\s+)*`?", re.M)
DEFINED_WEIGHT = 3.0


def _norm(term: str) -> list[str]:
    """One identifier as stored: lowercased, leading dashes and trailing punctuation off; `a=b` is two terms."""
    out = []
    for part in term.split("="):
        part = part.strip().strip("`").lstrip("-").rstrip(".,:;?!)(").lower()
        if len(part) >= 4 and not part.replace(".", "").isdigit() and " " not in part:
            out.append(part)
    return out


def identifiers(text: str) -> list[str]:
    """Every identifier in the text, in order, with repeats (normalised as stored)."""
    out: list[str] = []
    for match in _IDENT.finditer(text):
        quoted, bare = match.group(1), match.group(2)
        if bare and bare.startswith("-") and not bare.startswith("--") and len(bare) < 4:
            continue  # -v, -f: too short to identify anything
        out.extend(_norm(quoted or bare))
    return out


def defined_identifiers(text: str, heading: str) -> set[str]:
    """The identifiers a chunk defines: in its last heading, or opening a line (possibly after `[`, `|`, `-`)."""
    found = set(identifiers(heading.split(" > ")[-1])) if heading else set()
    for start in _LINE_START.finditer(text):
        match = _IDENT.match(text, start.end())
        if match:
            found.update(_norm(match.group(1) or match.group(2)))
    return found


def ident_sparse(text: str, heading: str) -> tuple[list[int], list[float]]:
    """The identifier field's sparse vector: 1 per identifier mentioned, DEFINED_WEIGHT where defined (no term
    frequency: a flag named ten times in a narrative page is not more defined there)."""
    defined = defined_identifiers(text, heading)
    terms = set(identifiers(text)) | defined
    weights: dict[int, float] = {}
    for term in terms:
        i = term_index(term)
        weights[i] = max(weights.get(i, 0.0), DEFINED_WEIGHT if term in defined else 1.0)
    return list(weights), list(weights.values())


def query_identifiers(question: str) -> list[str]:
    """A question's identifiers (distinct, in order): the identifier field is searched only when there are some."""
    return list(dict.fromkeys(identifiers(question)))


def ident_query(terms: list[str]) -> tuple[list[int], list[float]]:
    indices = sorted({term_index(t) for t in terms})
    return indices, [1.0] * len(indices)


def field_texts(metadata: dict) -> dict[str, str]:
    """The short fields of a chunk, from its metadata."""
    title = metadata.get("title") or ""
    section = metadata.get("section") or ""
    path = metadata.get("path") or ""
    return {TITLE: title, HEADING: section, FILE: re.sub(r"\.[A-Za-z0-9]+$", "", path)}


def heading_text(metadata: dict) -> str:
    """What `heading-dense` embeds: the title and heading path (the chunk's embedding prefix without the body)."""
    title, section = metadata.get("title") or "", metadata.get("section") or ""
    return f"{title}\n{section}".strip() if section and section != title else title


def sparse_fields(metadata: dict, text: str) -> dict[str, tuple[list[int], list[float]]]:
    """Every sparse field of a chunk but the body (`text-sparse`, made from the EMBED view by the vector store)."""
    out = {name: document_sparse(value, average=_FIELD_TOKENS[name]) for name, value in field_texts(metadata).items()}
    out[IDENT] = ident_sparse(text, metadata.get("section") or "")
    return out

