"""Release timelines and change questions (issue 16) on the real etcd and Prometheus releases: a flag added, a flag
removed, a default changed and a section renamed, each answered with the right release and paired citations; the
timeline follows a sync incrementally; ordinary questions are left to search."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from assistant.answering.change_questions import answer_timeline_question, term_value
from assistant.answering.timeline_questions import parse_timeline_question, term_lines
from assistant.evaluation.timeline_scoring import releases_named, score_timeline
from assistant.library.diffs import diff_releases, diff_sections, is_release_notes
from assistant.library.terms import identifiers, token_pattern
from assistant.library.timeline import SectionRow, file_key

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PROM_RELEASES = ("v2.45.0", "v2.53.0", "v3.5.0")
ETCD3 = ["v3.4", "v3.5", "v3.6"]


@pytest.fixture(scope="module")
def library(etcd_index, tmp_path_factory):
    """etcd (the shared session index) and Prometheus (three releases, ingested here) with their timelines."""
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("prom_timeline"), models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    prom = build_indexer(settings)
    for r in PROM_RELEASES:
        prom.library.add(CORPORA / "prometheus" / r, "prometheus", r)
    prom.sync("prometheus")
    return {"etcd": etcd_index.indexer, "prometheus": prom}


def ask(library, product: str, question: str):
    ix = library[product]
    return answer_timeline_question(question, ix.library.catalogue(), ix.timeline)


# -- the four real cases ------------------------------------------------------------------------------------------
def test_flag_added_names_first_release_cites_it_and_the_release_before_lacks_it(library):
    a = ask(library, "etcd", "Since which etcd version can I choose the log format with --log-format?")
    assert a.kind == "introduced" and a.term == "--log-format"
    assert releases_named(a.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.6"
    assert "v3.5 does not mention it" in a.answer
    assert a.cited[0].release == "v3.6" and token_pattern("--log-format").search(a.cited[0].text)
    assert not a.missing


def test_flag_removed_names_first_release_without_it_and_cites_the_last_with_it(library):
    a = ask(library, "prometheus", "In which release was the deprecated --storage.tsdb.retention flag removed?")
    assert a.kind == "removed"
    assert releases_named(a.answer, list(PROM_RELEASES))[0] == "v3.5.0"
    assert a.cited[0].release == "v2.53.0" and "--storage.tsdb.retention" in a.cited[0].text
    assert all(c.release != "v3.5.0" or "--storage.tsdb.retention" not in c.text.replace(".time", "")
               for c in a.cited)


def test_a_bare_api_name_finds_the_names_that_qualify_it(library):
    """"NewIntervalTree" asked alone: the docs only write `adt.NewIntervalTree` (the token rule never matches a name
    after "adt."), so the bare name found nothing before; a flag's tail never stands for a flag ("max-concurrency")."""
    timeline = library["etcd"].timeline
    found = timeline.occurrences("etcd", "NewIntervalTree")
    assert [o.release for o in found] == ETCD3 and {o.path for o in found} == {"upgrades/upgrade_3_4.md"}
    assert library["prometheus"].timeline.occurrences("prometheus", "max-concurrency") == []
    # The lines quoted are found the same way: the diff line that creates the tree, not the section's first line.
    page = (CORPORA / "etcd" / "v3.4" / "upgrades" / "upgrade_3_4.md").read_text()
    quoted = [page.splitlines()[i].strip() for i in term_lines(page, "NewIntervalTree")]
    assert quoted == ["+    ivt := adt.NewIntervalTree()"]
    assert term_lines("--query.max-concurrency=20", "max-concurrency") == []


def test_default_changed_is_answered_with_both_values_old_beside_new(library):
    a = ask(library, "etcd", "Did the default --snapshot-count change between etcd 3.5 and 3.6?")
    assert a.kind == "did_change" and a.answer.startswith("Yes")
    assert "100000" in a.answer and "10000 in v3.6" in a.answer
    assert [(c.release, c.path) for c in a.cited] == [("v3.5", "op-guide/configuration.md"),
                                                      ("v3.6", "op-guide/configuration.md")]
    # "since 3.4": from the release named to the newest, not from the one before it (3.4 is the oldest held).
    since = ask(library, "etcd", "has the default --snapshot-count changed since etcd 3.4?")
    assert since.kind == "did_change" and since.answer.startswith("Yes"), since.answer
    assert {c.release for c in since.cited} == {"v3.4", "v3.6"} and "10000 in v3.6" in since.answer
    same = ask(library, "prometheus", "Did batch_send_deadline change between v2.45.0 and v3.5.0?")
    assert same.answer.startswith("No") and "5s" in same.answer and {c.release for c in same.cited} == {"v2.45.0",
                                                                                                          "v3.5.0"}


def test_section_renamed_is_found_by_the_diff_and_answered_with_paired_citations(library):
    tl = library["prometheus"].timeline
    diff = diff_releases(tl, "prometheus", "v2.53.0", "v3.5.0")
    renamed = [c for c in diff.changes if c.kind == "renamed" and c.path == "querying/basics.md"]
    assert [(c.old.heading.rsplit(" > ", 1)[-1], c.new.heading.rsplit(" > ", 1)[-1]) for c in renamed] == [
        ("Float literals", "Float literals and time durations")]
    a = ask(library, "prometheus", "What changed in the PromQL basics page headings between v2.53.0 and v3.5.0?")
    assert a.kind == "changed_between"
    line = next(ln for ln in a.answer.splitlines() if ln.startswith("- renamed") and "Float literals" in ln)
    olds = [c for c in a.cited if c.release == "v2.53.0" and c.section.endswith("Float literals")]
    news = [c for c in a.cited if c.release == "v3.5.0" and c.section.endswith("Float literals and time durations")]
    assert olds and news and f"[{a.cited.index(olds[0]) + 1}]" in line and f"[{a.cited.index(news[0]) + 1}]" in line


def test_what_changed_in_a_release_prefers_its_upgrade_guide(library):
    a = ask(library, "etcd", "What changed in etcd v3.6 compared with v3.5?")
    assert a.kind == "changed_between" and a.releases[:2] == ["v3.6", "v3.5"]
    assert any(c.path == "upgrades/upgrade_3_6.md" for c in a.cited)
    for flag in ("--feature-gates", "--log-format", "etcd_network_known_peers"):
        assert flag in a.answer


def test_presence_and_which_releases(library):
    no = ask(library, "etcd", "Can I use --feature-gates on etcd v3.5?")
    assert no.kind == "in_release" and no.answer.startswith("No") and no.cited[0].release == "v3.6"
    which = ask(library, "etcd", "Which etcd releases document the etcdutl tool?")
    assert which.kind == "which_releases"
    assert releases_named(which.answer.splitlines()[0], ["v3.4", "v3.5", "v3.6"]) == ["v3.5", "v3.6"]



def test_which_of_the_listed_releases_is_answered_among_them(etcd_index):
    ix = etcd_index.indexer
    # --enable-v2 is in all three releases; the question lists two: it is answered for those two, the rest unnamed.
    a = answer_timeline_question("in which of etcd 3.5 and 3.6 is --enable-v2 listed", ix.library.catalogue(),
                                 ix.timeline)
    assert a.kind == "which_releases" and a.releases == ["v3.5", "v3.6"] and "v3.4" not in a.answer
    a = answer_timeline_question("--tls-max-version: which of 3.4 / 3.5 / 3.6 document it", ix.library.catalogue(),
                                 ix.timeline)
    assert a.kind == "which_releases" and a.releases == ETCD3


# -- plain words, the docs' own statements, phrasing families (timeline_words.py) --------------------------------------
def test_plain_words_name_a_key_a_heading_a_flag_or_a_phrase_of_the_docs(library):
    etcd, prom = ["v3.4", "v3.5", "v3.6"], list(PROM_RELEASES)
    # Every part of `scrape_failure_log_file` is a word of the question.
    a = ask(library, "prometheus", "Since which Prometheus version is there a setting to log scrape failures to a file?")
    assert a.term == "scrape_failure_log_file" and releases_named(a.answer, prom)[0] == "v3.5.0"
    # The words are a heading (`promtool push ...`); "get" asks when it came.
    a = ask(library, "prometheus", "When did promtool get a push metrics subcommand?")
    assert a.kind == "introduced" and a.term.startswith("promtool push")
    assert releases_named(a.answer, prom)[0] == "v2.53.0"
    # A word in capitals names the thing, before a phrase such as "discover targets".
    a = ask(library, "prometheus", "Which release first lets Prometheus discover targets in STACKIT?")
    assert a.term == "stackit" and releases_named(a.answer, prom)[0] == "v3.5.0"
    # Two adjacent words the docs' text has, no name of their own.
    a = ask(library, "etcd", "Since when does etcd have an etcdctl downgrade command?")
    assert a.term == "etcdctl downgrade" and releases_named(a.answer, etcd)[0] == "v3.6"
    # "heartbeat interval" is the flag, not the ETCD_HEARTBEAT_INTERVAL variable; a default in prose across a line
    # break ("the retention time defaults to\n`15d`") is read.
    a = ask(library, "etcd", "Did the heartbeat interval default change between etcd 3.4 and 3.6?")
    assert a.term == "--heartbeat-interval" and a.answer.startswith("No") and "100" in a.answer
    a = ask(library, "prometheus", "did the default retention time change from 2.53 to 3.5?")
    assert a.term == "--storage.tsdb.retention.time" and a.answer.startswith("No") and "15d" in a.answer


def test_a_deprecation_is_dated_by_the_release_its_statement_names(library):
    # The oldest statement is in v3.4's docs ("will be deprecated in v3.5", "being deprecated in v3.5").
    for q in ("Since which release is the etcd_debugging_mvcc_put_total metric deprecated?",
              "When did etcd deprecate the /config/local/log endpoint?"):
        a = ask(library, "etcd", q)
        assert a.kind == "deprecated" and releases_named(a.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.5", a.answer


def test_phrasing_families_still_there_a_thing_and_which_were_removed(library):
    gone = ask(library, "prometheus", "Is the no-default-scrape-port feature flag still there in Prometheus 3.5?")
    assert gone.kind == "in_release" and gone.answer.startswith("No")  # v3.5.0 names it only as removed
    assert gone.knowledge()["missing"] and "v2.53.0" in gone.knowledge()["other_releases"]
    thing = ask(library, "etcd", "is --raft-read-timeout a thing in etcd 3.4?")
    assert thing.kind == "in_release" and thing.answer.startswith("No")
    listed = ask(library, "etcd", "Which flags were removed in etcd v3.6?")
    assert listed.kind == "changed_in" and listed.term is None
    first = listed.answer.splitlines()[1]
    assert "Flags removed" in first and "--experimental-enable-v2v3" in first and "--proxy" in first
    ix = library["etcd"]
    for q in ("In which release was the --socket-reuse-port flag added?",):  # a release is asked: no listing
        assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline).kind == "introduced"
    # Not a listing: "go away if I downgrade" asks what happens, not what a release removed.
    q = "Which Prometheus metrics go away if I downgrade an etcd cluster from 3.6 to 3.5?"
    assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None


def test_new_wordings_with_a_cue_and_a_placed_term_are_taken_and_answered(library):
    """Round 9: wordings no phrasing rule knows, decided by the cue families and the timeline's evidence."""
    came = ask(library, "etcd", "SetMemberLocalAddr gate, introducd when exactly")  # a CamelCase name, a typo
    assert came.kind == "introduced" and came.releases[:1] == ["v3.6"]
    went = ask(library, "etcd", "which release killed off etcdctl migrate")
    assert went.kind == "removed" and went.releases[:1] == ["v3.5"]
    lacks = ask(library, "etcd", "will 3.5 let me pass --max-learners")
    assert lacks.kind == "in_release" and lacks.answer.startswith("No")


def test_a_time_asked_in_words_no_cue_knows_is_placed_by_the_releases(library):
    """Round 10: no cue word, a time asked; the releases that document the term decide its coming or its going."""
    went = ask(library, "etcd", "etcdctl migrate: which etcd version was the end of the road for it")
    assert went.kind == "removed" and went.releases[:1] == ["v3.5"]
    came = ask(library, "etcd", "--max-learners: which etcd version do we owe it to")
    assert came.kind == "introduced" and came.releases[:1] == ["v3.6"]


def test_a_term_no_release_has_is_knowledge_missing(library):
    a = ask(library, "etcd", "When was the --no-such-flag-anywhere flag removed from etcd?")
    assert a.missing and "No release of etcd" in a.answer and not a.cited


def test_ordinary_questions_are_not_timeline_questions(library):
    ix = library["etcd"]
    for q in ("What is the default --snapshot-count in etcd 3.5?", "how do I defragment etcd?",
              "How do I add a member to an etcd cluster?",
              "give members different snapshot counts in etcd 3.5"):  # an adjective, not a change asked about
        assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None, q
    for q in ("is the default snapshot count different in etcd 3.5?", "how does 3.5 differ from 3.6?"):
        assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is not None, q


def test_between_release_families_fate_listing_from_the_diff_and_a_settings_block(library):
    """Issue 16's weakest family: "what happened to X between A and B" (the notes' own statement quoted), a
    listing no release notes hold (the functions page's new sections), a block's defaults (its lines paired)."""
    fate = ask(library, "prometheus", "what happened to the holt_winters function between Prometheus 2.53 and 3.5?")
    assert fate.kind == "changed_between" and fate.term == "holt_winters"
    assert "double_exponential_smoothing" in fate.answer.splitlines()[1]  # "The v3.5.0 notes state: ..."
    assert fate.cited[0].release == "v3.5.0" and fate.cited[0].path == "migration.md"
    funcs = ask(library, "prometheus", "which functions were added to PromQL between Prometheus 2.45 and 2.53?")
    assert funcs.kind == "changed_between" and funcs.term is None
    assert "querying/functions.md › Functions > histogram_avg()" in funcs.answer
    block = ask(library, "prometheus", "How did the queue_config defaults change from Prometheus 2.45 to 2.53?")
    assert block.kind == "changed_between"
    assert "default = 2500 ]\" → \"[ capacity: <int> | default = 10000" in block.answer
    assert "default = 200 ]\" → \"[ max_shards: <int> | default = 50" in block.answer
    compare = ask(library, "etcd", "Compare the --quota-backend-bytes docs in etcd 3.4 and 3.6")
    assert compare.kind == "changed_between" and compare.term == "--quota-backend-bytes"
    ix = library["prometheus"]  # one thing asked of each release: searched
    q = "What flag enables the OTLP receiver in Prometheus v2.53.0 versus v3.5.0?"
    assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None
    tracing = ask(library, "etcd", "what happened to the experimental distributed tracing flags between 3.5 and 3.6?")
    assert "--enable-distributed-tracing" in tracing.answer.split("New in v3.6, flags: ")[1].split(", ")[:5]


def test_what_happened_to_x_with_no_release_is_its_removal(library):
    a = ask(library, "etcd", "What became of etcdctl migrate?")
    assert a.kind == "removed" and releases_named(a.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.5"
    b = ask(library, "prometheus", "what happened to --enable-feature=no-default-scrape-port?")
    assert b.kind == "removed" and releases_named(b.answer, list(PROM_RELEASES))[0] == "v3.5.0"
    gone = ask(library, "prometheus", "what happened to --storage.tsdb.retention in prometheus 3.5?")
    assert gone.kind == "removed" and releases_named(gone.answer, list(PROM_RELEASES))[0] == "v3.5.0"
    renamed = ask(library, "prometheus", "what happened to holt_winters in Prometheus 3.5")  # named there: its notes
    assert renamed.kind == "changed_in" and "double_exponential_smoothing" in renamed.answer.splitlines()[1]
    ix = library["prometheus"]
    for q in ("what happened to my scrapes after the upgrade to Prometheus 3?",
              "Prometheus 2.45 migration guide: what happened to the -storage.local.* flags?"):  # search answers
        assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None, q


def test_one_named_thing_is_no_listing(library):
    ix = library["prometheus"]
    q = "In Prometheus v2.53.0, which flag is deprecated in favour of --storage.tsdb.retention.time?"
    assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None
    q = "Which flag replaces --storage.tsdb.retention in Prometheus 2.45?"
    assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None


def test_a_time_or_change_asked_in_any_words_of_a_held_term(library):
    """Content, not verbs (timeline_evidence.propose): a held term with a cue of time or change in any form."""
    etcd, prom = ["v3.4", "v3.5", "v3.6"], list(PROM_RELEASES)
    for product, q, kind, first in (
            ("etcd", "--enable-v2 gone in etcd 3.6?", "removed", "v3.6"),
            ("etcd", "--log-format added when?", "introduced", "v3.6"),
            ("etcd", "how long has --unsafe-no-fsync been around in etcd", "introduced", "v3.5"),
            ("etcd", "which etcd version stopped documenting --enable-v2", "removed", "v3.6"),
            ("prometheus", "keep_dropped_targets - when did it appear", "introduced", "v2.53.0"),
            ("prometheus", "holt_winters: which release renamed it", "removed", "v3.5.0")):
        a = ask(library, product, q)
        assert a.kind == kind and releases_named(a.answer, etcd if product == "etcd" else prom)[0] == first, q
    exist = ask(library, "etcd", "did --unsafe-no-fsync exist back in etcd 3.4?")
    assert exist.kind == "in_release" and exist.answer.startswith("No")
    listed = ask(library, "prometheus", "is promql-at-modifier still listed as a feature flag in 2.53.0")
    assert listed.kind == "in_release" and listed.answer.startswith("No")
    renamed = ask(library, "prometheus", "is holt_winters still a thing in prometheus 3.5")  # only its renaming
    assert renamed.answer.startswith("No")
    same = ask(library, "prometheus", "web.read-timeout: same default in v2.45.0 and v3.5.0?")
    assert same.kind == "did_change" and same.term == "--web.read-timeout" and "5m in both" in same.answer
    vs = ask(library, "etcd", "--snapshot-count in etcd 3.5 compared to 3.6")
    assert vs.kind == "changed_between" and vs.term == "--snapshot-count"
    ix = library["prometheus"]
    for q in ("Does the remote write queue still default to max_shards 50?",  # what it still does: searched
              "When should I use --web.read-timeout in Prometheus 3.5?",
              "What flag enables the OTLP receiver in Prometheus v2.53.0 versus v3.5.0?"):
        assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None, q
    ix = library["etcd"]
    q = "When etcd generates its own certs with --auto-tls, how long are they valid?"
    assert parse_timeline_question(q, ix.library.catalogue(), ix.timeline) is None


def test_things_said_in_plain_words_find_their_name_or_heading(library):
    """A name said whole beats a code word it holds; a dotted flag's last parts are the flag, its value read from a
    reference table's row; a heading path said in words is read in its own section; a family said in words lists
    the names the notes give."""
    dns = ask(library, "prometheus", "when did round robin DNS for remote write show up?")
    assert dns.term == "round_robin_dns" and releases_named(dns.answer, list(PROM_RELEASES))[0] == "v3.5.0"
    grace = ask(library, "prometheus", "for-grace-period default in prom 2.45 vs 3.5, same?")
    assert grace.term == "--rules.alert.for-grace-period" and "10m in both" in grace.answer
    role = ask(library, "prometheus", "is the endpoints role of kubernetes SD deprecated?")
    assert role.kind == "deprecated" and role.term == "endpoints"
    assert releases_named(role.answer, list(PROM_RELEASES))[0] == "v3.5.0"
    assert role.cited[0].path == "configuration/configuration.md" and "the Endpoints API is" in role.answer
    v2 = ask(library, "etcd", "--enable-v2 deprecated in which etcd release?")  # "to be decommissioned in v3.6"
    assert releases_named(v2.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.5"
    hash_check = ask(library, "etcd", "when was the experimental compact hash check added to etcd")
    assert hash_check.term.startswith("--experimental-compact-hash-check")  # three parts said, not --skip-hash-check
    assert releases_named(hash_check.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.5"
    gate = ask(library, "etcd", "lease checkpoint persist gate - which release")  # a CamelCase name said as words
    assert gate.term == "leasecheckpointpersist" and releases_named(gate.answer, ["v3.4", "v3.5", "v3.6"])[0] == "v3.6"
    tags = ask(library, "prometheus", "the consul SD tags field - deprecated?")  # a line of its section naming tags
    assert "`tags` and `node_meta` fields are deprecated" in tags.answer
    after = ask(library, "etcd", "--auto-compaction-mode options changed after 3.4?")
    assert after.kind == "changed_between" and after.releases == ["v3.5", "v3.4"]
    window = ask(library, "prometheus", "out of order ingestion window - since which prometheus version")
    assert window.term == "out_of_order_time_window"  # most of its parts said, "time" not
    timeout = ask(library, "prometheus", "did the scrape timeout default change in prometheus 3")
    assert timeout.term == "scrape_timeout" and "10s in both" in timeout.answer  # not the label __scrape_timeout__
    proxy = ask(library, "etcd", "what happened to the v2 proxy flags between 3.5 and 3.6?")
    assert "--proxy-refresh-interval" in proxy.answer and "--proxy-dial-timeout" in proxy.answer


def test_listings_said_in_other_words_name_what_came(library):
    gates = ask(library, "etcd", "which new feature gates does etcd 3.6 have?")
    assert gates.kind == "changed_in" and gates.term is None
    assert "feature-gates/index.md" in gates.answer.splitlines()[1]
    assert {"CompactHashCheck", "StopGRPCServiceOnDefrag"} <= set(gates.answer.splitlines()[1].split(": ")[-1]
                                                                   .split(", "))
    came = ask(library, "etcd", "which feature gates came with etcd 3.6?")
    assert "TxnModeWriteWithSharedBuffer" in came.answer
    funcs = ask(library, "prometheus", "what new PromQL functions did Prometheus 2.53 bring?")
    assert "histogram_avg" in funcs.answer and "_this" not in funcs.answer
    # A listing of one area, said before it: that area's file, not the release notes' list of every flag.
    area = ask(library, "prometheus", "promtool - new flags in Prometheus 3.5.0?")
    assert area.kind == "changed_in" and {c.path for c in area.cited} == {"command-line/promtool.md"}
    assert {"--junit", "--ignore-unknown-fields"} <= set(re.findall(r"--[\w\-]+", area.answer.splitlines()[-1]))


def test_did_change_follows_a_renamed_flag_a_guide_pair_and_a_key_inside_a_block(library):
    renamed = ask(library, "etcd", "Was the bbolt freelist type default changed from etcd v3.4 to v3.5?")
    assert renamed.answer.startswith("Yes") and "from array in v3.4" in renamed.answer
    assert "map in v3.5" in renamed.answer  # v3.4 names it --experimental-backend-bbolt-freelist-type
    vote = ask(library, "etcd", "Did --pre-vote become the default between etcd 3.4 and 3.5?")
    assert vote.kind == "did_change" and "from false in v3.4" in vote.answer and "to true in v3.5" in vote.answer
    cap = ask(library, "prometheus", "Did the default remote write queue capacity change from Prometheus 2.45 to 3.5?")
    assert cap.term == "capacity" and "from 2500 in v2.45.0" in cap.answer and "10000 in v3.5.0" in cap.answer


def test_fourth_round_families_alternatives_usable_short_words_and_a_leading_new(library):
    """Releases offered as alternatives ask when it came; "can I use X in Y?" whether Y has it; a flag said in short
    words in any order ("min tls version", "max wal files") is found, a metric by what it tells (not the verb
    "tells"); "new Xs in Y?" lists what came; "which X can I list in B that I couldn't in A" what changed."""
    etcd = ["v3.4", "v3.5", "v3.6"]
    raft = ask(library, "etcd", "raft write timeout flag in etcd, new in 3.5 or older?")
    assert raft.kind == "introduced" and releases_named(raft.answer, etcd)[0] == "v3.5"
    tls = ask(library, "etcd", "min tls version setting, is that a thing in etcd 3.4?")
    assert tls.term == "--tls-min-version" and tls.answer.startswith("Yes")
    wals = ask(library, "etcd", "max wal files kept by default, 3.4 vs 3.6 any difference")
    assert wals.term == "--max-wals" and wals.answer.startswith("No") and "5 in both" in wals.answer
    usable = ask(library, "prometheus", "always_scrape_classic_histograms in 2.53, can i use it?")
    assert usable.kind == "in_release" and usable.answer.startswith("No")
    flags = ask(library, "prometheus", "new feature flags in prom 3.5.0?")
    assert flags.kind == "changed_in" and flags.term is None and "delayed-compaction" in flags.answer
    gates = ask(library, "etcd", "etcd metric that tells you which feature gates are enabled.. since when is that exported?")
    assert gates.term == "etcd_server_feature_enabled" and releases_named(gates.answer, etcd)[0] == "v3.6"
    retention = ask(library, "etcd", "--auto-compaction-retention default from 3.4 to 3.6?")
    assert retention.kind == "did_change" and retention.answer.startswith("No")
    too = ask(library, "etcd", "--socket-reuse-port: etcd 3.4 too?")
    assert too.kind == "in_release" and too.answer.startswith("No")
    gone = ask(library, "etcd", "flags gone in etcd 3.6?")
    assert gone.kind == "changed_in" and gone.term is None and "--enable-v2" in gone.answer
    protocols = ask(library, "prometheus", "which protocols can I list in scrape_protocols in 3.5 that I couldnt in 2.53")
    assert protocols.kind == "changed_between" and "PrometheusText1.0.0" in protocols.answer


def test_a_name_written_as_code_beats_a_plain_word_reading(library):
    for q, term, first in (("Since which Prometheus release can a query sample k series with limitk?", "limitk",
                            "v3.5.0"),
                           ("From which Prometheus version can rules run concurrently (concurrent-rule-eval)?",
                            "concurrent-rule-eval", "v2.53.0"),
                           # "PromQL" is a CamelCase word, a product word more than a name: the code word wins
                           ("Since which Prometheus version is PromQL able to use limitk?", "limitk", "v3.5.0")):
        a = ask(library, "prometheus", q)
        assert a.kind == "introduced" and a.term == term, q
        assert releases_named(a.answer, list(PROM_RELEASES))[0] == first
    # A key of the configuration reference ("[ gogc: <int> | default = 75 ]") is a name too, before "config file".
    gogc = ask(library, "prometheus", "gogc in the config file: same default in prometheus 2.53 and 3.5?")
    assert gogc.kind == "did_change" and gogc.term == "gogc" and gogc.answer.startswith("Yes, the same")


def test_the_eval_tune_half_through_the_answerer(library):
    """The tuning halves of eval/timeline.jsonl and eval/timeline2.jsonl, answered question-only (the held-out
    halves are reported in README)."""
    items = [json.loads(line) for name in ("timeline.tune.jsonl", "timeline2.tune.jsonl")
             for line in (Path(__file__).resolve().parents[1] / "eval" / name).read_text().splitlines() if line.strip()]
    right = 0
    for item in items:
        ix = library[item["product"]]
        a = answer_timeline_question(item["question"], ix.library.catalogue(), ix.timeline)
        right += score_timeline(item, a.answer if a else "", ix.library.releases(item["product"])).right
    assert right / len(items) >= 0.95


# -- Sphinx sources: a version note of the term's own entry ----------------------------------------------------------
_SPHINX_CONFIG = """\
Configuration
=============

.. py:data:: CACHE_SIZE

    How many pages stay in memory.

    Default: ``100``
{more}"""
_SPHINX_TTL = """
.. py:data:: CACHE_TTL

    Seconds a cached page lives.

    Default: ``300``

    .. versionadded:: 1.5
"""


def test_a_sphinx_entry_states_its_own_version_note(tmp_path):
    """The version note of a Sphinx entry sits lines below the name (its signature, text, default, then the note), out
    of reach of the lines around the name; the entry is the term's own section (the rst reader), so its note is the
    docs' own statement, quoted beside the release the timeline finds."""
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    ix = build_indexer(settings)
    for release, more in (("1.0", ""), ("2.0", _SPHINX_TTL)):
        (tmp_path / release).mkdir()
        (tmp_path / release / "config.rst").write_text(_SPHINX_CONFIG.format(more=more))
        ix.library.add(tmp_path / release, "cachekit", release)
    ix.sync("cachekit")
    a = answer_timeline_question("since when is CACHE_TTL available?", ix.library.catalogue(), ix.timeline)
    assert a.kind == "introduced" and releases_named(a.answer, ["1.0", "2.0"])[0] == "2.0", a.answer
    assert 'The docs state: "Added in version 1.5."' in a.answer
    assert all(c.release == "2.0" and c.section.endswith("CACHE_TTL") for c in a.cited)


# -- the timeline follows the sync ---------------------------------------------------------------------------------
def test_timeline_follows_a_resync_edit_and_a_removed_release(tmp_path):
    from assistant.components import build_indexer
    from assistant.settings import PROJECT_ROOT, Settings

    src = tmp_path / "src"
    (src / "op-guide").mkdir(parents=True)
    shutil.copy(CORPORA / "etcd" / "v3.5" / "op-guide" / "configuration.md", src / "op-guide" / "configuration.md")
    settings = Settings(data_dir=tmp_path / "data", models_dir=PROJECT_ROOT / "models",
                        embedding_cache_path=PROJECT_ROOT / ".cache" / "test_embed_cache.sqlite")
    ix = build_indexer(settings)
    ix.library.add(src, "etcd", "v3.5")
    ix.sync("etcd")
    assert [o.release for o in ix.timeline.occurrences("etcd", "--socket-reuse-port")][:1] == ["v3.5"]
    page = ix.library.release_dir("etcd", "v3.5") / "op-guide" / "configuration.md"
    page.write_text(page.read_text().replace("--socket-reuse-port", "--socket-reuse-address"))
    report = ix.sync("etcd")[0]
    assert report.files_indexed == 1
    # Each file's rows say what they were drawn from: its content and the recipe that read it (manifest.files).
    held = dict(ix.timeline.db.execute("SELECT path, hash FROM tl_files WHERE product='etcd' AND release='v3.5'"))
    assert held == {p: file_key(r) for p, r in ix.manifest.files("etcd", "v3.5").items() if r.status == "indexed"}
    assert ix.timeline.occurrences("etcd", "--socket-reuse-port") == []
    assert ix.timeline.occurrences("etcd", "--socket-reuse-address")
    ix.library.delete_release("etcd", "v3.5")
    ix.sync("etcd")
    assert ix.timeline.releases("etcd") == [] and ix.timeline.occurrences("etcd", "--snapshot-count") == []


# -- pure parts ------------------------------------------------------------------------------------------------------
def _row(release, path, ord_, heading, text):
    return SectionRow(release, path, ord_, heading, str(hash(" ".join(text.split()))), text)


def test_diff_sections_added_removed_changed_renamed():
    body = "Set the retention with --storage.tsdb.retention.time and size with the other flag here."
    old = [_row("a", "p.md", 0, "Guide > Storage", body), _row("a", "p.md", 1, "Guide > Old part", "gone text"),
           _row("a", "p.md", 2, "Guide > Limits", "limit 10")]
    new = [_row("b", "p.md", 0, "Guide > Storage settings", body), _row("b", "p.md", 1, "Guide > Limits", "limit 20"),
           _row("b", "p.md", 2, "Guide > New part", "fresh words only")]
    kinds = {(c.kind, c.heading) for c in diff_sections(old, new)}
    assert kinds == {("renamed", "Guide > Storage settings"), ("removed", "Guide > Old part"),
                     ("changed", "Guide > Limits"), ("added", "Guide > New part")}
    assert diff_sections(old, old) == []


def test_identifiers_and_token_rule():
    text = "Use `--enable-feature=agent` or max_shards; see /api/v1/notifications and StopGRPCServiceOnDefrag.\n-etcd_x_y"
    found = identifiers(text)
    for t in ("--enable-feature=agent", "--enable-feature", "max_shards", "/api/v1/notifications",
              "stopgrpcserviceondefrag", "etcd_x_y"):
        assert t in found
    assert "use" not in found and "see" not in found
    assert not token_pattern("--storage.tsdb.retention").search("--storage.tsdb.retention.time 15d")
    assert token_pattern("--storage.tsdb.retention").search("the --storage.tsdb.retention flag")


def test_term_value_reads_the_common_reference_formats():
    assert term_value("--snapshot-count '10000'\n  Number of committed", "--snapshot-count")[0] == "10000"
    assert term_value("  [ max_shards: <int> | default = 200 ]", "max_shards")[0] == "200"
    assert term_value("+ Maximum size.\n+ default: 1572864", "--max-request-bytes",
                      "Flags > --max-request-bytes")[0] == "1572864"


def test_term_value_reads_a_sphinx_entry_default():
    """A Sphinx reference entry (the rst reader makes each `.. py:data::` its own section) states its default on a
    line of its own, often after a paragraph, as a reStructuredText literal. Without this the first lines' prose
    ("The default cache max age") gave "cache", and ``literals`` gave nothing."""
    entry = ("    How long a sent file may be cached, in seconds. The default cache max age\n"
             "    applies to every file.\n\n"
             "    Default: ``timedelta(hours=12)``\n\n    Changed in version 2.0: Defaults to None.")
    assert term_value(entry, "SEND_FILE_MAX_AGE_DEFAULT", "Config > SEND_FILE_MAX_AGE_DEFAULT") == (
        "timedelta(hours=12)", "Default: ``timedelta(hours=12)``")
    assert term_value("    The cookie's name.\n\n    Default: ``'session'``", "SESSION_COOKIE_NAME",
                      "Config > SESSION_COOKIE_NAME")[0] == "session"


def test_release_notes_by_name_and_heading():
    assert is_release_notes("upgrades/upgrade_3_6.md") and is_release_notes("CHANGELOG.md")
    assert is_release_notes("x.md", "Release notes > 3.5") and not is_release_notes("op-guide/configuration.md")


def test_scoring_reads_the_first_release_named():
    item = {"id": "t", "kind": "introduced", "expected_release": "v3.5"}
    assert score_timeline(item, "`x` first appears in etcd v3.5; v3.4 does not.", ["v3.4", "v3.5", "v3.6"]).right
    assert not score_timeline(item, "In v3.4 it was not there; v3.5 has it", ["v3.4", "v3.5", "v3.6"]).right
    assert releases_named("v3.5.0 and 2.53", ["v2.53.0", "v3.5.0"]) == ["v3.5.0"]
    # A which-releases item's expected answer may name a release that lacks the term: it is not wanted.
    which = {"id": "w", "kind": "which_releases", "expected_answer": "v3.5 and v3.6 (flags not available in 3.4)."}
    assert score_timeline(which, "`--x` is documented in etcd v3.5 [1], v3.6 [2].\nNot in v3.4.", ETCD3).right
    assert not score_timeline(which, "`--x` is documented in etcd v3.4 [1], v3.5 [2], v3.6 [3].", ETCD3).right


def test_an_llm_only_phrases_and_one_that_drops_a_fact_is_not_used(library):
    from assistant.answering.change_questions import phrase
    from assistant.backends.chat import FakeChat

    a = ask(library, "etcd", "Did the default --snapshot-count change between etcd 3.5 and 3.6?")
    good = "In v3.6 the default --snapshot-count went from 100000 in v3.5 [1] down to 10000 in v3.6 [2]."
    llm = FakeChat([good, "It changed to 10000 [2]."])
    assert phrase(a, "q", llm) == good
    assert a.answer in llm.history[0][1]["content"]
    assert phrase(a, "q", llm) == a.answer  # dropped the old value, v3.5 and [1]: the timeline's words stay


def test_through_the_pipeline_an_intent_a_rewritten_query_sources_and_missing_knowledge(etcd_index):
    from assistant.components import build_intent_classifier, build_pipeline

    pipeline = build_pipeline(etcd_index.settings, llm=None,
                              intent=build_intent_classifier(etcd_index.settings, extra_examples=[]))
    res = pipeline.ask("Did the default --snapshot-count change between etcd 3.5 and 3.6?", search_only=True)
    assert (res.status, res.product, res.releases, res.llm_calls) == ("timeline", "etcd", ["v3.5", "v3.6"], 0)
    assert res.intent == {"label": "fact_verification", "confidence": 1.0, "source": "timeline"}
    assert "--snapshot-count" in res.rewritten and not res.knowledge_missing
    assert [(s.n, s.release, s.path, s.cited) for s in res.sources] == [
        (1, "v3.5", "op-guide/configuration.md", True), (2, "v3.6", "op-guide/configuration.md", True)]
    assert "retrieval" not in res.timings_ms and "timeline" in res.timings_ms
    missing = pipeline.ask("In which etcd release was --no-such-flag-anywhere removed?", search_only=True)
    assert missing.status == "timeline" and missing.knowledge_missing and missing.intent["label"]
    # Not in the release asked about: the not-covered verdict, naming the releases that have it.
    absent = pipeline.ask("Is --unsafe-no-fsync available in etcd v3.4?", search_only=True)
    assert absent.status == "timeline" and absent.answer.startswith("No") and absent.knowledge_missing
    assert absent.knowledge["other_releases"] == ["v3.5", "v3.6"] and "v3.5" in absent.knowledge["reason"]
    assert absent.knowledge["absent_terms"] == ["--unsafe-no-fsync"] and "v3.5" in absent.answer
    present = pipeline.ask("Is --unsafe-no-fsync available in etcd v3.5?", search_only=True)
    assert present.answer.startswith("Yes") and not present.knowledge_missing


def test_a_same_question_is_answered_in_its_own_sense_without_html(library):
    """Seen in the app: "web.read-timeout, same default in 2.45 and 3.5?" was answered "No: ... is 5m in both", and
    the quoted table rows carried the page's `<code class="text-nowrap">` markup."""
    same = ask(library, "prometheus", "prometheus: web.read-timeout, same default in 2.45 and 3.5?")
    assert same.kind == "did_change" and same.answer.startswith("Yes, the same"), same.answer
    assert "5m in both" in same.answer and "<code" not in same.answer
    did = ask(library, "prometheus", "did the --web.read-timeout default change between 2.45 and 3.5?")
    assert did.answer.startswith("No:") and "5m in both" in did.answer
    item = {"id": "t", "kind": "did_change", "expected_yes_no": "no", "expected_changes": []}
    assert score_timeline(item, same.answer, ["v2.45.0", "v2.53.0", "v3.5.0"]).right
    assert score_timeline(item, did.answer, ["v2.45.0", "v2.53.0", "v3.5.0"]).right
    assert not score_timeline(item, "No, it changed: from 5m to 10m.", ["v2.45.0", "v2.53.0", "v3.5.0"]).right


def test_whether_a_release_has_a_term_is_decided_by_the_timeline_not_by_the_verbs(library):
    # No phrasing rule reads "recognise", "any X knob" or "across": the timeline does (v3.4 lacks the flag, v3.6
    # has it; the v3.6 notes deprecate the other).
    a = ask(library, "etcd", "would etcd 3.4 recognise --discovery-cacert?")
    assert a.kind == "in_release" and a.answer.startswith("No") and a.absent_in == ["v3.4"]
    assert a.other_releases == ["v3.6"] and a.cited[0].release == "v3.6"
    a = ask(library, "etcd", "etcd 3.6 - any --peer-client-cert-file knob?")
    assert a.kind == "in_release" and a.answer.startswith("Yes") and a.cited[0].release == "v3.6"
    # A word written as code is a name ("limitk", v3.5.0 only); words the term's own lines say describe it ("scrape",
    # under `<scrape_config>`) and ask nothing more, so a "yes" answers.
    a = ask(library, "prometheus", "limitk: would prometheus 2.45 know it?")
    assert a.kind == "in_release" and a.answer.startswith("No") and a.other_releases == ["v3.5.0"]
    a = ask(library, "prometheus", "prom 2.53.0 - any track_timestamps_staleness scrape knob?")
    assert a.kind == "in_release" and a.answer.startswith("Yes") and a.cited[0].release == "v2.53.0"
    # Two releases, no change word: what changed about it (its deprecation in the v3.6 notes, the new name).
    a = ask(library, "etcd", "--experimental-warning-unary-request-duration across etcd 3.5 and 3.6?")
    assert a.kind == "changed_between" and "--warning-unary-request-duration" in a.answer
    # Left to search: a yes that would not answer what is asked, a term every release documents alike, a value.
    assert ask(library, "prometheus", "does sort_by_label need a feature flag in Prometheus 3.5?") is None
    assert ask(library, "etcd", "--snapshot-count in etcd 3.5?") is None
    assert ask(library, "etcd", "--discovery-cacert default in etcd 3.6?") is None


# -- round seven: a change inside an area said in words, a value misspelt, an empty default -----------------------
def test_a_change_inside_an_area_said_in_words_filters_the_diff_to_it(library):
    moved = ask(library, "etcd", "etcd tutorials docs, 3.5 vs 3.6: what is different?")  # a folder, its pages moved
    assert "in `tutorials/`" in moved.answer
    assert "`tasks/operator/` (\"Operator Tasks\")" in moved.answer and "(\"Developer Tasks\")" in moved.answer
    assert {(c.release, c.path.split("/")[0]) for c in moved.cited} == {("v3.5", "tutorials"), ("v3.6", "tasks")}
    page = ask(library, "prometheus", "prometheus feature flags page 2.53 vs 3.5.0, what changed?")  # a page
    assert "in `feature_flags.md`" in page.answer and {c.path for c in page.cited} == {"feature_flags.md"}
    assert "--enable-feature=old-ui" in page.answer and "--enable-feature=no-default-scrape-port" in page.answer
    # The newer release's notes under a heading naming the area ("Changed gRPC gateway HTTP endpoints ...").
    notes = ask(library, "etcd", "etcd gRPC gateway endpoints, v3.4 vs v3.5: what's different?")
    assert "`dev-guide/api_grpc_gateway.md`" in notes.answer and "has been removed in 3.5 release" in notes.answer
    assert ("v3.5", "upgrades/upgrade_3_5.md") in {(c.release, c.path) for c in notes.cited}
    # A participle names the page too ("support level" is supported-platform.md); the asked rows come first.
    rows = ask(library, "etcd", "How did the support level for arm64 Linux change between etcd v3.4 and v3.6?")
    assert "in `op-guide/supported-platform.md`" in rows.answer and "| arm64 " in rows.answer.lower()
    # "What did <release> add to <area>": one release's change inside the area named after the verb, the lines
    # new there that name the question's other words; no area matched: left to search.
    added = ask(library, "prometheus", "what did prometheus 2.53 add to the rules unit testing notation?")
    assert added.kind == "changed_in" and "in `configuration/unit_testing_rules.md`" in added.answer
    assert "Native histogram notation" in added.answer and {c.release for c in added.cited} == {"v2.45.0", "v2.53.0"}
    assert ask(library, "etcd", "what did etcd 3.5 add to my cluster?") is None
    # No area said: the whole release's change, as before.
    whole = ask(library, "etcd", "What changed in etcd 3.6?")
    assert whole.answer.startswith("What changed in etcd from v3.5 to v3.6:")


def test_a_misspelt_default_compares_values_and_an_empty_default_is_said_empty(library):
    typo = ask(library, "etcd", "--snapshot-count defualt etcd 3.5 vs 3.6, did it move?")
    assert typo.kind == "did_change" and typo.answer.startswith("Yes") and "from 100000 in v3.5" in typo.answer
    cors = ask(library, "etcd", "is the --cors default different in 3.5 than 3.4?")
    assert "from empty in v3.4 [1]" in cors.answer and cors.cited[0].release == "v3.4"


def test_a_key_said_in_words_compares_its_spelling(library):
    renamed = ask(library, "prometheus",
                  "prometheus exemplars: did the trace id key get renamed between 2.45 and 2.53?")
    assert renamed.answer.startswith("Yes") and "`traceID` in prometheus v2.45.0 [1]" in renamed.answer
    assert "`trace_id` in v2.53.0 [2]" in renamed.answer
    # A value asked, or a name written alike, is no spelling question: answered as before.
    cap = ask(library, "prometheus", "Did the default remote write queue capacity change between v2.45.0 and v2.53.0?")
    assert "from 2500 in v2.45.0" in cap.answer


def test_value_words_pure():
    from dataclasses import replace

    from assistant.answering.timeline_questions import TimelineQuestion
    from assistant.answering.value_changes import misspelt_value, shown

    assert term_value('+ Comma-separated whitelist.\n+ default: ""', "--cors", "Flags > --cors")[0] == ""
    assert term_value("+ default: ':2379'", "--x", "Flags > --x")[0] == ":2379"
    assert shown("") == "empty" and shown("*") == "*"
    q = TimelineQuestion("changed_between", "etcd", "--max-txn-ops", ["v3.4", "v3.6"], [], topic=["defualt"])
    assert misspelt_value(q) and misspelt_value(replace(q, topic=["vaule"]))
    assert not misspelt_value(replace(q, topic=["defaults"])) and not misspelt_value(replace(q, term="tutorials"))


# -- round eight: a value compared in words, one release against the one before it ---------------------------------
def test_a_default_and_its_change_said_in_words_compare_values(library):
    # "bump" is a change of the value asked, one release named: compared with the release before it (searched before).
    bumped = ask(library, "etcd", "did etcd 3.6 bump the default of --snapshot-count?")
    assert bumped.kind == "did_change" and bumped.answer.startswith("Yes")
    assert "from 100000 in v3.5" in bumped.answer and "to 10000 in v3.6" in bumped.answer
    # "out of the box" is the default: both values compared, not the sections naming the flag; v3.4 states its
    # default under a note ("**Available from v3.4.**") before it.
    boxed = ask(library, "etcd", "etcd log level out of the box, 3.4 vs 3.5: any difference?")
    assert boxed.kind == "did_change" and boxed.answer.startswith("No") and "info in both v3.4" in boxed.answer
    # The change verb alone, no value asked, is no value compared.
    raft = ask(library, "etcd", "did etcd 3.6 switch to a new raft library?")
    assert raft is None or raft.kind != "did_change"


def test_value_in_words_pure():
    from assistant.answering.value_changes import value_in_words

    assert value_in_words("did 3.5 flip the default of --x?") == "did 3.5 change the default of --x?"
    assert value_in_words("--x out-of-the-box in 3.4 vs 3.6") == "--x default in 3.4 vs 3.6"
    assert value_in_words("--x when left unset, 2.45 vs 3.5?") == "--x default, 2.45 vs 3.5?"
    # "revisions" is no "revise", a change verb without a value word is no value asked, "ship" no default.
    assert value_in_words("max revisions deleted per compaction batch by default in 3.5") is None
    assert value_in_words("did 3.6 switch to a new raft library?") is None
    assert value_in_words("does 3.6 still ship --enable-pprof?") is None
    assert term_value("**Available from v3.4.**\n\n+ Configures log level.\n+ default: info", "--log-level",
                      "Logging flags > --log-level")[0] == "info"


def test_a_name_in_words_follows_its_other_spelling_and_the_guide_pair(library):
    # "lease-checkpoint-persist" is a flag's words in v3.5 and the feature gate `LeaseCheckpointPersist` in v3.6:
    # both spellings listed, and the upgrade guide's pair quoted, old setting beside new.
    gate = ask(library, "etcd", "is enabling lease-checkpoint-persist different in 3.6 than 3.5?")
    assert gate.kind == "did_change" and gate.answer.startswith("Yes")
    assert "--feature-gates=leasecheckpointpersist" in gate.answer
    assert ('"etcd --experimental-enable-lease-checkpoint-persist=true" becomes '
            '"etcd --feature-gates=LeaseCheckpointPersist=true"') in gate.answer


def test_an_area_that_changed_wins_a_tie_and_a_listing_inside_an_area_said_shortly(library):
    # "gateway" names `op-guide/gateway.md` (unchanged in v3.6) and `dev-guide/api_grpc_gateway.md` (changed): the
    # one that changed is the area asked about.
    tie = ask(library, "etcd", "etcd gateway docs, 3.5 vs 3.6: what changed about error handling?")
    assert "in `dev-guide/api_grpc_gateway.md`" in tie.answer and "Error responses" in tie.answer
    # A listing inside an area named by a word cut short ("api ref" is "API reference"): what it lists, there.
    listed = ask(library, "etcd", "which messages were added to the api ref in etcd 3.6?")
    assert listed.kind == "changed_in" and "in `dev-guide/api_reference_v3.md`" in listed.answer
    assert "message DowngradeInfo" in listed.answer


def test_a_behaviour_said_in_words_asked_as_still_so_quotes_the_newer_notes(library):
    # No name, a behaviour compared across releases ("still ... like they did"): the newer release's notes section
    # whose heading says three of the question's words and half of its own, quoted (searched before).
    still = ask(library, "prometheus",
                "do regular expressions still not match newlines in prometheus 3.5 like they did in 2.53?")
    assert still.kind == "changed_between" and still.answer.startswith("What the prometheus v3.5.0 notes say")
    assert "Regular expressions match newlines" in still.answer
    assert [c.release for c in still.cited] == ["v3.5.0"] and "matches newline characters" in still.answer
    # No notes heading says that much: left to search.
    assert ask(library, "prometheus", "do my recording rules still work in prometheus 3.5 like they did in 2.53?") \
        is None


def test_round_11_door_families_a_written_name_a_fragment_between_releases_versions_with_x(library):
    """Each fails on main at 5f29590 (searched, no timeline answer): a CamelCase name the question writes but the
    timeline keys in lower case, asked with a release and no product; a name and two releases and nothing more;
    the releases asked as the fragment's head; "still list"."""
    a = ask(library, "etcd", "AuthStatusRequest still there in 3.4?")
    assert a is not None and a.kind == "in_release" and a.answer.startswith("No"), a
    assert "`AuthStatusRequest`" in a.answer  # as the docs write it
    b = ask(library, "etcd", "--experimental-initial-corrupt-check between 3.5 and 3.6")
    assert b is not None and b.kind == "changed_between" and {c.release for c in b.cited} >= {"v3.6"}
    c = ask(library, "etcd", "versions with --max-learners?")
    assert c is not None and c.kind == "which_releases" and releases_named(c.answer.splitlines()[0], ETCD3) == ["v3.6"]
    d = ask(library, "etcd", "does the 3.4 configuration page still list --enable-v2")
    assert d is not None and d.kind == "in_release" and d.answer.startswith("Yes")
