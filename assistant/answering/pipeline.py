"""The answering pipeline: question + conversation -> cited answer, every intermediate value kept and timed.

Stages, one module each: query_check -> routing -> intent -> rewrite -> retrieval -> rerank -> reduce ->
knowledge -> generate -> citations. A preset (presets.py) says which run and with what parameters.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.answering import citations as cite
from assistant.answering import knowledge as kn
from assistant.answering.fusion import lost_in_the_middle
from assistant.answering.generate import build_messages, stream_answer
from assistant.answering.glossary import load_or_mine
from assistant.answering.intent import IntentClassifier
from assistant.answering.presets import Preset, get_preset
from assistant.answering.query_check import check_query
from assistant.answering.reduce import extract, llm_select
from assistant.answering.rerank import CrossEncoderRerank
from assistant.answering.retrieval import HybridRetriever, ReleaseIndex, keep_by_margin
from assistant.answering.rewrite import (
    RewriteResult,
    condense_rules,
    is_follow_up,
    rewrite,
)
from assistant.answering.routing import Routing, detect, strip_release_mentions
from assistant.backends.chat import ChatModel, LLMError
from assistant.backends.llama_adapters import LocalEmbedding
from assistant.library.catalogue import Library
from assistant.library.manifest import Manifest
from assistant.library.recipe import embedding_model_tag
from assistant.library.store import ReleaseStore, collection_name
from assistant.settings import Settings


@dataclass
class Candidate:
    chunk_id: str
    context_id: str
    release: str
    path: str
    section: str
    page: int | None
    scores: dict[str, float]


@dataclass
class AskResult:
    question: str
    preset: str
    status: str = "ok"  # ok | invalid | out_of_scope | no_documents
    intent: dict = field(default_factory=lambda: {"label": None, "confidence": 0.0})
    product: str | None = None
    releases: list[str] = field(default_factory=list)
    release_source: str = ""
    routing: dict = field(default_factory=dict)
    standalone: str = ""
    rewritten: str = ""
    queries: list[dict] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    knowledge: dict = field(default_factory=dict)
    knowledge_missing: bool = False
    answer: str = ""
    sources: list[cite.Source] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    llm: dict = field(default_factory=lambda: {"backend": None, "model": None})
    llm_calls: int = 0
    notices: list[str] = field(default_factory=list)
    incomplete: bool = False
    search_only: bool = False

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "preset": self.preset,
            "status": self.status,
            "intent": self.intent,
            "product": self.product,
            "releases": self.releases,
            "release_source": self.release_source,
            "standalone": self.standalone,
            "rewritten": self.rewritten,
            "queries": [q["text"] for q in self.queries],
            "query_kinds": [q["kind"] for q in self.queries],
            "knowledge_missing": self.knowledge_missing,
            "knowledge": self.knowledge,
            "answer": self.answer,
            "sources": [
                {"n": s.n, "product": s.product, "release": s.release, "path": s.path, "page": s.page,
                 "section": s.section, "score": round(s.score, 4), "text": s.text, "cited": s.cited}
                for s in self.sources
            ],
            "candidates": [asdict(c) for c in self.candidates],
            "timings_ms": self.timings_ms,
            "llm": self.llm,
            "llm_calls": self.llm_calls,
            "notices": self.notices,
            "incomplete": self.incomplete,
        }


class Pipeline:
    """Holds the heavy components (built by the composition root) and runs one question at a time."""

    def __init__(self, settings: Settings, *, library: Library, manifest: Manifest, client, embedder,
                 intent: IntentClassifier, reranker: CrossEncoderRerank | None = None,
                 llm: ChatModel | None = None) -> None:
        self.settings = settings
        self.library = library
        self.manifest = manifest
        self.client = client
        self.embedder = embedder
        self.embed_model = LocalEmbedding(embedder)
        self.intent = intent
        self.reranker = reranker
        self.llm = llm
        self._indexes: dict[tuple[str, str], ReleaseIndex] = {}
        self.model_tag = embedding_model_tag(settings)  # releases embedded by another model are searched by words
        self._vocab_cache: tuple[tuple, set[str]] | None = None

    # -- helpers -----------------------------------------------------------------------------------------------------
    def index(self, product: str, release: str) -> ReleaseIndex:
        key = (product, release)
        if key not in self._indexes:
            store = ReleaseStore(self.client, product, release, self.embedder.dim)
            self._indexes[key] = ReleaseIndex(product, release, store, self.manifest,
                                              self.settings.index_dir / "bm25" / collection_name(product, release),
                                              model_tag=self.model_tag)
        return self._indexes[key]

    def vocab(self, product: str, release: str) -> dict[str, int] | None:
        bm25 = self.index(product, release).bm25
        return bm25.vocab if bm25 is not None else None

    def library_vocabulary(self, catalogue) -> set[str]:
        """Every indexed term of every release, rebuilt only when some release changed (the query check uses it)."""
        stamp = tuple((c.name, r, self.manifest.generation(c.name, r)) for c in catalogue for r in c.releases)
        if self._vocab_cache is None or self._vocab_cache[0] != stamp:
            vocab: set[str] = set()
            for c in catalogue:
                for r in c.releases:
                    vocab.update((self.vocab(c.name, r) or {}).keys())
            self._vocab_cache = (stamp, vocab)
        return self._vocab_cache[1]

    def glossary(self, product: str) -> dict[str, str]:
        releases = self.library.releases(product)
        stamp = ",".join(f"{r}:{self.manifest.generation(product, r)}" for r in releases)

        def texts():
            for r in releases:
                yield from self.manifest.chunk_texts(product, r)[1]

        return load_or_mine(self.settings.index_dir / "glossary" / f"{collection_name(product, '')}.json", stamp, texts)

    def warm_up(self) -> None:
        """Pay the one-time costs (query-check seeds, vocabularies, BM25 files) before the first question."""
        catalogue = self.library.catalogue()
        check_query("warm up", embed=self.embedder.embed, product_names=[c.display_name for c in catalogue],
                    vocabulary=self.library_vocabulary(catalogue) or None)
        self.intent.classify("warm up")

    # -- the pipeline ----------------------------------------------------------------------------------------------
    def ask(self, question: str, *, history: list[dict] | None = None, product: str | None = None,
            release: str | None = None, preset: str | Preset = "default", search_only: bool = False,
            on_token: Callable[[str], None] | None = None, intent_override: str | None = None) -> AskResult:
        p = get_preset(preset) if isinstance(preset, str) else preset
        res = AskResult(question=question, preset=p.name, search_only=search_only or self.llm is None)
        llm = None if res.search_only else self.llm
        if llm is not None:
            res.llm = {"backend": llm.backend, "model": llm.model}
            usage_before = llm.usage.snapshot()
        timer = _Timer(res.timings_ms)
        catalogue = self.library.catalogue()

        with timer("query_check"):
            if p.query_check:
                # A follow-up ("and max_shards?") is judged with the topic its conversation gives it.
                checked = condense_rules(question, history) if is_follow_up(question, history) else question
                qc = check_query(checked, embed=self.embedder.embed,
                                 product_names=[c.display_name for c in catalogue],
                                 vocabulary=self.library_vocabulary(catalogue) or None)
                if qc.status != "ok":
                    res.status = qc.status
                    res.intent = {"label": qc.status, "confidence": 1.0}
                    res.answer = qc.message
                    return res

        with timer("routing"):
            routing = detect(question, catalogue, pinned_product=product, pinned_release=release, history=history)
            res.routing = asdict(routing)
            res.product, res.releases, res.release_source = routing.product, list(routing.releases), routing.release_source
            if not routing.product or not routing.releases:
                res.status = "no_documents"
                res.answer = _routing_message(routing, catalogue)
                res.knowledge_missing = True
                return res

        with timer("intent"):
            if intent_override:
                res.intent = {"label": intent_override, "confidence": 1.0, "source": "user"}
            elif p.intent:
                ir = self.intent.classify(question)
                res.intent = {"label": ir.label, "confidence": round(ir.confidence, 4), "source": "model"}
        intent_label = res.intent.get("label")

        with timer("rewrite"):
            versionless = strip_release_mentions(question, routing)
            rw: RewriteResult = rewrite(
                question, history=history if p.history else None, intent=intent_label, versionless=versionless,
                glossary=self.glossary(routing.product) if p.glossary else {}, llm=llm if p.llm_rewrite else None,
                use_history=p.history, intent_expansion=p.intent_expansion, multi_query=p.multi_query,
                use_glossary=p.glossary,
            )
            res.standalone, res.rewritten = rw.standalone, rw.rewritten
            seen: set[tuple[str, bool, bool]] = set()
            for q in rw.queries:
                if (q.text, q.dense, q.lexical) not in seen and (q.dense or q.lexical):
                    seen.add((q.text, q.dense, q.lexical))
                    res.queries.append({"kind": q.kind, "text": q.text, "dense": q.dense, "lexical": q.lexical})

        with timer("retrieval"):
            # A naive RAG searches one corpus holding every release; QAMR's per-release corpora are the routed scope.
            scope = self.library.releases(routing.product) if p.release_scope == "all" else routing.releases
            indexes = [self.index(routing.product, r) for r in scope]
            retriever = HybridRetriever(indexes, self.embed_model, p.retrieval)
            dense_q = list(dict.fromkeys(q["text"] for q in res.queries if q["dense"]))
            lex_q = list(dict.fromkeys(q["text"] for q in res.queries if q["lexical"]))
            found = retriever.search(lex_q, dense_queries=dense_q)
            if found.dense_skipped:
                res.notices.append(
                    f"{routing.product} {', '.join(found.dense_skipped)} was indexed with another embedding model: "
                    "searched by words only until its re-index finishes (see the Library page).")
            contexts = self._to_contexts(found.candidates)
            res.candidates = [
                Candidate(n.node.node_id, n.node.metadata.get("context_id", ""), n.node.metadata["release"],
                          n.node.metadata["path"], n.node.metadata.get("section", ""), n.node.metadata.get("page"),
                          {k: round(float(n.node.metadata[k]), 4) for k in ("dense", "bm25", "fused") if k in n.node.metadata})
                for n in found.candidates
            ]

        with timer("rerank"):
            query_text = rw.standalone
            if p.rerank and self.reranker is not None:
                if not self.reranker.available and self.reranker.notice not in res.notices:
                    res.notices.append(self.reranker.notice)
                self.reranker.top_n = max(len(contexts), 1)
                contexts = self.reranker.postprocess_nodes(contexts, QueryBundle(query_text))
            contexts = keep_by_margin(contexts, p.retrieval.margin)
            contexts = _balance_releases(contexts, routing.releases, p.retrieval.contexts)

        with timer("knowledge"):
            relevance = max((n.node.metadata.get("dense", 0.0) for n in contexts), default=0.0)
            top = contexts[0].node.metadata if contexts else {}
            suggestion = kn.suggest_question(top.get("title", ""), top.get("section", ""), routing.product,
                                             routing.releases[0]) if contexts else None
            if p.knowledge != "none":
                vocab_union: dict[str, int] = {}
                for r in routing.releases:
                    vocab_union.update(self.vocab(routing.product, r) or {})
                others = {r: (self.vocab(routing.product, r) or {}) for r in self.library.releases(routing.product)
                          if r not in routing.releases}
                verdict = kn.check(
                    # Words only (another model's vectors): no cosine to judge by, the vocabulary check still runs.
                    rw.standalone, relevance=relevance,
                    threshold=float("-inf") if found.dense_skipped else p.relevance_threshold,
                    release_vocab=vocab_union or None, other_vocabs=others, suggestion=suggestion,
                    llm=llm if p.knowledge == "scores+llm" else None,
                    context=[n.node.get_content() for n in contexts],
                )
                res.knowledge = asdict(verdict)
                res.knowledge_missing = verdict.missing
            else:
                res.knowledge = {"missing": False, "reason": "knowledge check off in this preset", "relevance": relevance}

        with timer("reduce"):
            if p.reduce == "llm" and llm is not None:
                contexts = llm_select(rw.standalone, contexts, llm)
            texts = [n.node.get_content() for n in contexts]
            if p.reduce in ("extractive", "llm"):
                texts = [extract(t, rw.standalone + " " + rw.rewritten) for t in texts]
            # Sources are numbered by rank ([1] is the strongest); only the prompt's order changes below.
            res.sources = [
                cite.Source(
                    n=i, product=node.node.metadata["product"], release=node.node.metadata["release"],
                    path=node.node.metadata["path"], page=node.node.metadata.get("page"),
                    section=node.node.metadata.get("section") or "", title=node.node.metadata.get("title") or "",
                    score=float(node.score or 0.0), text=text,
                    chunk_ids=tuple(node.node.metadata.get("chunk_ids", ())), context_id=node.node.node_id,
                )
                for i, (node, text) in enumerate(zip(contexts, texts), start=1)
            ]
            prompt_sources = lost_in_the_middle(res.sources) if p.lost_in_middle else res.sources

        with timer("generation"):
            if res.knowledge_missing:
                res.answer = kn.degraded_answer(_verdict(res.knowledge), routing.product, routing.releases)
            elif llm is None:
                res.answer = ""
            else:
                description = self.library.meta(routing.product).description if p.product_description else ""
                messages = build_messages(
                    question=question, rewritten=rw.rewritten, intent=intent_label if p.answer_requirements else None,
                    product=routing.product, product_description=description, releases=routing.releases,
                    sources=prompt_sources, history=history if p.history else None,
                )
                pieces: list[str] = []
                try:
                    for piece in stream_answer(llm, messages):
                        pieces.append(piece)
                        if on_token is not None:
                            on_token(piece)
                except LLMError as exc:
                    res.incomplete = True
                    res.notices.append(exc.message)
                    pieces.append(exc.partial if exc.partial and not pieces else "")
                res.answer = "".join(pieces).strip()

        with timer("citations"):
            res.answer, res.sources = cite.apply(res.answer, res.sources)
        if llm is not None:
            res.llm_calls = (llm.usage.snapshot() - usage_before).calls
        return res

    def _to_contexts(self, candidates: list[NodeWithScore]) -> list[NodeWithScore]:
        """Search chunks -> their context chunks, deduplicated, keeping the best chunk's scores."""
        by_ctx: dict[str, NodeWithScore] = {}
        order: list[str] = []
        for n in candidates:
            cid = n.node.metadata.get("context_id")
            if not cid:
                continue
            if cid not in by_ctx:
                by_ctx[cid] = n
                order.append(cid)
        rows = self.manifest.contexts(order)
        out = []
        for cid in order:
            if cid not in rows:
                continue
            row, best = rows[cid], by_ctx[cid]
            meta = dict(best.node.metadata)
            meta.update(product=row.product, release=row.release, path=row.path, title=row.title,
                        section=row.section, page=row.page,
                        chunk_ids=[c.node.node_id for c in candidates if c.node.metadata.get("context_id") == cid])
            out.append(NodeWithScore(node=TextNode(id_=cid, text=row.text, metadata=meta), score=best.score))
        return out


def _balance_releases(contexts: list[NodeWithScore], releases: list[str], k: int) -> list[NodeWithScore]:
    """For a comparison, interleave the releases so both are cited (paired citations); else the top k."""
    if len(releases) < 2:
        return contexts[:k]
    per = {r: [n for n in contexts if n.node.metadata.get("release") == r] for r in releases}
    out: list[NodeWithScore] = []
    while len(out) < k and any(per.values()):
        for r in releases:
            if per[r] and len(out) < k:
                out.append(per[r].pop(0))
    return out


def _verdict(d: dict) -> kn.KnowledgeVerdict:
    return kn.KnowledgeVerdict(**d)


def _routing_message(routing: Routing, catalogue) -> str:
    if not catalogue:
        return "The library is empty. Add documents for a product and release in the sidebar (or `assistant ingest`)."
    if routing.product is None:
        names = ", ".join(c.display_name for c in catalogue)
        return f"Which product is this about? The library has: {names}. Name one in the question or pick it above."
    info = next(c for c in catalogue if c.name == routing.product)
    if routing.unknown_mentions:
        return (f"The library has no {info.display_name} release {', '.join(routing.unknown_mentions)}; "
                f"it has {', '.join(info.releases) or 'none yet'}.")
    return f"No {info.display_name} release is indexed yet."


class _Timer:
    def __init__(self, sink: dict[str, float]) -> None:
        self.sink = sink

    @contextmanager
    def __call__(self, stage: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.sink[stage] = round((time.perf_counter() - t0) * 1000, 2)
