"""A behaviour said in words, asked as still so in a newer release (issue 16, round 12): the older release's docs
sentence that says the question's words, looked for in the newer release ("No": it reads the same, quoted; "Yes":
old beside new). Before, such a question (no name, no notes heading saying it) was searched and answered empty.

Cheap: a small timeline built here from two releases' pages (no index, no embedding)."""

from __future__ import annotations

import pytest
from small_timeline import small_timeline

from assistant.answering.change_questions import answer_timeline_question
from assistant.library.catalogue import ProductInfo

RELEASES = ["1.0.1", "2.0.3"]
DOCS = {
    "1.0.1": {"api.rst": [("API > Async", "Async support needs the asyncio module. By default, async support is "
                                          "disabled.\nEnable it on the environment.")],
              "serving.rst": [("Serving > Reloader", "The reloader watches the files. If the ``watchdog`` package is "
                                                     "installed and available it will automatically be used.")],
              "CHANGES.rst": [("Version 1.0.1", "- Async support is disabled by default now.")]},
    "2.0.3": {"api.rst": [("API > Async", "Async support needs the asyncio module. By default, async\nsupport is "
                                          "disabled. Enable it on the environment.")],
              "serving.rst": [("Serving > Reloader", "The reloader watches the files. The ``stat`` reloader is "
                                                     "always used: installed watchers are not used automatically.")],
              "CHANGES.rst": [("Version 2.0.3", "- Fix a crash."), ("Version 1.0.1", "- Async support is disabled "
                                                                                     "by default now.")]},
}


@pytest.fixture(scope="module")
def timeline(tmp_path_factory):
    path = tmp_path_factory.mktemp("sentences") / "timeline.sqlite"
    return small_timeline(path, "tmplfw", {r: DOCS[r] for r in RELEASES})


def ask(timeline, question):
    return answer_timeline_question(question, [ProductInfo("tmplfw", "Tmplfw", [], RELEASES)], timeline)


def test_a_behaviour_still_so_is_the_same_docs_sentence_in_both_releases(timeline):
    """Re-wrapped in 2.0.3, the sentence reads the same: "No", quoted, the docs cited (never the changelog)."""
    a = ask(timeline, "async suport still disabled by default? 1.0 -> 2.0")
    assert a is not None and a.answer.startswith("No"), a
    assert '"By default, async support is disabled."' in a.answer
    assert [c.path for c in a.cited] == ["api.rst", "api.rst"]


def test_a_behaviour_no_longer_so_quotes_old_beside_new(timeline):
    a = ask(timeline, "is the file watcher still used automatically when installed, 1.0 vs 2.0?")
    assert a is not None and a.answer.startswith("Yes"), a
    assert "will automatically be used" in a.answer and "not used automatically" in a.answer
