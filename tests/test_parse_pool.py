"""Reading and chunking in worker processes (library/parse_pool.py, issue 15): the same index as the serial path."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from conftest import ETCD_CORPUS
from hostile_files import OK, make_hostile_corpus

from assistant.components import build_indexer
from assistant.library import parse_pool
from assistant.library.parse_pool import TokenCounter, resolve_workers, tokenizer_file
from assistant.library.store import ReleaseStore
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


def ingest(tmp_path: Path, workers: int) -> tuple[dict, int, dict]:
    settings = Settings(data_dir=tmp_path / f"data{workers}", models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite",
                        ingest_workers=workers)
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("etcd", "v3.6")
    for rel in PAGES:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ETCD36 / rel, folder / rel)
    shutil.copytree(tmp_path / "hostile", folder / "hostile")  # corrupt, binary and front-matter-only files
    [report] = indexer.sync()
    db = sqlite3.connect(settings.index_dir / "manifest.sqlite")
    tables = {t: db.execute(f"SELECT {cols} FROM {t} ORDER BY path, 2, 3").fetchall() for t, cols in TABLES.items()}
    points = ReleaseStore(indexer.store, "etcd", "v3.6", indexer.embedder.dim).count()
    outcome = {"indexed": report.files_indexed, "chunks": report.chunks,
               "failed": sorted((f["path"], f["error"]) for f in report.files_failed),
               "skipped": sorted((f["path"], f["reason"]) for f in report.files_skipped)}
    assert indexer.verify("etcd", "v3.6") == []
    return tables, points, outcome


def test_workers_build_the_index_the_serial_path_builds(tmp_path, monkeypatch):
    broken_files(tmp_path)
    serial = ingest(tmp_path, 0)

    def not_here(*args):
        raise AssertionError("read in the syncing process, not in a worker")

    monkeypatch.setattr(parse_pool, "parse_file", not_here)  # spawned workers import their own, untouched
    parallel = ingest(tmp_path, 2)
    assert serial[2]["indexed"] >= len(PAGES) - 1 and serial[2]["failed"] and serial[2]["skipped"]
    assert parallel[2] == serial[2]  # the same broken files set aside, with the same reasons
    assert parallel[1] == serial[1] == serial[2]["chunks"] > len(PAGES)  # stored points
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
