"""Every page of the Streamlit app driven headlessly with AppTest, over the real index and the fake Ollama.

The chat runs against the shared etcd index (read-only: the app database it writes there is removed afterwards);
uploads, library edits and settings use their own data folders.
"""

import json
import time
from pathlib import Path

import keyring
import pytest
from conftest import finish_answer
from keyring.backends import fail
from memory_keyring import MemoryKeyring
from streamlit.testing.v1 import AppTest

from assistant import app as svc
from assistant.app.db import AppDB
from assistant.components import build_indexer
from assistant.settings import Settings

# AppTest runs pages without app.py's st.navigation (conftest.navigation_mode).
pytestmark = pytest.mark.usefixtures("navigation_mode")

APP = Path(__file__).resolve().parents[1] / "app.py"
RUN_TIMEOUT = 300  # the first question builds the pipeline (intent examples, glossary) on two cores


def citing_responder(request: dict) -> list[str]:
    return ["According to the documentation, ", "this is how it works [1]."]




def _use(monkeypatch, data_dir: Path, server=None, backend="ollama"):
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("ASSISTANT_LLM_BACKEND", backend)
    monkeypatch.setenv("ASSISTANT_OLLAMA_MODEL", "llama3.1:8b")
    monkeypatch.setenv("ASSISTANT_OLLAMA_HOST", server.url if server else "http://127.0.0.1:9")
    for name in ("ASSISTANT_TOP_K", "ASSISTANT_PRESET", "ASSISTANT_OLLAMA_TOKEN_NAME"):
        monkeypatch.delenv(name, raising=False)


def _app() -> AppTest:
    return AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run()


def _ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    finish_answer(at)
    assert not at.exception, at.exception
    return at


def _captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


@pytest.fixture(scope="module")
def etcd_app_module(etcd_index):
    yield etcd_index
    import streamlit as st

    st.cache_resource.clear()
    for suffix in ("", "-wal", "-shm"):
        Path(str(etcd_index.settings.db_path) + suffix).unlink(missing_ok=True)


@pytest.fixture
def etcd_app(etcd_app_module):
    """The etcd index as the app's data folder, with no conversation to reopen (each test starts a new one); the
    app database written there is removed after the module."""
    db = AppDB(etcd_app_module.settings.db_path)
    for conversation in db.conversations():
        db.delete_conversation(conversation["id"])
    return etcd_app_module


def test_chat_shows_how_the_answer_was_found_and_stores_feedback(etcd_app, ollama_server, monkeypatch):
    ollama_server.responder = citing_responder
    _use(monkeypatch, etcd_app.settings.data_dir, ollama_server)
    at = _app()
    assert not at.warning, "Ollama is reachable: no 'start Ollama' warning"
    question = "How do I take a snapshot backup of etcd v3.5?"
    _ask(at, question)

    answer = _markdown(at)
    assert "this is how it works [1]." in answer
    captions = _captions(at)
    assert "Intent: **operational_guidance**" in captions
    assert "Release: **v3.5** (named in the question)" in captions
    assert "Rewritten: “" in captions
    assert "Answered by ollama · llama3\\.1\\:8b" in captions
    assert "**[1]** etcd v3\\.5 · " in answer  # sources numbered like the [n] markers, with release and file
    assert at.text, "the cited text is shown as plain text"
    assert any(b.label.startswith("Download ") for b in at.get("download_button"))
    assert any(b.label == "Open at section" for b in at.button), "a source opens in the app first"
    assert len(at.feedback) == 1
    queries = [d for d in at.dataframe if "query" in d.value.columns]
    assert queries and len(queries[0].value) >= 2, "the rewritten query and the other search queries"
    timings = [d for d in at.dataframe if "stage" in d.value.columns][0].value
    assert {"routing", "retrieval", "generation"} <= set(timings["stage"])
    # The prompt that reached Ollama carried the numbered sources.
    chat = [r for r in ollama_server.requests if r["path"] == "/api/chat"][-1]["json"]
    assert "[1] (etcd v3.5" in chat["messages"][-1]["content"]

    at.feedback[0].set_value(1).run()
    next(t for t in at.text_input if t.label == "Comment (optional)").set_value("exactly right").run()
    rows = [r for r in AppDB(etcd_app.settings.db_path).feedback() if r["question"] == question]
    assert len(rows) == 1, "one row per answer, updated when the comment comes"
    row = rows[0]
    assert (row["rating"], row["comment"], row["intent"], json.loads(row["releases"])) == (
        1, "exactly right", "operational_guidance", ["v3.5"])
    trace = json.loads(row["trace"])
    assert trace["answer"] == "According to the documentation, this is how it works [1]."
    assert trace["candidates"] and {"chunk_id", "scores"} <= set(trace["candidates"][0])
    assert trace["sources"][0]["cited"] and trace["timings_ms"] and trace["llm"]["model"] == "llama3.1:8b"
    assert trace["preset"] == "default" and trace["history"] == []
    traces = [t for t in AppDB(etcd_app.settings.db_path).traces() if t["question"] == question]
    assert len(traces) == 1


def test_missing_knowledge_is_a_warning_with_a_question_to_ask_instead(etcd_app, ollama_server, monkeypatch):
    ollama_server.responder = citing_responder
    _use(monkeypatch, etcd_app.settings.data_dir, ollama_server)
    at = _ask(_app(), "What is the default --auth-token-ttl in etcd v3.4?")
    warning = at.warning[0].value
    assert "The documents do not cover this." in warning and "auth\\-token\\-ttl" in warning
    suggestion = next(b for b in at.button if b.label.startswith("Ask instead: "))
    asked = [r for r in ollama_server.requests if r["path"] == "/api/chat"]
    assert not asked, "nothing the documents lack is sent to the model to invent"
    assert len(at.feedback) == 1

    finish_answer(suggestion.click().run())
    assert not at.exception
    users = [m for m in at.chat_message if m.name == "user"]
    assert users[-1].markdown[0].value == svc.md_escape(suggestion.label.removeprefix("Ask instead: "))
    assert len(at.feedback) == 2


def test_without_ollama_the_page_says_how_to_start_it_and_searches_only(etcd_app, monkeypatch):
    _use(monkeypatch, etcd_app.settings.data_dir, server=None)  # nothing listens on port 9
    at = _app()
    assert len(at.warning) == 1
    help_text = at.warning[0].value
    assert "ollama serve" in help_text and "ollama pull llama3.1:8b" in help_text
    toggle = at.sidebar.toggle(key="search_only")
    assert toggle.value is True and toggle.disabled
    _ask(at, "How do I take a snapshot backup of etcd v3.5?")
    assert "_Search only: the ranked sources are below._" in _markdown(at)
    assert "**[1]** etcd v3\\.5 · " in _markdown(at)
    assert len(at.warning) == 1, "said once, not again under the answer"


def _wait_indexed(at: AppTest, seconds: float = 240) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        at.run()
        done = [s.value for s in at.sidebar.success] + [e.value for e in at.sidebar.error] + [
            w.value for w in at.sidebar.warning if w.value.startswith(("Indexed", "Cancelled"))]
        if done:
            return "\n".join(done)
        time.sleep(0.5)
    raise AssertionError("indexing did not finish")


DOC = b"""# Frobnicator operations guide

## Heartbeat

The frobnicator sends a heartbeat every 250 milliseconds. Change it with the `--heartbeat-interval` flag.

## Storage

Snapshots are written to the data directory every 10000 writes.
"""


def test_upload_indexes_the_file_and_answers_from_it(tmp_path, ollama_server, monkeypatch):
    ollama_server.responder = citing_responder
    _use(monkeypatch, tmp_path, ollama_server)
    at = _app()
    at.sidebar.file_uploader[0].set_value([("Ops Guide.md", DOC, "text/markdown"),
                                           ("../escape.md", b"# Escape\n\nnot outside", "text/markdown"),
                                           ("broken.pdf", b"%PDF-1.4 broken", "application/pdf")])
    at.sidebar.text_input(key="up_new_product_0").set_value("frobnicator")
    at.sidebar.text_input(key="up_new_release_0").set_value("v2.1")
    at.run()
    next(b for b in at.sidebar.button if b.label == "Add and index").click().run()
    assert "Added 3 file(s) to frobnicator v2\\.1." in _captions(at)
    assert "Indexed: 2 file(s) indexed, 0 skipped, 1 failed, 0 removed." in _wait_indexed(at)
    assert any(t.value.startswith("v2.1/broken.pdf: PDF is damaged") for t in at.sidebar.text), "errors per file"
    assert sorted(p.name for p in (tmp_path / "library" / "frobnicator" / "v2.1").iterdir()) == [
        "Ops-Guide.md", "broken.pdf", "escape.md"]

    _ask(at, "How often does the frobnicator send a heartbeat?")
    assert "**[1]** frobnicator v2\\.1 · Ops\\-Guide\\.md § Frobnicator operations guide \\> Heartbeat" in _markdown(at)

    # Correcting the intent is stored and applies at once: the same question now gets the corrected intent.
    box = next(s for s in at.selectbox if s.label.startswith("Intent"))
    corrected = next(i for i in box.options if i != box.value)
    box.set_value(corrected).run()
    assert AppDB(tmp_path / "assistant.db").intent_corrections() == [
        ("How often does the frobnicator send a heartbeat?", corrected)]
    _ask(at, "How often does the frobnicator send a heartbeat?")
    last = "\n".join(c.value for c in at.chat_message[-1].caption)
    assert f"Intent: **{corrected}**" in last


def test_library_page_describes_renames_and_deletes(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path)
    indexer = build_indexer(settings)
    for release, text in (("v1.0", "# Widget\n\nThe widget starts.\n"), ("v1.1", "# Widget\n\nThe widget restarts.\n")):
        folder = tmp_path / "src" / release
        folder.mkdir(parents=True)
        (folder / "guide.md").write_text(text)
        (folder / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
        (folder / "_index.md").write_text("---\ntitle: Widget section\ndescription: How widgets work\n---\n")
        (folder / "notes.xyz").write_text("another type")
        (folder / ".draft.md").write_text("# Draft\n\nhidden\n")
        indexer.library.add(folder, "widget", release)
    indexer.sync()
    _use(monkeypatch, tmp_path)
    at = _app()
    at.switch_page("pages/library.py").run()
    table = at.dataframe[0].value
    assert table[["product", "release", "files", "indexed", "skipped", "failed"]].values.tolist() == [
        ["widget", "v1.0", 4, 1, 1, 1], ["widget", "v1.1", 4, 1, 1, 1]]
    assert table["chunks"].min() > 0 and table["last indexed"].notna().all()
    # Per release, skipped and failed files apart, each with its reason.
    assert [t.label for t in at.tabs if t.label.startswith(("Failed", "Skipped"))] == ["Failed (1)", "Skipped (3)"]
    failed, skipped = [d.value for d in at.dataframe if "reason" in d.value.columns]
    assert failed.values.tolist() == [["broken.pdf", "PDF is damaged or truncated: end-of-file marker missing"]]
    assert skipped.values.tolist() == [
        [".draft.md", "hidden file (name starts with '.')", "", ""],
        ["_index.md", "no body text (front matter only)", "Widget section", "How widgets work"],
        ["notes.xyz", "unsupported file type .xyz", "", ""]]

    form_inputs = {t.label: t for t in at.text_input}
    form_inputs["Aliases used in questions, comma-separated"].set_value("wdg, the widget")
    at.text_area[0].set_value("Widget server manuals.")
    at.multiselect[0].set_value(["v1.1", "v1.0"])
    next(b for b in at.button if b.label == "Save description").click().run()
    meta = json.loads((tmp_path / "library" / "widget" / ".product.json").read_text())
    assert (meta["aliases"], meta["description"], meta["release_order"]) == (
        ["wdg", "the widget"], "Widget server manuals.", ["v1.1", "v1.0"])

    at.selectbox(key="lib_release").set_value("v1.1").run()
    at.checkbox[0].check().run()
    next(b for b in at.button if b.label == "Delete release").click().run()
    assert not (tmp_path / "library" / "widget" / "v1.1").exists()
    services = svc.get_services()
    services.ingest.wait(120)
    assert [r["release"] for r in services.library_overview().to_dict("records")] == ["v1.0"]

    at.run()
    next(t for t in at.text_input if t.label == "New folder name").set_value("gadget")
    next(b for b in at.button if b.label == "Rename").click().run()
    assert not at.exception
    services.ingest.wait(120)
    rows = services.library_overview()[["product", "release", "indexed"]].values.tolist()
    assert rows == [["gadget", "v1.0", 1]], "renamed and re-indexed under the new name"
    assert services.indexer.manifest.releases() == [("gadget", "v1.0")], "the old name's index is gone"


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_settings_are_saved_and_secrets_go_to_the_keyring(tmp_path, ollama_server, memory_keyring, monkeypatch):
    _use(monkeypatch, tmp_path, ollama_server)
    monkeypatch.delenv("ASSISTANT_OLLAMA_HOST")
    monkeypatch.delenv("ASSISTANT_OLLAMA_MODEL")
    ollama_server.models.append("qwen2.5:7b")
    at = _app()
    at.switch_page("pages/settings.py").run()
    from assistant.backends.device import resolve_device

    assert f"Models run on {resolve_device('auto').label()}," in _captions(at), "the page says where models run"
    host = next(t for t in at.text_input if t.label == "Ollama host")
    host.set_value(ollama_server.url).run()
    next(b for b in at.button if b.label == "Test connection").click().run()
    assert "Ollama answers at" in at.success[0].value
    model = next(s for s in at.selectbox if s.label.startswith("Model"))
    assert set(model.options) >= {"llama3.1:8b", "qwen2.5:7b"}, "the picker lists the server's models"
    model.set_value("qwen2.5:7b")
    next(n for n in at.number_input if n.label == "Sources per answer").set_value(8)
    next(b for b in at.button if b.label == "Save settings").click().run()
    assert not at.exception
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert (saved["ollama_host"], saved["ollama_model"], saved["top_k"]) == (ollama_server.url, "qwen2.5:7b", 8)
    assert svc.load_settings().ollama_model == "qwen2.5:7b"

    next(b for b in at.button if b.label == "Pull model").click().run()
    services = svc.get_services()
    assert services.pull.wait(30).status == "qwen2.5:7b is ready"

    next(t for t in at.text_input if t.label == "Token").set_value("s3cret-token")
    next(b for b in at.button if b.label == "Store in keyring").click().run()
    assert "Stored in the keyring as 'ollama-token'" in at.success[-1].value
    assert memory_keyring.entries == {("docs-assistant", "ollama-token"): "s3cret-token"}
    assert "s3cret-token" not in "".join(p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file())
    assert json.loads((tmp_path / "settings.json").read_text())["ollama_token_name"] == "ollama-token"

    keyring.set_keyring(fail.Keyring())
    next(t for t in at.text_input if t.label == "Token").set_value("another").run()
    next(b for b in at.button if b.label == "Store in keyring").click().run()
    assert "No usable system keyring was found" in at.error[-1].value


def test_insights_page_charts_feedback_and_exports_the_golden_set(tmp_path, monkeypatch):
    db = AppDB(tmp_path / "assistant.db")
    trace = {"question": "How do I back up?", "preset": "default", "status": "ok", "product": "etcd",
             "intent": {"label": "operational_guidance", "confidence": 0.9}, "releases": ["v3.5"],
             "knowledge_missing": False, "answer": "Use snapshot save [1].", "timings_ms": {"retrieval": 30.0},
             "sources": [{"n": 1, "release": "v3.5", "path": "op-guide/recovery.md", "cited": True}]}
    missing = {**trace, "question": "Default --auth-token-ttl in v3.4?", "knowledge_missing": True,
               "releases": ["v3.4"], "knowledge": {"reason": "v3.4 does not mention --auth-token-ttl"}}
    db.add_feedback(1, trace, trace_id=db.add_trace(trace))
    db.add_trace(missing)
    _use(monkeypatch, tmp_path)
    at = _app()
    at.switch_page("pages/insights.py").run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 4, "feedback over time and by intent, intent mix, latency"
    gaps = at.dataframe[0].value
    assert gaps[["release", "question"]].values.tolist() == [["v3.4", "Default --auth-token-ttl in v3.4?"]]
    export = at.get("download_button")[0]
    assert export.label == "Export golden set (JSONL)" and not export.disabled
    assert "1 thumbs-up answer(s)" in _captions(at)
