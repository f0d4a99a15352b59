"""Change questions answered from a changelog's entries (issue 16, round 13): what the docs say changed when the
reference pages no longer say it (an autodoc entry with no body, a sentence dropped), the changelog's names that head
a reference section added or removed, a topic of a few words compared between two releases, a key's own comment
reworded in a configuration reference, and a product said by its name without its major version ("tmpl" for tmpl2),
which is no term and names no area. A few lines of Jinja's, Werkzeug's and Prometheus's own docs and changelogs.

Cheap: a small timeline built here from three releases' pages (no index, no embedding)."""

from __future__ import annotations

import pytest
from small_timeline import small_timeline

from assistant.answering.change_areas import asked_words, section_delta
from assistant.answering.change_questions import answer_timeline_question
from assistant.answering.timeline_questions import parse_timeline_question
from assistant.library.catalogue import ProductInfo
from assistant.library.diffs import SectionChange, entries_saying
from assistant.library.timeline import SectionRow

RELEASES = ["2.11.3", "3.0.3", "3.1.4"]
V300 = ("Released 2021-05-11\n\n-   Drop support for Python 2.7 and 3.5.\n-   Use PEP 451 API to load templates with\n"
        "    `PackageLoader`. #1168\n-   The ``urlize`` filter recognizes ``mailto:`` links and takes\n"
        "    ``extra_schemes`` to recognize other schemes.\n-   ``generate_password_hash`` uses scrypt by default.\n"
        "-   Add ``pass_context`` to replace ``contextfunction``.\n"
        "-   Combine ``BaseRequest`` and the mixins into a single ``Request`` class.\n"
        "-   Fix automatic escaping of attributes.")
V302 = "Released 2021-10-04\n\n-   ``PackageLoader`` will not include a current directory (.) path segment."
OLD_INTRO = ("If you wish to use the `PackageLoader` class, you will also\nneed `setuptools`_ or `distribute`_ "
             "installed at runtime.")
V2110 = "-   `PackageLoader` doesn't depend on setuptools or pkg_resources."
PAGES = {"index.rst": [("Tmpl", "Tmpl is a fast, expressive, extensible templating engine.")],
         "templates.rst": [("Templates > Builtin Filters > urlize", "Converts URLs in plain text into links."),
                           ("Templates > Escaping", "The default configuration is no automatic escaping.")],
         "utils.rst": [("Utilities > Security Helpers > generate_password_hash", "generate_password_hash"),
                       ("Utilities > Security Helpers", "Added secure password hashing and checking functions.")]}
DOCS = {
    "2.11.3": {**PAGES, "intro.rst": [("Introduction > Prerequisites", OLD_INTRO)],
               "api.rst": [("API > Utilities > contextfunction", "Marks a function as context callable."),
                           ("API > Wrappers > BaseRequest", "Very basic request object.")],
               "CHANGES.rst": [("Version 2.11.3", "-   Fix a crash."), ("Version 2.11.0", V2110)]},
    "3.0.3": {**PAGES, "index.rst": [("Tmpl", "Tmpl is a fast, expressive, extensible templating engine. Changes.")],
              "api.rst": [("API > Utilities > pass_context", "Passes the context as the first argument.")],
              "intro.rst": [("Introduction > Prerequisites", "Tmpl supports Python 3.6 and newer.")],
              "CHANGES.rst": [("Version 3.0.3", "-   Fix a leak."), ("Version 3.0.2", V302), ("Version 3.0.0", V300),
                              ("Version 2.11.3", "-   Fix a crash."), ("Version 2.11.0", V2110)]},
    "3.1.4": {**PAGES, "intro.rst": [("Introduction > Prerequisites", "Tmpl supports Python 3.7 and newer.")]},
}
CATALOGUE = [ProductInfo("tmpl2", "tmpl2", [], RELEASES)]


@pytest.fixture(scope="module")
def timeline(tmp_path_factory):
    path = tmp_path_factory.mktemp("entries") / "timeline.sqlite"
    return small_timeline(path, "tmpl2", {r: DOCS[r] for r in RELEASES})


def ask(timeline, question):
    return answer_timeline_question(question, CATALOGUE, timeline)


def test_the_entries_saying_the_words_asked_are_those_of_the_versions_after_the_older_release(timeline):
    found = entries_saying(timeline, "tmpl2", "2.11.3", "3.0.3", {"password", "hashing", "default"})
    assert [(t, s.heading) for t, s in found] == [("``generate_password_hash`` uses scrypt by default.",
                                                   "Version 3.0.0")]
    # 2.11.0's entry names setuptools too, but 2.11.0 came before 2.11.3: no change between 2.11.3 and 3.0.3.
    assert entries_saying(timeline, "tmpl2", "2.11.3", "3.0.3", {"setuptools", "pkg_resources"}, least=1) == []
    # Ties go to the oldest version: the change came with it (3.0.2's entry only fixes it up).
    tied = entries_saying(timeline, "tmpl2", "2.11.3", "3.0.3", {"packageloader"}, least=1)
    assert [s.heading for _, s in tied] == ["Version 3.0.0", "Version 3.0.2"]


def test_a_value_the_reference_page_never_states_is_the_changelogs_entry(timeline):
    """The autodoc entry has no body: both releases read alike, the 3.0.0 entry says the default changed."""
    a = ask(timeline, "password hashing default between 2.11.3 and 3.0.3")
    assert a is not None and a.answer.startswith("Yes"), a
    assert "uses scrypt by default" in a.answer
    assert {c.release for c in a.cited} == {"2.11.3", "3.0.3"}


def test_an_entry_naming_the_words_alone_is_no_change_of_what_is_asked(timeline):
    """3.0.0's entry names automatic escaping, not its default: the pages reading alike say "No"."""
    a = ask(timeline, "did the automatic escaping default change between 2.11.3 and 3.0.3?")
    assert a is not None and a.answer.startswith("No"), a


def test_a_topic_of_a_few_words_between_two_releases_is_a_comparison(timeline):
    a = ask(timeline, "urlize filter between 2.11 and 3.0")
    assert a is not None and "extra_schemes" in a.answer, a


def test_a_sentence_the_newer_docs_dropped_is_answered_with_the_changelog_entry_naming_its_code(timeline):
    a = ask(timeline, "does PackageLoader still need setuptools in tmpl 3.0")
    assert a is not None and a.answer.startswith("Yes"), a
    assert "need `setuptools`_" in a.answer and "Use PEP 451 API to load templates" in a.answer
    assert [c.release for c in a.cited] == ["2.11.3", "3.0.3"]


def test_the_product_said_without_its_major_version_is_no_term_and_no_area(timeline):
    q = parse_timeline_question("is autoescaping still off by default in tmpl 3.1 or did that change from 2.11",
                                CATALOGUE, timeline)
    assert q is not None and q.term != "tmpl" and "tmpl" not in q.topic, q  # before: the term `tmpl`
    # Nor a word naming an area: Jinja's index.rst is titled "Jinja", and "what changed in jinja 3.0" was answered
    # with that page's one line changed.
    q = parse_timeline_question("what changed in tmpl 3.0", CATALOGUE, timeline)
    assert asked_words(q, "what changed in tmpl 3.0") == set()
    a = ask(timeline, "what changed in tmpl 3.0")
    assert a is not None and "pass_context" in a.answer, a


def test_the_changelogs_names_heading_a_reference_section_added_or_removed_are_listed_apart(timeline):
    """A long changelog lists them late (Werkzeug 2.0: `BaseRequest` after 40 other names); the API sections gone and
    new show them."""
    a = ask(timeline, "what changed in tmpl 3.0")
    assert a is not None, a
    line = next(ln for ln in a.answer.splitlines() if "the reference pages' sections" in ln)
    assert line.endswith("are on: pass_context, BaseRequest."), line


# Prometheus's configuration reference, v2.53.0 then v3.5.0: a key's comment reworded, a neighbour's alike.
CONFIG_OLD = """# If a label value is longer than this number post metric-relabeling, the
# entire scrape will be treated as failed. 0 means no limit.
[ label_value_length_limit: <int> | default = 0 ]
# Per-scrape limit on length of labels name that will be accepted for a sample.
# If a label name is longer than this number post metric-relabeling, the entire
# scrape will be treated as failed. 0 means no limit.
[ label_name_length_limit: <int> | default = 0 ]"""
CONFIG_NEW = """# If a label value is longer than this number post metric-relabeling, the
# entire scrape will be treated as failed. 0 means no limit.
[ label_value_length_limit: <int> | default = 0 ]
# Limit on the length (in bytes) of each individual label name. If any label
# name in a scrape is longer than this number post metric-relabeling, the
# entire scrape will be treated as failed. Note that label names are UTF-8
# encoded, and characters can take up to 4 bytes. 0 means no limit.
[ label_name_length_limit: <int> | default = 0 ]"""


def test_a_keys_comment_reworded_is_shown_old_beside_new_first():
    """Line by line its lines paired with the neighbour key's comment (written alike); now the key's own comment,
    old beside new, comes first."""
    rows = [SectionRow(r, "configuration.md", 3, "Configuration file > <scrape_config>", r, t)
            for r, t in (("v2.53.0", CONFIG_OLD), ("v3.5.0", CONFIG_NEW))]
    was, now = section_delta(SectionChange("changed", "configuration.md", *rows), 3, ["label_name_length_limit"])[0]
    assert was.startswith("Per-scrape limit on length of labels name that will be accepted"), was
    assert now.startswith("Limit on the length (in bytes) of each individual label name."), now
