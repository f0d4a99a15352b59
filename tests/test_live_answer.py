"""An answer you can watch (issue 17), driven headlessly with AppTest over the real etcd index and the fake Ollama:
each stage shown as it runs, the sources and the intent/release line before generation ends, the first tokens as
they arrive, and a Stop that keeps the partial answer and its sources; plus the extractive answer without a model."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from conftest import finish_answer
from streamlit.testing.v1 import AppTest

from assistant.answering.citations import Source
from assistant.answering.extractive import extractive_answer, pick_quotes, question_terms
from assistant.app.live import LiveAnswer, loading_line
from assistant.app.presentation import md_escape
from assistant.backends.chat import FakeChat

# AppTest runs pages without app.py's st.navigation (conftest.navigation_mode).
pytestmark = pytest.mark.usefixtures("navigation_mode")

APP = Path(__file__).resolve().parents[1] / "app.py"
QUESTION = "How do I take a snapshot backup of etcd v3.5?"
FIRST, LATER = "Save a snapshot with etcdctl snapshot save [1]. ", "THIS TEXT CAME AFTER STOP."




@pytest.fixture
def app_env(etcd_index, monkeypatch):
    import streamlit as st

    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(etcd_index.settings.data_dir))
    monkeypatch.setenv("ASSISTANT_OLLAMA_MODEL", "llama3.1:8b")
    for name in ("ASSISTANT_TOP_K", "ASSISTANT_PRESET", "ASSISTANT_OLLAMA_TOKEN_NAME", "ASSISTANT_DEVICE"):
        monkeypatch.delenv(name, raising=False)
    st.cache_resource.clear()
    yield monkeypatch
    st.cache_resource.clear()
    for suffix in ("", "-wal", "-shm"):
        Path(str(etcd_index.settings.db_path) + suffix).unlink(missing_ok=True)


def _rerun_until(at: AppTest, condition, seconds: float = 300) -> AppTest:
    end = time.monotonic() + seconds
    while not condition(at):
        assert time.monotonic() < end, ("the page never showed it", [s.label for s in at.status], _markdown(at),
                                        _captions(at), [e.value for e in at.error])
        assert not at.exception, at.exception
        time.sleep(0.2)
        at.run()
    return at


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def test_stages_sources_streamed_text_and_stop_keep_the_partial_answer(app_env, ollama_server):
    gate = threading.Event()

    def answer():
        yield FIRST
        gate.wait(120)  # the rest waits until the test has pressed Stop
        yield LATER

    def responder(request):  # the stages' own JSON calls (verdicts) are answered at once
        return ['{"answerable": true}'] if request.get("format") == "json" else answer()

    ollama_server.responder = responder
    app_env.setenv("ASSISTANT_LLM_BACKEND", "ollama")
    app_env.setenv("ASSISTANT_OLLAMA_HOST", ollama_server.url)
    at = AppTest.from_file(str(APP), default_timeout=300).run()
    at.chat_input[0].set_value(QUESTION).run()
    assert at.status, "a stage line is drawn from the first run on"
    at = _rerun_until(at, lambda a: "etcdctl snapshot save [1]. ▌" in _markdown(a), seconds=240)

    # Mid-generation: the status names the stage; every stage run so far is listed; sources and intent are there.
    assert at.status[0].label.startswith("Writing the answer with llama3.1:8b…")
    stages = _captions(at)
    for line in ("Checking the question…", "Choosing the product and release…", "Searching 1 release of etcd: v3.5…",
                 "Checking that the documents cover the question…"):
        assert md_escape(line) in stages
    assert "Reading " in stages and " passages…" in stages
    assert "Release: **v3.5** (named in the question)" in stages
    assert "**[1]** etcd v3\\.5 · " in _markdown(at), "the sources are listed before the answer ends"
    assert LATER not in _markdown(at)

    next(b for b in at.button if b.label == "Stop").click().run()
    gate.set()  # the next token arrives, finds the stop, and ends the stream
    finish_answer(at)
    assert not at.exception, at.exception
    shown = _markdown(at)
    assert "Save a snapshot with etcdctl snapshot save [1]." in shown and LATER not in shown
    assert "**[1]** etcd v3\\.5 · " in shown, "the sources stay"
    assert any("Stopped by you" in i.value for i in at.info)
    assert not [b for b in at.button if b.label == "Stop"] and not at.status
    assert "first token after" in _captions(at) and "sources after" in _captions(at)


def test_without_ollama_the_answer_quotes_the_sources_with_citations(app_env):
    app_env.setenv("ASSISTANT_LLM_BACKEND", "auto")
    app_env.setenv("ASSISTANT_OFFLINE_ANSWER", "extractive")
    app_env.setenv("ASSISTANT_OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens there
    at = AppTest.from_file(str(APP), default_timeout=300).run()
    assert "quote the sentences of the sources" in at.warning[0].value
    assert not at.sidebar.toggle(key="search_only").value
    at.chat_input[0].set_value("In etcd 3.5, what is the default --snapshot-count?").run()
    finish_answer(at)
    answer = _markdown(at)
    assert "From the documents (quoted, no language model):" in answer
    quotes = re.findall(r"^- “(.+)”(?: \(under .+\))? \[(\d)\]$", answer, re.M)
    assert quotes, answer
    sources = {int(n) for n in re.findall(r"\*\*\[(\d)\]\*\* etcd v3\\.5 · ", answer)}
    assert {int(n) for _, n in quotes} <= sources, "every quote cites a listed source"
    assert "Answered by extractive" in _captions(at)


# -- the parts, without the page ---------------------------------------------------------------------------------------
def _source(n: int, text: str, section: str = "") -> Source:
    return Source(n=n, product="etcd", release="v3.5", path=f"doc{n}.md", page=None, section=section, title="",
                  score=1.0 / n, text=text)


def test_extractive_answer_quotes_the_value_under_its_heading_and_cites_it():
    sources = [
        _source(1, "### --snapshot-count\n+ Number of committed transactions to trigger a snapshot to disk.\n"
                   "+ default: 100000\n+ env variable: ETCD_SNAPSHOT_COUNT"),
        _source(2, "Why is the snapshot count high? The --snapshot-count flag trades memory for fewer snapshots."),
    ]
    question = "In etcd 3.5, what is the default --snapshot-count?"
    assert question_terms(question, "etcd") == {"default": 1.0, "snapshot-count": 3.0, "snapshot": 1.0, "count": 1.0}
    quotes = pick_quotes(question, sources)
    assert (quotes[0].n, quotes[0].text, quotes[0].under) == (1, "default: 100000", "--snapshot-count")
    answer = extractive_answer(question, sources)
    assert answer.splitlines()[2] == "- “default: 100000” (under **--snapshot-count**) [1]"
    assert "The **--snapshot-count** flag trades memory for fewer snapshots.” [2]" in answer
    assert extractive_answer("what is the weather like?", sources).startswith("No sentence of the retrieved")
    assert extractive_answer(question, []) == ""


def test_stage_lines_and_the_model_loading_line():
    from assistant.answering.state import AskResult, StageEvent

    live = LiveAnswer(llm=FakeChat(model="m"))
    res = AskResult(question="q", preset="default", product="etcd", releases=["v3.4", "v3.5"])
    live.observe(StageEvent("retrieval", "start", res))
    assert live.view().stage == "Searching 2 releases of etcd: v3.4, v3.5…"
    live.observe(StageEvent("retrieval", "end", res, 12.0))
    assert live.view().stage == "Reading 0 passages…" and live.view().done_stages[-1][1] == 12.0
    live.observe(StageEvent("generation", "start", res))
    view = live.view()
    assert view.sources == [] and view.header["releases"] == ["v3.4", "v3.5"] and view.to_sources_s is not None
    assert view.stage == "Waiting for m to start writing…"
    live.on_token("Hello")
    assert (live.view().partial, live.view().stage) == ("Hello", "Writing the answer with m…")

    class Unloaded(FakeChat):
        backend, loaded = "embedded", False

    assert "the first load takes about 90 s" in loading_line(Unloaded(model="gemma3-270m"), False)
    assert loading_line(None, True) == "Quoting the sentences that answer the question…"
