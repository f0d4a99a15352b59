"""A hostile library through a real `assistant sync` (real readers, embedder, Qdrant local mode and BM25): every file
gets a clear reason or is indexed, peak memory stays bounded, and nothing outside the library is read or written.

Reader-level outcomes of the older hostile corpus live in test_readers.py and test_ingest.py; this module adds the
files that attack the sync itself (names, links, page and tag bombs) and measures the whole process.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

import pytest
from conftest import ETCD_CORPUS
from hostile_files import docx_bomb, docx_with_parts, make_docx
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from assistant.library import ingest, readers
from assistant.library.documents import ReadFailure
from assistant.library.readers import html as html_reader
from assistant.library.readers import pdf as pdf_reader
from assistant.library.readers import read_document
from assistant.settings import PROJECT_ROOT, Settings

GOOD_PAGES = ["tutorials/how-to-create-lease.md", "tutorials/reading-from-etcd.md"]
SECRET = "qx7zeta-outside-secret"  # lives only outside the library: must never reach the index
# Peak RSS of `assistant sync` (docs/GUARANTEES.md). Measured on two shared cores: 736 MB for two small pages, 758 MB
# with the hostile files added; 1.7 GB for one sync of five files each at a per-file cap (19,000 chunks stored).
EXTRA_RSS_BOUND_MB = 400
SYNC_RSS_BOUND_MB = 1500
WORST_CASE_RSS_BOUND_MB = 2048


# -- generated hostile files --------------------------------------------------------------------------------------
def _pdf(objects: list[bytes]) -> bytes:
    """A classic-xref PDF from numbered object bodies (object 1 is the catalog)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def shared_page_pdf(pages: int, content: bytes, compress: bool = False) -> bytes:
    """`pages` entries in the page tree, all the same page object: a small file that declares a huge document."""
    stream = zlib.compress(content, 9) if compress else content
    filt = b" /Filter /FlateDecode" if compress else b""
    return _pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b"3 0 R " * pages + b"] /Count %d >>" % pages,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d%s >>\nstream\n" % (len(stream), filt) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ])


def text_ops(lines: int, width: int = 100) -> bytes:
    return b"BT /F1 1 Tf 1 TL 0 790 Td " + b"".join(
        b"(%s) Tj T* " % (b"w%05d " % i * (width // 7)) for i in range(lines)) + b"ET"


def thousand_page_pdf(path: Path, pages: int = 3000) -> Path:
    """A long manual whose pages are mostly blank: three pages carry text, one of them page 1500."""
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        if number in (1, 1500, pages):
            pdf.drawString(72, 700, f"Chapter {number}: the gryphon valve opens at page {number}.")
            pdf.drawString(72, 680, "Gryphon valves regulate the quorum heartbeat of every member.")
        pdf.showPage()
    pdf.save()
    return path


def make_hostile_library(folder: Path, outside: Path) -> dict[str, tuple[str, str]]:
    """Write the hostile files into a release folder; {path: (outcome, words of the reason)}."""
    expected: dict[str, tuple[str, str]] = {}

    def write(name: str, data: bytes, outcome: str, words: str = "") -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        expected[name] = (outcome, words)

    thousand_page_pdf(folder / "thousand_pages.pdf")
    expected["thousand_pages.pdf"] = ("indexed", "")
    blank = io.BytesIO()
    blank_pdf = canvas.Canvas(blank, pagesize=A4)
    for _ in range(5000):
        blank_pdf.showPage()
    blank_pdf.save()
    write("blank_5000_pages.pdf", blank.getvalue(), "failed", "no extractable text (scanned PDF?)")
    write("page_bomb.pdf", shared_page_pdf(20_000, b"BT /F1 12 Tf 72 720 Td (again) Tj ET"), "failed",
          "PDF has 20000 pages, more than the 10000")
    write("content_bomb.pdf", shared_page_pdf(1, text_ops(60_000), compress=True), "failed",
          "too much drawing content to read (limit 5 MB per page")
    write("no_body.html", b"<!doctype html><html><head><title>Only a head</title></head></html>", "failed",
          "no extractable text")
    write("deep.html", b"<html><body>" + b"<div><span><ul><li><table><tr><td>" * 4000 + b"deeply nested words"
          + b"</td></tr></table></li></ul></span></div>" * 4000 + b"</body></html>", "indexed")
    write("tag_bomb.html", b"<p>start" + b"<b>" * 210_000, "failed", "more than 200,000 tags")
    write("ten_mb_line.md", b"# Title\n\n" + b"x" * 10_000_000 + b"\n", "failed", "a single line longer than 1 MB")
    write("million_lines.md", b"# Title\n\n" + b"y\n" * 1_100_000, "failed", "more than 1,000,000 lines")
    write("is_html.pdf", b"<html><body><p>I am HTML</p></body></html>", "failed", "not a PDF")
    write("is_pdf.html", shared_page_pdf(1, b"BT /F1 12 Tf 72 720 Td (pdf) Tj ET"), "failed",
          "looks like a PDF file, not HTML")
    write("is_gzip.md", b"\x1f\x8b\x08\x00" + bytes(64), "failed", "looks like a gzip archive, not Markdown")
    write("bad_utf8.md", b"# Title\n\nvalid start \x81\x8d\x9d then garbage\n", "failed", "not valid UTF-8 text (bad byte")
    write("latin1.md", "# Caf\u00e9\n\nThe pl\u00f6ver gauge reads nominal.\n".encode("latin-1"), "indexed")
    write(".hidden_notes.md", b"# Hidden\n\nnot read\n", "skipped", "hidden file")
    write(".git/config", b"[core]\n", "skipped", "hidden folder")
    expected[".git"] = expected.pop(".git/config")

    # Word: broken, huge (more parts than read) and a zip bomb, each failing alone.
    docx = make_docx(folder / "spec.docx")
    expected["spec.docx"] = ("indexed", "")
    write("truncated.docx", docx.read_bytes()[: len(docx.read_bytes()) // 2], "failed", "damaged or truncated")
    docx_with_parts(folder / "huge.docx", 10_001)
    expected["huge.docx"] = ("failed", "more than the 10,000 read per file")
    docx_bomb(folder / "bomb.docx", unpacked=150_000_000)
    expected["bomb.docx"] = ("failed", "zip bomb")
    write("bad_utf16.txt", codecs.BOM_UTF16_LE + "some text ".encode("utf-16-le") + b"\x00\xd8" + "x".encode("utf-16-le"),
          "failed", "not valid UTF-16 text")

    # Names: long, unicode, shell metacharacters, dots; all are ordinary files and must simply be indexed.
    for name in ("n" * 247 + ".md", "ünïcødé 名前 ✓.md", "$(touch pwned); rm -rf ~ `id` |&;<>.md", "a..b.md",
                 "sub..dir/notes..md"):
        write(name, f"# Oddly named\n\nThe kestrel gauge of {name[:20]!r} reads nominal.\n".encode(), "indexed")
    write(os.fsdecode(b"latin1-caf\xe9.md"), b"# Cafe\n\nA name in Latin-1.\n", "skipped", "file name is not valid UTF-8")
    expected["latin1-caf\ufffd.md"] = expected.pop(os.fsdecode(b"latin1-caf\xe9.md"))

    # Links: out of the library (file and folder) are never followed; loops and dangling links are reported.
    (outside / "dir").mkdir(parents=True, exist_ok=True)
    (outside / "secret.md").write_text(f"# Secret\n\nThe launch code is {SECRET}.\n")
    (outside / "dir" / "also_secret.md").write_text(f"# Also secret\n\n{SECRET} again.\n")
    os.symlink(outside / "secret.md", folder / "outside_link.md")
    os.symlink(outside / "dir", folder / "outside_dir")
    os.symlink("/etc/passwd", folder / "passwd.txt")
    os.symlink(folder / "loop_b.md", folder / "loop_a.md")
    os.symlink(folder / "loop_a.md", folder / "loop_b.md")
    os.symlink(folder / "gone.md", folder / "dangling.md")
    os.symlink(folder / "a..b.md", folder / "inside_link.md")  # stays inside: read like any file
    expected["inside_link.md"] = ("indexed", "")
    for name in ("outside_link.md", "outside_dir", "passwd.txt"):
        expected[name] = ("skipped", "link points outside the release folder")
    for name in ("loop_a.md", "loop_b.md"):
        expected[name] = ("skipped", "link cannot be resolved")
    expected["dangling.md"] = ("failed", "cannot read file: No such file or directory")
    return expected


# -- helpers ---------------------------------------------------------------------------------------------------------
def run_sync(data: Path) -> tuple[dict, float, float]:
    """`assistant sync --json` in a child process: (report, peak RSS in MB, seconds)."""
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(data), "ASSISTANT_MODELS_DIR": str(PROJECT_ROOT / "models")}
    started = time.monotonic()
    with (data / "sync.out").open("w+") as out, (data / "sync.err").open("w+") as err:
        # The child reports its own high-water mark (VmHWM, reset by exec): rusage's ru_maxrss would also count
        # the pages it shared with this (possibly large) test process between fork and exec.
        proc = subprocess.Popen([sys.executable, "-c", _SYNC_AND_REPORT_PEAK], cwd=PROJECT_ROOT, env=env,
                                stdout=out, stderr=err)
        proc.wait()
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        errors = err.read()
        assert proc.returncode == 0, errors[-3000:]
        report = json.loads(out.read())
    peak_kb = int(re.search(r"PEAK_KB (\d+)", errors).group(1))
    return report, peak_kb / 1024, seconds


_SYNC_AND_REPORT_PEAK = (
    "import sys\n"
    "from assistant.cli import main\n"
    "rc = main(['sync', '--json'])\n"
    "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
    "print('PEAK_KB', hwm.split()[1], file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def tree_state(root: Path, skip: Path) -> dict[str, tuple]:
    """Every path under root except `skip`, with what a read or write would change (atime included)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if Path(dirpath) / d != skip]
        for name in dirnames + filenames:
            st = (Path(dirpath) / name).lstat()
            # Listing a folder moves its atime (this walk lists them too): folders are checked by `atimes` instead.
            atime = st.st_atime_ns if name in filenames else None
            state[os.path.relpath(Path(dirpath) / name, root)] = (st.st_size, st.st_mtime_ns, atime)
    return state


def atimes(paths: list[Path]) -> list[int]:
    return [os.stat(p, follow_symlinks=False).st_atime_ns for p in paths]


def age(paths: list[Path]) -> None:
    """Old access times, so that any read would move them even under relatime."""
    old = 1_600_000_000  # September 2020
    for path in paths:
        os.utime(path, (old, old - 3600), follow_symlinks=False)


# -- the test ----------------------------------------------------------------------------------------------------------
def test_hostile_sync_reports_each_file_indexes_the_rest_and_stays_in_bounds(tmp_path):
    from assistant.components import build_indexer
    from assistant.library.store import ReleaseStore

    data = tmp_path / "data"
    folder = data / "library" / "demo" / "1.0"
    for rel in GOOD_PAGES:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes((ETCD_CORPUS / "v3.5" / rel).read_bytes())
    baseline, baseline_rss, _ = run_sync(data)
    assert baseline["files_indexed"] == len(GOOD_PAGES)

    outside = tmp_path / "outside"
    expected = make_hostile_library(folder, outside)
    watched = [outside, outside / "dir", outside / "secret.md", outside / "dir" / "also_secret.md"]
    age(watched)
    before = tree_state(tmp_path, skip=data)
    age(watched)  # again: the walk above listed the folders
    aged = atimes(watched)

    report, rss, seconds = run_sync(data)
    print(f"peak RSS: good files {baseline_rss:.0f} MB, hostile sync {rss:.0f} MB; hostile sync took {seconds:.0f} s")

    got = {f["path"]: ("failed", f["error"]) for f in report["files_failed"]}
    got |= {f["path"]: ("skipped", f["reason"]) for f in report["files_skipped"]}
    assert len(report["files_failed"]) + len(report["files_skipped"]) == len(got), "each file reported once"
    for name, (outcome, words) in expected.items():
        if outcome == "indexed":
            assert name not in got, (name, got.get(name))
        else:
            assert name in got and got[name][0] == outcome and words in got[name][1], (name, got.get(name))
    indexed = {n for n, (o, _) in expected.items() if o == "indexed"}
    assert report["files_indexed"] == len(indexed) and report["files_unchanged"] == len(GOOD_PAGES)
    assert set(got) == {n for n, (o, _) in expected.items() if o != "indexed"}

    # Memory: the hostile files add little over a sync of two small pages (model, Qdrant and tokenizer included).
    assert rss < SYNC_RSS_BOUND_MB and rss - baseline_rss < EXTRA_RSS_BOUND_MB, (baseline_rss, rss)

    # Nothing outside the library was written, or read (atimes unchanged), and no outside text reached the index.
    assert atimes(watched) == aged, "a file or folder outside the library was read or listed"
    assert tree_state(tmp_path, skip=data).keys() == before.keys()
    assert {k: v[:2] for k, v in tree_state(tmp_path, skip=data).items()} == {k: v[:2] for k, v in before.items()}
    assert not any(SECRET.encode() in p.read_bytes() for p in data.rglob("*") if p.is_file() and not p.is_symlink())
    assert not list(Path.cwd().glob("pwned")) and not (PROJECT_ROOT / "pwned").exists()

    indexer = build_indexer(Settings(data_dir=data, models_dir=PROJECT_ROOT / "models"))
    assert indexer.verify("demo", "1.0") == []
    rows = indexer.manifest.files("demo", "1.0")
    assert {rel for rel, row in rows.items() if row.status == "indexed"} == indexed | set(GOOD_PAGES)
    store = ReleaseStore(indexer.store, "demo", "1.0", indexer.embedder.dim)
    hits = [h.node.metadata for h in store.lexical("gryphon valve page 1500", 5)]
    assert any(h["path"] == "thousand_pages.pdf" and h["page"] == 1500 for h in hits)
    assert "deep.html" in {h.node.metadata["path"] for h in store.lexical("deeply nested words", 3)}


# -- the caps, one at a time (cheap files, default caps) -----------------------------------------------------------
def test_pdf_text_budget_stops_a_shared_stream_inflating_to_gigabytes(tmp_path, monkeypatch):
    # 2,000 pages sharing one 30 KB stream would extract 400 million characters; the budget stops it early.
    monkeypatch.setattr(pdf_reader, "MAX_PDF_TEXT_CHARS", 1_000_000)
    path = tmp_path / "inflating.pdf"
    path.write_bytes(shared_page_pdf(2000, text_ops(2000), compress=True))
    assert path.stat().st_size < 50_000
    started = time.monotonic()
    with pytest.raises(ReadFailure, match="more than 1 million characters of text by page 6"):
        read_document(path)
    assert time.monotonic() - started < 30


def test_pdf_content_budget_per_file(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_reader, "MAX_PDF_CONTENT_BYTES", 1_000_000)
    path = tmp_path / "drawing.pdf"
    path.write_bytes(shared_page_pdf(50, text_ops(2000), compress=True))  # ~200 KB of content per page
    with pytest.raises(ReadFailure, match="too much drawing content to read \\(limit 1 MB per file"):
        read_document(path)


def test_a_file_over_the_chunk_cap_fails_alone_and_the_rest_is_indexed(tmp_path, monkeypatch):
    from assistant.components import build_indexer

    monkeypatch.setattr(ingest, "MAX_FILE_CHUNKS", 3)
    indexer = build_indexer(Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models"))
    folder = indexer.library.release_dir("demo", "1.0")
    folder.mkdir(parents=True)
    (folder / "small.md").write_text("# Small\n\nThe osprey valve is small.\n")
    (folder / "big.md").write_text("# Big\n\n" + "\n\n".join(f"Paragraph {i}. " + "word " * 150 for i in range(5)))
    [report] = indexer.sync()
    assert report.files_failed == [{"path": "big.md", "error": "too much text: 5 search chunks, more than the 3 "
                                                               "indexed per file (split it)"}]
    assert report.files_indexed == 1 and indexer.verify("demo", "1.0") == []


def test_upload_of_zip_bomb_and_zip_slip_then_sync_keeps_everything_inside_the_release(tmp_path):
    from assistant import app as svc

    data = tmp_path / "data"
    services = svc.Services(Settings(data_dir=data, models_dir=PROJECT_ROOT / "models", llm_backend="none"))
    slip = io.BytesIO()
    with zipfile.ZipFile(slip, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("docs/guide.md", "# Guide\n\nThe heron pump primes in four seconds.\n")
        zf.writestr("../../escaped.md", "# Escaped\n\nout\n")
        zf.writestr("docs/../../../../tmp/evil.md", "# Evil\n\nout\n")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.txt", b"\0" * (20 * 2**20))
    report = services.add_uploads("demo", "1.0", [("slip.zip", slip.getvalue()), ("bomb.zip", bomb.getvalue()),
                                                  ("../notes.md", b"# Notes\n\nThe heron pump is quiet.\n")])
    refused = dict(report.refused)
    assert "zip slip" in refused["slip.zip:../../escaped.md"] and "zip slip" in refused["slip.zip:docs/../../../../tmp/evil.md"]
    assert "zip bomb" in refused["bomb.zip"]
    assert sorted(report.saved) == ["docs/guide.md", "notes.md"] and report.started
    state = services.ingest.wait(300)
    assert not state.running and not state.error, state.error
    [sync] = state.reports
    assert (sync["files_indexed"], sync["files_failed"], sync["files_skipped"]) == (2, [], [])
    release = data / "library" / "demo" / "1.0"
    assert sorted(p.relative_to(data).as_posix() for p in data.rglob("*.md")) == [
        "library/demo/1.0/docs/guide.md", "library/demo/1.0/notes.md"]
    assert not (tmp_path / "escaped.md").exists() and not Path("/tmp/evil.md").exists()
    assert services.indexer.verify("demo", "1.0") == []
    # A source whose path tries to climb out of its release folder is never served as a document.
    assert services.document({"product": "demo", "release": "1.0", "path": "docs/guide.md"}) == release / "docs/guide.md"
    for path in ("../../../../etc/passwd", "/etc/passwd", "docs/../../1.0/../../../settings.json"):
        assert services.document({"product": "demo", "release": "1.0", "path": path}) is None


@pytest.mark.slow
def test_files_at_every_cap_stay_within_the_memory_bound(tmp_path):
    """Each file just under (or, for the text budget, running into) a per-file cap: the worst a sync must bear."""
    data = tmp_path / "data"
    folder = data / "library" / "demo" / "1.0"
    folder.mkdir(parents=True)
    (folder / "good.md").write_bytes((ETCD_CORPUS / "v3.5" / GOOD_PAGES[0]).read_bytes())
    baseline, baseline_rss, _ = run_sync(data)

    tags = html_reader.MAX_HTML_TAGS // 2 - 100  # two tags per line
    (folder / "tags_at_cap.html").write_bytes(b"<html><body>" + b"".join(
        b"w%d <b>x</b>\n" % i for i in range(tags)) + b"</body></html>")
    (folder / "lines_at_cap.md").write_bytes(b"# Lines\n\n" + b"".join(
        b"line %d\n" % (i % 97) for i in range(readers.MAX_LINES - 100)))  # read and chunked, then over the chunk cap
    # Just under the chunk cap: every chunk stored (identical paragraphs, so the embedding cache embeds one).
    paragraph = " ".join(["the cluster member sends a heartbeat to the leader"] * 19)
    (folder / "chunks_at_cap.md").write_text("# Chunks\n\n" + "\n\n".join([paragraph] * (ingest.MAX_FILE_CHUNKS - 200)))
    # Two lines per page, the same on every page: read in full, then stripped as running headers (no text, no
    # embedding), so only the reading is measured.
    (folder / "pages_at_cap.pdf").write_bytes(shared_page_pdf(
        pdf_reader.MAX_PDF_PAGES - 1, b"BT /F1 12 Tf 14 TL 72 720 Td (Header line) Tj T* (Footer line) Tj ET"))
    (folder / "drawing_at_cap.pdf").write_bytes(shared_page_pdf(
        1, b"0 0 m 1 1 l S\n" * ((pdf_reader.MAX_PDF_PAGE_CONTENT_BYTES - 1000) // 14), compress=True))
    (folder / "text_budget.pdf").write_bytes(shared_page_pdf(2000, text_ops(2000), compress=True))

    report, rss, seconds = run_sync(data)
    print(f"peak RSS: good file {baseline_rss:.0f} MB, files at the caps {rss:.0f} MB; took {seconds:.0f} s")
    failed = {f["path"]: f["error"] for f in report["files_failed"]}
    assert "more than 20 million characters" in failed["text_budget.pdf"]
    assert "search chunks, more than the 15,000 indexed per file" in failed["lines_at_cap.md"]
    assert report["files_indexed"] == 2  # tags_at_cap.html and chunks_at_cap.md
    # Embedded Qdrant keeps ~21 KB per stored chunk in memory (~400 MB here); the rest is per-file work in flight.
    assert rss < WORST_CASE_RSS_BOUND_MB, (baseline_rss, rss)
