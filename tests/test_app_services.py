"""The app's non-UI logic without Streamlit: upload sanitising (zip slip, zip bombs), saved settings, insights
and the golden-set export."""

import io
import json
import stat
import subprocess
import sys
import zipfile

import pytest

from assistant import app as svc
from assistant.app.db import AppDB
from assistant.library.catalogue import Library


def _zip(members: dict[str, bytes], symlinks: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


def test_upload_names_are_sanitised_and_zips_keep_their_folders(tmp_path):
    lib = Library(tmp_path / "library")
    data = _zip({"guide/intro.md": b"# Intro", "guide/sub dir/My Notes (v2).md": b"# Notes", "./x/./y.md": b"y"})
    report = svc.save_uploads(lib, "My Product", "v1.0 beta", [
        ("../../evil name.md", b"# Evil"), ("C:\\Users\\me\\.hidden.txt", b"x"), ("docs.zip", data)],
        svc.UploadLimits())
    assert (report.product, report.release) == ("My-Product", "v1.0-beta")
    dest = tmp_path / "library" / "My-Product" / "v1.0-beta"
    found = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert found == ["evil-name.md", "guide/intro.md", "guide/sub-dir/My-Notes-v2-.md", "hidden.txt", "x/y.md"]
    assert not report.refused
    assert not [p for p in (tmp_path / "library").iterdir() if p.name.startswith(".upload-")], "staging removed"


def test_zip_slip_members_and_links_are_refused(tmp_path):
    lib = Library(tmp_path / "library")
    data = _zip({"ok.md": b"# fine", "../../outside.md": b"x", "a/../../../etc/cron.md": b"x", "/abs/root.md": b"r"},
                symlinks={"link.md": "/etc/passwd"})
    report = svc.save_uploads(lib, "p", "r", [("slip.zip", data)], svc.UploadLimits())
    refused = dict(report.refused)
    assert "zip slip" in refused["slip.zip:../../outside.md"]
    assert "zip slip" in refused["slip.zip:a/../../../etc/cron.md"]
    assert refused["slip.zip:link.md"] == "symbolic link"
    assert sorted(report.saved) == ["abs/root.md", "ok.md"]  # an absolute name is kept inside the release
    assert not (tmp_path / "outside.md").exists() and not (tmp_path / "library" / "outside.md").exists()
    assert all(p.resolve().is_relative_to((tmp_path / "library" / "p" / "r").resolve())
               for p in (tmp_path / "library").rglob("*") if p.is_file())


def test_zip_bomb_is_refused_and_leaves_nothing(tmp_path):
    lib = Library(tmp_path / "library")
    bomb = _zip({"a.md": b"# small", "bomb.txt": b"\0" * (20 * 2**20)})  # 20 MB of zeros: ~1000x compression
    assert len(bomb) < 100_000
    report = svc.save_uploads(lib, "p", "r", [("bomb.zip", bomb), ("keep.md", b"# keep")], svc.UploadLimits())
    assert "zip bomb" in dict(report.refused)["bomb.zip"]
    assert report.saved == ["keep.md"]
    files = [p.name for p in (tmp_path / "library").rglob("*") if p.is_file()]
    assert files == ["keep.md"], "nothing from the bomb was kept, not even its harmless member"
    # The declared size alone refuses an oversized zip before anything is expanded.
    small_limit = svc.UploadLimits(max_zip_bytes=2**20)
    report = svc.save_uploads(lib, "p", "r", [("big.zip", bomb)], small_limit)
    assert "too large" in dict(report.refused)["big.zip"]
    report = svc.save_uploads(lib, "p", "r", [("broken.zip", b"PK\3\4 not really")], svc.UploadLimits())
    assert dict(report.refused)["broken.zip"] == "not a valid zip file"


def test_settings_round_trip_environment_wins_and_no_secret_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ASSISTANT_OLLAMA_HOST", raising=False)
    monkeypatch.delenv("ASSISTANT_TOP_K", raising=False)
    saved = svc.save_settings(tmp_path, {"ollama_host": "http://10.0.0.5:11434", "top_k": 7, "preset": "qamr",
                                         "ollama_token_name": "remote", "password": "not-a-setting"})
    assert (saved.ollama_host, saved.top_k, saved.preset) == ("http://10.0.0.5:11434", 7, "qamr")
    on_disk = json.loads((tmp_path / svc.SETTINGS_FILE).read_text())
    assert on_disk == {"ollama_host": "http://10.0.0.5:11434", "top_k": 7, "preset": "qamr",
                       "ollama_token_name": "remote"}
    monkeypatch.setenv("ASSISTANT_TOP_K", "3")
    assert svc.load_settings().top_k == 3 and svc.env_fixed() == {"top_k"}
    with pytest.raises(ValueError):
        svc.save_settings(tmp_path, {"preset": "nope"})
    with pytest.raises(ValueError):
        svc.save_settings(tmp_path, {"top_k": "many"})


def _trace(question, *, intent="operational_guidance", missing=False, answer="Run it [1].", releases=("v3.5",)):
    return {"question": question, "preset": "default", "status": "ok", "intent": {"label": intent, "confidence": 0.9},
            "product": "etcd", "releases": list(releases), "knowledge_missing": missing,
            "knowledge": {"reason": "no passage mentions --x" if missing else ""}, "answer": answer,
            "sources": [{"n": 1, "release": "v3.5", "path": "op-guide/a.md", "cited": True},
                        {"n": 2, "release": "v3.5", "path": "op-guide/b.md", "cited": False}],
            "timings_ms": {"routing": 2.0, "retrieval": 40.0, "generation": 900.0}}


def test_insights_frames_and_golden_set(tmp_path):
    db = AppDB(tmp_path / "assistant.db")
    good, bad, missing = _trace("How do I back up?"), _trace("What is MVCC?", intent="terminology_explanation"), \
        _trace("Default --x in v3.4?", missing=True, answer="The documents do not cover it.", releases=("v3.4",))
    for t in (good, bad, missing):
        db.add_trace(t)
    db.add_feedback(1, good, "spot on")
    db.add_feedback(0, bad)
    db.add_feedback(1, missing)  # a thumbs-up on "not documented" is no golden answer
    assert svc.feedback_over_time(db).sum().to_dict() == {"thumbs up": 2, "thumbs down": 1}
    assert svc.feedback_by_intent(db).loc["terminology_explanation", "thumbs down"] == 1
    assert svc.intent_mix(db)["questions"].to_dict() == {"operational_guidance": 2, "terminology_explanation": 1}
    latency = svc.latency_by_stage(db)
    assert latency.loc["generation", "median ms"] == 900.0 and list(latency.index)[0] == "routing"
    gaps = svc.unanswered(db)
    assert gaps[["product", "release", "question"]].values.tolist() == [["etcd", "v3.4", "Default --x in v3.4?"]]
    lines = [json.loads(line) for line in svc.golden_set_jsonl(db).splitlines()]
    assert lines == [{"question": "How do I back up?", "answer": "Run it [1].", "gold": ["v3.5/op-guide/a.md"],
                      "product": "etcd", "release": "v3.5"}]


def test_a_job_runs_in_the_background_reports_errors_and_can_be_cancelled():
    job = svc.Job()

    def work(job, cancel):
        for i in range(1000):
            job.update(files_done=i, done_file=f"f{i}")
            if cancel.wait(0.01):
                return

    assert job.start("loop", work) and not job.start("second", work), "one job at a time"
    job.cancel()
    state = job.wait(5)
    assert (state.running, state.cancelled, state.label) == (False, True, "loop") and state.done_files
    assert job.start("fails", lambda job, cancel: 1 / 0)
    assert job.wait(5).error == "ZeroDivisionError: division by zero"


EXIT_DURING_TORCH = """
import threading, torch
from assistant.app.jobs import Job
started = threading.Event()
def work(job, cancel):
    x, w = torch.randn(256, 384), torch.randn(1536, 384)
    while not cancel.is_set():  # a stop is checked between steps, as the sync and the warm-up do
        for _ in range(50):
            torch.nn.functional.linear(x, w)  # lets go of the interpreter lock inside, like a model's forward
        started.set()
Job().start("busy", work)
started.wait(120)
"""  # the main thread ends here, with the job inside torch


def test_exit_while_a_background_job_is_inside_torch_is_clean():
    # Before: Python killed the daemon thread when it next took the interpreter lock inside torch's C++ code, and
    # the process aborted ("terminate called without an active exception", exit 134) after every test had passed.
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", EXIT_DURING_TORCH], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and "terminate called" not in proc.stderr, (proc.returncode, proc.stderr[-800:])


def test_markdown_escaping_keeps_text_literal():
    assert svc.md_escape("**x** [1](javascript:y) <b>") == r"\*\*x\*\* \[1\]\(javascript\:y\) \<b\>"
    label = svc.source_label({"n": 2, "product": "etcd", "release": "v3.5", "path": "a_b.pdf", "page": 4,
                              "section": "Setup", "score": 0.5, "cited": False})
    assert label == r"**[2]** etcd v3\.5 · a\_b\.pdf p.4 § Setup · score 0.500 · *also retrieved*"
    assert svc.open_label({"path": "dir/a.pdf", "page": 4}) == "Open at page 4"
    assert svc.open_label({"path": "a.md", "page": None, "section": "S"}) == "Open at section"
    assert svc.download_label({"path": "dir/a.pdf", "page": 4}) == "Download a.pdf"
    assert svc.md_escape_block("a*b\n<i>") == "a\\*b  \n\\<i\\>"
    assert svc.format_eta(75) == "1 min 15 s" and svc.format_eta(None) == "estimating…"
