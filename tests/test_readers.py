"""Readers on generated hostile files and on the real etcd docs: real pypdf, bs4 and files, no mocks."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest
from hostile_files import (
    DOCX_PARAGRAPH,
    FAILED,
    OK,
    SKIPPED,
    encrypt_pdf,
    make_docx,
    make_hostile_corpus,
    make_pdf,
    png_bytes,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.library.documents import NoBodyText, ParsedDocument, ReadFailure, SkipFile
from assistant.library.readers import MAX_LINE_BYTES, SUPPORTED_SUFFIXES, read_document

ETCD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "etcd" / "v3.5"

# Every file the corpus expects to fail, with the words the user must see.
FAILURE_MESSAGES = {
    "truncated.pdf": "PDF is damaged or truncated",
    "empty.pdf": "file is empty",
    "encrypted.pdf": "PDF is encrypted and needs a password",
    "scanned.pdf": "no extractable text (scanned PDF?)",
    "not_really.pdf": "not a PDF",
    "junk.md": "not valid UTF-8 text (looks binary)",
    "bad_utf8.txt": "not valid UTF-8 text (bad byte at offset 3) and no other encoding fits it",
    "truncated.docx": "Word document is damaged or truncated",
    "not_a_package.docx": "Word document is damaged or truncated",
    "old_word.docx": "looks like an old Microsoft Office file, not a Word document",
    "bomb.docx": "times its packed size (a zip bomb)",
    "huge.docx": "Word package has 10,0",
    "empty.md": "file is empty",
    "whitespace.txt": "file is empty",
    "fake.md": "looks like a PNG image, not Markdown",
    "fake.rst": "looks like an ELF executable, not reStructuredText",
    "only_script.html": "no extractable text",
    "huge_line.txt": "file is larger than 20 MB",
    "archive.txt": "looks like a ZIP archive",
}


def outcome(path: Path) -> tuple[str, str | ParsedDocument]:
    try:
        return OK, read_document(path)
    except ReadFailure as exc:
        return FAILED, str(exc)
    except SkipFile as exc:
        return SKIPPED, str(exc)


def all_text(doc: ParsedDocument) -> str:
    return "\n".join(section.text for section in doc.sections)


def filled_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("hostile")
    return folder, make_hostile_corpus(folder)


# ---------------------------------------------------------------- the hostile corpus


def test_hostile_corpus_gives_exactly_the_expected_outcome_per_file(corpus):
    folder, expected = corpus
    assert {p.name for p in folder.iterdir()} == set(expected), "generator must report every file it writes"
    actual = {name: outcome(folder / name)[0] for name in expected}
    assert actual == expected
    assert set(actual.values()) == {OK, FAILED, SKIPPED}


def test_every_failing_file_names_its_problem(corpus):
    folder, expected = corpus
    assert set(FAILURE_MESSAGES) == {name for name, kind in expected.items() if kind == FAILED}
    for name, words in FAILURE_MESSAGES.items():
        kind, message = outcome(folder / name)
        assert kind == FAILED and words in message, (name, message)
        assert len(message) < 200 and "Traceback" not in message


def test_skipped_files_say_which_type(corpus):
    folder, _ = corpus
    assert outcome(folder / "image.png") == (SKIPPED, "unsupported file type (.png)")
    assert outcome(folder / "no_extension") == (SKIPPED, "unsupported file type (no extension)")


def test_huge_single_line_fails_fast_on_size(corpus):
    folder, _ = corpus
    assert (folder / "huge_line.txt").stat().st_size == 50_000_000
    started = time.perf_counter()
    with pytest.raises(ReadFailure, match="file is larger than 20 MB"):
        read_document(folder / "huge_line.txt")
    assert time.perf_counter() - started < 0.5


def test_huge_single_line_under_a_larger_cap_stops_reading_early(corpus):
    folder, _ = corpus
    tracemalloc.start()
    try:
        with pytest.raises(ReadFailure, match=r"a single line longer than 1 MB \(not prose\)"):
            read_document(folder / "huge_line.txt", max_bytes=100_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, f"read {peak} bytes into memory for a line that is over the limit after 1 MB"


def test_line_limit_is_per_line_not_per_file(tmp_path):
    many_lines = ("word " * 150 + "\n") * 20_000  # 15 MB of ordinary prose
    assert read_document(write(tmp_path / "long.txt", many_lines)).sections
    one_line = "word " * (MAX_LINE_BYTES // 5 + 1)
    with pytest.raises(ReadFailure, match="single line longer than 1 MB"):
        read_document(write(tmp_path / "one.md", "# Title\n\n" + one_line + "\n"))


def test_size_cap_is_configurable_and_named_in_the_message(tmp_path):
    path = write(tmp_path / "notes.txt", "x" * 3_000 + "\n")
    with pytest.raises(ReadFailure, match=r"^file is larger than 0.002 MB$"):
        read_document(path, max_bytes=2_000)
    assert read_document(path, max_bytes=4_000).sections[0].text == "x" * 3_000


def test_missing_file_and_directory_fail_cleanly(tmp_path):
    with pytest.raises(ReadFailure, match="cannot read file"):
        read_document(tmp_path / "gone.md")
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(ReadFailure, match="not a regular file"):
        read_document(tmp_path / "folder.md")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(min_size=0, max_size=3_000), suffix=st.sampled_from(SUPPORTED_SUFFIXES))
def test_arbitrary_bytes_never_escape_as_other_exceptions(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"f{suffix}"
    path.write_bytes(data)
    try:
        doc = read_document(path)
    except (ReadFailure, SkipFile) as exc:
        assert str(exc)
    else:
        assert doc.sections and all(section.text.strip() for section in doc.sections)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(st.sampled_from(["# H", "## H2", "Title", "=====", "-----", "```", "~~~", "<!--", "-->", "---",
                                   "+++", "title: x", ".. note:: y", "{{< x >}}", "body", "", "  code"]),
                  max_size=40).map("\n".join),
    suffix=st.sampled_from([".md", ".rst", ".html", ".txt"]),
)
def test_structural_soup_reads_or_fails_cleanly(tmp_path_factory, text, suffix):
    path = tmp_path_factory.mktemp("soup") / f"f{suffix}"
    path.write_text(text, encoding="utf-8")
    kind, result = outcome(path)
    if kind == FAILED:
        assert result in ("file is empty", "no extractable text"), result
    elif kind == SKIPPED:  # only Markdown that opens with front matter and has no body after it
        assert (suffix, result) == (".md", "no body text (front matter only)") and text.startswith(("---", "+++"))


# ---------------------------------------------------------------- PDF


def test_pdf_keeps_page_numbers_and_drops_running_header_and_footer(corpus):
    folder, _ = corpus
    doc = read_document(folder / "good.pdf")
    assert doc.kind == "pdf"
    assert [section.page for section in doc.sections] == [1, 2, 3]
    assert doc.sections[1].text.startswith("Chapter two explains gadgets.")
    for section in doc.sections:
        assert "ACME Manual" not in section.text and "Page" not in section.text, section.text


def test_pdf_single_page_keeps_its_header_since_nothing_repeats(tmp_path):
    # Proves the header is really in the extracted text, so the test above checks removal, not absence.
    doc = read_document(make_pdf(tmp_path / "one.pdf", ["Only page body."], header="ACME Manual", footer=False))
    assert filled_lines(doc.sections[0].text) == ["ACME Manual", "Only page body."]


def test_pdf_table_rows_stay_one_line_each(corpus):
    folder, _ = corpus
    lines = read_document(folder / "good.pdf").sections[1].text.splitlines()
    assert "Name | Value | Unit" in lines
    assert "alpha | 12 | ms" in lines


def test_pdf_bare_page_numbers_removed_but_numbers_in_the_text_kept(tmp_path):
    pages = ["Alpha text\nfirst 10\n42\nmore alpha\n- 1 -", "Beta text\nsecond\nthird\nPage 2 of 3", "Gamma text\n3"]
    doc = read_document(make_pdf(tmp_path / "numbers.pdf", pages, footer=False))
    assert [filled_lines(section.text) for section in doc.sections] == [
        ["Alpha text", "first 10", "42", "more alpha"],
        ["Beta text", "second", "third"],
        ["Gamma text"],
    ]


def test_pdf_title_from_metadata_else_first_line(tmp_path):
    titled = make_pdf(tmp_path / "titled.pdf", ["Body words."], title="Operator Handbook")
    assert read_document(titled).title == "Operator Handbook"
    # reportlab writes "untitled" when no title is set: a placeholder, not a title.
    assert read_document(make_pdf(tmp_path / "plain.pdf", ["First line here\nsecond"])).title == "First line here"


def test_pdf_outline_becomes_section_path(tmp_path):
    path = make_pdf(
        tmp_path / "outlined.pdf", ["intro words", "setup words", "more setup", "reference words"],
        outline=[(0, "Intro"), (1, "Setup"), None, (0, "Reference")],
    )
    paths = [section.section_path for section in read_document(path).sections]
    assert paths == [["Intro"], ["Intro", "Setup"], ["Intro", "Setup"], ["Reference"]]


def test_pdf_encrypted_with_empty_password_reads_and_with_password_fails(corpus, tmp_path):
    folder, _ = corpus
    assert all_text(read_document(folder / "encrypted_empty_pw.pdf")) == all_text(read_document(folder / "good.pdf"))
    locked = encrypt_pdf(folder / "good.pdf", tmp_path / "locked.pdf", "hunter2")
    with pytest.raises(ReadFailure, match="^PDF is encrypted and needs a password$"):
        read_document(locked)


@pytest.mark.parametrize("fraction", [0.2, 0.4, 0.7, 0.95])
def test_pdf_truncated_anywhere_is_reported_damaged(corpus, tmp_path, fraction):
    folder, _ = corpus
    data = (folder / "good.pdf").read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(ReadFailure, match="^PDF is damaged or truncated"):
        read_document(path)


# ---------------------------------------------------------------- HTML


def test_html_drops_chrome_and_builds_breadcrumbs(corpus):
    folder, _ = corpus
    doc = read_document(folder / "good.html")
    assert (doc.kind, doc.title) == ("html", "Gadget Reference")
    text = all_text(doc)
    for chrome in ("Home", "Docs menu", "Site banner", "Copyright footer", "secret-tracker", "color: red"):
        assert chrome not in text
    assert [section.section_path for section in doc.sections] == [["Gadgets"], ["Gadgets", "Sizes"]]
    assert doc.sections[1].text.splitlines() == ["Size | Weight", "small | 1 kg", "- first item", "- second item"]


def test_html_prefers_article_and_keeps_its_header_and_code(tmp_path):
    page = """<html><body><div class="sidebar-ish">Outside article text</div>
    <article><header><h1>Deploy Guide</h1></header><p>Intro.</p>
    <h2>Steps</h2><h3>Build</h3><pre># build it
make all</pre><h2>Done</h2><p>Finished.</p></article></body></html>"""
    doc = read_document(write(tmp_path / "page.htm", page))
    assert doc.title == "Deploy Guide"  # no <title>: first h1
    assert "Outside article text" not in all_text(doc)
    assert [(s.section_path, s.text) for s in doc.sections] == [
        (["Deploy Guide"], "Intro."),
        (["Deploy Guide", "Steps", "Build"], "# build it\nmake all"),
        (["Deploy Guide", "Done"], "Finished."),
    ]


def test_html_list_items_with_paragraphs_and_nesting_keep_their_markers(tmp_path):
    page = "<ul><li><p>Para item</p></li><li>Outer<ul><li>Inner</li></ul></li><li></li></ul><p>After list.</p>"
    doc = read_document(write(tmp_path / "lists.html", page))
    assert doc.sections[0].text.splitlines() == ["- Para item", "- Outer", "- Inner", "After list."]


def test_html_in_a_declared_legacy_charset(tmp_path):
    path = tmp_path / "legacy.html"
    path.write_bytes('<meta charset="windows-1252"><p>Caf\u00e9 prices</p>'.encode("cp1252"))
    assert all_text(read_document(path)) == "Caf\u00e9 prices"


# ---------------------------------------------------------------- Markdown


def test_markdown_front_matter_title_fences_and_shortcodes(corpus):
    folder, _ = corpus
    doc = read_document(folder / "good.md")
    assert (doc.kind, doc.title) == ("markdown", "Widget Guide")
    assert [section.section_path for section in doc.sections] == [
        ["Widgets"], ["Widgets", "Install"], ["Widgets", "Configure"]]
    install = doc.sections[1].text
    assert "# not a heading: a shell comment" in install and "./install --all" in install
    assert "Installing twice is harmless." in install and "{{" not in install
    assert doc.sections[2].text.splitlines() == ["| key | default |", "| --- | ------- |", "| knobs | 3 |"]
    assert "weight: 10" not in all_text(doc)


def test_markdown_tilde_fence_comments_and_setext(tmp_path):
    text = """Guide Title
===========

Intro words.
<!-- a comment
# Hidden heading inside a comment
-->
Sub part
--------

~~~python
## not a heading either
~~~
Tail <!-- inline --> words.
"""
    doc = read_document(write(tmp_path / "setext.markdown", text))
    assert doc.title == "Guide Title"
    assert [(s.section_path, s.text) for s in doc.sections] == [
        (["Guide Title"], "Intro words."),
        (["Guide Title", "Sub part"], "~~~python\n## not a heading either\n~~~\nTail  words."),
    ]


def test_markdown_backslash_escapes_are_undone_outside_code(tmp_path):
    text = """# Storage for db\\.m5 instances

Up to 64 TiB on db\\.m5\\.large\\-db\\.m5\\.24xlarge; set `max\\_connections` or max\\_connections \\(see \\*notes\\*\\)\\.
\\# not a heading, a C\\:\\\\path and a \\q that stays

```
grep \\-\\- flags
```
"""
    doc = read_document(write(tmp_path / "escaped.md", text))
    assert doc.title == "Storage for db.m5 instances"
    body, code = doc.sections[0].text.split("\n\n```\n", 1)
    assert body == ("Up to 64 TiB on db.m5.large-db.m5.24xlarge; set `max\\_connections` or max_connections (see *notes*).\n"
                    "# not a heading, a C:\\path and a \\q that stays")
    assert code == "grep \\-\\- flags\n```"  # code is literal
    assert [s.section_path for s in doc.sections] == [["Storage for db.m5 instances"]]


def test_markdown_shortcodes_over_several_lines_and_unclosed_ones(tmp_path):
    text = """# Install

Use the `-b {{< param
  git_version_tag >}}` flag.

```sh
git checkout {{< psubstr version 1 >}}
```

An unclosed {{< oops
stops at the paragraph end.

Next paragraph survives.
"""
    doc = read_document(write(tmp_path / "hugo.md", text))
    assert doc.sections[0].text.splitlines() == [
        "Use the `-b", "` flag.", "", "```sh", "git checkout", "```", "", "An unclosed", "", "Next paragraph survives."]


def test_markdown_toml_front_matter_and_fallback_titles(tmp_path):
    toml = read_document(write(tmp_path / "toml.md", '+++\nlinkTitle = "Short"\n+++\n\nBody text.\n'))
    assert (toml.title, all_text(toml)) == ("Short", "Body text.")
    assert read_document(write(tmp_path / "h1.md", "Lead.\n\n## Sub\n\n# Real Title\n\nx\n")).title == "Real Title"
    assert read_document(write(tmp_path / "bare-notes.md", "just words\n")).title == "bare-notes"


def test_markdown_rule_at_top_is_not_mistaken_for_front_matter(tmp_path):
    doc = read_document(write(tmp_path / "rule.md", "---\n\nPlain words here.\n\n---\n\nMore words.\n"))
    assert "Plain words here." in all_text(doc) and "More words." in all_text(doc)


# ---------------------------------------------------------------- reStructuredText


def test_rst_headings_levels_by_first_appearance_and_directives(tmp_path):
    text = """=============
 Cluster Book
=============

.. _top-target:

Opening words.

Setup
=====

.. note:: Back up first.

Disks
-----

Use SSDs.

Tuning
======

Raise limits.
"""
    doc = read_document(write(tmp_path / "book.rst", text))
    assert (doc.kind, doc.title) == ("rst", "Cluster Book")
    assert [(s.section_path, s.text) for s in doc.sections] == [
        (["Cluster Book"], "Opening words."),
        (["Cluster Book", "Setup"], "Note: Back up first."),
        (["Cluster Book", "Setup", "Disks"], "Use SSDs."),
        (["Cluster Book", "Tuning"], "Raise limits."),
    ]


SPHINX_PAGE = """\
Settings
========

The app reads these keys, see :doc:`Deploying </deploying/index>` and :ref:`the CLI <cli-ref>`.

.. _settings-list:

.. py:data:: CACHE_SIZE
    :type: int

    How many pages :attr:`~shop.App.cache` keeps (:issue:`41`).

    Default: ``100``

    .. versionadded:: 2.2

.. py:data:: CACHE_TTL

    Seconds a page stays cached.

    .. versionchanged:: 2.3 Counted from the last read.

    .. deprecated:: 3.0
        Use ``CACHE_POLICY``.

.. versionchanged:: 1.0
    ``OLD_KEY`` was removed.

.. code-block:: python

    app.config["CACHE_SIZE"] = 10

.. a comment the built page never shows
    with a second line

.. note:: Keys are read once.
"""


def test_rst_reads_as_sphinx_renders_it(tmp_path):
    """Sphinx sources (most Python projects' docs) read as their built pages: version notes in Sphinx's words (the
    timeline quotes them), each described object an entry of its own under the page's heading, roles as their text,
    markup and comments gone. Without this a key's entry was a line `py:data:: CACHE_SIZE` inside one long section
    and its version note read `versionadded:: 2.2`, which no "added in" statement matches."""
    doc = read_document(write(tmp_path / "settings.rst", SPHINX_PAGE))
    assert [" > ".join(s.section_path) for s in doc.sections] == [
        "Settings", "Settings > CACHE_SIZE", "Settings > CACHE_TTL", "Settings"]
    intro, size, ttl, after = (s.text for s in doc.sections)
    assert intro == "The app reads these keys, see Deploying and the CLI."
    assert size.startswith("CACHE_SIZE\n") and ttl.startswith("CACHE_TTL\n")  # the signature line, then its text
    assert "How many pages `cache` keeps (#41)." in size and "Added in version 2.2." in size
    assert ":type:" not in size and "py:data" not in size
    assert "Changed in version 2.3: Counted from the last read." in ttl
    assert "Deprecated since version 3.0." in ttl and "Use ``CACHE_POLICY``." in ttl
    assert after.startswith("Changed in version 1.0.")  # back at the page's level: not CACHE_TTL's note
    assert 'app.config["CACHE_SIZE"] = 10' in after and "code-block" not in after
    assert "comment" not in after and "second line" not in after
    assert after.endswith("Note: Keys are read once.")
    # A page that only includes another (Sphinx's `changes.rst`) is skipped with its reason, not failed.
    with pytest.raises(SkipFile, match="only Sphinx markup"):
        read_document(write(tmp_path / "changes.rst", "Changes\n=======\n\n.. include:: ../CHANGES.rst\n"))


def test_rst_short_underline_and_indented_lines_are_not_headings(tmp_path):
    text = "Intro\n\nA long line of text\n===\n\n    indented\n    ========\n"
    doc = read_document(write(tmp_path / "plain.rst", text))
    assert [s.section_path for s in doc.sections] == [[]]
    assert doc.title == "plain"


# ---------------------------------------------------------------- plain text and decoding


def test_plain_text_title_and_bom(tmp_path):
    path = tmp_path / "release-notes.txt"
    path.write_bytes(b"\xef\xbb\xbfRelease 2.0\n\nFaster startup.\n")
    doc = read_document(path)
    assert (doc.kind, doc.title, all_text(doc)) == ("text", "Release 2.0", "Release 2.0\n\nFaster startup.")
    single = read_document(write(tmp_path / "one-liner.text", "only one line"))
    assert single.title == "one-liner"


def test_utf16_with_bom_reads(corpus):
    folder, _ = corpus
    doc = read_document(folder / "utf16.txt")
    assert all_text(doc) == "UTF-16 notes\nwith a BOM"


def test_text_with_nul_bytes_looks_binary(tmp_path):
    path = tmp_path / "nul.md"
    path.write_bytes(b"# Title\n\nwords\x00more words\n")
    with pytest.raises(ReadFailure, match=r"^not valid UTF-8 text \(looks binary\)$"):
        read_document(path)


def test_magic_bytes_beat_the_extension(tmp_path):
    pdf_as_text = tmp_path / "manual.txt"
    make_pdf(tmp_path / "real.pdf", ["words"])
    pdf_as_text.write_bytes((tmp_path / "real.pdf").read_bytes())
    with pytest.raises(ReadFailure, match="^looks like a PDF file, not plain text$"):
        read_document(pdf_as_text)
    png_as_pdf = tmp_path / "scan.pdf"
    png_as_pdf.write_bytes(png_bytes())
    with pytest.raises(ReadFailure, match="^looks like a PNG image, not a PDF$"):
        read_document(png_as_pdf)


def test_suffixes_are_matched_case_insensitively(tmp_path):
    assert read_document(write(tmp_path / "SHOUT.MD", "# Loud\n\nwords\n")).title == "Loud"
    assert set(SUPPORTED_SUFFIXES) == {".pdf", ".html", ".htm", ".md", ".markdown", ".rst", ".txt", ".text",
                                       ".docx"}


# ---------------------------------------------------------------- real documentation


# Hugo section pages that hold nothing but front matter.
ETCD_FRONT_MATTER_ONLY = {
    f"{folder}/_index.md"
    for folder in ("op-guide", "op-guide/authentication", "dev-guide", "downgrades", "tutorials", "upgrades", "triage",
                   "learning")
}


def test_every_etcd_v35_page_reads_with_title_and_clean_sections():
    files = sorted(ETCD.rglob("*.md"))
    assert len(files) > 50
    for path in files:
        if path.relative_to(ETCD).as_posix() in ETCD_FRONT_MATTER_ONLY:
            with pytest.raises(NoBodyText, match=r"^no body text \(front matter only\)$") as skipped:
                read_document(path)
            assert skipped.value.title, path  # kept for the catalogue
            continue
        doc = read_document(path)
        assert doc.title and doc.title != path.stem, path  # every etcd page has a front-matter title
        assert doc.sections, path
        text = all_text(doc)
        assert "{{<" not in text and "{{%" not in text, path
        assert not text.startswith("---"), path


def test_etcd_configuration_page_structure():
    doc = read_document(ETCD / "op-guide" / "configuration.md")
    assert doc.title == "Configuration options"
    paths = [section.section_path for section in doc.sections]
    assert ["Command-line flags", "Member"] in paths
    member = next(s for s in doc.sections if s.section_path == ["Command-line flags", "Member"])
    assert "--name" in member.text


def test_etcd_shell_comments_in_code_blocks_do_not_become_headings():
    doc = read_document(ETCD / "op-guide" / "container.md")
    headings = {heading for section in doc.sections for heading in section.section_path}
    assert not any("available from" in heading or "For node" in heading for heading in headings)
    assert "# For node 1" in all_text(doc)


def test_etcd_page_with_utf8_bom_keeps_its_front_matter_title():
    path = ETCD / "learning" / "design-auth-v3.md"
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    doc = read_document(path)
    assert doc.title == "etcd v3 authentication design"
    assert doc.sections[0].section_path == ["Why not reuse the v2 auth system?"]


# ---------------------------------------------------------------- encodings (issue 18)


@pytest.mark.parametrize("encoding, expected", [("latin-1", "latin-1"), ("cp1252", "cp1252"), ("utf-16", "utf-16"),
                                                ("cp1251", "cp1251"), ("utf-8", "utf-8")])
def test_text_in_other_encodings_is_decoded_by_detection_and_the_encoding_named(tmp_path, encoding, expected):
    text = {"cp1251": "Настройка кластера: параметр snapshot-count задаёт число записей между снимками.",
            "cp1252": "The operator\u2019s \u201cdefrag\u201d command \u2014 5 \u20ac per caf\u00e9."}.get(
        encoding, "Configuraci\u00f3n del cl\u00faster: el par\u00e1metro controla cu\u00e1ntas entradas.")
    path = tmp_path / "notes.md"
    path.write_bytes(f"# Notes\n\n{text}\n".encode(encoding))
    doc = read_document(path)
    assert (all_text(doc), doc.encoding) == (text, expected)


def test_undecodable_bytes_fail_with_their_offset(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_bytes(b"Menu \x81\x8d\x8f\x90\x9d and more\n")
    with pytest.raises(ReadFailure, match=r"^not valid UTF-8 text \(bad byte at offset 5\) and no other encoding fits"):
        read_document(path)


def test_front_matter_only_page_is_skipped_with_title_and_description(tmp_path):
    path = write(tmp_path / "_index.md", "---\ntitle: Operations guide\ndescription: Running etcd clusters\n---\n\n")
    with pytest.raises(NoBodyText) as skipped:
        read_document(path)
    assert (skipped.value.title, skipped.value.description) == ("Operations guide", "Running etcd clusters")
    with pytest.raises(ReadFailure, match="^no extractable text$"):  # no front matter: nothing to keep, a failure
        read_document(write(tmp_path / "comment.md", "<!-- only a comment -->\n"))


# ---------------------------------------------------------------- Word


def test_docx_headings_become_sections_and_tables_rows(tmp_path):
    doc = read_document(make_docx(tmp_path / "spec.docx"))
    assert (doc.kind, doc.title) == ("docx", "Key service specification")
    by_path = {" > ".join(s.section_path): s.text for s in doc.sections}
    assert by_path == {
        "Key service specification > Key rotation": f"{DOCX_PARAGRAPH}\n- Old keys stay valid for decryption.",
        "Key service specification > Key rotation > Limits": "Setting | Default\nmax-keys | 512\nttl | 24h",
        "Key service specification > Audit": "Every rotation is written to the audit log.",
    }
    assert all(s.page is None for s in doc.sections)  # DOCX has no pages: the section is cited


def test_docx_text_cap_fails_the_file(tmp_path, monkeypatch):
    from assistant.library.readers import word

    monkeypatch.setattr(word, "MAX_DOCX_TEXT_CHARS", 50)
    with pytest.raises(ReadFailure, match="more than 0 million characters"):
        read_document(make_docx(tmp_path / "spec.docx"))
