"""Ingestion: bring the index of a release in line with its folder, incrementally, exactly and crash-safely.

Per release: files whose size and mtime match the manifest are unchanged without being read; others are hashed
and only a changed hash is re-indexed. Changed files are read, chunked (dual chunking) and embedded in batches
across files, while a writer thread stores the previous batch (dense and sparse vectors in one upsert), so that
storing overlaps with embedding. See manifest.py for the crash-safety rule.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from llama_index.core.schema import TextNode

from assistant.backends.embedder import Embedder
from assistant.library.catalogue import Library
from assistant.library.chunking import DualChunkParser, embed_text, search_chunk_id
from assistant.library.embed_cache import EmbeddingCache
from assistant.library.fields import heading_text
from assistant.library.manifest import ContextRow, Manifest
from assistant.library.parse_pool import parse_files, resolve_workers, tokenizer_file
from assistant.library.recipe import index_recipe
from assistant.library.scan import scan_release
from assistant.library.store import ReleaseStore
from assistant.library.timeline import Timeline
from assistant.settings import Settings

log = logging.getLogger(__name__)
BATCH_CHUNKS = 256  # search chunks embedded per batch: big enough for full batches, small enough for fine progress
# One file's chunks are embedded and stored together: this cap bounds one file's peak memory and its text to some
# 3 million words (issue 6).
MAX_FILE_CHUNKS = 15_000
_SETTLED = ("indexed", "failed", "skipped")  # a file in one of these states is redone only when it changes


@dataclass
class Progress:
    product: str
    release: str
    files_done: int
    files_total: int
    current: str
    chunks: int
    eta_s: float | None
    elapsed_s: float


@dataclass
class SyncReport:
    product: str
    release: str
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_failed: list[dict] = field(default_factory=list)
    files_skipped: list[dict] = field(default_factory=list)
    chunks: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    timeline_s: float = 0.0  # of `seconds`: bringing the release timeline (timeline.py) in line

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class _Parsed:
    path: str
    digest: str
    size: int
    mtime_ns: int
    old_n: int
    search: list[TextNode]
    contexts: list[TextNode]
    encoding: str | None = None
    title: str | None = None
    vectors: np.ndarray | None = None  # float32 rows of `search`: a quarter of their size as lists of floats
    heading_vectors: np.ndarray | None = None  # the rows of their heading paths (fields.heading_text)
    sparse: dict | None = None  # their sparse search fields by node id, when a worker made them (parse_pool.py)


@dataclass
class _SetAside:
    """A file read but not indexed: `failed` (unreadable, corrupt, over a limit) or `skipped` (nothing to index)."""

    path: str
    digest: str
    size: int
    mtime_ns: int
    old_n: int
    reason: str
    status: str
    title: str | None = None
    description: str | None = None


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Indexer:
    def __init__(self, settings: Settings, library: Library, manifest: Manifest,
                 store_factory: Callable[[], object], embedder_factory: Callable[[], Embedder]) -> None:
        # The vector store and the embedder are opened only when a sync has work: a no-op re-sync stays instant.
        self.settings = settings
        self.library = library
        self.manifest = manifest
        self._store_factory = store_factory
        self._embedder_factory = embedder_factory

    @cached_property
    def store(self):
        """The store backend (store.py): EdgeShards, or QdrantServer when a server URL is set."""
        return self._store_factory()

    @cached_property
    def embedder(self) -> Embedder:
        return self._embedder_factory()

    @cached_property
    def timeline(self) -> Timeline:
        return Timeline(self.settings.index_dir / "timeline.sqlite")

    @cached_property
    def recipe(self) -> str:
        return index_recipe(self.settings)

    @cached_property
    def parser(self) -> DualChunkParser:
        return DualChunkParser(
            self.embedder.count_tokens,
            search_tokens=min(self.settings.search_chunk_tokens, self.embedder.max_tokens - 8),
            context_tokens=self.settings.context_chunk_tokens,
            padding_tokens=self.settings.context_padding_tokens,
        )

    @cached_property
    def cache(self) -> EmbeddingCache | None:
        if not self.settings.embedding_cache:
            return None
        path = self.settings.embedding_cache_path or self.settings.index_dir / "embed_cache.sqlite"
        return EmbeddingCache(path, str(self.embedder.path), self.embedder.dim)

    # -- public -------------------------------------------------------------------------------------------------
    def sync(self, product: str | None = None, release: str | None = None,
             progress: Callable[[Progress], None] | None = None,
             cancel: threading.Event | None = None) -> list[SyncReport]:
        """Every release on disk (or the one asked for), plus releases the manifest has but the disk lost."""
        targets: list[tuple[str, str]] = []
        for p in [product] if product else self.library.products():
            for r in [release] if release else self.library.releases(p):
                targets.append((p, r))
        for p, r in self.manifest.releases():
            if (product in (None, p)) and (release in (None, r)) and (p, r) not in targets:
                targets.append((p, r))  # folder deleted by hand: its index goes too
        reports = []
        self._retire_local_mode(targets)
        if product is None:
            for name in self.library.unusable_folders():
                p, _, r = name.partition("/")
                reports.append(SyncReport(p, r, files_skipped=[
                    {"path": ".", "reason": "folder name is not valid UTF-8 (rename it)"}]))
        for p, r in targets:
            if cancel is not None and cancel.is_set():
                break
            reports.append(self.sync_release(p, r, progress=progress, cancel=cancel))
        return reports

    def sync_release(self, product: str, release: str, progress: Callable[[Progress], None] | None = None,
                     cancel: threading.Event | None = None) -> SyncReport:
        t0 = time.perf_counter()
        report = SyncReport(product, release)
        rows = self.manifest.files(product, release)
        store = _LazyStore(lambda: ReleaseStore(self.store, product, release, self.embedder.dim))

        on_disk, skipped = self.scan(product, release)
        report.files_skipped += skipped

        # Removed files (and unfinished work on files that are gone): delete their points by id.
        removed = [rel for rel in rows if rel not in on_disk]
        for rel in removed:
            store.delete_ids([search_chunk_id(product, release, rel, i) for i in range(rows[rel].n_chunks)])
            self.manifest.forget(product, release, rel)
        report.files_removed = len(removed)

        todo: list[tuple[str, Path, str, int, int]] = []  # rel, path, digest, size, mtime
        stale = 0  # files indexed the old way (another reader, chunker, chunk sizes or model): redone like changed ones
        for rel, path in on_disk.items():
            try:  # a broken link, a file without read permission, or one deleted since the walk
                st = path.stat()
                row = rows.get(rel)
                if row and row.recipe != self.recipe:
                    stale += row.status in _SETTLED
                    row = None
                if row and row.status in _SETTLED and row.size == st.st_size and row.mtime_ns == st.st_mtime_ns:
                    self._count_unchanged(report, row, rel)
                    continue
                digest = file_digest(path)
            except OSError as exc:
                report.files_failed.append({"path": rel, "error": f"cannot read file: {exc.strerror or exc}"})
                continue
            if row and row.status in _SETTLED and row.hash == digest:
                self.manifest.touch_mtime(product, release, rel, st.st_mtime_ns)
                self._count_unchanged(report, row, rel)
                continue
            todo.append((rel, path, digest, st.st_size, st.st_mtime_ns))

        if stale:
            log.warning("%s/%s: %d files were indexed with another recipe (reader, chunk sizes or embedding model "
                        "changed since); re-indexing them", product, release, stale)
        if todo:
            self._index_files(product, release, store, todo, rows, report, t0, progress, cancel)
        if todo or removed:
            store.finish()  # persist, and let the engine's optimiser index what was written
        if not self.library.release_dir(product, release).is_dir() and not self.manifest.files(product, release):
            if (product, release) in self.manifest.releases():  # it had been indexed: drop its collection
                store.drop()
            self.manifest.drop_release(product, release)
        t1 = time.perf_counter()  # every sync, even a no-op one: it also finishes a refresh a kill interrupted
        self.timeline.refresh(product, release, self.manifest)
        self.timeline.drop_missing(set(self.manifest.releases()))
        report.timeline_s = round(time.perf_counter() - t1, 3)
        report.chunks = sum(r.n_chunks for r in self.manifest.files(product, release).values() if r.status == "indexed")
        report.seconds = round(time.perf_counter() - t0, 3)
        return report

    def scan(self, product: str, release: str) -> tuple[dict[str, Path], list[dict]]:
        return scan_release(self.library, product, release)

    def _retire_local_mode(self, targets: list[tuple[str, str]]) -> None:
        """An index made by an earlier version (qdrant-client's local mode under `index/qdrant`, BM25 files under
        `index/bm25`) is rebuilt, never read: the recipe of every file it holds names no store format, so this sync
        re-indexes them all with progress (the manifest keeps every path, and the library every file). The old
        folders go once a sync with work starts; until that sync reaches a release, it has no vectors."""
        old = [self.settings.index_dir / "qdrant", self.settings.index_dir / "bm25"]
        if self.settings.qdrant_url is None and targets and any(p.exists() for p in old):
            log.warning("the index was made by an earlier version (Qdrant local mode): rebuilding it in the Qdrant "
                        "engine; every file is re-indexed once")
            for path in old:
                shutil.rmtree(path, ignore_errors=True)

    def verify(self, product: str, release: str) -> list[str]:
        """Problems where the vector store and the manifest disagree (empty when consistent)."""
        problems = []
        rows = self.manifest.files(product, release)
        store = ReleaseStore(self.store, product, release, self.embedder.dim)
        expected = {search_chunk_id(product, release, rel, i) for rel, r in rows.items() if r.status == "indexed" for i in range(r.n_chunks)}
        actual = store.ids()
        if actual - expected:
            problems.append(f"{len(actual - expected)} points in the vector store belong to no indexed file")
        if expected - actual:
            problems.append(f"{len(expected - actual)} chunks of indexed files are missing from the vector store")
        dirty = [rel for rel, r in rows.items() if r.status == "dirty"]
        if dirty:
            problems.append(f"{len(dirty)} files are half-indexed (run sync): {dirty[:3]}")
        ids, _ = self.manifest.chunk_texts(product, release)
        if set(ids) != expected:
            problems.append("chunk texts in the manifest differ from the indexed files")
        on_disk = {p.relative_to(self.library.release_dir(product, release)).as_posix() for p in self.library.files(product, release)}
        gone = [rel for rel in rows if rel not in on_disk]
        if gone:
            problems.append(f"{len(gone)} files are indexed but no longer in the library: {gone[:3]}")
        return problems

    # -- internals ---------------------------------------------------------------------------------------------------
    @staticmethod
    def _count_unchanged(report: SyncReport, row, rel: str) -> None:
        report.files_unchanged += 1
        if row.status == "failed":
            report.files_failed.append({"path": rel, "error": row.error or "could not be read"})
        elif row.status == "skipped":
            report.files_skipped.append({"path": rel, "reason": row.error or "nothing to index"})

    def _index_files(self, product, release, store: ReleaseStore, todo, rows, report: SyncReport, t0: float,
                     progress, cancel) -> None:
        # Open the store before loading the model or marking anything dirty: a store held by another process
        # (StoreLocked) must fail at once and leave the manifest as it found it.
        self.store
        size = store.vector_size()
        outdated = store.outdated()  # made before a search field existed (issue 15; the recipe changed too)
        if outdated or (size is not None and size != self.embedder.dim):
            # Another embedding model, with vectors of another size, or fewer fields: no old point can stay in this
            # collection. Every file still listed turns dirty first (the crash rule), then it starts afresh.
            log.warning("%s/%s: rebuilding the collection (%s)", product, release,
                        "it lacks search fields of this version" if outdated else
                        f"the embedding model now makes {self.embedder.dim}-dimensional vectors, the index holds {size}")
            current = self.manifest.files(product, release)
            self.manifest.mark_dirty(product, release, [(rel, r.hash, r.size, r.mtime_ns, r.n_chunks)
                                                        for rel, r in current.items()])
            store.drop()
        total_bytes = sum(t[3] for t in todo) or 1
        done_bytes = handled = 0
        chunks_done = 0
        jobs: queue.Queue = queue.Queue(maxsize=2)
        errors: list[BaseException] = []
        writer = threading.Thread(target=self._writer, args=(product, release, store, jobs, errors), daemon=True)
        writer.start()
        batch: list[_Parsed] = []

        def flush() -> None:
            nonlocal chunks_done
            if not batch:
                return
            nodes = [n for p in batch for n in p.search]
            vectors = self._embed([embed_text(n) for n in nodes])
            # Heading paths repeat across a section's chunks (and across releases, via the cache): each distinct one
            # is embedded once.
            heads = [heading_text(n.metadata) for n in nodes]
            distinct = list(dict.fromkeys(heads))
            head_rows = dict(zip(distinct, self._embed(distinct))) if distinct else {}
            heading_vectors = np.array([head_rows[h] for h in heads], dtype=np.float32).reshape(len(heads), -1)
            offset = 0
            for p in batch:
                p.vectors = vectors[offset : offset + len(p.search)]
                p.heading_vectors = heading_vectors[offset : offset + len(p.search)]
                offset += len(p.search)
            jobs.put(list(batch))
            chunks_done += len(nodes)
            batch.clear()
            if errors:
                raise errors[0]

        workers = resolve_workers(self.settings.ingest_workers, len(todo))
        outcomes = parse_files([(t[0], t[1], t[3]) for t in todo], product, release, lambda: self.parser, workers,
                               tokenizer_file(self.embedder.path), cancel)
        try:
            for i, ((rel, path, digest, size, mtime_ns), out) in enumerate(zip(todo, outcomes)):
                if cancel is not None and cancel.is_set():
                    break
                old_n = rows[rel].n_chunks if rel in rows else 0
                n_search = sum(n.metadata["kind"] == "search" for n in out[3]) if out[0] == "indexed" else 0
                if n_search > MAX_FILE_CHUNKS:
                    out = ("failed", f"too much text: {n_search:,} search chunks, more than the "
                           f"{MAX_FILE_CHUNKS:,} indexed per file (split it)", None, None, None)
                if out[0] == "failed":
                    jobs.put(_SetAside(rel, digest, size, mtime_ns, old_n, out[1], "failed"))
                    report.files_failed.append({"path": rel, "error": out[1]})
                elif out[0] == "skipped":  # e.g. a page of front matter only: its title and description are kept
                    jobs.put(_SetAside(rel, digest, size, mtime_ns, old_n, out[1], "skipped", out[2], out[3]))
                    report.files_skipped.append({"path": rel, "reason": out[1]})
                else:
                    search = [n for n in out[3] if n.metadata["kind"] == "search"]
                    contexts = [n for n in out[3] if n.metadata["kind"] == "context"]
                    batch.append(_Parsed(rel, digest, size, mtime_ns, old_n, search, contexts, out[1], out[2],
                                         sparse=out[4]))
                    report.files_indexed += 1
                    if sum(len(p.search) for p in batch) >= BATCH_CHUNKS:
                        flush()
                done_bytes, handled = done_bytes + size, handled + 1
                if progress is not None:
                    elapsed = time.perf_counter() - t0
                    eta = elapsed / done_bytes * (total_bytes - done_bytes) if done_bytes else None
                    progress(Progress(product, release, i + 1, len(todo), rel, chunks_done + sum(len(p.search) for p in batch), eta, elapsed))
            report.cancelled = cancel is not None and cancel.is_set() and handled < len(todo)
            flush()
        finally:
            outcomes.close()  # worker processes end now, even when an error is on its way up
            jobs.put(None)
            writer.join()
        if errors:
            raise errors[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        if self.cache is None:
            return self.embedder.embed(texts)
        return self.cache.embed(texts, self.embedder.embed)

    def _writer(self, product: str, release: str, store: ReleaseStore, jobs: queue.Queue, errors: list) -> None:
        """The only thread that writes the vector store and the manifest during an ingestion."""
        while True:
            job = jobs.get()
            if job is None:
                return
            if errors:
                continue  # drain after a failure so the producer never blocks
            try:
                if isinstance(job, _SetAside):
                    self.manifest.mark_dirty(product, release, [(job.path, job.digest, job.size, job.mtime_ns, job.old_n)])
                    store.delete_ids([search_chunk_id(product, release, job.path, i) for i in range(job.old_n)])
                    self.manifest.commit_failed(product, release, job.path, job.digest, job.size, job.mtime_ns,
                                                job.reason, recipe=self.recipe, status=job.status, title=job.title,
                                                description=job.description)
                    continue
                self._write_batch(product, release, store, job)
            except BaseException as exc:  # surfaced to the producer, which stops the run
                errors.append(exc)

    def _write_batch(self, product: str, release: str, store: ReleaseStore, batch: list[_Parsed]) -> None:
        # 1. dirty first (with the larger of old and new chunk counts), 2. points, 3. indexed.
        self.manifest.mark_dirty(product, release, [
            (p.path, p.digest, p.size, p.mtime_ns, max(p.old_n, len(p.search))) for p in batch
        ])
        stale = [search_chunk_id(product, release, p.path, i) for p in batch for i in range(len(p.search), p.old_n)]
        store.delete_ids(stale)
        for p in batch:
            store.add(p.search, p.vectors, p.heading_vectors, p.sparse)
        for p in batch:
            contexts = [
                ContextRow(c.node_id, product, release, p.path, c.metadata["ctx_no"], c.metadata["title"],
                           c.metadata["section"], c.metadata["page"], c.get_content(), c.metadata["core"],
                           c.metadata.get("page_label"))
                for c in p.contexts
            ]
            chunks = [(n.node_id, n.metadata["chunk_no"], n.metadata["context_id"], embed_text(n)) for n in p.search]
            self.manifest.commit_indexed(product, release, p.path, p.digest, p.size, p.mtime_ns, chunks, contexts,
                                         recipe=self.recipe, encoding=p.encoding, title=p.title)


class _LazyStore:
    """Opens the release's vector store on first use, so that syncing an unchanged release never does."""

    def __init__(self, factory: Callable[[], ReleaseStore]) -> None:
        self._factory = factory
        self._store: ReleaseStore | None = None

    def __getattr__(self, name: str):
        if self._store is None:
            self._store = self._factory()
        return getattr(self._store, name)

    def delete_ids(self, ids: list[str]) -> None:
        if ids:
            self.__getattr__("delete_ids")(ids)
