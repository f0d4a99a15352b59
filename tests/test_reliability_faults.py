"""Faults through the whole product, not one client call: Ollama misbehaving under a real Pipeline over the etcd
index, a second process on the same data folder, a disk that fills up while ingesting, and concurrent feedback.

Client-level Ollama errors are in test_llm.py, kill -9 loops in test_crash.py and a refused `sync` in
test_ingest.py; here each fault is followed to what the user gets and to what the index still serves.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ETCD_CORPUS, run_in_threads

from assistant.app.db import AppDB
from assistant.backends.ollama import OllamaChat
from assistant.components import (
    StoreLocked,
    build_indexer,
    build_intent_classifier,
    build_pipeline,
    get_store,
)
from assistant.library.manifest import ContextRow, Manifest
from assistant.library.store import ReleaseStore
from assistant.settings import PROJECT_ROOT, Settings

QUESTION = "How do I take a snapshot backup of etcd v3.5?"
MODEL = "llama3.1:8b"
SMALL_PAGES = ["tutorials/how-to-create-lease.md", "tutorials/reading-from-etcd.md",
               "tutorials/how-to-get-key-by-prefix.md", "tutorials/how-to-delete-keys.md"]


def _env(data: Path) -> dict[str, str]:
    return {**os.environ, "ASSISTANT_DATA_DIR": str(data), "ASSISTANT_MODELS_DIR": str(PROJECT_ROOT / "models")}


def _cli(data: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant", *args], cwd=PROJECT_ROOT, env=_env(data),
                          capture_output=True, text=True, timeout=600, **kwargs)


def _copy(folder: Path, pages: list[str]) -> None:
    for rel in pages:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ETCD_CORPUS / "v3.5" / rel, folder / rel)


# -- Ollama faults under the real pipeline ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def intent(etcd_index):
    return build_intent_classifier(etcd_index.settings, extra_examples=[])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# mode -> (words of the notice, the partial answer the user keeps)
FAULTS = {
    "not_running": ("is not running at", ""),
    "refuse": ("Start it with `ollama serve`", ""),
    "slow": ("did not answer within 0.5 s", ""),
    "die_mid_stream": ("dropped mid-answer", "Canned answer"),
    "unknown_model": ("is not pulled. Run `ollama pull llama3.1:8b`", ""),
    "malformed": ("malformed reply", ""),
}


@pytest.mark.parametrize("preset", ["default", "iknow", "qamr"])  # iknow and qamr also call the LLM before answering
@pytest.mark.parametrize("mode", list(FAULTS))
def test_ollama_fault_gives_a_clear_notice_keeps_sources_and_marks_the_answer_incomplete(
        etcd_index, intent, ollama_server, mode, preset):
    url = f"http://127.0.0.1:{_free_port()}" if mode == "not_running" else ollama_server.url
    llm = OllamaChat(url, MODEL, timeout_s=0.5)
    pipeline = build_pipeline(etcd_index.settings, llm=llm, intent=intent)
    if mode == "refuse":  # it answered a moment ago, then went away
        assert pipeline.ask(QUESTION, preset=preset).answer.startswith("Canned answer")
    if mode != "not_running":
        ollama_server.mode = mode
    ollama_server.slow_seconds = 3.0

    tokens: list[str] = []
    res = pipeline.ask(QUESTION, preset=preset, on_token=tokens.append)
    words, partial = FAULTS[mode]
    assert res.status == "ok" and res.releases == ["v3.5"]
    assert res.incomplete, "a failed or partial answer is never presented as complete"
    assert any(words in notice for notice in res.notices), res.notices
    assert res.answer == partial and "".join(tokens).strip() == partial
    # Search still worked: the ranked sources are there to read, from the release asked about.
    assert res.sources and {s.release for s in res.sources} == {"v3.5"}
    assert any("snapshot" in s.text.lower() for s in res.sources)
    assert res.timings_ms["generation"] < 10_000


def test_ollama_fault_reaches_the_cli_as_a_note_and_exit_code_zero(ollama_server, tmp_path):
    """`assistant ask` over its own small index: the answer fails, the sources print, the note says why."""
    data = tmp_path / "data"
    _copy(data / "library" / "etcd" / "v3.5", ["op-guide/recovery.md"])
    assert _cli(data, "sync").returncode == 0
    ollama_server.mode = "die_mid_stream"
    env = {"ASSISTANT_LLM_BACKEND": "ollama", "ASSISTANT_OLLAMA_HOST": ollama_server.url,
           "ASSISTANT_OLLAMA_MODEL": MODEL}
    done = subprocess.run([sys.executable, "-m", "assistant", "ask", "--json", QUESTION], cwd=PROJECT_ROOT,
                          env={**_env(data), **env}, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["incomplete"] and "dropped mid-answer" in " ".join(out["notices"])
    assert out["answer"] == "Canned answer" and out["sources"][0]["path"] == "op-guide/recovery.md"


# -- a second process on the same data folder ---------------------------------------------------------------------------
def test_second_cli_ask_is_refused_while_the_app_holds_the_index_and_the_index_stays_clean(etcd_index):
    indexer = etcd_index.indexer
    indexer.store  # this process holds the embedded Qdrant folder, as a running app does
    generations = {r: indexer.manifest.generation("etcd", r) for r in etcd_index.releases}
    done = _cli(etcd_index.settings.data_dir, "ask", "--search-only", "--json", QUESTION)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "in use by another Docs Assistant process" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
    assert {r: indexer.manifest.generation("etcd", r) for r in etcd_index.releases} == generations
    for release in etcd_index.releases:
        assert indexer.verify("etcd", release) == []


HOLD = """
import sys
from pathlib import Path
from assistant.components import get_store
from assistant.settings import Settings
get_store(Settings(data_dir=Path(sys.argv[1])))
print("holding", flush=True)
sys.stdin.readline()
"""


def test_second_app_instance_gets_a_clear_error_and_works_once_the_first_is_gone(tmp_path):
    from assistant import app as svc

    data = tmp_path / "data"
    _copy(data / "library" / "etcd" / "v3.5", SMALL_PAGES[:1])
    settings = Settings(data_dir=data, models_dir=PROJECT_ROOT / "models", llm_backend="none")
    first = subprocess.Popen([sys.executable, "-c", HOLD, str(data)], cwd=PROJECT_ROOT, env=_env(data),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "holding"
        services = svc.Services(settings)
        with pytest.raises(StoreLocked, match="in use by another Docs Assistant process"):
            services.ask(QUESTION, search_only=True)
        with pytest.raises(StoreLocked):
            build_indexer(settings).sync()
        assert services.indexer.manifest.files("etcd", "v3.5") == {}, "refused before touching anything"
    finally:
        first.stdin.close()
        first.wait(60)
    [report] = build_indexer(settings).sync()
    assert report.files_indexed == 1
    assert services.ask("How do I create a lease in etcd?", search_only=True)["trace"]["sources"]


# -- disk full while ingesting -----------------------------------------------------------------------------------------
NEW_DOC = "# Wombat ledger\n\n" + "\n\n".join(
    f"Wombat ledger rule {i}: the frobnicator flushes shard {i} every {i + 3} seconds and logs it." for i in range(60))


def _searchable(indexer, query: str) -> set[str]:
    store = ReleaseStore(indexer.store, "etcd", "v3.5", indexer.embedder.dim)
    return {h.node.metadata["path"] for h in store.lexical(query, 5)}


def test_disk_full_midway_is_reported_the_old_index_serves_and_a_later_sync_completes(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models")
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("etcd", "v3.5")
    _copy(folder, SMALL_PAGES[:2])
    [first] = indexer.sync()
    assert first.files_indexed == 2

    _copy(folder, SMALL_PAGES[2:])
    (folder / "wombat.md").write_text(NEW_DOC)
    commits = []
    real_commit = indexer.manifest.commit_indexed

    def commit_until_the_disk_fills(*args, **kwargs):
        commits.append(args[2])
        if len(commits) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(indexer.manifest, "commit_indexed", commit_until_the_disk_fills)
    with pytest.raises(OSError) as err:
        indexer.sync()
    assert err.value.errno == errno.ENOSPC and "No space left on device" in str(err.value)

    # The previous index still answers: both old files by words and by meaning.
    assert _searchable(indexer, "lease TTL grant") >= {SMALL_PAGES[0]}
    store = ReleaseStore(indexer.store, "etcd", "v3.5", indexer.embedder.dim)
    question = indexer.embedder.embed(["How do I read keys from etcd?"])[0]
    assert SMALL_PAGES[1] in {h.node.metadata["path"] for h in store.search(question, 3)}
    # The interrupted files are marked unfinished, so the next sync knows to redo them.
    assert any("half-indexed (run sync)" in p for p in indexer.verify("etcd", "v3.5"))

    monkeypatch.undo()  # space is free again
    [report] = indexer.sync()
    assert report.files_indexed >= 2 and report.files_failed == []
    assert indexer.verify("etcd", "v3.5") == []
    assert _searchable(indexer, "wombat ledger frobnicator") == {"wombat.md"}


def _limit_file_size(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_real_write_failure_in_a_cli_sync_is_a_clear_error_and_a_later_sync_completes(tmp_path):
    """No fault injection: the child may not grow any file past the manifest's current size (RLIMIT_FSIZE), as on a
    full disk, so SQLite and the store hit a genuine write error somewhere in the middle of the sync. (The store's
    engine preallocates its files in 32 MB pages, so the biggest file of the index would be no limit at all.)"""
    data = tmp_path / "data"
    folder = data / "library" / "etcd" / "v3.5"
    _copy(folder, SMALL_PAGES[:2])
    assert _cli(data, "sync").returncode == 0
    biggest = (data / "index" / "manifest.sqlite").stat().st_size
    (folder / "wombat.md").write_text(NEW_DOC * 4)
    _copy(folder, SMALL_PAGES[2:])

    done = _cli(data, "sync", "--json", preexec_fn=_limit_file_size(biggest))
    assert done.returncode == 4, (done.returncode, done.stderr[-3000:])
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    print(errors)
    assert len(errors) == 1 and "Traceback" not in done.stderr
    assert "run `assistant sync` again" in done.stderr and "still answers" in done.stderr

    indexer = build_indexer(Settings(data_dir=data, models_dir=PROJECT_ROOT / "models"))
    try:
        assert _searchable(indexer, "lease TTL grant") >= {SMALL_PAGES[0]}, "the previous index still serves"
    finally:
        from assistant.components import close_stores

        close_stores()  # let the next child open the folder
    done = _cli(data, "sync", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    indexer = build_indexer(Settings(data_dir=data, models_dir=PROJECT_ROOT / "models"))
    assert indexer.verify("etcd", "v3.5") == []
    assert _searchable(indexer, "wombat ledger frobnicator") == {"wombat.md"}


# -- concurrent feedback -----------------------------------------------------------------------------------------------
WRITER = """
import sys
from pathlib import Path
from assistant.app.db import AppDB
db = AppDB(Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    db.add_feedback(i % 2, {"question": f"{sys.argv[2]}-{i}", "answer": "a" * 2000})
"""


def test_concurrent_feedback_from_threads_and_processes_loses_nothing(tmp_path):
    path = tmp_path / "assistant.db"
    AppDB(path)  # migrated once, as the app does at start
    per_writer = 150
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"proc{i}", str(per_writer)], cwd=PROJECT_ROOT)
             for i in range(2)]
    db = AppDB(path)  # one AppDB shared by the threads: each gets its own connection

    def writer(name: str):
        def write() -> None:
            for i in range(per_writer):
                trace_id = db.add_trace({"question": f"{name}-{i}", "intent": {"label": "x"}})
                fid = db.add_feedback(1, {"question": f"{name}-{i}"}, comment="c", trace_id=trace_id)
                db.update_feedback(fid, 0, "changed")
        return write

    errors = run_in_threads(*(writer(f"thread{i}") for i in range(6)))  # a lost write fails the test, not a thread
    assert all(p.wait(300) == 0 for p in procs)
    assert errors == []

    rows = AppDB(path).feedback()
    questions = [r["question"] for r in rows]
    expected = {f"thread{t}-{i}" for t in range(6) for i in range(per_writer)}
    expected |= {f"proc{p}-{i}" for p in range(2) for i in range(per_writer)}
    assert len(questions) == len(expected) and set(questions) == expected
    assert all((r["rating"], r["comment"]) == (0, "changed") for r in rows if r["question"].startswith("thread"))
    assert len(AppDB(path).traces()) == 6 * per_writer
    assert all(json.loads(r["trace"]) for r in rows)


def test_manifest_shared_by_a_writer_and_readers_stays_consistent(tmp_path):
    """The app reads the manifest (Library page, answers) while a background sync writes it, through one Manifest
    object. A single shared connection failed this within a second with "database disk image is malformed"; it was
    seen in CI when a Library page rerun overlapped the sync that deletes a release."""
    manifest = Manifest(tmp_path / "manifest.sqlite")
    done = threading.Event()
    rounds, files = 200, 4

    def write() -> None:
        try:
            for k in range(rounds):
                release = f"r{k % 3}"
                manifest.mark_dirty("p", release, [(f"f{i}", "h", 1, 1, 3) for i in range(files)])
                for i in range(files):
                    chunks = [(f"{release}-{i}-{j}", j, f"{release}-{i}-ctx", "text " * 40) for j in range(3)]
                    ctx = ContextRow(f"{release}-{i}-ctx", "p", release, f"f{i}", 0, "t", "s", None, "ctx " * 80, "c")
                    manifest.commit_indexed("p", release, f"f{i}", "h", 1, 1, chunks, [ctx], recipe="r")
                if k % 5 == 4 and k < rounds - 3:
                    manifest.drop_release("p", release)
        finally:
            done.set()

    seen: list[tuple[int, int]] = []

    def read() -> None:
        while not done.is_set():
            for row in manifest.stats("r"):
                seen.append((row["files"], row["indexed"] + row["dirty"]))
            ids, texts = manifest.chunk_texts("p", "r1")
            assert len(ids) == len(texts)
            manifest.files("p", "r2")

    assert run_in_threads(write, read, read) == []
    assert seen and all(total == n for n, total in seen), "a reader saw half a transaction"
    final = {(r["product"], r["release"]): r for r in manifest.stats("r")}
    # rounds 197..199 left r2, r0, r1 fully indexed after their last drops
    assert {key: (r["files"], r["indexed"], r["chunks"]) for key, r in final.items()} == {
        ("p", f"r{i}"): (files, files, 3 * files) for i in range(3)}
    manifest.close()
    assert Manifest(tmp_path / "manifest.sqlite").stats("r") == list(final.values()), "the file on disk is sound"


def test_questions_during_a_sync_search_the_local_store_safely(tmp_path):
    """A sync uploads points while the chat searches the same release, with no lock between them (qdrant-client's
    local mode, the store before, failed this within a second unserialised: "operands could not be broadcast")."""
    import numpy as np
    from llama_index.core.schema import TextNode

    store = ReleaseStore(get_store(Settings(data_dir=tmp_path)), "p", "r1", 32)
    rng = np.random.default_rng(7)
    done = threading.Event()
    searched = [0, 0]

    def write() -> None:
        try:
            for k in range(60):
                nodes = [TextNode(id_=f"00000000-0000-0000-0000-{k * 100 + i:012d}", text=f"chunk {k} {i}")
                         for i in range(100)]
                store.add(nodes, rng.random((100, 32), dtype=np.float32))
                if k % 3 == 2:
                    store.delete_ids([n.node_id for n in nodes[:50]])
        finally:
            done.set()

    def reader(slot: int):
        def read() -> None:
            while not done.is_set():
                hits = store.search(np.random.default_rng(slot).random(32, dtype=np.float32), 10)
                assert all(h.node.get_content().startswith("chunk ") for h in hits)
                searched[slot] += 1
        return read

    assert run_in_threads(write, reader(0), reader(1)) == []
    assert min(searched) > 0
    assert store.count() == 60 * 100 - 20 * 50


def test_a_release_dropped_between_the_size_check_and_the_query_finds_nothing(tmp_path, monkeypatch):
    """A sync deleting a release (or rebuilding it for another model) may drop the collection between a search's
    two calls: the search finds nothing, it does not fail the question."""
    import numpy as np
    from llama_index.core.schema import TextNode

    store = ReleaseStore(get_store(Settings(data_dir=tmp_path)), "p", "gone", 8)
    store.add([TextNode(id_="00000000-0000-0000-0000-000000000001", text="x")], np.ones((1, 8), dtype=np.float32))
    assert len(store.search(np.ones(8, dtype=np.float32), 5)) == 1
    size = store.vector_size

    def size_then_drop():
        answer = size()
        store.drop()
        return answer

    monkeypatch.setattr(store, "vector_size", size_then_drop)
    assert store.search(np.ones(8, dtype=np.float32), 5) == []


def test_the_app_answers_and_redraws_while_a_sync_rewrites_the_same_release(tmp_path):
    """Through the app's services, as a user would: questions in one thread and Library page redraws in another,
    while a background sync re-indexes the release being asked about and adds another."""
    from assistant import app as svc

    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models")
    services = svc.Services(settings)
    folder = settings.library_dir / "etcd" / "v3.5"
    _copy(folder, SMALL_PAGES)
    services.indexer.sync()
    services.ask("How do I grant a lease?", product="etcd", release="v3.5", search_only=True)  # loads everything

    added = sorted(p.relative_to(ETCD_CORPUS / "v3.5").as_posix() for p in (ETCD_CORPUS / "v3.5").rglob("*.md")
                   if p.stat().st_size < 6000 and not p.name.startswith("_"))[:16]
    _copy(settings.library_dir / "etcd" / "v3.4", added)
    for rel in SMALL_PAGES:
        (folder / rel).write_text((folder / rel).read_text() + "\n\nEdited for the concurrency test.\n")
    errors: list[BaseException] = []
    views = [0]

    def library_page() -> None:  # Streamlit reruns the page in its own thread
        try:
            while services.ingest.snapshot().running:
                assert set(services.library_overview()["release"]) <= {"v3.4", "v3.5"}
                views[0] += 1
        except BaseException as exc:
            errors.append(exc)

    assert services.start_sync()
    page = threading.Thread(target=library_page)
    page.start()
    answers = 0
    while services.ingest.snapshot().running:
        trace = services.ask("How do I grant a lease with a TTL?", product="etcd", release="v3.5",
                             search_only=True)["trace"]
        assert trace["sources"], "the release keeps answering during its own re-index"
        answers += 1
    page.join()
    state = services.ingest.wait(300)
    assert errors == [] and state.error == "" and not state.cancelled
    assert answers >= 2 and views[0] >= 2, "the sync ended before the test overlapped it"
    for release in ("v3.4", "v3.5"):
        assert services.indexer.verify("etcd", release) == []
    final = {r["release"]: r for r in services.library_overview().to_dict("records")}
    assert (final["v3.5"]["files"], final["v3.5"]["indexed"]) == (4, 4)
    assert (final["v3.4"]["files"], final["v3.4"]["indexed"]) == (len(added), len(added))
