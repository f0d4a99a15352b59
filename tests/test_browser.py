"""End to end in a real browser: `streamlit run app.py` on a free localhost port with a fresh data folder, driven by
headless Chromium (Debian's `chromium` with the Python `playwright` package). It uploads a document into a new
product and release, asks about it, checks what the page shows, rates the answer and screenshots every page into
test-artifacts/browser/ (git-ignored)."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from assistant.app.db import AppDB

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DOC = """# Frobnicator operations guide

## Heartbeat

The frobnicator sends a heartbeat every 250 milliseconds. Change it with the `--heartbeat-interval` flag;
values under 50 milliseconds overload the coordinator.

## Storage

Snapshots are written to the data directory every 10000 writes and kept for seven days.
"""
QUESTION = "How often does the frobnicator send a heartbeat?"
MISSING = "What does the --snapshot-compression flag of the frobnicator do?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"streamlit exited with {proc.returncode}; see {ARTIFACTS / 'streamlit.log'}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("streamlit did not come up")


class AppServer:
    """`streamlit run app.py` on a free localhost port over one data folder; stop() and start() again is an app
    restart (a new process: nothing survives but what is on disk)."""

    def __init__(self, data_dir: Path, ollama_url: str, log_name: str) -> None:
        self.data_dir, self.ollama_url, self.log_name = data_dir, ollama_url, log_name
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> str:
        port = _free_port()
        env = {**os.environ, "ASSISTANT_DATA_DIR": str(self.data_dir), "ASSISTANT_LLM_BACKEND": "ollama",
               "ASSISTANT_OLLAMA_HOST": self.ollama_url, "ASSISTANT_OLLAMA_MODEL": "llama3.1:8b",
               "PYTHONFAULTHANDLER": "1"}  # dump_stacks(): every thread's stack into the log on SIGABRT
        self._log = (ARTIFACTS / self.log_name).open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"
        _wait_healthy(self.url, self.proc)
        return self.url

    def dump_stacks(self) -> None:
        """After a failed wait: abort the app so faulthandler writes where each of its threads stood into the log."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGABRT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                pass

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(20)
        self._log.close()
        self.proc = None


def _serve(tmp_path: Path, answer: list[str], log_name: str):
    from ollama_server import OllamaServer

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ollama = OllamaServer(responder=lambda request: answer).start()
    server = AppServer(tmp_path / "data", ollama.url, log_name)
    try:
        yield server
    finally:
        server.stop()
        ollama.stop()


@pytest.fixture
def app_server(tmp_path):
    """The app as a user runs it, with the fake Ollama (in this process) answering with a citation."""
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    for server in _serve(tmp_path, ["The frobnicator sends a heartbeat ", "every 250 milliseconds [1]."],
                         "streamlit.log"):
        yield server.start(), server.data_dir, server


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1360, "height": 900})
        tab.set_default_timeout(60_000)
        try:
            yield tab
        finally:
            browser.close()


def _shoot(page, name: str, height: int = 900) -> None:
    # Streamlit scrolls inside its own container, so a taller window is what shows a whole page.
    page.set_viewport_size({"width": 1360, "height": height})
    page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget], [data-testid=stSkeleton]')")
    page.wait_for_timeout(700)  # let charts and fonts settle
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _no_exception(page) -> None:
    assert page.get_by_test_id("stException").count() == 0, page.get_by_test_id("stException").first.inner_text()


@pytest.mark.browser
def test_upload_ask_rate_and_screenshot_every_page(app_server, page, tmp_path):
    url, data_dir, server = app_server
    try:
        _scenario(page, url, data_dir, tmp_path)
    except BaseException:
        page.screenshot(path=str(ARTIFACTS / "failure.png"), full_page=True)
        server.dump_stacks()
        raise


def _scenario(page, url: str, data_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "frobnicator-ops.md"
    doc.write_text(DOC)
    page.goto(url)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Documents", exact=True).wait_for()

    # Upload into a new product and release.
    sidebar.locator("input[type=file]").set_input_files(str(doc))
    sidebar.get_by_text("frobnicator-ops.md").wait_for()
    for label, value in (("New product name", "frobnicator"), ("New release name", "v2.1")):
        box = sidebar.get_by_label(label)
        box.fill(value)
        box.press("Enter")
        page.wait_for_timeout(700)
    sidebar.get_by_role("button", name="Add and index").click()
    sidebar.get_by_text("Indexed: 1 file(s) indexed").wait_for(timeout=300_000)
    assert (data_dir / "library" / "frobnicator" / "v2.1" / "frobnicator-ops.md").is_file()

    # Ask, and see how the answer was found.
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill(QUESTION)
    chat.press("Enter")
    page.get_by_text("every 250 milliseconds [1].").wait_for(timeout=180_000)
    main = page.get_by_test_id("stMainBlockContainer")
    intent = main.get_by_test_id("stCaptionContainer").filter(has_text="Intent: ").first
    intent.wait_for()  # the streamed text comes first; the rerun that follows draws the details
    assert re.search(r"Intent: \w+ \(\d+%\) · Product: frobnicator \(named in the question\) · "
                     r"Release: v2\.1 .* · Rewritten: “.*heartbeat", intent.inner_text())
    source = main.get_by_test_id("stMarkdownContainer").filter(has_text="[1] frobnicator v2.1").first
    assert re.search(r"\[1\] frobnicator v2\.1 · frobnicator-ops\.md § .*Heartbeat · score", source.inner_text())
    assert "also retrieved" not in source.inner_text(), "source 1 is cited"
    _no_exception(page)

    # Thumbs up, stored with the trace.
    main.get_by_test_id("stFeedback").get_by_label("Thumbs up").click()
    main.get_by_label("Comment (optional)").wait_for()
    db = AppDB(data_dir / "assistant.db")
    end = time.monotonic() + 30
    while not db.feedback() and time.monotonic() < end:
        time.sleep(0.2)
    rows = db.feedback()
    assert [(r["rating"], r["question"]) for r in rows] == [(1, QUESTION)]
    _shoot(page, "chat")
    main.get_by_text("How this answer was found").click()
    main.get_by_text("Standalone question").wait_for()
    _shoot(page, "chat-details", 1500)

    # A question the document cannot answer: a prominent warning and a question to ask instead.
    chat.fill(MISSING)
    chat.press("Enter")
    warning = main.get_by_test_id("stAlert").filter(has_text="The documents do not cover this.")
    warning.wait_for(timeout=120_000)
    assert "snapshot-compression" in warning.inner_text()
    main.get_by_role("button", name=re.compile("^Ask instead: ")).wait_for()
    _no_exception(page)
    _shoot(page, "chat-missing")

    # Every other page renders without an error.
    pages = ["Library", "Insights", "Settings"] + (["Evaluate"] if (ROOT / "pages" / "evaluate.py").exists() else [])
    for name in pages:
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
        main.get_by_role("heading", name=name).first.wait_for()
        if name == "Library":
            main.get_by_test_id("stDataFrame").wait_for()  # products and releases (drawn on a canvas)
        if name == "Insights":
            main.get_by_role("button", name="Export golden set (JSONL)").wait_for()
            page.wait_for_function("() => document.querySelectorAll('.vega-embed canvas, .vega-embed svg').length >= 4")
        _no_exception(page)
        _shoot(page, name.lower(), {"Insights": 1750, "Settings": 1500}.get(name, 1000))


VALVE_PAGES = [
    "Kestrel valve manual\nInstallation\nBolt the valve to the manifold with four M8 bolts.",
    "Pressure settings\nThe kestrel valve opens at 42 kPa of line pressure.\nBelow that it stays shut and hums.",
    "Maintenance\nGrease the spindle once a year.",
]
VALVE_QUESTION = "At what pressure does the kestrel valve open?"


@pytest.mark.browser
def test_pdf_source_opens_at_its_page_and_the_conversation_survives_reload_and_restart(tmp_path, page):
    from hostile_files import make_pdf

    folder = tmp_path / "data" / "library" / "valves" / "v1"
    folder.mkdir(parents=True)
    make_pdf(folder / "kestrel-valve.pdf", VALVE_PAGES)
    for server in _serve(tmp_path, ["The valve opens ", "at 42 kPa [1]."], "streamlit-conversation.log"):
        try:
            _conversation_scenario(page, server)
        except BaseException:
            page.screenshot(path=str(ARTIFACTS / "conversation-failure.png"), full_page=True)
            server.dump_stacks()
            raise


def _conversation_scenario(page, server: AppServer) -> None:
    page.goto(server.start())
    sidebar, main = page.get_by_test_id("stSidebar"), page.get_by_test_id("stMainBlockContainer")
    sidebar.get_by_role("button", name="Rescan library").click()
    sidebar.get_by_text("Indexed: 1 file(s) indexed").wait_for(timeout=300_000)
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill(VALVE_QUESTION)
    chat.press("Enter")
    main.get_by_text("at 42 kPa [1].").wait_for(timeout=180_000)
    main.get_by_test_id("stCaptionContainer").filter(has_text="Intent: ").first.wait_for()

    # The PDF source opens in the app at page 2, the cited passage outlined, its words on screen.
    main.get_by_role("button", name="Open at page 2").first.click()
    viewer = page.frame_locator("iframe[title='streamlit_pdf_viewer.streamlit_pdf_viewer']")
    viewer.locator("#canvas_page_2").wait_for(timeout=60_000)
    box = viewer.locator("#annotation-passage-0")
    box.wait_for(timeout=60_000)
    viewer.get_by_text("The kestrel valve opens at 42 kPa of line pressure.").wait_for(timeout=60_000)
    assert box.get_attribute("data-index") == "passage-0"
    frame = page.locator("iframe[title='streamlit_pdf_viewer.streamlit_pdf_viewer']")
    frame.scroll_into_view_if_needed()
    _no_exception(page)
    _shoot(page, "source-pdf-page", 1100)

    # A reload reopens the conversation.
    page.reload()
    main.get_by_text("at 42 kPa [1].").wait_for(timeout=120_000)
    sidebar.get_by_role("button", name=VALVE_QUESTION).wait_for()

    # So does a restart of the app; a follow-up there is asked with the conversation's history.
    server.stop()
    page.goto(server.start())
    main.get_by_text("at 42 kPa [1].").wait_for(timeout=120_000)
    chat = page.get_by_test_id("stChatInputTextArea")
    chat.fill("And how is it installed?")
    chat.press("Enter")
    main.get_by_test_id("stChatMessage").nth(3).get_by_text("at 42 kPa [1].").wait_for(timeout=180_000)
    _no_exception(page)
    _shoot(page, "conversation-after-restart", 1300)
    db = AppDB(server.data_dir / "assistant.db")
    [conversation] = db.conversations()
    assert (conversation["title"], conversation["messages"]) == (VALVE_QUESTION, 4)
    last = db.messages(conversation["id"])[-1]["trace"]
    assert [h["content"] for h in last["history"]] == [VALVE_QUESTION, "The valve opens at 42 kPa [1]."]
