"""The PDF reader on manuals typeset like those of the PDF question set (eval/pdf.jsonl, issue 15 point 4): real
Markdown of the corpora set by assistant/evaluation/pdf_typeset.py with a contents in roman front matter, a running
header and footer, numbered headings, tables whose cells wrap and hyphenated line ends. Each test here guards one
fix found by studying the set's tuning half."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.evaluation.pdf_typeset import ManualSpec, typeset_manual
from assistant.library.readers import read_document
from assistant.library.readers.pdf_layout import contents_page, numbered_heading

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PROMETHEUS = CORPORA / "prometheus" / "v2.53.0"
CHAPTERS = ["command-line/prometheus.md", "feature_flags.md", "storage.md", "federation.md"]


@pytest.fixture(scope="module", params=[False, True], ids=["numbered", "outline"])
def manual(request, tmp_path_factory):
    spec = ManualSpec(title="Prometheus Server Guide v2.53.0", subtitle="release v2.53.0",
                      header="Prometheus Server Guide - release v2.53.0", footer="Copyright The Prometheus Authors",
                      chapters=[PROMETHEUS / c for c in CHAPTERS], outline=request.param)
    made = typeset_manual(spec, tmp_path_factory.mktemp("pdf") / "guide.pdf")
    return made, read_document(made.path)


def test_the_contents_page_opens_no_section(manual):
    """The contents lists every numbered heading in order, in the headings' words: read as headings, its last
    entry became the path of the whole manual and no body heading followed on from it."""
    made, doc = manual
    assert all(" | " not in part for sec in doc.sections for part in sec.section_path)
    snapshot = next(sec for sec in doc.sections if "takes the snapshot of the chunks" in sec.text)
    assert snapshot.section_path[-1] == "2.4 Memory snapshot on shutdown"
    assert snapshot.page == next(page for heading, page in made.headings if heading.startswith("2.4 "))
    assert all(sec.section_path == [] for sec in doc.sections if sec.page <= made.front)


def test_contents_entries_are_not_headings():
    assert numbered_heading("6 Federation | 23") is None  # layout mode: the page number after a column gap
    assert numbered_heading("2.1 Overview .......... 7") is None
    assert numbered_heading("3.2 Compaction | iv") is None
    assert numbered_heading("6 Federation") == ((6,), "Federation")


@pytest.fixture(scope="module")
def etcd_manual(tmp_path_factory):
    """etcd v3.6's configuration and FAQ, without an outline: headings come from numbering and type alone."""
    folder = CORPORA / "etcd" / "v3.6"
    spec = ManualSpec(title="etcd Operations Guide v3.6", subtitle="release v3.6", header="etcd Operations Guide v3.6",
                      footer="Copyright The etcd Authors", chapters=[folder / "op-guide/configuration.md",
                                                                     folder / "faq.md"], page_style="- {} -")
    made = typeset_manual(spec, tmp_path_factory.mktemp("pdf") / "etcd.pdf")
    return made, read_document(made.path)


def _section_with(doc, text: str):
    return next(sec for sec in doc.sections if text in " ".join(sec.text.split()))


def test_a_bold_heading_in_body_size_type_opens_its_section(etcd_manual):
    """The lowest heading level is printed bold at 11 pt over a 10 pt body: not 15% larger, but bold."""
    made, doc = etcd_manual
    member = next(h for h, _ in made.headings if h.endswith(" Member"))
    assert member.count(".") == 2
    assert _section_with(doc, "--snapshot-count '10000'").section_path[-1] == member


def test_faq_questions_are_headings_long_ones_too(etcd_manual):
    made, doc = etcd_manual
    odd = next(h for h, _ in made.headings if "Why an odd number of cluster members?" in h)
    assert _section_with(doc, "quorum is (n/2)+1").section_path[-1] == odd
    long = next(h for h, _ in made.headings if "update the advertised peer URLs in etcdctl member list?" in h)
    assert len(long.split()) > 12
    assert _section_with(doc, "Use etcdctl member update").section_path[-1] == long


def test_a_long_title_is_a_heading_only_when_printed_as_one():
    line = "6.5 Why doesn't changing --listen-peer-urls or --initial-advertise-peer-urls update the advertised peer URLs?"
    assert numbered_heading(line) is None
    assert numbered_heading(line, styled=True) == ((6, 5), line[4:])
    assert numbered_heading("6.1 What is etcd?") == ((6, 1), "What is etcd?")
    assert numbered_heading("2 Nodes are restarted in order. Then the cluster is healthy.", styled=True) is None


def test_contents_pages_are_not_indexed(manual):
    """Read as a two-column table, each contents entry became a search chunk holding a heading's words and none of
    its text; such chunks took top-3 places from the pages the headings stand on."""
    made, doc = manual
    assert made.front >= 2
    assert sorted({sec.page for sec in doc.sections if sec.page <= made.front}) == [1]  # the title page stays
    assert any(sec.page == made.front + 1 for sec in doc.sections)


def test_a_flag_table_page_is_no_contents_page():
    entries = ["Contents", "1 Flags | 1", "1.1 Flags | 1", "2 Feature flags | 4", "2.1 Exemplars storage | 4",
               "2.2 Memory snapshot on shutdown | 4", "3 Storage | 10"]
    assert contents_page(entries)
    assert not contents_page(entries[:1] + entries[5:] + entries[1:5])  # page numbers out of order
    flags = ["Flag | Description | Default", "--web.max-connections | Maximum number of simultaneous connections. | 512",
             "--query.timeout | Maximum time a query may take before being aborted. | 2m",
             "--query.max-concurrency | Maximum number of queries executed concurrently. | 20",
             "--query.max-samples | Maximum number of samples a single query can load. | 50000000",
             "--alertmanager.notification-queue-capacity | The capacity of the queue. | 10000"]
    assert not contents_page(flags)
    cluster = ["Cluster Size | Majority | Failure Tolerance", "1 | 1 | 0", "3 | 2 | 1", "5 | 3 | 2", "7 | 4 | 3", "9 | 5 | 4"]
    assert not contents_page(cluster)
