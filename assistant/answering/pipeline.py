"""The answering pipeline: question + conversation -> cited answer, every intermediate value kept and timed.

`Pipeline.ask` reads as the papers' data flow, one line per stage; each stage method takes the question's `Turn`
and returns it. A preset (presets.py) is the list of stages it runs and their parameters; an observer hears each
stage start and end (the app's stage line, the CLI's progress).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property
from dataclasses import asdict

from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.answering import citations as cite
from assistant.answering import knowledge as kn
from assistant.answering.catalogue_questions import answer_catalogue_question
from assistant.answering.change_questions import phrase
from assistant.answering.extractive import extractive_answer
from assistant.answering.fusion import balance_releases, lost_in_the_middle
from assistant.answering.generate import build_messages, stream_answer
from assistant.answering.glossary import load_or_mine
from assistant.answering.intent import IntentClassifier, timeline_intent
from assistant.answering.presets import Preset, get_preset
from assistant.answering.product_evidence import choose, clearly_held, gather, owned
from assistant.answering.query_check import check_query
from assistant.answering.reduce import extract, llm_select
from assistant.answering.rerank import CrossEncoderRerank
from assistant.answering.retrieval import HybridRetriever, Lexicon, ReleaseIndex, keep_by_margin, spread_by_file
from assistant.answering.rewrite import condense_rules, is_follow_up, rewrite
from assistant.answering.routing import Routing, detect, routing_message, strip_release_mentions
from assistant.answering.state import AskResult, Candidate, Observer, StageEvent, Turn
from assistant.answering.timeline_absent import missing_answer
from assistant.answering.timeline_search import searched_answer
from assistant.backends.chat import ChatModel, LLMError
from assistant.backends.llama_adapters import LocalEmbedding
from assistant.library.catalogue import Library
from assistant.library.manifest import Manifest
from assistant.library.recipe import embedding_model_tag
from assistant.library.store import ReleaseStore, collection_name
from assistant.library.timeline import Timeline
from assistant.library.versions import sort_releases
from assistant.settings import Settings

__all__ = ["AskResult", "Candidate", "Pipeline"]


class Pipeline:
    """Holds the heavy components (built by the composition root) and runs one question at a time."""

    def __init__(self, settings: Settings, *, library: Library, manifest: Manifest, store, embedder,
                 intent: IntentClassifier, reranker: CrossEncoderRerank | None = None,
                 llm: ChatModel | None = None, timeline: Timeline | None = None) -> None:
        self.settings = settings
        self.library = library
        self.manifest = manifest
        self.store = store  # the store backend (library/store.py)
        self.embedder = embedder
        self.embed_model = LocalEmbedding(embedder)
        self.intent = intent
        self.reranker = reranker
        self.llm = llm
        self.timeline = timeline or Timeline(settings.index_dir / "timeline.sqlite")
        self._indexes: dict[tuple[str, str], ReleaseIndex] = {}
        self.model_tag = embedding_model_tag(settings)  # releases embedded by another model are searched by words

    # -- helpers -----------------------------------------------------------------------------------------------------
    def index(self, product: str, release: str) -> ReleaseIndex:
        key = (product, release)
        if key not in self._indexes:
            store = ReleaseStore(self.store, product, release, self.embedder.dim)
            self._indexes[key] = ReleaseIndex(product, release, store, self.manifest, model_tag=self.model_tag)
        return self._indexes[key]

    @cached_property
    def common_words(self) -> frozenset[str]:
        return kn.everyday_words(getattr(self.embedder, "tokenizer", None))

    def vocab(self, *releases: tuple[str, str]) -> Lexicon:
        """The indexed words of these (product, release) pairs, asked of the store's sparse index."""
        return Lexicon([self.index(p, r).store for p, r in releases])

    def library_vocabulary(self, catalogue) -> Lexicon:
        """Every indexed term of every release (the query check uses it)."""
        return self.vocab(*((c.name, r) for c in catalogue for r in c.releases))

    def glossary(self, product: str) -> dict[str, str]:
        releases = self.library.releases(product)
        stamp = ",".join(f"{r}:{self.manifest.generation(product, r)}" for r in releases)

        def texts():
            for r in releases:
                yield from self.manifest.chunk_texts(product, r)[1]

        return load_or_mine(self.settings.index_dir / "glossary" / f"{collection_name(product, '')}.json", stamp, texts)

    def warm_up(self) -> None:
        """Pay the one-time costs (query-check seeds, the store's shards) before the first question."""
        catalogue = self.library.catalogue()
        check_query("warm up", embed=self.embedder.embed, product_names=[c.display_name for c in catalogue],
                    vocabulary=self.library_vocabulary(catalogue) or None)
        self.intent.classify("warm up")

    # -- the pipeline ----------------------------------------------------------------------------------------------
    def ask(self, question: str, *, history: list[dict] | None = None, product: str | None = None,
            release: str | None = None, preset: str | Preset = "default", search_only: bool = False,
            on_token: Callable[[str], None] | None = None, intent_override: str | None = None,
            observer: Observer | None = None, extractive: bool = False) -> AskResult:
        """`extractive`: with no LLM, answer by quoting the sources' sentences (extractive.py) instead of nothing."""
        t = self._turn(question, history, product, release, preset, search_only, on_token, intent_override)
        if extractive and t.llm is None and not search_only:
            t.extractive, t.result.search_only = True, False
            t.result.llm = {"backend": "extractive", "model": "sentences quoted from the sources"}
        run = _Runner(t, observer)
        run("query_check", self.check_question)       # iKnow: decline empty, gibberish, out-of-scope
        run("intent", self.detect_intent)             # iKnow: prototypical intent, for every question that passes
        run("catalogue", self.answer_from_catalogue)  # which/how many/newest/oldest releases: no search, no LLM
        run("timeline", self.answer_from_timeline)    # when X came/went, what changed in Y: no search, no LLM
        run("routing", self.route)                    # QAMR: product and release(s); product from evidence if unnamed
        run("rewrite", self.rewrite_query)            # Ericsson/iKnow/QAMR: standalone, expanded, several queries
        run("retrieval", self.retrieve)               # Ericsson/DECO: dense + lexical, fused, per release
        run("rerank", self.rerank)                    # iKnow: cross-encoder, when one is installed
        run("select", self.select)                    # DECO margin; paired releases for a comparison
        run("knowledge", self.check_knowledge)        # iKnow/QAMR: missing-knowledge verdict
        run("reduce", self.reduce_context)            # Ericsson/QAMR: compression, lost-in-the-middle order
        run("generation", self.generate)              # iKnow/DECO: intent requirements, product description
        run("citations", self.cite)                   # every [n] maps to a listed source
        return self._finish(t)

    def _turn(self, question, history, product, release, preset, search_only, on_token, intent_override) -> Turn:
        p = get_preset(preset) if isinstance(preset, str) else preset
        res = AskResult(question=question, preset=p.name, search_only=search_only or self.llm is None)
        device = getattr(self.embedder, "device", None)
        res.device = device.label() if device is not None else ""
        llm = None if res.search_only else self.llm
        if llm is not None:
            res.llm = {"backend": llm.backend, "model": llm.model}
            self._usage_before = llm.usage.snapshot()
        if intent_override:
            res.intent = {"label": intent_override, "confidence": 1.0, "source": "user"}
        return Turn(question=question, preset=p, result=res, history=history, pinned_product=product,
                    pinned_release=release, llm=llm, on_token=on_token, catalogue=self.library.catalogue())

    def _finish(self, t: Turn) -> AskResult:
        res = t.result
        if not res.knowledge and not t.done:
            res.knowledge = {"missing": False, "reason": "knowledge check off in this preset", "relevance": t.relevance}
        if t.llm is not None:
            res.llm_calls = (t.llm.usage.snapshot() - self._usage_before).calls
        return res

    # -- the stages, in order ------------------------------------------------------------------------------------
    def check_question(self, t: Turn) -> Turn:
        # A follow-up ("and max_shards?") is judged with the topic its conversation gives it.
        checked = condense_rules(t.question, t.history) if is_follow_up(t.question, t.history) else t.question
        newest = [self.index(c.name, sort_releases(c.releases)[-1]) for c in t.catalogue if c.releases]
        qc = check_query(checked, embed=self.embedder.embed, product_names=[c.display_name for c in t.catalogue],
                         vocabulary=self.library_vocabulary(t.catalogue) or None,
                         held=lambda q: clearly_held(gather(q, newest, self.embed_model, t.preset.retrieval),
                                                     t.preset.relevance_threshold))
        if qc.status != "ok":
            t.result.status = qc.status
            t.result.intent = {"label": qc.status, "confidence": 1.0}
            t.result.answer = qc.message
            t.done = True
        return t

    def answer_from_catalogue(self, t: Turn) -> Turn:
        found = answer_catalogue_question(t.question, t.catalogue, pinned_product=t.pinned_product)
        if found is not None:
            res = t.result
            res.status, res.answer, res.product, res.releases = "catalogue", found.answer, found.product, found.releases
            res.product_source = "catalogue"
            t.done = True
        return t

    def answer_from_timeline(self, t: Turn) -> Turn:
        # A feature said in plain words is decided from one search of each release (timeline_search), the rest from
        # the timeline alone; an ordinary question pays for neither.
        found = searched_answer(t.question, t.catalogue, self.timeline,
                                lambda p: [self.index(p, r) for r in self.library.releases(p)], self.embed_model,
                                t.preset.retrieval, pinned_product=t.pinned_product)
        if found is not None:
            res = t.result
            res.status, res.answer, res.product = "timeline", found.answer, found.product
            if res.intent.get("source") != "user":
                res.intent = {"label": timeline_intent(found.kind), "confidence": 1.0, "source": "timeline"}
            res.releases = sort_releases(found.releases)
            # The releases the question named ("is X in 3.4?"), or those the timeline found ("when was X added?").
            said = detect(t.question, t.catalogue, pinned_product=t.pinned_product)
            named = set(said.releases) if said.release_source == "named" else set()
            res.product_source = found.product_source
            res.release_source = ("none" if not found.releases else
                                  "named" if set(found.releases) <= named else "timeline")
            res.standalone, res.rewritten = t.question, found.query()
            res.knowledge = found.knowledge()  # missing, too, when the release asked about lacks the term
            res.knowledge_missing = res.knowledge["missing"]
            res.answer, res.sources = cite.apply(phrase(found, t.question, t.llm), found.sources())
            t.done = True
        return t

    def route(self, t: Turn) -> Turn:
        res = t.result
        routing = detect(t.question, t.catalogue, pinned_product=t.pinned_product, pinned_release=t.pinned_release,
                         history=t.history)
        if routing.product is None and t.catalogue:
            routing = self.infer_product(t, routing)
        t.routing = routing
        res.routing = asdict(routing)
        res.product, res.releases, res.release_source = routing.product, list(routing.releases), routing.release_source
        res.product_source = routing.product_source
        if not routing.product or not routing.releases:
            res.status = "not_in_library" if routing.product_source == "inferred" else "no_documents"
            res.answer = routing_message(routing, t.catalogue)
            res.knowledge_missing = True
            t.done = True
        return t

    def infer_product(self, t: Turn, unrouted: Routing) -> Routing:
        """No product named, pinned or in the conversation: search each product's routed release, let evidence pick."""
        question = condense_rules(t.question, t.history) if is_follow_up(t.question, t.history) else t.question
        routed = {}
        for c in t.catalogue:
            r = detect(t.question, t.catalogue, pinned_product=c.name, pinned_release=t.pinned_release,
                       history=t.history)
            if r.releases:  # a product without the release named is no candidate
                routed[c.name] = r
        if not routed:
            return unrouted
        evidence = gather(question, [self.index(p, r.releases[-1]) for p, r in routed.items()], self.embed_model,
                          t.preset.retrieval)
        scores = {e.product: round(e.score, 4) for e in evidence}
        lexicons = {p: self.index(p, r.releases[-1]).lexicon for p, r in routed.items()}
        chosen = choose(owned(evidence, question, self.timeline, self.common_words,
                              lambda p, w: w in lexicons[p]), t.preset.relevance_threshold)
        if not chosen:
            return Routing(None, "inferred", [], "none", unrouted.mentions, evidence=scores)
        win = routed[chosen[0].product]
        win.product_source, win.evidence = "inferred", scores
        win.also = [(e.product, r) for e in chosen[1:] for r in routed[e.product].releases]
        return win

    def detect_intent(self, t: Turn) -> Turn:
        if t.result.intent.get("source") != "user":
            ir = self.intent.classify(t.question)
            t.result.intent = {"label": ir.label, "confidence": round(ir.confidence, 4), "source": "model"}
        return t

    def rewrite_query(self, t: Turn) -> Turn:
        p, res, routing = t.preset, t.result, t.routing
        rw = rewrite(
            t.question, history=t.history if p.history else None, intent=res.intent.get("label"),
            versionless=strip_release_mentions(t.question, routing),
            glossary=self.glossary(routing.product) if p.glossary else {}, llm=t.llm if p.llm_rewrite else None,
            use_history=p.history, intent_expansion=p.intent_expansion, multi_query=p.multi_query,
            use_glossary=p.glossary, names_its_topic=routing.product_source in ("named", "alias"),
        )
        t.rewrite = rw
        res.standalone, res.rewritten = rw.standalone, rw.rewritten
        seen: set[tuple[str, bool, bool]] = set()
        for q in rw.queries:
            if (q.text, q.dense, q.lexical) not in seen and (q.dense or q.lexical):
                seen.add((q.text, q.dense, q.lexical))
                res.queries.append({"kind": q.kind, "text": q.text, "dense": q.dense, "lexical": q.lexical})
        return t

    def retrieve(self, t: Turn) -> Turn:
        p, res, routing = t.preset, t.result, t.routing
        # A naive RAG searches one corpus holding every release; QAMR's per-release corpora are the routed scope.
        scope = self.library.releases(routing.product) if p.release_scope == "all" else routing.releases
        indexes = [self.index(routing.product, r) for r in scope] + [self.index(pr, r) for pr, r in routing.also]
        retriever = HybridRetriever(indexes, self.embed_model, p.retrieval)
        found = retriever.search(list(dict.fromkeys(q["text"] for q in res.queries if q["lexical"])),
                                 dense_queries=list(dict.fromkeys(q["text"] for q in res.queries if q["dense"])))
        if found.dense_skipped:
            res.notices.append(
                f"{routing.product} {', '.join(found.dense_skipped)} was indexed with another embedding model: "
                "searched by words only until its re-index finishes (see the Library page).")
        t.found = found
        t.contexts = self._to_contexts(found.candidates)
        res.candidates = [
            Candidate(n.node.node_id, n.node.metadata.get("context_id", ""), n.node.metadata["release"],
                      n.node.metadata["path"], n.node.metadata.get("section", ""), n.node.metadata.get("page"),
                      {k: round(float(n.node.metadata[k]), 4) for k in ("dense", "bm25", "fused") if k in n.node.metadata})
            for n in found.candidates
        ]
        return t

    def rerank(self, t: Turn) -> Turn:
        if self.reranker is not None:
            if not self.reranker.available and self.reranker.notice not in t.result.notices:
                t.result.notices.append(self.reranker.notice)
            self.reranker.top_n = max(len(t.contexts), 1)
            t.contexts = self.reranker.postprocess_nodes(t.contexts, QueryBundle(t.rewrite.standalone))
        return t

    def select(self, t: Turn) -> Turn:
        contexts = spread_by_file(keep_by_margin(t.contexts, t.preset.retrieval.margin), t.preset.retrieval.distinct_files)
        scopes = [(t.routing.product, r) for r in t.routing.releases] + list(t.routing.also)
        t.contexts = balance_releases(contexts, scopes, t.preset.retrieval.contexts)
        t.relevance = max((n.node.metadata.get("dense", 0.0) for n in t.contexts), default=0.0)
        return t

    def check_knowledge(self, t: Turn) -> Turn:
        p, routing, contexts = t.preset, t.routing, t.contexts
        top = contexts[0].node.metadata if contexts else {}
        suggestion = kn.suggest_question(top.get("title", ""), top.get("section", ""), routing.product,
                                         routing.releases[0]) if contexts else None
        vocab_union = self.vocab(*([(routing.product, r) for r in routing.releases] + list(routing.also)))
        others = {r: self.vocab((routing.product, r)) for r in self.library.releases(routing.product)
                  if r not in routing.releases}
        verdict = kn.check(
            # Words only (another model's vectors): no cosine to judge by, the vocabulary check still runs.
            t.rewrite.standalone, relevance=t.relevance,
            threshold=float("-inf") if t.found.dense_skipped else p.relevance_threshold,
            release_vocab=vocab_union or None, other_vocabs=others, suggestion=suggestion,
            llm=t.llm if p.knowledge == "scores+llm" else None,
            context=[n.node.get_content() for n in contexts],
            ignore_words=kn.naming_words(routing.product, routing.mentions, t.catalogue), common_words=self.common_words,
            releases_of=kn.timeline_lookup(self.timeline, routing.product, routing.releases),
            library_vocab=self.library_vocabulary(t.catalogue),
        )
        t.result.knowledge = asdict(verdict)
        t.result.knowledge_missing = verdict.missing
        return t

    def reduce_context(self, t: Turn) -> Turn:
        p, rw = t.preset, t.rewrite
        contexts = llm_select(rw.standalone, t.contexts, t.llm) if p.reduce == "llm" and t.llm is not None else t.contexts
        texts = [n.node.get_content() for n in contexts]
        if p.reduce in ("extractive", "llm"):
            texts = [extract(text, rw.standalone + " " + rw.rewritten) for text in texts]
        # Sources are numbered by rank ([1] is the strongest); only the prompt's order changes below.
        t.result.sources = [
            cite.Source(
                n=i, product=node.node.metadata["product"], release=node.node.metadata["release"],
                path=node.node.metadata["path"], page=node.node.metadata.get("page"),
                page_label=node.node.metadata.get("page_label"),
                section=node.node.metadata.get("section") or "", title=node.node.metadata.get("title") or "",
                score=float(node.score or 0.0), text=text,
                chunk_ids=tuple(node.node.metadata.get("chunk_ids", ())), context_id=node.node.node_id,
            )
            for i, (node, text) in enumerate(zip(contexts, texts), start=1)
        ]
        t.contexts = contexts
        t.prompt_sources = lost_in_the_middle(t.result.sources) if p.lost_in_middle else t.result.sources
        return t

    def generate(self, t: Turn) -> Turn:
        p, res, routing = t.preset, t.result, t.routing
        if res.knowledge_missing:
            res.answer, res.sources = missing_answer(t.question, res.knowledge, routing, self.timeline, res.sources)
            return t
        if t.llm is None:
            question = t.rewrite.standalone if t.rewrite is not None else t.question
            res.answer = extractive_answer(question, res.sources) if t.extractive else ""
            return t
        products = list(dict.fromkeys([routing.product] + [pr for pr, _ in routing.also]))
        description = " ".join(self.library.meta(pr).description for pr in products) if p.product_description else ""
        messages = build_messages(
            question=t.question, rewritten=t.rewrite.rewritten,
            intent=res.intent.get("label") if p.answer_requirements else None,
            product=" and ".join(products), product_description=description.strip(),
            releases=routing.releases + [r for _, r in routing.also],
            sources=t.prompt_sources, history=t.history if p.history else None,
        )
        pieces: list[str] = []
        try:
            for piece in stream_answer(t.llm, messages):
                if t.on_token is not None:
                    t.on_token(piece)  # first: a consumer that stops the answer (app/live.py) refuses this piece
                pieces.append(piece)
        except LLMError as exc:
            res.incomplete = True
            res.notices.append(exc.message)
            pieces.append(exc.partial if exc.partial and not pieces else "")
        res.answer = "".join(pieces).strip()
        return t

    def cite(self, t: Turn) -> Turn:
        t.result.answer, t.result.sources = cite.apply(t.result.answer, t.result.sources)
        return t

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
                        section=row.section, page=row.page, page_label=row.page_label,
                        chunk_ids=[c.node.node_id for c in candidates if c.node.metadata.get("context_id") == cid])
            out.append(NodeWithScore(node=TextNode(id_=cid, text=row.text, metadata=meta), score=best.score))
        return out


class _Runner:
    """Runs the stages a preset lists, times each, tells the observer, and stops once a stage ends the turn."""

    def __init__(self, turn: Turn, observer: Observer | None) -> None:
        self.turn = turn
        self.observer = observer
        self.stages = set(turn.preset.stages)

    def __call__(self, stage: str, step: Callable[[Turn], Turn]) -> None:
        if self.turn.done or stage not in self.stages:
            return
        res = self.turn.result
        self._tell(StageEvent(stage, "start", res))
        t0 = time.perf_counter()
        try:
            self.turn = step(self.turn)
        finally:
            ms = round((time.perf_counter() - t0) * 1000, 2)
            res.timings_ms[stage] = ms
        self._tell(StageEvent(stage, "end", res, ms))

    def _tell(self, event: StageEvent) -> None:
        if self.observer is not None:
            self.observer(event)
