"""Presence questions (issue 16, round 13): when a name came, went or was deprecated, whether a release has it, in
the words users type: "deprecated since" with no question mark, a name mistyped by one letter, a variable's value
(`_COMPLETE=source_bash`), a heading holding a word of asking ("Allowed Hosts").

Cheap: small timelines built here from a few lines of the real Werkzeug, Jinja2 and Click docs (no index, no
embedding)."""

from __future__ import annotations

import pytest
from small_timeline import small_timeline

from assistant.answering.change_questions import answer_timeline_question
from assistant.answering.timeline_spelling import one_edit
from assistant.library.catalogue import ProductInfo

WERKZEUG = ["1.0.1", "2.0.3", "3.0.6"]
V200 = ("-   Deprecate the ``useragents`` module and the built-in user agent\n    parser. Use a dedicated parser library "
        "instead by subclassing\n    ``user_agent.UserAgent`` and setting ``Request.user_agent_class``.\n    :issue:`2078`")
ENABLING = ("Enable the debugger by wrapping the application with the\n`DebuggedApplication` middleware. Alternatively, "
            "you can pass\n``use_debugger=True`` to `run_simple` and it will do that for you.")
HOSTS = ("The debug console will only be served if the request comes from a trusted host.\nIf a request comes from a "
         "browser page that is not served on a trusted URL, a\n400 error will be returned.")
AGENT = "The ``useragents`` module parses the user agent string: ``UserAgentParser``."
WERKZEUG_DOCS = {
    "1.0.1": {"utils.rst": [("Utilities > User Agent API", AGENT)],
              "debug.rst": [("Debugging Applications > Enabling the Debugger", ENABLING)]},
    "2.0.3": {"CHANGES.rst": [("Version 2.0.0", V200)], "utils.rst": [("Utilities > User Agent API", AGENT)],
              "debug.rst": [("Debugging Applications > Enabling the Debugger", ENABLING)]},
    "3.0.6": {"CHANGES.rst": [("Version 2.0.0", V200)],
              "debug.rst": [("Debugging Applications > Enabling the Debugger", ENABLING),
                            ("Debugging Applications > Allowed Hosts", HOSTS)]},
}
JINJA = ["2.11.3", "3.0.3", "3.1.4"]
ENTRY = ("API > Utilities > jinja2.environmentfunction", ".. autofunction:: jinja2.environmentfunction")
PASS = ("API > Utilities > jinja2.pass_environment", ".. autofunction:: jinja2.pass_environment")
JINJA_DOCS = {"2.11.3": {"api.rst": [ENTRY]}, "3.0.3": {"api.rst": [ENTRY, PASS]}, "3.1.4": {"api.rst": [PASS]}}
CLICK = ["7.1.2", "8.0.0", "8.1.7"]
ACTIVATION = ("If your tool is called ``foo-bar``, then the variable is called\n``_FOO_BAR_COMPLETE``. By exporting it "
              "with the ``source_{shell}``\nvalue it will output the activation script to evaluate.\n\n"
              "    eval \"$(_FOO_BAR_COMPLETE=source_bash foo-bar)\"")
ENABLING_8 = ("The ``_{PROG_NAME}_COMPLETE`` variable tells the program to output the completion script.\n\n"
              "    eval \"$(_FOO_BAR_COMPLETE=bash_source foo-bar)\"")
TOC = ("Welcome to Click > Documentation", "This part of the documentation guides you through all of the library's\n"
       "usage patterns.\n\n   why\n   quickstart\n   testing\n   utils\n   bashcomplete\n   exceptions")
CLICK_DOCS = {"7.1.2": {"bashcomplete.rst": [("Shell Completion > Activation", ACTIVATION)], "index.rst": [TOC]},
              "8.0.0": {"shell-completion.rst": [("Shell Completion > Enabling Completion", ENABLING_8)]},
              "8.1.7": {"shell-completion.rst": [("Shell Completion > Enabling Completion", ENABLING_8)]}}


@pytest.fixture(scope="module")
def catalogue_and_timelines(tmp_path_factory):
    root = tmp_path_factory.mktemp("presence")
    timelines = {}
    for name, docs in (("werkzeug", WERKZEUG_DOCS), ("jinja2", JINJA_DOCS), ("click", CLICK_DOCS)):
        timelines[name] = small_timeline(root / f"{name}.sqlite", name, docs)
    return timelines


def ask(timelines, product, releases, question):
    return answer_timeline_question(question, [ProductInfo(product, product.title(), [], releases)], timelines[product])


def test_a_trailing_since_asks_a_time_as_since_with_a_question_mark_does(catalogue_and_timelines):
    """"useragents module deprecated since" (typed without "?"): its deprecation, stated in 2.0.0's notes that 2.0.3
    brought. Before, a bare "since" asked nothing and the question was searched."""
    a = ask(catalogue_and_timelines, "werkzeug", WERKZEUG, "useragents module deprecated since")
    assert a is not None and a.kind == "deprecated", a
    assert a.answer.startswith("`useragents` is deprecated as of werkzeug 2.0.3"), a.answer


def test_one_edit_is_one_letter_missing_extra_wrong_or_swapped():
    assert one_edit("enviromentfunction", "environmentfunction")  # missing
    assert one_edit("contextfiltter", "contextfilter") and one_edit("contextfiltar", "contextfilter")
    assert one_edit("contxetfilter", "contextfilter")  # two neighbours swapped
    assert not one_edit("contextfilter", "contextfilter") and not one_edit("contextfunction", "contextfilter")
    assert not one_edit("cnotxetfilter", "contextfilter")


def test_a_name_mistyped_by_one_letter_is_the_name_the_docs_hold(catalogue_and_timelines):
    """"enviromentfunction" is in no release; `jinja2.environmentfunction`'s entry is in 2.11.3 and 3.0.3: removed in
    3.1.4. Before, no term was found and the question was searched."""
    a = ask(catalogue_and_timelines, "jinja2", JINJA, "enviromentfunction removed in what release")
    assert a is not None and a.kind == "removed" and a.term == "environmentfunction", a
    assert a.answer.startswith("`environmentfunction` was removed in jinja2 3.1.4"), a.answer


def test_a_value_assigned_to_a_variable_is_the_name_asked_about(catalogue_and_timelines):
    """"_COMPLETE=source_bash": the variable is in every release, its value `source_bash` only in 7.1.2 (8.0.0 spells
    it bash_source): dropped in 8.0.0. Before, the answer was about `_COMPLETE`, "not removed"."""
    a = ask(catalogue_and_timelines, "click", CLICK, "when was _COMPLETE=source_bash dropped")
    assert a is not None and a.term == "source_bash", a
    assert a.answer.startswith("`source_bash` was removed in click 8.0.0"), a.answer


def test_a_heading_holding_a_word_of_asking_is_found_and_its_absence_answered(catalogue_and_timelines):
    """"Allowed Hosts" ("allowed" is a word of asking elsewhere) is a heading of 3.0.6 only; "section", "docs" say
    where it is asked, "debugger" is the feature, not a how-to: 2.0.3 lacks it. Before: searched."""
    a = ask(catalogue_and_timelines, "werkzeug", WERKZEUG, "Allowed Hosts section in debugger docs for 2.0.3?")
    assert a is not None and a.kind == "in_release" and a.term == "allowed hosts", a
    assert a.answer.startswith("No: werkzeug 2.0.3 does not mention"), a.answer


def test_two_places_of_one_heading_tie_broken_by_the_words_unsaid(tmp_path):
    """"promtool test > promtool test rules" and "Flags > promtool test rules" both hold every word said; the place
    saying nothing unasked ("Flags") wins, in every run. Before, a set's hash order chose, differing from run to run."""
    from assistant.answering.timeline_words import heading_match
    rows = [("promtool test > promtool test rules", "Unit tests for rules."),
            ("Flags > promtool test rules", "The --run flag.")]
    timeline = small_timeline(tmp_path / "t.sqlite", "prometheus", {"v2.53.0": {"cli.md": rows[:1],
                                                                                 "flags.md": rows[1:]}})
    found = heading_match("only run some of my rule test groups with promtool - since?", timeline, ["prometheus"])
    assert found == ("promtool test rules", "promtool test > promtool test rules", "prometheus")


HASH = ("Utilities > Security Helpers > generate_password_hash", "generate_password_hash")
V300 = "-   ``generate_password_hash`` uses scrypt by default. #2769"
V230 = ("-   ``generate_password_hash`` supports scrypt. Plain hash methods are deprecated, only\n"
        "    scrypt and pbkdf2 are supported. #2654")
V061 = ("Version 0.6.1", "- added secure password hashing and checking functions.")
REGISTER = ("Blueprints and Views > The First View: Register", "The password is hashed with ``generate_password_hash`` "
            "for security.")


@pytest.fixture(scope="module")
def two_products(tmp_path_factory):
    """Werkzeug documents generate_password_hash in every release, scrypt only in 3.0.6's notes; Flask's tutorial
    names generate_password_hash in every release and never scrypt. One timeline holds both products."""
    path = tmp_path_factory.mktemp("varying") / "timeline.sqlite"
    small_timeline(path, "flask", {r: {"tutorial/views.rst": [REGISTER]} for r in ("1.1.4", "2.2.5", "3.0.3")})
    docs = {"1.0.1": {"utils.rst": [HASH], "CHANGES.rst": [V061]}, "2.0.3": {"utils.rst": [HASH], "CHANGES.rst": [V061]},
            "3.0.6": {"utils.rst": [HASH], "CHANGES.rst": [("Version 3.0.0", V300), ("Version 2.3.0", V230), V061]}}
    return small_timeline(path, "werkzeug", docs)


CATALOGUE2 = [ProductInfo("flask", "Flask", [], ["1.1.4", "2.2.5", "3.0.3"]),
              ProductInfo("werkzeug", "Werkzeug", [], WERKZEUG)]


def test_of_two_names_said_the_one_whose_releases_differ_is_asked_about(two_products):
    """"when did generate_password_hash switch to scrypt": the function is in every release (its coming would be "the
    oldest release"), scrypt came in 3.0.6, and only Werkzeug's docs hold both. Before: no kind decided, searched."""
    a = answer_timeline_question("when did generate_password_hash switch to scrypt", CATALOGUE2, two_products)
    assert a is not None and a.kind == "introduced" and a.product == "werkzeug" and a.term == "scrypt", a
    assert a.answer.startswith("`scrypt` first appears in werkzeug 3.0.6"), a.answer


def test_the_name_found_everywhere_is_context_not_another_thing_asked(two_products):
    """"scrypt password hashing in 2.0?": "password hashing" places scrypt, it asks nothing more: 2.0.3 lacks
    scrypt, "No". Before: the term was "password hashing", in every release, and the question was searched."""
    a = answer_timeline_question("scrypt password hashing in 2.0?", CATALOGUE2, two_products)
    assert a is not None and a.kind == "in_release" and a.term == "scrypt", a
    assert a.answer.startswith("No: werkzeug 2.0.3 does not mention `scrypt`"), a.answer


ETCD = ["v3.4", "v3.5", "v3.6"]
V2STORE = ("- Manually remove the v2 custom data from the data directory, or - Start etcd with the flag\n"
           "`--v2-deprecation=write-only-skip-check` so that the v2store check is skipped on startup.")
FLAGS = "--v2-deprecation 'not-yet'\n  Phase of v2store deprecation. Allows to opt-in for higher compatibility mode."


def test_a_hyphenated_name_is_neither_a_cue_nor_a_release_mention(tmp_path):
    """"a v2-deprecation mode ... first documented in which release": "deprecation" is part of the name, not its
    deprecation asked; "v2" is the name's, not a release said. The flag came in v3.5. Before: asked as a deprecation
    of "-deprecation", a name no release holds, and searched."""
    docs = {"v3.4": {"op-guide/configuration.md": [("Configuration flags > Member flags", "--snapshot-count 10000")]},
            "v3.5": {"op-guide/configuration.md": [("Configuration flags > Member flags", FLAGS)],
                     "upgrades/upgrade_3_6.md": [("Upgrade etcd from 3.5 to 3.6 > Preparation", V2STORE)]},
            "v3.6": {"op-guide/configuration.md": [("Configuration flags > Member flags", FLAGS)]}}
    timeline = small_timeline(tmp_path / "t.sqlite", "etcd", docs)
    a = answer_timeline_question("theres a v2-deprecation mode that skips the v2store check on startup, first "
                                 "documented in which release", [ProductInfo("etcd", "etcd", [], ETCD)], timeline)
    assert a is not None and a.kind == "introduced" and a.term == "--v2-deprecation", a
    assert a.answer.startswith("`--v2-deprecation` first appears in etcd v3.5"), a.answer


def test_an_identifier_mistyped_by_one_letter_is_the_name_the_docs_hold(catalogue_and_timelines):
    """"pass_enviroment" is no name of the docs; `jinja2.pass_environment` is, from 3.0.3. Before: "No release
    mentions `pass_enviroment`"."""
    a = ask(catalogue_and_timelines, "jinja2", JINJA, "pass_enviroment added when?")
    assert a is not None and a.kind == "introduced" and a.term == "pass_environment", a
    assert a.answer.startswith("`pass_environment` first appears in jinja2 3.0.3"), a.answer


def test_a_page_asked_by_its_file_name_is_a_name(catalogue_and_timelines):
    """"bashcomplete" is a plain lowercase word of the question, but it is the name of 7.1.2's page bashcomplete.rst
    (listed in its table of contents): asked of 8.1.7, which lacks it, "No". Before: a plain word, read by no shape
    of a name's question, and searched."""
    a = ask(catalogue_and_timelines, "click", CLICK, "bashcomplete - still around in 8.1.7?")
    assert a is not None and a.kind == "in_release", a
    assert a.answer.startswith("No: click 8.1.7 does not mention `bashcomplete`. It appears in 7.1.2"), a.answer


def test_a_page_asked_by_its_file_name_is_not_left_to_the_search_of_plain_words(catalogue_and_timelines):
    """The timeline stage searches the releases for a question's plain words; a page's file name is no plain words:
    on the real library the search answered "Yes: 8.1.7 has the section Version 8.0.0" for "bashcomplete"."""
    from assistant.answering.timeline_search import _plain
    timeline = catalogue_and_timelines["click"]
    assert not _plain("bashcomplete - still around in 8.1.7?", "bashcomplete", timeline, "click")
    assert _plain("shell completion - still around in 8.1.7?", "shell completion", timeline, "click")


DATA_FILES = "Configuring from Data Files"
FROM_FILE_22 = ("It is also possible to load configuration from a file in a format of\nyour choice using "
                ":meth:`~flask.Config.from_file`. For example to load from a\nTOML file:\n\n    import toml\n"
                "    app.config.from_file(\"config.toml\", load=toml.load)")
FROM_FILE_30 = ("It is also possible to load configuration from a file in a format of\nyour choice using "
                ":meth:`~flask.Config.from_file`. For example to load from a\nTOML file:\n\n    import tomllib\n"
                "    app.config.from_file(\"config.toml\", load=tomllib.load, text=False)")


def test_a_thing_described_by_two_names_came_when_the_later_one_did(tmp_path):
    """"loading config from a TOML file with tomllib, since which flask?": `config.from_file` (the words' name) came
    in 2.2.5, `tomllib` in 3.0.3, and loading with tomllib needs both. Before: "config.from_file first appears in
    2.2.5"."""
    docs = {"1.1.4": {"config.rst": [("Configuration Handling", "The config is a dict.")]},
            "2.2.5": {"config.rst": [(f"Configuration Handling > {DATA_FILES}", FROM_FILE_22)]},
            "3.0.3": {"config.rst": [(f"Configuration Handling > {DATA_FILES}", FROM_FILE_30)]}}
    timeline = small_timeline(tmp_path / "t.sqlite", "flask", docs)
    a = answer_timeline_question("loading config from a TOML file with tomllib, since which flask?",
                                 [ProductInfo("flask", "Flask", [], ["1.1.4", "2.2.5", "3.0.3"])], timeline)
    assert a is not None and a.kind == "introduced" and a.term == "tomllib", a
    assert a.answer.startswith("`tomllib` first appears in flask 3.0.3"), a.answer
