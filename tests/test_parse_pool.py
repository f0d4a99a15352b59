"""Reading and chunking in worker processes (library/parse_pool.py, issue 15): the same index as the serial path."""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import threading
from pathlib import Path

import dying_reader
import pytest
from conftest import ETCD_CORPUS
from hostile_files import OK, make_hostile_corpus

from assistant.components import build_indexer
from assistant.library import fields, parse_pool
from assistant.library.parse_pool import TokenCounter, resolve_workers, tokenizer_file
from assistant.library.store import ALL_VECTORS, ReleaseStore
from assistant.settings import PROJECT_ROOT, Settings

ETCD36 = ETCD_CORPUS / "v3.6"
PAGES = sorted(p.relative_to(ETCD36).as_posix() for p in ETCD36.rglob("*.md"))[:12]
TABLES = {  # every column but the times (mtime_ns, indexed_at), which differ between two copies of a folder
    "files": "path, hash, size, status, n_chunks, error, recipe, encoding, title, description",
    "chunks": "id, path, chunk_no, context_id, text",
    "contexts": "id, path, ctx_no, title, section, page, text, core, page_label",
}


def broken_files(tmp_path: Path) -> Path:
    """The small files of the hostile corpus that are set aside (failed or skipped), made once for both runs."""
    folder = tmp_path / "hostile"
    expected = make_hostile_corpus(folder)
    for name, outcome in expected.items():
        if outcome == OK or (folder / name).stat().st_size > 100_000:
            (folder / name).unlink()
    return folder


def stored_points(backend, name: str, ids: set[str]) -> dict:
    """Every point as stored: payload and each named vector (sparse ones as (index, value) pairs)."""
    def plain(vector):
        return sorted(zip(vector.indices, vector.values)) if hasattr(vector, "indices") else list(vector)

    records = backend._guard(name, lambda shard: shard.retrieve(sorted(ids), with_payload=True, with_vector=True), [])
    return {str(r.id): (r.payload, {k: plain(v) for k, v in r.vector.items()}) for r in records}


def indexer_with_pages(data_dir: Path, workers: int, names: list[str]):
    """An indexer over `data_dir` whose etcd v3.6 folder holds `names`: real etcd pages, or copies of the first body
    page under another name (the dying readers' files)."""
    indexer = build_indexer(Settings(data_dir=data_dir, models_dir=PROJECT_ROOT / "models",
                                     embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite",
                                     ingest_workers=workers))
    folder = indexer.library.release_dir("etcd", "v3.6")
    for rel in names:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ETCD36 / (rel if rel in PAGES else BODY_PAGES[0]), folder / rel)
    return indexer, folder


def ingest(tmp_path: Path, workers: int) -> tuple[dict, dict, dict]:
    indexer, folder = indexer_with_pages(tmp_path / f"data{workers}", workers, PAGES)
    shutil.copytree(tmp_path / "hostile", folder / "hostile")  # corrupt, binary and front-matter-only files
    [report] = indexer.sync()
    db = sqlite3.connect(indexer.settings.index_dir / "manifest.sqlite")
    tables = {t: db.execute(f"SELECT {cols} FROM {t} ORDER BY path, 2, 3").fetchall() for t, cols in TABLES.items()}
    store = ReleaseStore(indexer.store, "etcd", "v3.6", indexer.embedder.dim)
    points = stored_points(indexer.store, store.name, store.ids())
    outcome = {"indexed": report.files_indexed, "chunks": report.chunks,
               "failed": sorted((f["path"], f["error"]) for f in report.files_failed),
               "skipped": sorted((f["path"], f["reason"]) for f in report.files_skipped)}
    assert indexer.verify("etcd", "v3.6") == []
    return tables, points, outcome


def test_workers_build_the_index_the_serial_path_builds(tmp_path, monkeypatch):
    broken_files(tmp_path)
    serial = ingest(tmp_path, 0)

    def not_here(*args):
        raise AssertionError("done in the syncing process, not in a worker")

    monkeypatch.setattr(parse_pool, "parse_file", not_here)  # spawned workers import their own, untouched
    monkeypatch.setattr(fields, "sparse_fields", not_here)  # the writer's share too (store.point_extras)
    parallel = ingest(tmp_path, 2)
    assert serial[2]["indexed"] >= len(PAGES) - 1 and serial[2]["failed"] and serial[2]["skipped"]
    assert parallel[2] == serial[2]  # the same broken files set aside, with the same reasons
    assert len(serial[1]) == serial[2]["chunks"] > len(PAGES)
    assert all(set(vectors) == set(ALL_VECTORS) for _, vectors in serial[1].values())
    assert parallel[1] == serial[1]  # the same points: payloads, dense vectors and every sparse field
    for table in TABLES:
        assert parallel[0][table] == serial[0][table], table  # rows, chunk ids and texts, contexts


def test_the_workers_token_counter_counts_as_the_embedder():
    from assistant.components import get_embedder

    embedder = get_embedder(Settings(models_dir=PROJECT_ROOT / "models"))
    counter = TokenCounter(tokenizer_file(embedder.path))
    texts = [p.read_text(encoding="utf-8") for p in sorted(ETCD36.rglob("*.md"))[:40]]
    texts += [line for t in texts[:5] for line in t.splitlines()] + ["", "naïve café 東京 🙂 --peer-auto-tls"]
    texts.append(" ".join(texts) * 3)  # over 200k characters: counted in slices, as the embedder does
    assert counter(texts) == embedder.count_tokens(texts)
    assert max(counter(texts[:40])) > 512  # whole pages, beyond the model's 256-token window: no truncation


def test_auto_stays_serial_on_small_machines_and_small_syncs():
    assert resolve_workers("auto", 1000, cores=2) == 0
    assert resolve_workers("auto", 10, cores=16) == 0
    assert resolve_workers("auto", 1000, cores=16) == 8
    assert resolve_workers("auto", 1000, cores=6) == 5
    assert resolve_workers(3, 5, cores=2) == 3


BODY_PAGES = PAGES[2:6]  # no front-matter-only page among them
DYING_LIBRARY = BODY_PAGES + [dying_reader.ALWAYS, dying_reader.ONCE]


def library_with_dying_files(tmp_path: Path, monkeypatch, workers: int, names: list[str] = DYING_LIBRARY):
    """Four pages with body text, and two copies of the first that kill their reader (tests/dying_reader.py)."""
    monkeypatch.setattr(parse_pool, "_init_worker", dying_reader.init)  # what each spawned worker starts with
    monkeypatch.setenv("DYING_READER_MARKS", str(tmp_path))
    indexer, _ = indexer_with_pages(tmp_path / "data", workers, names)
    return indexer


def sync_in_thread(indexer, **kwargs) -> list:
    """The sync, failing (not hanging) if it has not returned after 5 minutes: a lost file made the pool wait forever."""
    reports: list = []
    thread = threading.Thread(target=lambda: reports.extend(indexer.sync(**kwargs)), daemon=True)
    thread.start()
    thread.join(300)
    assert not thread.is_alive(), "the sync still waits for a worker that died"
    return reports


def test_a_reader_process_that_dies_sets_its_file_aside_and_the_sync_completes(tmp_path, monkeypatch):
    indexer = library_with_dying_files(tmp_path, monkeypatch, workers=2)
    [report] = sync_in_thread(indexer)
    assert report.files_failed == [{"path": dying_reader.ALWAYS, "error": "the reader process died while reading "
                                    f"{dying_reader.ALWAYS}, twice (exit code {dying_reader.EXIT_CODE})"}]
    assert report.files_indexed == len(BODY_PAGES) + 1  # every page, and the file whose first reader died
    assert indexer.verify("etcd", "v3.6") == []
    rows = indexer.manifest.files("etcd", "v3.6")
    assert rows[dying_reader.ALWAYS].status == "failed"
    assert rows[dying_reader.ONCE].n_chunks == rows[BODY_PAGES[0]].n_chunks > 0  # read whole the second time
    assert multiprocessing.active_children() == []  # no worker left behind
    [again] = indexer.sync()
    assert (again.files_unchanged, again.files_indexed) == (len(DYING_LIBRARY), 0)


def test_a_cancelled_sync_stops_its_workers(tmp_path, monkeypatch):
    indexer = library_with_dying_files(tmp_path, monkeypatch, workers=2)
    cancel = threading.Event()
    [report] = sync_in_thread(indexer, progress=lambda p: cancel.set(), cancel=cancel)
    assert report.cancelled and 1 <= report.files_indexed + len(report.files_failed) < len(DYING_LIBRARY)
    assert indexer.verify("etcd", "v3.6") == []
    assert multiprocessing.active_children() == []


def test_an_error_in_a_worker_stops_the_sync_and_its_workers(tmp_path, monkeypatch):
    indexer = library_with_dying_files(tmp_path, monkeypatch, 2, BODY_PAGES[:1] + [dying_reader.BUG])
    with pytest.raises(RuntimeError, match="reading a file failed in a worker process: ValueError: a bug in a reader"):
        indexer.sync()
    assert multiprocessing.active_children() == []


def test_an_error_in_the_syncing_process_ends_the_workers_at_once(tmp_path, monkeypatch):
    indexer = library_with_dying_files(tmp_path, monkeypatch, 2, BODY_PAGES)

    def failing_progress(progress):
        raise OSError("the progress display failed")

    with pytest.raises(OSError, match="the progress display failed") as caught:
        indexer.sync(progress=failing_progress)  # after the first file, three still in the workers' hands
    assert caught.traceback  # kept, as a caller that logs the error keeps it: it holds the sync's frames
    assert multiprocessing.active_children() == []  # ended by the sync, not left to the garbage collector
