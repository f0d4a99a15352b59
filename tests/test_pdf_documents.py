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

    made, doc = manual
    parser = DualChunkParser(lambda texts: [len(t.split()) for t in texts])
    nodes = parser.get_nodes_from_documents(section_documents(doc, product="etcd", release="v3.6", path="guide.pdf"))
    flag = next(n for n in nodes if n.metadata["kind"] == "search" and "--snapshot-count |" in n.get_content())
    page = made.headings[-1][1]  # the flag table's page: the front matter's two pages come first
    assert (flag.metadata["page"], flag.metadata["page_label"]) == (page, str(page - 2))


def test_a_long_pdf_table_gives_one_search_chunk_per_row_under_its_header(manual):
    from assistant.library.chunking import DualChunkParser, section_documents

    made, doc = manual
    parser = DualChunkParser(lambda texts: [len(t.split()) for t in texts], search_tokens=60)
    nodes = parser.get_nodes_from_documents(section_documents(doc, product="etcd", release="v3.6", path="guide.pdf"))
    rows = [n.get_content() for n in nodes if n.metadata["kind"] == "search" and "--snapshot-count |" in n.get_content()]
    assert len(rows) == 1 and rows[0].splitlines()[0] == "Flag | Default | Description"
    assert len(rows[0].splitlines()) == 2


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
    across = [["The snapshot is writ-", ""], ["", "ten to disk before compaction."]]
    assert join_hyphenated(across) == [["The snapshot is written", ""], ["", "to disk before compaction."]]


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
    page = made.headings[-1][1]
    assert (source["page"], source["page_label"]) == (page, str(page - 2))
    assert f" p.{page - 2} (PDF page {page}) § 4 Member flags" in source_label(source).replace("\\", "")
    assert open_label(source) == f"Open at page {page - 2} (PDF page {page})"
    view = open_source(made.path, source)
    assert isinstance(view, PdfView) and view.page == page and view.boxes


def test_a_manifest_from_before_page_labels_gains_the_column(tmp_path):
    """An index made before issue 15 opens, reads its contexts without a label, and stores labels from then on."""
    import sqlite3

    from assistant.library.manifest import ContextRow, Manifest

    path = tmp_path / "manifest.sqlite"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE contexts (id TEXT PRIMARY KEY, product TEXT NOT NULL, release TEXT NOT NULL, path TEXT "
                "NOT NULL, ctx_no INTEGER NOT NULL, title TEXT, section TEXT, page INTEGER, text TEXT NOT NULL, core "
                "TEXT NOT NULL)")
    old.execute("INSERT INTO contexts VALUES ('c0', 'p', 'r', 'a.pdf', 0, 'T', '', 3, 'old text', 'old text')")
    old.commit()
    old.close()
    manifest = Manifest(path)
    assert manifest.contexts(["c0"])["c0"].page_label is None
    manifest.commit_indexed("p", "r", "b.pdf", "h", 1, 2, [], [
        ContextRow("c1", "p", "r", "b.pdf", 0, "T", "", 3, "new text", "new text", "i")], recipe="x")
    assert (manifest.contexts(["c1"])["c1"].page, manifest.contexts(["c1"])["c1"].page_label) == (3, "i")


def _book_pdf(path: Path, chapters: list[tuple[str, list[str]]], front: int = 2) -> Path:
    """A book as LaTeX and texinfo print one, with no page labels in its catalogue: `front` unnumbered pages, then
    chapters whose pages carry a running head naming the chapter with the printed page number (even pages
    "N | etcd guide" at the left, odd pages "Chapter k: Title | N" at the right), the body counted from 1."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    width, height = A4
    for number in range(1, front + 1):
        pdf.drawString(72, height - 100, "etcd operations guide" if number == 1 else f"Copyright notice ({number})")
        pdf.showPage()
    printed = 0
    for k, (title, pages) in enumerate(chapters, 1):
        for body in pages:
            printed += 1
            if printed % 2:
                pdf.drawString(72, height - 40, f"Chapter {k}: {title}")
                pdf.drawRightString(width - 72, height - 40, str(printed))
            else:
                pdf.drawString(72, height - 40, str(printed))
                pdf.drawRightString(width - 72, height - 40, "etcd guide")
            y = height - 100
            for line in body.splitlines():
                pdf.drawString(72, y, line)
                y -= 16
            pdf.showPage()
    pdf.save()
    return path


def test_running_heads_that_name_their_chapter_go_and_their_numbers_label_the_pages(tmp_path):
    # Real etcd v3.6 text, 4 pages to a chapter; three pages end on the same line of code, which must stay.
    text = (CORPORA / "etcd" / "v3.6" / "op-guide" / "maintenance.md").read_text(encoding="utf-8")
    prose = [line for line in text.splitlines() if len(line) > 40 and not line.startswith(("#", "```", "|"))][:16]
    pages = [f"{a[:90]}\n{b[:90]}" + ("\nexit 1" if i < 3 else "") for i, (a, b) in enumerate(zip(prose[::2], prose[1::2]))]
    book = _book_pdf(tmp_path / "book.pdf", [("Maintenance", pages[:4]), ("Defragmentation", pages[4:])])
    doc = read_document(book)
    lines = _lines(doc)
    assert not [line for line in lines if "Chapter " in line or "etcd guide" in line]
    assert sum(line == "exit 1" for line in lines) == 3  # code at a page's edge repeats, but no number runs in it
    labels = {sec.page: sec.page_label for sec in doc.sections}
    assert labels[1] is None and labels[3] == "1" and labels[6] == "4" and labels[10] == "8"
    assert all(prose[0][:60] in sec.text for sec in doc.sections if sec.page == 3)


def test_ligatures_and_the_typeset_minus_read_as_typed(tmp_path):
    # groff and TeX print "file" with the fi ligature and an option's dash as U+2212: a search for "file" or "-e"
    # must find them. Drawn in reportlab's own Vera font, which has both glyphs, so pypdf extracts them as printed.
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("Vera", str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")))
    pdf = canvas.Canvas(str(tmp_path / "man.pdf"))
    pdf.setFont("Vera", 11)
    pdf.drawString(72, 700, "\u2212e  Exit immediately if a pipeline returns a non\u2212zero status, see the \ufb01le \ufb02ags.")
    pdf.showPage()
    pdf.save()
    text = read_document(tmp_path / "man.pdf").sections[0].text
    assert text.startswith("-e") and "non-zero" in text and "file flags" in text, text


def test_a_source_opens_with_the_sentence_the_answer_quotes_outlined(tmp_path):
    # A page of real etcd text cited whole (its source passage is the page); the answer quotes one sentence of it,
    # which TeX sets in pieces ("(", ")" and the rest apart). The box goes around that sentence's line, not the page.
    from reportlab.pdfgen import canvas

    from assistant.app.sources import PdfView, open_source, quoted

    text = (CORPORA / "etcd" / "v3.6" / "op-guide" / "maintenance.md").read_text(encoding="utf-8")
    prose = [line[:80] for line in text.splitlines() if len(line) > 60 and not line.startswith(("#", "```", "|"))][:9]
    pdf = canvas.Canvas(str(tmp_path / "page.pdf"))
    for i, line in enumerate(prose):
        if i == 5:  # the quoted line, in pieces as TeX emits them
            x = 72
            for piece in (line[:30], " (", line[30:60], ") ", line[60:]):
                pdf.drawString(x, 700 - 16 * i, piece)
                x += pdf.stringWidth(piece, "Helvetica", 12)
        else:
            pdf.drawString(72, 700 - 16 * i, line)
    pdf.showPage()
    pdf.save()
    quote = f"{prose[5][:30]} ({prose[5][30:60]}) {prose[5][60:]}"
    answer = f"From the documents:\n- “{prose[1]}” (under Maintenance) [2]\n- “{quote}” (under Maintenance) [1]"
    assert quoted(answer, 1) == quote and quoted(answer, 3) is None
    source = {"n": 1, "page": 1, "text": "\n".join(prose)}
    view = open_source(tmp_path / "page.pdf", source, answer)
    assert isinstance(view, PdfView) and len(view.boxes) == 5  # the line's every piece, the short ones included
    lines = {round(box.y) for box in view.boxes}
    assert len(lines) == 1 and abs(lines.pop() - (842 - (700 - 16 * 5) - 12 * 0.95)) <= 2  # A4 page: 842 pt high
    assert len(open_source(tmp_path / "page.pdf", source).boxes) >= 9  # without the answer: the whole passage


def _drawn_pdf(path: Path, operators: bytes) -> Path:
    """A one-page PDF whose text is drawn by exactly these content-stream operators, in Times-Roman as /F1."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Times-Roman"),
                             NameObject("/Encoding"): NameObject("/WinAnsiEncoding")})
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    stream = DecodedStreamObject()
    stream.set_data(operators)
    page[NameObject("/Contents")] = writer._add_object(stream)
    with path.open("wb") as out:
        writer.write(out)
    return path


def test_word_spaces_drawn_as_character_spacing_are_read_as_spaces(tmp_path):
    # Two lines of Debian's bash.pdf (groff through Ghostscript) as drawn: the justified line's word spaces are the
    # character spacing (Tc) of the short runs "x0c" and "di nt", not space glyphs; pypdf alone reads
    # "index0contains" and "savedinthe", which no search for "index 0" or "saved in" finds.
    pdf = _drawn_pdf(tmp_path / "bash.pdf", b"""BT /F1 10 Tf 72 700 Td
(which parts of the string matched. The element with inde)Tj 2.834 Tc 230.0 0 Td (x0c)Tj
0 Tc 20.1078 0 Td (ontains the)Tj
-250.1078 -12 Td 0.451 Tw [(pressions within the re)14.9951(gular e)14.9976(xpression are sa)]TJ
-0.15 Tc 183.836 0 Td (ve)Tj 2.951 Tc 9.28984 0 Td [(di)295.115(nt)]TJ 0 Tc 21.4617 0 Td (he remaining indices.)Tj
ET""")
    text = " ".join(read_document(pdf).sections[0].text.split())
    assert "with index 0 contains the" in text, text
    assert "expression are saved in the remaining indices." in text, text


def test_a_man_page_without_outline_or_numbers_takes_its_bold_headings_nested_by_indentation(tmp_path):
    # How groff prints bash(1): sections flush left in bold capitals, subsections indented, each variable it defines
    # in bold further in, its text below. No outline, no numbers: before, the page was one section with no path.
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(tmp_path / "bash.pdf"))
    y = 760
    for indent, font, text in [
        (0, "Times-Bold", "PARAMETERS"),
        (40, "Times-Roman", "A parameter is an entity that stores values. It can be a name, a number, or one of the"),
        (40, "Times-Roman", "special characters listed below under Special Parameters."),
        (20, "Times-Bold", "Shell Variables"),
        (40, "Times-Roman", "The following variables are set by the shell:"),
        (60, "Times-Bold", "BASHPID"),
        (90, "Times-Roman", "Expands to the process ID of the current bash process. This differs from $$ under"),
        (90, "Times-Roman", "certain circumstances, such as subshells that do not require bash to be re-initialized."),
        (60, "Times-Bold", "HISTSIZE"),
        (90, "Times-Roman", "The number of commands to remember in the command history. If the value is 0,"),
        (90, "Times-Roman", "commands are not saved in the history list."),
        (0, "Times-Bold", "SHELL BUILTIN COMMANDS"),
        (40, "Times-Roman", "Unless otherwise noted, each builtin command documented in this section as accepting"),
        (40, "Times-Roman", "options preceded by - accepts -- to signify the end of the options."),
    ]:
        pdf.setFont(font, 10)
        pdf.drawString(72 + indent, y, text)
        y -= 14
    pdf.showPage()
    pdf.save()
    paths = {tuple(s.section_path): s.text for s in read_document(tmp_path / "bash.pdf").sections}
    assert paths[("PARAMETERS", "Shell Variables", "BASHPID")].startswith("Expands to the process ID"), paths
    assert paths[("PARAMETERS", "Shell Variables", "HISTSIZE")].startswith("The number of commands"), paths
    assert paths[("SHELL BUILTIN COMMANDS",)].startswith("Unless otherwise noted"), paths
