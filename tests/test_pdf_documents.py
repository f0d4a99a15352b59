"""PDFs read as documents (issue 15, point 4), on a manual typeset from real etcd v3.6 text (tests/pdf_manual.py):
running lines gone, headings from the outline or else from numbering and font size, hyphenated words joined, wrapped
table cells kept in their row, printed page labels kept beside the page index. Real reportlab, pypdf and chunker."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdf_manual import HEADER, make_manual

from assistant.library.readers import read_document
from assistant.library.readers.pdf_layout import follows, join_hyphenated, numbered_heading, table_lines

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(scope="module", params=[False, True], ids=["numbered", "outline"])
def manual(request, tmp_path_factory):
    made = make_manual(CORPORA, tmp_path_factory.mktemp("pdf") / "etcd-guide.pdf", outline=request.param)
    return made, read_document(made.path)


def _lines(doc):
    return [line for sec in doc.sections for line in sec.text.splitlines()]


def test_running_header_and_footer_removed_on_roman_and_arabic_pages(manual):
    _, doc = manual
    lines = _lines(doc)
    assert not [line for line in lines if HEADER in line or line.startswith("Page ")]
    assert any("Contents" in line for line in lines)  # the front matter's own text stays


def test_printed_page_label_kept_where_it_differs_from_the_index(manual):
    made, doc = manual
    by_page = {sec.page: sec.page_label for sec in doc.sections}
    assert by_page[1] == "i" and by_page[2] == "ii"
    assert by_page[3] == "1" and by_page[5] == "3"  # the body starts at printed page 1 on PDF page 3
    flags = next(sec for sec in doc.sections if "--snapshot-count |" in sec.text)
    assert flags.page == next(page for heading, page in made.headings if heading.endswith("Member flags"))


def test_sections_follow_headings_not_pages(manual):
    made, doc = manual
    paths = {tuple(sec.section_path) for sec in doc.sections}
    history, auto, periodic = (h for h, _ in made.headings[2:5])
    assert (history, auto, periodic) in paths
    periodic_text = next(sec for sec in doc.sections if sec.section_path[-1:] == [periodic]).text
    assert "keep one hour of history" in periodic_text and "Revision compaction retains" not in periodic_text
    # Two headings share PDF page 3: each starts its own section on that page.
    assert [sec.section_path[0] for sec in doc.sections if sec.page == 3] == [h for h, p in made.headings if p == 3]
    # A numbered list in body type ("2. Backing up etcd data directory" under heading 1) stays text.
    assert len(made.steps) == 2 and made.steps[1].startswith("2. ")
    overview = "\n".join(sec.text for sec in doc.sections if sec.section_path == [made.headings[0][0]])
    assert all(step in overview for step in made.steps)
    # The contents page lists every heading in body type: none of those lines opens a section.
    assert all(sec.section_path == [] for sec in doc.sections if sec.page <= 2)


def test_words_hyphenated_at_line_ends_are_joined(manual):
    made, doc = manual
    text = " ".join(_lines(doc))
    assert len(made.hyphenated) >= 4
    for word in made.hyphenated:
        assert word in text
    assert not any(line.endswith("-") and line[-2].isalpha() for line in _lines(doc))


def test_table_row_with_a_wrapped_cell_stays_one_line(manual):
    made, doc = manual
    lines = _lines(doc)
    for flag, default, description in made.flags:
        row = next(line for line in lines if line.startswith(f"{flag} |"))
        assert row.endswith(description.split()[-1]), row


def test_chunks_carry_page_index_and_printed_label(manual):
    from assistant.library.chunking import DualChunkParser, section_documents

    _, doc = manual
    parser = DualChunkParser(lambda texts: [len(t.split()) for t in texts])
    nodes = parser.get_nodes_from_documents(section_documents(doc, product="etcd", release="v3.6", path="guide.pdf"))
    flag = next(n for n in nodes if n.metadata["kind"] == "search" and "--snapshot-count |" in n.get_content())
    assert (flag.metadata["page"], flag.metadata["page_label"]) == (4, "2")


# ---------------------------------------------------------------- the decisions, one by one


def test_numbered_heading_pattern():
    assert numbered_heading("3.1.2 Revision compaction") == ((3, 1, 2), "Revision compaction")
    assert numbered_heading("2. Raft log retention") == ((2,), "Raft log retention")
    assert numbered_heading("1 Overview ....") is None  # a contents line
    assert numbered_heading("3 members are needed for a quorum of two.") is None  # a sentence
    assert numbered_heading("10000 committed transactions") is None  # a number, not a heading path


def test_heading_numbers_must_follow_in_order():
    assert follows(None, (1,)) and follows((1,), (1, 1)) and follows((1, 1), (1, 2)) and follows((1, 2, 3), (2,))
    assert follows((2,), (4,))  # one heading may have been missed
    assert not follows((3, 2), (1,))  # "1. Stop the member" in a numbered list inside 3.2
    assert not follows((3, 2), (3, 2))
    assert not follows(None, (4, 2))


def test_hyphen_join_keeps_a_compound_the_document_spells_with_its_hyphen():
    pages = [["It gives fine-", "grained control.", "Use fine-grained locks; the mainte-", "nance window."]]
    assert join_hyphenated(pages) == [["It gives fine-grained control.", "Use fine-grained locks; the maintenance window."]]


def test_wrapped_cells_join_their_row_but_a_new_row_does_not():
    raw = ["--name          default     Human-readable name",
           "                            for this member.",
           "--data-dir      x.etcd      Path to the data directory."]
    assert table_lines(raw) == ["--name | default | Human-readable name for this member.",
                                "--data-dir | x.etcd | Path to the data directory."]


def test_a_cited_pdf_page_names_its_printed_label_and_opens_at_its_index(tmp_path):
    """Ingest the manual, ask search-only, and follow the source to the label shown and the page the viewer opens."""
    from assistant.app.presentation import open_label, source_label
    from assistant.app.sources import PdfView, open_source
    from assistant.components import build_indexer, build_pipeline
    from assistant.settings import Settings

    settings = Settings(data_dir=tmp_path / "data")
    indexer = build_indexer(settings)
    folder = indexer.library.release_dir("guide", "v3.6")
    folder.mkdir(parents=True)
    made = make_manual(CORPORA, folder / "etcd-guide.pdf", outline=False)
    [report] = indexer.sync()
    assert (report.files_indexed, report.files_failed) == (1, [])
    result = build_pipeline(settings, llm=None).ask(
        "Which flag sets the number of committed transactions to trigger a snapshot?", search_only=True).to_json()
    source = next(s for s in result["sources"] if "--snapshot-count |" in s["text"])
    assert (source["page"], source["page_label"]) == (4, "2")
    assert " p.2 (PDF page 4) § 4 Member flags" in source_label(source).replace("\\", "")
    assert open_label(source) == "Open at page 2 (PDF page 4)"
    view = open_source(made.path, source)
    assert isinstance(view, PdfView) and view.page == 4 and view.boxes
