"""Issue 18 in the app, headless (AppTest) over a real small library: conversations that survive a reload and a
restart and answer follow-ups from their own history; sources that open where they cite (a PDF at its page with
the passage outlined, Markdown at its section)."""

import json

import pytest
import streamlit as st
from hostile_files import make_pdf
from test_app import _app, _ask, _use, citing_responder

from assistant import app as svc
from assistant.app.conversations import conversation_markdown, title_from
from assistant.app.db import AppDB
from assistant.components import build_indexer
from assistant.settings import Settings

# AppTest runs pages without app.py's st.navigation (conftest.navigation_mode).
pytestmark = pytest.mark.usefixtures("navigation_mode")

GUIDE = """# Frobnicator guide

## Heartbeat

The frobnicator sends a heartbeat every 250 milliseconds to the coordinator.

## Storage

Snapshots are written to the data directory every 10000 writes.
"""
VALVE_PAGES = [
    "Kestrel valve manual\nInstallation\nBolt the valve to the manifold with four M8 bolts.",
    "Pressure settings\nThe kestrel valve opens at 42 kPa of line pressure.\nBelow that it stays shut and hums.",
    "Maintenance\nGrease the spindle once a year.",
]
FIRST = "How often does the frobnicator send a heartbeat in v1?"


def _library(tmp_path):
    indexer = build_indexer(Settings(data_dir=tmp_path))
    for release in ("v1", "v2"):
        folder = indexer.library.release_dir("frob", release)
        folder.mkdir(parents=True)
        (folder / "guide.md").write_text(GUIDE.replace("250", "250" if release == "v1" else "100"))
    make_pdf(indexer.library.release_dir("frob", "v2") / "valve.pdf", VALVE_PAGES)
    reports = indexer.sync()
    assert [r.files_indexed for r in reports] == [1, 2]


def _sidebar_titles(at) -> list[str]:
    return [b.label for b in at.sidebar.button if b.key and b.key.startswith("conversation_")]


def test_conversation_survives_reload_and_restart_and_follow_ups_use_its_history(tmp_path, ollama_server,
                                                                                  monkeypatch):
    ollama_server.responder = citing_responder
    _library(tmp_path)
    _use(monkeypatch, tmp_path, ollama_server)
    at = _ask(_app(), FIRST)
    assert _sidebar_titles(at) == [svc.md_escape(FIRST)], "titled by its first question"

    reloaded = _app()  # a browser reload is a new session
    assert [m.markdown[0].value for m in reloaded.chat_message if m.name == "user"] == [svc.md_escape(FIRST)]
    assert "this is how it works [1]." in "\n".join(m.value for m in reloaded.markdown)

    st.cache_resource.clear()  # an app restart: the services (and the app database) are opened afresh
    restarted = _ask(_app(), "and in v2?")
    db = AppDB(tmp_path / "assistant.db")
    last = json.loads(db.traces()[-1]["trace"])
    assert [h["content"] for h in last["history"]] == [FIRST, "According to the documentation, this is how it works [1]."]
    assert last["releases"] == ["v2"]
    [conversation] = db.conversations()
    assert (conversation["title"], conversation["messages"], conversation["preset"]) == (FIRST, 4, "default")
    assert len([m for m in restarted.chat_message if m.name == "assistant"]) == 2

    # A second conversation is listed first; the first one reopens with its answers and rating.
    restarted.feedback[-1].set_value(0).run()
    next(b for b in restarted.button if b.label == "New conversation").click().run()
    second = _ask(restarted, "Where are snapshots written?")
    assert _sidebar_titles(second) == [svc.md_escape("Where are snapshots written?"), svc.md_escape(FIRST)]
    second.sidebar.button(key=f"conversation_{conversation['id']}").click().run()
    assert len(second.feedback) == 2 and second.feedback[-1].value == 0, "the rating came back with the answer"

    # Rename, export with sources under each answer, delete.
    second.sidebar.text_input(key=f"conversation_title_{conversation['id']}").set_value("Heartbeat intervals").run()
    second.sidebar.button(key="rename_conversation").click().run()
    assert _sidebar_titles(second)[-1] == "Heartbeat intervals"
    exported = svc.get_services().conversations.export_markdown(conversation["id"])
    assert exported.startswith("# Heartbeat intervals\n") and exported.count("## Question") == 2
    assert "- [1] frob v1: guide.md, § Frobnicator guide > Heartbeat" in exported
    assert "- [1] frob v2: guide.md, § Frobnicator guide > Heartbeat" in exported
    second.sidebar.checkbox(key=f"confirm_delete_{conversation['id']}").check().run()
    second.sidebar.button(key="delete_conversation").click().run()
    assert _sidebar_titles(second) == [svc.md_escape("Where are snapshots written?")]
    assert [c["title"] for c in db.conversations()] == ["Where are snapshots written?"]


def test_pdf_source_opens_at_its_page_with_the_passage_outlined_and_markdown_at_its_section(tmp_path, monkeypatch):
    _library(tmp_path)
    _use(monkeypatch, tmp_path, server=None)  # search only: sources without a model
    at = _ask(_app(), "At what pressure does the kestrel valve open in v2?")
    open_page = next(b for b in at.button if b.label == "Open at page 2")
    open_page.click().run()
    [viewer] = at.get("component_instance")
    args = json.loads(viewer.proto.json_args)
    assert args["scroll_to_annotation"] == 1, "opened at the passage's first box, on page 2"
    boxes = args["annotations"]
    # make_pdf draws a page's lines 16 points apart from 100 points below the top, at x=72; the cited chunk is
    # page 2's three lines (its page number, at the foot, is not part of it).
    assert [b["page"] for b in boxes] == [2, 2, 2] and all(72 - 4 < b["x"] < 72 for b in boxes)
    assert 100 - 20 < boxes[0]["y"] < 100 and [b["y"] - boxes[0]["y"] for b in boxes] == [0, 16, 32]
    assert any(b.label == "Download valve.pdf" for b in at.get("download_button")), "download stays, secondary"

    next(b for b in at.button if b.label == "Close").click().run()
    assert not at.get("component_instance")
    md = _ask(at, "How often does the frobnicator send a heartbeat in v1?")
    next(b for b in md.chat_message[-1].button if b.label == "Open at section").click().run()
    assert any("§ Frobnicator guide › Heartbeat" in c.value for c in md.caption)
    assert any("every 250 milliseconds" in s.value for s in md.success), "the passage is marked"


def test_title_and_markdown_export_are_pure():
    assert title_from("  what   is\nthis?  ") == "what is this?"
    long = title_from("word " * 40)
    assert len(long) <= 81 and long.endswith("…") and not long.endswith(" …")
    trace = {"answer": "It is 5 [1].", "preset": "default", "releases": ["v1"],
             "sources": [{"n": 1, "product": "p", "release": "v1", "path": "a.pdf", "page": 3, "section": "S",
                          "cited": True},
                         {"n": 2, "product": "p", "release": "v1", "path": "b.md", "page": None, "section": "",
                          "cited": False}]}
    text = conversation_markdown("T", [{"role": "user", "content": "Q?"}, {"role": "assistant", "trace": trace}])
    assert text == ("# T\n\n## Question\n\nQ?\n\n## Answer\n\nIt is 5 [1].\n\n*preset default · releases v1*\n\n"
                    "Sources:\n\n- [1] p v1: a.pdf, page 3, § S\n- [2] p v1: b.md (retrieved, not cited)\n")
