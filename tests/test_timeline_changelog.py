"""Changelogs read per version (issue 16, round 11). A cumulative changelog (Flask's and Click's CHANGES.rst) holds
every older version's section in every later release: such a section is the history of its version. It tells what
changed in that version, so it counts in the release that brought that version, never as the term being present in a
later release, and a typo fixed in it is no change of the newer release.

Cheap: a small timeline built here from a three-release changelog and reference page (no index, no embedding)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from small_timeline import small_timeline

from assistant.answering.change_questions import answer_timeline_question
from assistant.library.catalogue import ProductInfo
from assistant.library.diffs import diff_releases, history_version, in_window, release_of
from assistant.library.timeline import SectionRow

RELEASES = ["1.1.4", "2.2.5", "3.0.3"]
V220 = ("- Add the ``JSONProvider`` class. Setting ``app.json_encoder`` is deprecated.\n"
        "- The ``OldEncoder`` class is deprecated.\n- ``old_filter`` takes a ``key`` argument.")
V230 = ("- ``OldEncoder`` is removed.\n- Drop support for Python 3.7.\n- The view helpers are renamed. The old names are\n"
        "  deprecated.\n\n    - ``render_view`` replaces ``old_render`` and\n      ``old_show``.")
V100 = "- Add ``OldEncoder`` for JSON. Fix a typo in the tutorial."
# release -> path -> [(breadcrumb, text)]; each release's CHANGES.rst holds every older version's section again.
DOCS = {
    "1.1.4": {"CHANGES.rst": [("Version 1.1.4", "- Fix a crash."), ("Version 1.0.0", V100)],
              "api.rst": [("API > JSON", "The ``OldEncoder`` class encodes JSON. Sort it with ``old_filter``."),
                          ("API > App", "Set the ``json_encoder`` attribute to change JSON.")]},
    "2.2.5": {"CHANGES.rst": [("Version 2.2.5", "- Fix a leak."), ("Version 2.2.0", V220),
                              ("Version 1.1.4", "- Fix a crash."), ("Version 1.0.0", V100)],
              "api.rst": [("API > JSON", "The ``OldEncoder`` class encodes JSON. Deprecated since version 2.2."),
                          ("API > Views", "Call ``old_render`` or ``old_show`` to render a view."),
                          ("API > Utilities > webfw.old_filter", ".. autofunction:: webfw.old_filter")],
              "installation.rst": [("Installation > Python Version", "We recommend the latest version of Python. "
                                    "Webfw supports Python\n3.7 and newer.")]},
    # 3.0.3's changelog also fixes a typo in the 1.0.0 section: no change of 3.0.3.
    "3.0.3": {"CHANGES.rst": [("Version 3.0.3", "- Fix a bug."), ("Version 2.3.0", V230), ("Version 2.2.5", "- Fix a leak."),
                              ("Version 2.2.0", V220), ("Version 1.1.4", "- Fix a crash."),
                              ("Version 1.0.0", V100.replace("typo", "spelling mistake"))],
              "api.rst": [("API > JSON", "The ``JSONProvider`` class encodes JSON.")],
              "installation.rst": [("Installation > Python Version", "Webfw supports Python 3.8 and newer.")]},
}


@pytest.fixture(scope="module")
def timeline(tmp_path_factory):
    path = tmp_path_factory.mktemp("changelog") / "timeline.sqlite"
    return small_timeline(path, "webfw", {r: DOCS[r] for r in RELEASES})


CATALOGUE = [ProductInfo("webfw", "Webfw", [], RELEASES)]


def ask(timeline, question):
    return answer_timeline_question(question, CATALOGUE, timeline)


def test_a_version_section_is_known_by_its_heading_shape_in_release_notes_only():
    assert history_version("CHANGES.rst", "Version 8.0.0") == "8.0.0"
    assert history_version("CHANGELOG.md", "2.53.0 / 2024-06-16") == "2.53.0"
    assert history_version("CHANGELOG.md", "[1.2.3] - 2024-01-02") == "1.2.3"
    assert history_version("CHANGES.rst", "Version 3.1.0 (Unreleased)") == "3.1.0"
    assert history_version("CHANGELOG.md", "v3.5.0 > Bug fixes") == "3.5.0"
    assert history_version("upgrading.rst", "Upgrading to Newer Releases > Version 2.0") == "2.0"
    assert history_version("CHANGELOG.md", "3.5 upgrade guide") is None
    assert history_version("api.rst", "Version 8.0.0") is None  # no release notes: a heading like any other
    assert release_of("2.3.0", RELEASES) == "3.0.3" and release_of("2.2.0", RELEASES) == "2.2.5"
    assert release_of("3.5.2", ["v3.4", "v3.5", "v3.6"]) == "v3.5" and release_of("9.0", RELEASES) is None
    row = SectionRow("3.0.3", "CHANGES.rst", 5, "Version 1.0.0", "d", V100)
    assert not in_window(row, "2.2.5", "3.0.3", RELEASES)
    assert in_window(replace(row, heading="Version 2.3.0"), "2.2.5", "3.0.3", RELEASES)
    assert in_window(replace(row, path="api.rst"), "2.2.5", "3.0.3", RELEASES)  # any other section counts


def test_a_typo_fixed_in_an_old_version_section_is_no_change_of_the_newer_release(timeline):
    diff = diff_releases(timeline, "webfw", "2.2.5", "3.0.3")
    changelog = {(c.kind, c.heading) for c in diff.changes if c.path == "CHANGES.rst"}
    assert changelog == {("added", "Version 3.0.3"), ("added", "Version 2.3.0")}
    a = ask(timeline, "what changed in webfw 3.0.3?")
    assert a.kind == "changed_in" and "Version 1.0.0" not in a.answer and "Version 2.3.0" in a.answer


def test_an_old_version_section_is_no_sign_a_later_release_has_the_term(timeline):
    """3.0.3's changelog names OldEncoder in the 1.0.0 and 2.2.0 sections (history) and in 2.3.0's, which says it went:
    3.0.3 does not have it. The written spelling is the docs' (`OldEncoder`, not the timeline's key)."""
    a = ask(timeline, "OldEncoder still there in 3.0.3?")
    assert a.kind == "in_release" and a.answer.startswith("No"), a.answer
    assert "`OldEncoder`" in a.answer and "It appears in 1.1.4, 2.2.5 [" in a.answer  # never "in ... 3.0.3"
    listed = ask(timeline, "which webfw releases document OldEncoder")
    assert listed.kind == "which_releases"
    assert "3.0.3" not in listed.answer.splitlines()[0] and "2.2.5" in listed.answer.splitlines()[0]


def test_a_deprecation_stated_of_the_qualified_name_is_the_docs_statement(timeline):
    """1.1.4 documents `json_encoder` bare; 2.2.0's notes deprecate it only as ``app.json_encoder`` (the token rule
    never matches a name after "app."): the statement is read, 2.2.5 named."""
    a = ask(timeline, "json_encoder deprecated in which release")
    assert a.kind == "deprecated" and a.answer.split(":")[0].endswith("2.2.5"), a.answer
    assert "app.json_encoder`` is deprecated" in a.answer


def test_another_softwares_version_is_compared_as_the_docs_state_it(timeline):
    """"min python version": the sentence of each release's docs (not its notes, which name Python 3.7 as dropped in
    2.3.0) saying which Python versions it supports, both quoted."""
    a = ask(timeline, "min python version change from webfw 2.2.5 to 3.0.3?")
    assert a.answer.startswith("Yes"), a.answer
    assert "Python 3.7 and newer" in a.answer and "Python 3.8 and newer" in a.answer
    assert [c.path for c in a.cited] == ["installation.rst", "installation.rst"]


def test_a_change_asked_yes_or_no_after_another_clause_is_answered_yes_or_no(timeline):
    """The question opens with its topic; "did it change" comes after: the listing of what changed opens "Yes"."""
    a = ask(timeline, "the JSON classes: OldEncoder or JSONProvider? did it change 2.2.5 to 3.0.3")
    assert a.kind == "changed_between" and a.answer.startswith("Yes: what changed"), a.answer


def test_the_software_after_a_word_of_its_lowest_version_asks_its_versions(timeline):
    """"did the minimum python change": no "python version" said, the same comparison of the docs' statements."""
    a = ask(timeline, "did the minimum python change from webfw 2.2.5 to 3.0.3")
    assert a.answer.startswith("Yes"), a.answer
    assert "Python 3.7 and newer" in a.answer and "Python 3.8 and newer" in a.answer


def test_a_note_that_another_name_replaces_the_term_is_its_deprecation(timeline):
    """2.3.0's notes say the old names are deprecated in a parent line and name them in a nested one ("``render_view``
    replaces ``old_render`` and ``old_show``", wrapped): each replaced name is deprecated in the release that brought
    2.3.0 (3.0.3); the name that replaces them is not deprecated."""
    for term in ("old_render", "old_show"):
        a = ask(timeline, f"{term} deprecated since?")
        assert a.kind == "deprecated" and a.answer.split(":")[0].endswith("3.0.3"), a.answer
    assert ask(timeline, "render_view deprecated since?").answer.startswith("No release")


def test_a_bare_name_documented_only_by_its_qualified_entry_is_present_there(timeline):
    """1.1.4 names `old_filter` in prose; 2.2.5 documents it only as its own entry `webfw.old_filter` (autodoc) beside
    the 2.2.0 notes naming it: 2.2.5 has it, 3.0.3 (no entry) removed it. Before, 2.2.5 named it only as a change."""
    a = ask(timeline, "old_filter removed in which release")
    assert a.kind == "removed" and a.answer.startswith("`old_filter` was removed in webfw 3.0.3"), a.answer
    assert "the last release that documents it is 2.2.5" in a.answer, a.answer


def test_a_first_mention_in_a_changelog_names_the_version_the_changelog_gives(timeline):
    # 2.2.5 is the first release of the library to carry JSONProvider, in its changelog's "Version 2.2.0": the docs'
    # own version is the answer an engineer upgrading from 1.1.4 needs, beside the library's release.
    answer = ask(timeline, "when was JSONProvider added?").answer
    assert answer.startswith("`JSONProvider` first appears in webfw 2.2.5 [1], in its changelog's Version 2.2.0;"), answer


def test_the_notes_are_quoted_by_the_entry_that_names_the_term(timeline):
    # A window of lines around the term quoted the neighbouring entry too ("... is removed. - Drop support for
    # Python 3.7."); Jinja2's urlize quote began in the entry before and stopped mid-sentence.
    answer = ask(timeline, "what changed in 3.0.3 about OldEncoder?").answer
    assert 'The 3.0.3 notes state: "``OldEncoder`` is removed." [1]' in answer, answer
