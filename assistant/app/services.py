"""What the Streamlit pages do, without Streamlit: services built once from Settings, questions with traces,
feedback, intent corrections, background ingestion and model pulls, safe uploads, insights and saved settings.

The pages (`pages/*.py`) gather input, call this module and render; `get_services()` at the bottom is the one
place where Streamlit keeps the services (`st.cache_resource`), so reruns never rebuild models or reopen Qdrant.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pandas as pd

from assistant.answering.presets import get_preset, with_overrides
from assistant.app.changes import ChangeRow, term_timeline, what_changed
from assistant.app.config import LLM_FIELDS, load_settings
from assistant.app.connection import LLMState, connect_llm
from assistant.app.conversations import Conversations, history
from assistant.app.db import AppDB
from assistant.app.jobs import Job
from assistant.app.live import start_answer
from assistant.app.sources import SourceView, open_source
from assistant.app.uploads import UploadLimits, UploadReport, save_uploads
from assistant.backends.ollama import OllamaChat
from assistant.components import build_indexer, build_pipeline
from assistant.library.catalogue import Library, LibraryError, ProductMeta
from assistant.library.recipe import index_recipe
from assistant.secrets import get_secret
from assistant.settings import Settings

# --------------------------------------------------------------------------------------------- the services


class Services:
    """Everything the pages need, for one data folder. Heavy parts come from the composition root (components.py),
    which keeps one embedder, reranker and Qdrant client per process."""

    def __init__(self, settings: Settings) -> None:
        settings.ensure_dirs()
        self.settings = settings
        self.db = AppDB(settings.db_path)
        self.conversations = Conversations(self.db)
        self.ingest = Job()
        self.pull = Job()
        self.warmup = Job()  # preload(): search models and the embedded LLM, loaded before the first question
        self._lock = threading.RLock()  # one question at a time: the pipeline's caches are not thread-safe
        self._llm: LLMState | None = None
        self._pipeline = None
        self._indexer = None

    def refresh(self, settings: Settings) -> None:
        """Settings saved since the last run: reconnect the LLM, and rebuild the pipeline if retrieval changed."""
        old, new = self.settings.model_dump(), settings.model_dump()
        if old == new:
            return
        with self._lock:
            changed = {k for k in new if new[k] != old[k]}
            recipe_changed = index_recipe(self.settings) != index_recipe(settings)
            self.settings = settings
            self._llm = None
            if changed - LLM_FIELDS:
                self._pipeline = self._indexer = None
        if recipe_changed:  # e.g. another embedding model: re-index what was made the old way, in the background
            self.start_sync()

    # -- components -----------------------------------------------------------------------------------------
    @property
    def library(self) -> Library:
        return Library(self.settings.library_dir)

    @property
    def indexer(self):
        if self._indexer is None:
            self._indexer = build_indexer(self.settings)
        return self._indexer

    def llm(self) -> LLMState:
        if self._llm is None:
            self._llm = connect_llm(self.settings)
        return self._llm

    def reconnect(self) -> LLMState:
        self._llm = None
        return self.llm()

    def pipeline(self):
        """Raises components.StoreLocked when another process holds the index folder."""
        with self._lock:
            if self._pipeline is None:
                pipeline = build_pipeline(self.settings, llm=None, corrections=self.db.intent_corrections())
                pipeline.warm_up()  # under the "Loading the assistant" spinner, not in the first answer
                self._pipeline = pipeline
            return self._pipeline

    @property
    def ready(self) -> bool:
        """The search models are loaded: a question starts searching at once."""
        return self._pipeline is not None

    def preset(self, name: str | None):
        p = get_preset(name or self.settings.preset)
        if "top_k" in self.settings.model_fields_set:  # the user chose how many sources an answer gets
            p = with_overrides(p, retrieval=replace(p.retrieval, contexts=self.settings.top_k))
        return p

    # -- questions -----------------------------------------------------------------------------------------
    def ask(self, question: str, *, history: list[dict] | None = None, product: str | None = None,
            release: str | None = None, preset: str | None = None, search_only: bool = False,
            on_token=None, observer=None) -> dict:
        """Answer and trace one question. Returns {"id", "trace", "trace_id"} (plain data for the session);
        `observer` hears each stage start and end (answering.state.StageEvent)."""
        state = self.llm()
        llm = None if search_only else state.model
        # Without a model, `extractive` quotes the sources' sentences (settings.offline_answer, llm_backend).
        extractive = state.extractive and not search_only
        with self._lock:
            pipeline = self.pipeline()
            pipeline.llm = llm
            res = pipeline.ask(question, history=history or None, product=product, release=release,
                               preset=self.preset(preset), search_only=llm is None and not extractive,
                               on_token=on_token, observer=observer, extractive=extractive)
        return self.record(res, history)

    def record(self, res, history: list[dict] | None = None) -> dict:
        """An AskResult as the plain data the session keeps, its trace stored."""
        trace = res.to_json()
        trace["history"] = list(history or [])
        trace["search_only"] = res.search_only
        trace["asked_at"] = time.time()
        return {"id": uuid.uuid4().hex, "trace": trace, "trace_id": self.db.add_trace(trace)}

    def begin_turn(self, conversation_id: int | None, question: str, preset: str | None = None) -> tuple[int, list]:
        """Store the question before it is answered (a failed or stopped answer loses nothing), starting and titling
        a new conversation at its first question. Returns (conversation id, the history before this question)."""
        if conversation_id is None:
            conversation_id, earlier = self.conversations.start(question, preset or self.settings.preset), []
        else:
            earlier = history(self.conversations.messages(conversation_id))
        self.conversations.add_question(conversation_id, question)
        return conversation_id, earlier

    def end_turn(self, conversation_id: int, answer: dict, preset: str | None = None) -> None:
        self.conversations.add_answer(conversation_id, answer, preset or self.settings.preset)

    def start_answer(self, question: str, *, deferred: bool = False, **ask_kwargs):
        """`ask` in a worker thread: returns a live.LiveAnswer the page polls (stages, sources, tokens, Stop).
        `deferred`: the thread starts at the first `begin()`, once the page has drawn the stage line."""
        return start_answer(self, question, deferred=deferred, **ask_kwargs)

    def preload(self) -> None:
        """Build the search models (and load the embedded LLM when it answers) in the background at start, so the
        first question finds them ready; the `warmup` job says what is still loading."""
        def work(job: Job, cancel: threading.Event) -> None:
            job.update(status="Loading the search models (embedder, intent examples, vocabularies)…")
            pipeline = self.pipeline()
            with self._lock:  # each product's glossary and each release's shard opened: the first question's cost
                for product in self.library.products():
                    pipeline.glossary(product)
                    for release in self.library.releases(product):
                        bool(pipeline.vocab((product, release)))  # opens the release's shard (a count)
            model = self.llm().model
            if model is not None and model.backend == "embedded" and not model.loaded:
                job.update(status="Loading the embedded model (the first load takes about 90 s)…")
                model.load()
            job.update(status="ready")

        # Not under self._lock: a question holds it while it is answered, and the page must redraw meanwhile.
        if self._pipeline is None and not self.warmup.snapshot().label:
            self.warmup.start("Loading the assistant", work)  # starts at most one: Job.start refuses a second

    def save_feedback(self, answer: dict, rating: int, comment: str = "") -> int:
        """rating: 1 thumbs up, 0 thumbs down (st.feedback's values). One row per answer, updated on change."""
        if answer.get("feedback_id"):
            self.db.update_feedback(answer["feedback_id"], rating, comment)
        else:
            answer["feedback_id"] = self.db.add_feedback(rating, answer["trace"], comment, answer.get("trace_id"))
            self.db.link_feedback(answer["id"], answer["feedback_id"])
        return answer["feedback_id"]

    def correct_intent(self, question: str, predicted: str | None, corrected: str) -> None:
        """Stored (the classifier is built with every correction) and applied to the live classifier at once."""
        self.db.add_intent_correction(question, predicted, corrected)
        with self._lock:
            if self._pipeline is not None:
                self._pipeline.intent.add_example(question, corrected)

    def document(self, source: dict) -> Path | None:
        """The file a source came from, only if it lies inside its release folder."""
        try:
            base = self.library.release_dir(source["product"], source["release"]).resolve()
            path = (base / source["path"]).resolve()
        except (KeyError, OSError):
            return None
        return path if path.is_relative_to(base) and path.is_file() else None

    def open_source(self, source: dict, answer: str = "") -> SourceView:
        """The source at its page (PDF, with the passage the answer quotes boxed) or its section (text formats)."""
        return open_source(self.document(source), source, answer)

    # -- library ---------------------------------------------------------------------------------------------
    def catalogue(self) -> dict[str, list[str]]:
        lib = self.library
        return {p: lib.releases(p) for p in lib.products()}

    def start_sync(self, product: str | None = None, release: str | None = None) -> bool:
        indexer = self.indexer
        label = f"Indexing {product or 'the library'}" + (f" {release}" if release else "")

        def work(job: Job, cancel: threading.Event) -> None:
            def progress(p) -> None:
                job.update(product=p.product, release=p.release, files_done=p.files_done, files_total=p.files_total,
                           current=p.current, eta_s=p.eta_s, elapsed_s=p.elapsed_s, chunks=p.chunks,
                           done_file=f"{p.release}/{p.current}")

            reports = indexer.sync(product, release, progress=progress, cancel=cancel)
            job.update(reports=[r.to_json() for r in reports])

        return self.ingest.start(label, work)

    def add_uploads(self, product: str, release: str, files: list[tuple[str, bytes]],
                    limits: UploadLimits | None = None) -> UploadReport:
        report = save_uploads(self.library, product, release, files, limits or UploadLimits())
        if report.saved:
            report.started = self.start_sync(report.product, report.release)
        return report

    def what_changed(self, product: str, old: str, new: str) -> list[ChangeRow]:
        return what_changed(self.indexer.timeline, product, old, new)

    def term_timeline(self, product: str, term: str) -> list[dict]:
        return term_timeline(self.indexer.timeline, product, term)

    def library_overview(self) -> pd.DataFrame:
        lib, manifest = self.library, self.indexer.manifest
        stats = {(r["product"], r["release"]): r for r in manifest.stats(self.indexer.recipe)}
        rows = []
        for product in lib.products():
            name = lib.meta(product).display_name
            for release in lib.releases(product):
                s = stats.pop((product, release), {})
                # Stale: indexed before the embedding model, chunk sizes or a reader changed (see ingest.index_recipe).
                state = f"rescan: {s['stale']} files indexed with old settings" if s.get("stale") else "on disk"
                rows.append(_overview_row(product, name, release, len(lib.files(product, release)), s, state))
        for (product, release), s in stats.items():
            rows.append(_overview_row(product, product, release, 0, s, "folder gone: rescan removes it"))
        return pd.DataFrame(rows, columns=["product", "name", "release", "files", "indexed", "skipped", "failed",
                                           "chunks", "last indexed", "state"])

    def failures(self, product: str, release: str) -> list[tuple[str, str]]:
        """Files that could not be indexed (unreadable, corrupt, over a limit), with the reason."""
        return self.indexer.manifest.failures(product, release)

    def skipped(self, product: str, release: str) -> list[tuple[str, str, str, str]]:
        """Files set aside with nothing wrong in them: (path, reason, title, description), the last two kept for
        front-matter pages:
        those the last sync read (front matter only) and those never read (links out, hidden, other types)."""
        manifest = self.indexer.manifest
        rows = manifest.files(product, release)
        read = [(rel, row.error or "", row.title or "", row.description or "") for rel, row in rows.items()
                if row.status == "skipped"]
        _, unread = self.indexer.scan(product, release)
        return sorted(read + [(s["path"], s["reason"], "", "") for s in unread])

    def set_product_meta(self, product: str, *, display_name: str, description: str, aliases: str,
                         release_order: list[str]) -> None:
        meta = ProductMeta(display_name=display_name.strip() or product, description=description.strip(),
                           aliases=[a.strip() for a in aliases.split(",") if a.strip()],
                           release_order=[r for r in release_order if r])
        self.library.set_meta(product, meta)

    def rename_product(self, old: str, new: str) -> str:
        """The index is keyed by folder name, so a rename re-indexes (the embedding cache makes that cheap)."""
        if self.ingest.snapshot().running:
            raise LibraryError("Wait for the running ingestion to finish (or cancel it) before renaming.")
        new = self.library.rename_product(old, new)
        self.start_sync()
        return new

    def delete_release(self, product: str, release: str) -> None:
        if self.ingest.snapshot().running:
            raise LibraryError("Wait for the running ingestion to finish (or cancel it) before deleting.")
        self.library.delete_release(product, release)
        self.start_sync(product, release)  # drops the release's index

    def start_pull(self, model: str, host: str | None = None) -> bool:
        settings = self.settings

        def work(job: Job, cancel: threading.Event) -> None:
            token = get_secret(settings.ollama_token_name) if settings.ollama_token_name else None
            # A long read timeout: Ollama may stay silent for minutes while it verifies a multi-gigabyte layer.
            with OllamaChat(host or settings.ollama_host, model, timeout_s=3600.0, token=token) as client:
                client.pull(model, lambda p: job.update(status=p.status, completed=p.completed, total=p.total))
            job.update(status=f"{model} is ready")
            self._llm = None

        return self.pull.start(f"Pulling {model}", work)


def _overview_row(product, name, release, files, s: dict, state: str) -> dict:
    last = pd.to_datetime(s["last_indexed"], unit="s") if s.get("last_indexed") else None
    return {"product": product, "name": name, "release": release, "files": files, "indexed": s.get("indexed") or 0,
            "skipped": s.get("skipped") or 0, "failed": s.get("failed") or 0, "chunks": s.get("chunks") or 0, "last indexed": last, "state": state}


# ------------------------------------------------------------------------------------------ Streamlit cache


def get_services() -> Services:
    """The services for the configured data folder: built once per process, refreshed when settings change."""
    settings = load_settings()
    services = _cached_services(str(settings.data_dir.resolve()), settings)
    services.refresh(settings)
    return services


def _build(data_dir: str, _settings: Settings) -> Services:
    return Services(_settings)


def _cached_services(data_dir: str, settings: Settings) -> Services:
    import streamlit as st

    global _cached_services_impl
    if _cached_services_impl is None:
        # The leading underscore keeps Streamlit from hashing the settings: one Services per data folder.
        _cached_services_impl = st.cache_resource(show_spinner="Loading the assistant…")(_build)
    return _cached_services_impl(data_dir, settings)


_cached_services_impl = None
