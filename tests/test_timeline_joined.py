"""Names said as their words (issue 16, round 14): "the auto compaction mode default" names the flag
`--auto-compaction-mode`, not the heading "Auto Compaction" its first two words make.

Cheap: a small timeline built here from a few lines of the real etcd 3.4 docs (no index, no embedding)."""

from __future__ import annotations

from small_timeline import small_timeline

from assistant.answering.timeline_words import find_term

MODE = ("Configuration flags > Clustering flags > --auto-compaction-mode",
        "+ Interpret 'auto-compaction-retention' one of: 'periodic', 'revision'. 'periodic' for duration based "
        "retention, defaulting to hours if no time unit is provided (e.g. '5m'). 'revision' for revision number based "
        "retention.\n+ default: periodic\n+ env variable: ETCD_AUTO_COMPACTION_MODE")
AUTO = ("Maintenance > Auto Compaction",
        "`etcd` can be set to automatically compact the keyspace with the `--auto-compaction-*` option with a period "
        "of hours:")
DOCS = {"op-guide/configuration.md": [MODE], "op-guide/maintenance.md": [AUTO]}


def test_a_flag_said_as_its_words_in_order_goes_before_a_shorter_heading(tmp_path):
    """Before: "auto compaction", the heading the first two words make, was the term, and its text was compared."""
    timeline = small_timeline(tmp_path / "t.sqlite", "etcd", {"v3.4": DOCS, "v3.5": DOCS})
    asked = "has the auto compaction mode default moved between 3.4 and 3.5"
    assert find_term(asked, [], timeline, ["etcd"], {"etcd"}) == ("--auto-compaction-mode", "etcd")


def test_a_run_holding_a_word_of_asking_names_nothing(tmp_path):
    """Two words said ("auto compaction") are a heading, no flag: the heading stands."""
    timeline = small_timeline(tmp_path / "t.sqlite", "etcd", {"v3.4": DOCS, "v3.5": DOCS})
    assert find_term("when was auto compaction added", [], timeline, ["etcd"], {"etcd"}) == ("auto compaction", "etcd")


DOWNGRADE = ("Prometheus 3.0 migration guide > Miscellaneous > TSDB format and downgrade",
             "The TSDB format has been changed slightly in Prometheus v2.55 in preparation for changes\nto the index "
             "format. Consequently, a Prometheus v3 TSDB can only be read by a\nPrometheus v2.55 or newer.")


def test_a_heading_holding_a_function_word_is_matched_by_its_other_words(tmp_path):
    """"TSDB format and downgrade": the question says every word but "and" (no word of `said`, being a function
    word). Before, a heading holding "and", "of" or "the" could never be matched."""
    from assistant.answering.timeline_words import heading_match
    timeline = small_timeline(tmp_path / "t.sqlite", "prometheus", {"v3.5.0": {"migration.md": [DOWNGRADE]}})
    found = heading_match("when did the docs start warning about the tsdb format on downgrade", timeline,
                          ["prometheus"])
    assert found == ("tsdb format and downgrade", "Miscellaneous > TSDB format and downgrade", "prometheus")
