"""Dual chunking (QAMR): small search chunks are embedded and searched; each maps to a larger context chunk
(its section or page, padded with neighbouring text) that the answer step reads.

The chunker is a LlamaIndex `NodeParser`: Documents (one per reader Section, with file metadata) go in, and
TextNodes of two kinds come out: `kind="search"` (embedded, with the title and section path prefixed, as the
Ericsson paper found a major accuracy gain) and `kind="context"` (stored, never embedded). Every search node
points at its context node through the PARENT relationship.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import (
    BaseNode,
    Document,
    NodeRelationship,
    RelatedNodeInfo,
    TextNode,
)
from pydantic import Field, PrivateAttr

from assistant.library.documents import ParsedDocument
from assistant.library.entries import split_blocks

ID_NAMESPACE = uuid.UUID("5b0f3a0e-6c1d-4f57-9a51-0c7d6a1f2e11")
_PARA = re.compile(r"\n\s*\n")
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[])")
# Bump whenever the chunks made from the same document change (splitting rules, prefix, ids): see ingest.index_recipe.
# 2: a title and section prefix longer than MAX_PREFIX_TOKENS is shortened (it was counted as 48 but kept whole);
# 3: runs without spaces are cut to the budget in tokens, not at 2 characters a token (8 base64 and URL-encoded blobs
# in the AWS guides overflowed the model by 95 word pieces in all); 4: a long reference block (flag list, configuration
# reference, option list, table) is split at its entries, one search chunk each, a table row under its header (issue 15).
CHUNKER_VERSION = 4
MAX_PREFIX_TOKENS = 48
CHARS_PER_TOKEN = 4  # only used to size padding, which is cut on whitespace anyway


def search_chunk_id(product: str, release: str, path: str, chunk_no: int) -> str:
    """Deterministic ids: a re-index overwrites the same points, and stale ones can be deleted without a filter."""
    return str(uuid.uuid5(ID_NAMESPACE, f"s\0{product}\0{release}\0{path}\0{chunk_no}"))


def context_chunk_id(product: str, release: str, path: str, ctx_no: int) -> str:
    return str(uuid.uuid5(ID_NAMESPACE, f"c\0{product}\0{release}\0{path}\0{ctx_no}"))


def section_documents(parsed: ParsedDocument, *, product: str, release: str, path: str) -> list[Document]:
    """One LlamaIndex Document per reader section, carrying everything a chunk must cite."""
    docs = []
    for i, sec in enumerate(parsed.sections):
        docs.append(
            Document(
                text=sec.text,
                id_=f"{product}/{release}/{path}#{i}",
                metadata={
                    "product": product,
                    "release": release,
                    "path": path,
                    "title": parsed.title,
                    "section": " > ".join(sec.section_path),
                    "page": sec.page,
                    "page_label": sec.page_label,
                },
            )
        )
    return docs


def _units(text: str) -> list[str]:
    """Paragraphs, then lines; the packer splits further only where a unit is itself too long."""
    out = []
    for para in _PARA.split(text):
        para = para.strip("\n")
        if para.strip():
            out.append(para)
    return out


def _split_long(unit: str, budget: int, count: Callable[[list[str]], list[int]]) -> list[str]:
    """Split one over-long unit at lines, then sentences, then words, so no piece exceeds the budget."""
    for splitter in (lambda s: s.split("\n"), _SENT.split, lambda s: s.split(" ")):
        pieces = [p for p in splitter(unit) if p.strip()]
        if len(pieces) > 1:
            break
    else:
        # One enormous run without spaces (a hash, minified data, a Markdown table rule): cut by characters, at most
        # 2 per token to start with, fewer where the run is denser than that (punctuation is a token per character).
        out, i = [], 0
        while i < len(unit):
            step = max(budget * 2, 16)
            while step > 1 and count([unit[i : i + step]])[0] > budget:
                step //= 2
            out.append(unit[i : i + step])
            i += step
        return out
    sep = "\n" if "\n" in unit else " "
    out: list[str] = []
    for piece, n in zip(pieces, count(pieces)):
        if n > budget:
            out.extend(_split_long(piece, budget, count))
        else:
            out.append(piece)
    return _pack(out, budget, count, sep)


def _pack(units: list[str], budget: int, count: Callable[[list[str]], list[int]], sep: str = "\n\n") -> list[str]:
    """Greedy packing of consecutive units into pieces of at most `budget` tokens. No text is lost or repeated."""
    pieces: list[str] = []
    cur: list[str] = []
    cur_n = 0
    sep_n = 1
    for unit, n in zip(units, count(units)):
        if n > budget:
            if cur:
                pieces.append(sep.join(cur))
                cur, cur_n = [], 0
            pieces.extend(_split_long(unit, budget, count))
            continue
        if cur and cur_n + sep_n + n > budget:
            pieces.append(sep.join(cur))
            cur, cur_n = [], 0
        cur.append(unit)
        cur_n += n + (sep_n if len(cur) > 1 else 0)
    if cur:
        pieces.append(sep.join(cur))
    return pieces


def search_pieces(text: str, budget: int, count: Callable[[list[str]], list[int]]) -> list[str]:
    """A section's search pieces: prose packed as before; a reference block too long for one piece gives one piece per
    entry (issue 15), so a flag or a field is not searched in a chunk diluted by four others. A block that fits in
    one piece stays whole: splitting it would only add chunks (and embedding time)."""
    pieces: list[str] = []
    for block in split_blocks(text):
        if block.entries and count([block.text])[0] > budget:
            for entry, n in zip(block.entries, count(list(block.entries))):
                pieces.extend([entry] if n <= budget else _split_long(entry, budget, count))
        elif units := _units(block.text):
            pieces.extend(_pack(units, budget, count))
    return pieces


def embed_prefix(title: str, section: str) -> str:
    head = title.strip()
    if section and section.strip() != head:
        head = f"{head}\n{section.strip()}" if head else section.strip()
    return head + "\n\n" if head else ""


def fit_prefix(prefix: str, count: Callable[[list[str]], list[int]]) -> tuple[str, int]:
    """The prefix and its token count, shortened with "…" to at most MAX_PREFIX_TOKENS (a long heading must not push
    its search chunks past the model's limit). Binary search on a character cut, backed off to a word boundary."""
    n = count([prefix])[0] if prefix else 0
    if n <= MAX_PREFIX_TOKENS:
        return prefix, n
    head = prefix.rstrip()

    def cut_at(i: int) -> str:
        text = head[:i]
        space = max(text.rfind(" "), text.rfind("\n"))
        return (text[:space] if space > 0 else text).rstrip() + " …\n\n"

    lo, hi = 0, len(head)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count([cut_at(mid)])[0] <= MAX_PREFIX_TOKENS:
            lo = mid
        else:
            hi = mid - 1
    short = cut_at(lo)
    return short, count([short])[0]


def _tail(text: str, n_tokens: int) -> str:
    if n_tokens <= 0 or not text:
        return ""
    cut = text[-n_tokens * CHARS_PER_TOKEN :]
    return cut[cut.find(" ") + 1 :] if " " in cut and len(cut) < len(text) else cut


def _head(text: str, n_tokens: int) -> str:
    if n_tokens <= 0 or not text:
        return ""
    cut = text[: n_tokens * CHARS_PER_TOKEN]
    return cut[: cut.rfind(" ")] if " " in cut and len(cut) < len(text) else cut


class DualChunkParser(NodeParser):
    """Sections -> search nodes (<= search_tokens incl. prefix) and context nodes (<= context_tokens + padding)."""

    search_tokens: int = Field(default=200, description="Word-piece budget of a search chunk, prefix included.")
    context_tokens: int = Field(default=700, description="Word-piece budget of a context chunk's core.")
    padding_tokens: int = Field(default=80, description="Neighbouring text added on each side of a context chunk.")
    _count: Callable[[list[str]], list[int]] = PrivateAttr()

    def __init__(self, count_tokens: Callable[[list[str]], list[int]], **kwargs: Any) -> None:
        super().__init__(include_metadata=False, include_prev_next_rel=False, **kwargs)
        self._count = count_tokens

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        by_file: dict[tuple[str, str, str], list[BaseNode]] = {}
        for node in nodes:
            md = node.metadata
            by_file.setdefault((md["product"], md["release"], md["path"]), []).append(node)
        for (product, release, path), sections in by_file.items():
            out.extend(self._chunk_file(product, release, path, sections))
        return out

    def _chunk_file(self, product: str, release: str, path: str, sections: list[BaseNode]) -> list[TextNode]:
        cores: list[tuple[BaseNode, str, list[str]]] = []  # (section, its prefix, search pieces) per context core
        for sec in sections:
            md = sec.metadata
            prefix, prefix_n = fit_prefix(embed_prefix(md["title"], md["section"]), self._count)
            budget = max(self.search_tokens - prefix_n, 32)
            pieces = search_pieces(sec.get_content(), budget, self._count)
            # Group consecutive search pieces into context cores of at most context_tokens.
            group: list[str] = []
            group_n = 0
            for piece, n in zip(pieces, self._count(pieces)):
                if group and group_n + n > self.context_tokens:
                    cores.append((sec, prefix, group))
                    group, group_n = [], 0
                group.append(piece)
                group_n += n
            if group:
                cores.append((sec, prefix, group))

        nodes: list[TextNode] = []
        core_texts = ["\n\n".join(g) for _, _, g in cores]
        chunk_no = 0
        for ctx_no, (sec, prefix, group) in enumerate(cores):
            md = sec.metadata
            meta = {k: md.get(k) for k in ("product", "release", "path", "title", "section", "page", "page_label")}
            ctx_id = context_chunk_id(product, release, path, ctx_no)
            before = _tail(core_texts[ctx_no - 1], self.padding_tokens) if ctx_no > 0 else ""
            after = _head(core_texts[ctx_no + 1], self.padding_tokens) if ctx_no + 1 < len(cores) else ""
            ctx_text = "\n".join(t for t in (before and f"… {before}", core_texts[ctx_no], after and f"{after} …") if t)
            ctx = TextNode(id_=ctx_id, text=ctx_text, metadata={**meta, "kind": "context", "ctx_no": ctx_no, "core": core_texts[ctx_no]})
            nodes.append(ctx)
            for piece in group:
                node = TextNode(
                    id_=search_chunk_id(product, release, path, chunk_no),
                    text=piece,
                    metadata={**meta, "kind": "search", "chunk_no": chunk_no, "context_id": ctx_id, "prefix": prefix},
                )
                node.relationships[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=ctx_id)
                nodes.append(node)
                chunk_no += 1
        return nodes


def embed_text(node: BaseNode) -> str:
    """What the embedder and BM25 see: title and section path, then the chunk (Ericsson)."""
    return node.metadata.get("prefix", "") + node.get_content()
