"""The cues of time and change a timeline question may carry in any words (timeline_cues.py), read without an index:
which kind a question about a held term asks, and which questions list changes."""

from __future__ import annotations

import pytest

from assistant.answering.timeline_cues import asks_yes_no, either_kind, listed_releases, listing
from assistant.answering.timeline_evidence import evidence_kind, may_decide, propose, unasked_words
from assistant.answering.timeline_search import _DOCS_SAY, Hit, answer, decide, subject


@pytest.mark.parametrize("question, named, kind", [
    ("X: same default in v2.45.0 and v3.5.0?", 2, "did_change"),
    ("X default, 2.45 vs v3.5.0", 2, "did_change"),
    ("X in etcd 3.5 compared to 3.6", 2, "changed_between"),
    ("what flag enables X in 2.53 versus 3.5?", 2, None),  # one thing asked of each release: searched
    ("kubernetes SD endpoints role - deprecated? should I switch", 0, "deprecated"),
    ("X: deprecated in 3.6? whats it called now", 1, "deprecated"),
    ("can I keep passing X after moving to 3.6 or is it deprecated", 1, "deprecated"),
    ("my etcd logs warn that X is deprecated", 0, None),  # a statement: searched as a symptom
    ("X gone in etcd 3.6?", 1, "removed"),
    ("was X dropped in 3.6", 1, "removed"),
    ("was X added in 3.6?", 1, "introduced"),
    ("is X still listed as a feature flag in 2.53.0", 1, "in_release"),
    ("did X exist back in etcd 3.4?", 1, "in_release"),
    ("anything new for remote write in 3.5.0?", 1, "changed_in"),
    ("X added when?", 0, "introduced"),
    ("how long has X been around", 0, "introduced"),
    ("which version stopped documenting X", 0, "removed"),
    ("X: which release renamed it", 0, "removed"),
    ("does the queue still default to 50?", 0, None),  # what it still does, not whether it is there
    ("how much RAM can an instance have and still be hibernated?", 0, None),
    ("is deletion protection enabled by default?", 0, None),  # a feature's name, no removal
    ("when X generates its certs, how long are they valid?", 0, None),
    ("when should I use X?", 0, None),
    ("how do I remove X in 3.6?", 1, None),
    ("X - available in v2.45.0?", 1, "in_release"),
    ("etcd 3.5: is X there", 1, "in_release"),  # a yes/no question after its topic
    ("Did etcd 3.6 drop X?", 1, "removed"),
    ("the X feature flag, still needed in 2.53?", 1, "in_release"),
])
def test_cue_kind(question, named, kind):
    assert propose(question, named) == kind


def test_listing_questions_in_other_words():
    assert listing("which feature gates came with etcd 3.6?") == ("feature gates ", "added")
    assert listing("what new scrape config options did 2.53 bring") == ("scrape config options", "added")
    assert listing("Which etcd flags were removed in 3.6?") == ("etcd flags ", "removed")
    assert listing("which etcd flags got renamed in 3.6") == ("etcd flags ", "renamed")
    assert listing("which flag is deprecated in favour of --x?") is None
    assert listing("what new version is out?") is None
    # After the area it is about: a listing of that area (change_questions._area reads the area's files).
    assert listing("promtool: new flags in 3.5.0?") == ("flags", "added")
    assert listing("etcdctl - new commands in 3.6?") == ("commands", "added")
    assert listing("promtool: the new flag in 3.5.0?") is None


@pytest.mark.parametrize("question, named, kind", [
    ("UTF-8 metric names: which version allows them", 0, "introduced"),  # a time asked: "allows" is its coming
    ("is a rolling upgrade supported?", 0, None),  # no time asked: an ordinary question
    ("should I enable the receiver with the feature flag?", 1, None),
])
def test_can_verbs_only_with_a_time_asked(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, named, kind", [
    ("lease checkpoint persist gate - which release", 0, "introduced"),  # a name, then the time asked
    ("which version of etcd should I use?", 0, None),
    ("X: appeared in?", 0, "introduced"),
])
def test_a_time_asked_after_the_name(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, named, kind", [
    ("X - in prometheus 2.45?", 1, "in_release"),
    ("did X's capacity go up in 3.5.0", 1, "did_change"),
    ("how do I make the capacity go up in 3.5?", 1, None),
])
def test_presence_and_a_value_moved_in_few_words(question, named, kind):
    assert propose(question, named) == kind


def test_a_listing_with_its_verb_first():
    assert listing("etcd 3.6 removed what flags exactly?") == ("flags", "removed")


@pytest.mark.parametrize("question, named, kind", [
    ("which of the etcd versions document X", 0, "which_releases"),
    ("X: all three etcd versions?", 0, "which_releases"),
    ("has the default of X moved between etcd 3.4 and 3.6", 2, "did_change"),
    ("which flask versions have X", 0, "which_releases"),
    ("which python versions does flask 2.2 support", 1, None),  # python's versions: an ordinary question
    ("what go versions can build etcd 3.5", 1, None),
])
def test_which_releases_and_a_moved_default_in_other_words(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, kind", [
    ("X flag in etcd, new in 3.5 or older?", "introduced"),
    ("--x (no experimental- prefix): 3.5 or 3.6?", "introduced"),
    ("X - in 2.53 or only in 3.5?", "introduced"),
    ("X deprecated in 3.5 or a later one?", "deprecated"),
    ("X removed in 3.5 or 3.6?", "removed"),
    ("what does X default to in 3.5 or 3.6?", None),  # a value asked: searched
    ("X in 3.5 or 3.6, how do I set it?", None),  # the alternatives do not close the question
    ("X in 3.5?", None),  # no alternatives
])
def test_releases_offered_as_alternatives_ask_which_release_it_belongs_to(question, kind):
    assert either_kind(question) == kind


@pytest.mark.parametrize("question, named, kind", [
    ("X in 2.53, can i use it?", 1, "in_release"),
    ("can 2.53 delay the start of tsdb compaction (X flag)?", 1, "in_release"),
    ("can we still enable X in etcd 3.6", 1, "in_release"),
    ("v3.4: can I set X on etcd listeners with --y?", 1, None),  # how to set it: searched
    ("X in 2.53: can I configure it per job?", 1, None),
])
def test_whether_a_release_lets_the_user_use_it(question, named, kind):
    assert propose(question, named) == kind


def test_a_leading_new_lists_what_came():
    assert listing("new feature flags in prom 3.5.0?") == ("feature flags", "added")
    assert listing("any new metrics with etcd 3.6?") == ("metrics", "added")
    assert listing("new in 3.5: is X there?") is None  # no plural thing listed


@pytest.mark.parametrize("question, named, kind", [
    ("which values can I list in X in 3.5 that I couldnt in 2.53", 2, "changed_between"),
    ("X options in etcd 3.6 that were not available in 3.5?", 2, "changed_between"),
    ("which values can I list in X in 3.5?", 1, None),  # one release: no contrast
])
def test_what_one_release_allows_that_the_other_did_not(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, expected", [
    ("removed flags in etcd 3.6?", ("flags", "removed")),
    ("flags gone in etcd 3.6?", ("flags", "removed")),
    ("deprecated metrics in etcd 3.5?", ("metrics", "deprecated")),
    ("are there new metrics in etcd 3.6", ("metrics", "added")),
    ("removed in 3.6: is --x still there?", None),  # no plural thing opens it
])
def test_a_listing_said_with_the_change_beside_its_noun(question, expected):
    assert listing(question) == expected


@pytest.mark.parametrize("question, named, kind", [
    ("X default from 3.4 to 3.6?", 2, "did_change"),
    ("what is the X default from 3.4 to 3.6 and why?", 2, None),  # asks what and why: searched
    ("X from 3.4 to 3.6?", 2, None),  # no value word
    ("X on etcd 3.6, works?", 1, "in_release"),
    ("etcd 3.6 and X, still ok?", 1, "in_release"),
])
def test_a_default_from_one_release_to_another_and_whether_it_still_works(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, kind", [
    ("--x: 3.4 too?", "in_release"),
    ("X also in prometheus 2.45?", "in_release"),
    ("how do I set X in 3.4 too?", None),
])
def test_whether_another_release_has_it_as_well(question, kind):
    assert propose(question, 1) == kind


@pytest.mark.parametrize("question, named, kind", [
    ("--x: which of 3.4 / 3.5 / 3.6 document it", 2, "which_releases"),
    ("2.45, 2.53 or 3.5: which have X?", 3, "which_releases"),
    ("in which of etcd 3.5 and 3.6 is X listed", 2, "which_releases"),
    ("X - v3.4, v3.5 and v3.6, which?", 2, "which_releases"),
    ("which of 3.5 / 3.6 dropped X", 2, None),  # a removal asked: not which releases document it
    ("X in 3.5 and 3.6: which is faster to defrag", 2, None),  # "which" asks of something else, no list before it
    ("which of the flags in 3.5 is X", 1, None),  # no releases listed
])
def test_releases_listed_with_which_asks_which_of_them_document_it(question, named, kind):
    assert propose(question, named) == kind


def test_the_releases_a_which_of_question_lists():
    prom = ["v2.45.0", "v2.53.0", "v3.5.0"]
    assert listed_releases("which of prometheus 2.45 / 3.5 document X", prom) == ["v2.45.0", "v3.5.0"]
    assert listed_releases("X: v3.5.0, 2.53.0 or 2.45, which have it?", prom) == prom
    assert listed_releases("which of 3.5 and 3.6 list --x", ["v3.4", "v3.5", "v3.6"]) == ["v3.5", "v3.6"]
    assert listed_releases("which releases document X", prom) == []


# -- decided by the timeline's evidence (timeline_evidence.py) -----------------------------------------------------
ETCD = ["v3.4", "v3.5", "v3.6"]


@pytest.mark.parametrize("question, named, documented, asked, unasked, kind", [
    # One release lacking the term: a "no" answers a question asking one more thing of it, in any verb.
    ("would etcd 3.4 recognise X?", 1, ["v3.6"], "v3.4", ["recognise"], "in_release"),
    ("X: does etcd 3.5 understand it?", 1, ["v3.6"], "v3.5", ["understand"], "in_release"),
    ("X, 3.4 - any luck?", 1, ["v3.5", "v3.6"], "v3.4", ["luck"], "in_release"),
    ("etcd 3.4 X to pin memory and avoid swapping?", 1, ["v3.5"], "v3.4", ["pin", "avoid", "swapping"], None),
    # The release has it: a "yes" answers only a question asking nothing but its presence.
    ("X with etcd v3.6, documented?", 1, ["v3.5", "v3.6"], "v3.6", [], "in_release"),
    ("does X need a feature flag in 3.5?", 1, ["v3.5", "v3.6"], "v3.5", ["need"], None),
    # Every release documents it alike: nothing for the timeline to say, searched.
    ("X in etcd 3.5?", 1, ETCD, "v3.5", [], None),
    # How, why, what is, which <noun>, a value, a symptom, a fragment: searched whatever the evidence.
    ("how do I turn on X in etcd 3.6?", 1, ["v3.6"], "v3.6", [], None),
    ("what is X in etcd 3.6?", 1, ["v3.6"], "v3.6", [], None),
    ("which --feature-gates does etcd v3.5 support?", 1, ["v3.6"], "v3.5", [], None),
    ("X default in etcd 3.5?", 1, ["v3.5", "v3.6"], "v3.5", [], None),
    ("etcd 3.5 fails to start with X?", 1, ["v3.6"], "v3.5", [], None),
    ("v3.5 X", 1, ["v3.6"], "v3.5", [], None),
    # Two releases: a comparison, of the value when one is asked.
    ("X, etcd 3.5 vs etcd 3.6?", 2, ETCD, None, [], "changed_between"),
    ("X: the 3.5 default and the 3.6 one, moved?", 2, ETCD, None, [], "did_change"),
    ("what flag enables X in 2.53 versus 3.5?", 2, ETCD, None, [], None),
    ("what happened to X between 3.5 and 3.6?", 2, ETCD, None, [], "changed_between"),  # its fate: what changed
    ("what happened to X in 3.6?", 1, ["v3.5"], "v3.6", [], None),  # one release: timeline_questions' own rules
    # A change asked of a release that has the term: "Yes, 3.6 documents it" would answer another question.
    ("Does etcd 3.6 remove X?", 1, ["v3.5", "v3.6"], "v3.6", [], None),
    ("Did etcd 3.6 add X?", 1, ["v3.6"], "v3.6", [], None),
    ("did 3.4 add X?", 1, ["v3.5", "v3.6"], "v3.4", [], "in_release"),  # lacking it: the "No" holds
    # Two releases asked of anything but their difference: searched.
    ("can I run X in etcd 3.4 and 3.5 members in one cluster?", 2, ETCD, None, ["run", "members", "cluster"], None),
    ("X from 2.53 to 3.5: will my rules keep working?", 2, ETCD, None, ["rules", "keep", "working"], None),
    ("is X different in 3.6 than 3.5?", 2, ETCD, None, ["different"], "changed_between"),
    ("X runtime default in the config file, same in 2.53 and 3.5?", 2, ETCD, None, ["runtime", "config"], "did_change"),
])
def test_evidence_decides_the_kind(question, named, documented, asked, unasked, kind):
    assert evidence_kind(question, named, documented, ETCD, asked, unasked) == kind


def test_unasked_words_are_what_else_the_question_asks_of_the_term():
    assert unasked_words("does sort_by_label need a feature flag in Prometheus 3.5?", "sort_by_label",
                         {"prometheus"}) == ["need"]
    assert unasked_words("the use-uncached-io feature - is it still there in prom 3.5.0?", "use-uncached-io",
                         {"prometheus"}) == []  # "prom" is the product's name shortened
    # The user's own system and words of asking ask nothing of the term.
    assert unasked_words("would my etcd 3.5 cluster take --x, yes or no?", "--x", {"etcd"}) == ["take"]
    # Read before routing: only a question naming a version and asking nothing else goes on to the timeline.
    assert may_decide("X in 2.53?") and may_decide("X default, 2.45 and 3.5?")
    assert not may_decide("is X there?") and not may_decide("how do I set X in 2.53?")
    assert not may_decide("X default in 2.53?") and not may_decide("v2.53 X")


def test_a_name_s_parts_are_no_symptom_or_how_to():
    assert evidence_kind("--experimental-warning-unary-request-duration in etcd 3.5 and in 3.6?", 2, ETCD, ETCD) \
        == "changed_between"
    assert evidence_kind("does 3.5 warn about --x?", 1, ["v3.6"], ETCD, "v3.5", []) is None


def test_words_of_the_term_s_own_passage_ask_nothing_more():
    # "scrape" and "setting" describe the term where the release documents it; "need" asks something else.
    lines = ["<scrape_config>\n# Whether to keep dropped targets: keep_dropped_targets: <int> | default = 0"]
    assert unasked_words("does 2.53 support the keep_dropped_targets scrape setting?", "keep_dropped_targets",
                         {"prometheus"}, lines) == []
    assert unasked_words("does 2.53 support the keep_dropped_targets scrape setting?", "keep_dropped_targets",
                         {"prometheus"}) == ["scrape"]
    assert evidence_kind("v3.4: can I set X on listeners?", 1, ["v3.5"], ETCD, "v3.4", []) is None  # a how-to


@pytest.mark.parametrize("question, yes_no", [
    ("can i switch on X via --feature-gates on etcd 3.5", True),
    ("basic_auth username_file - does 2.53 support reading the username from a file", True),
    ("etcd 3.4: is --x there?", True),
    ("What is the default --auth-token-ttl in etcd v3.4?", False),
    ("how do I enable X in 3.5?", False),
    ("does 3.5 say which flags replace X?", False),
    ("Is there an alternative to --feature-gates in etcd 3.5?", False),  # answered by naming one, not by a "No"
])
def test_a_yes_no_that_asks_nothing_else(question, yes_no):
    """Only such a question about one release turns the knowledge verdict into the answer "No" (timeline_absent)."""
    assert asks_yes_no(question) is yes_no


# -- a feature said in plain words, decided from search (timeline_search) ----------------------------------------
ETCD3 = ["v3.4", "v3.5", "v3.6"]


def _hit(release, section, score, path="op-guide/x.md"):
    return Hit(release, path, section, score, f"## {section.split(' > ')[-1]}\nSome text.")


def test_a_release_has_the_feature_when_its_hits_hold_the_best_section_scoring_close_to_it():
    hits = [_hit("v3.4", "Use cases > Restart from majority failure", 0.58),
            _hit("v3.5", "Use cases > Recover from minority failure", 0.68),
            _hit("v3.6", "Recover from minority failure", 0.66),  # the page title left the breadcrumb: same section
            _hit("v3.5", "Use cases > Restart from majority failure", 0.58)]
    assert sorted(decide(hits, ETCD3)) == ["v3.5", "v3.6"]
    # The same section whose text lost what was asked scores lower: absent.
    assert sorted(decide(hits, ETCD3, margin=0.01)) == ["v3.5"]
    assert decide(hits, ETCD3, floor=0.7) is None  # nothing matches well: searched as before
    assert decide([], ETCD3) is None


def test_a_section_whose_page_moved_between_releases_is_still_the_same_section():
    # etcd 3.4's op-guide/authentication.md became op-guide/authentication/rbac.md in 3.5, headings kept.
    hits = [_hit("v3.4", "Authentication > Special users and roles", 0.71, "op-guide/authentication.md"),
            _hit("v3.5", "Role-based access control > Special users and roles", 0.70, "op-guide/authentication/rbac.md"),
            _hit("v3.6", "Role-based access control > Special users and roles", 0.70, "op-guide/authentication/rbac.md")]
    assert sorted(decide(hits, ETCD3)) == ETCD3
    # A one-word heading names nothing outside its own page.
    hits = [_hit("v3.4", "Authentication > Overview", 0.71, "op-guide/authentication.md"),
            _hit("v3.5", "Runtime reconfiguration > Overview", 0.70, "op-guide/runtime-configuration.md")]
    assert sorted(decide(hits, ETCD3)) == ["v3.4"]


def test_the_kinds_are_read_off_the_releases_that_have_the_feature():
    best = _hit("v3.5", "Use cases > Recover from minority failure", 0.68)
    present = {"v3.5": best, "v3.6": _hit("v3.6", "Recover from minority failure", 0.68)}
    came = answer("introduced", "etcd", present, ETCD3, None, best)
    assert came.releases == ["v3.5"] and "v3.4 has no such section" in came.answer and came.cited[0].release == "v3.5"
    no = answer("in_release", "etcd", present, ETCD3, "v3.4", best)
    assert no.answer.startswith("No:") and no.absent_in == ["v3.4"] and no.other_releases == ["v3.5", "v3.6"]
    assert answer("in_release", "etcd", present, ETCD3, "v3.6", best).answer.startswith("Yes:")
    assert answer("removed", "etcd", present, ETCD3, None, best).releases == ["v3.6"]  # still in the newest
    went = answer("removed", "etcd", {"v3.4": best}, ETCD3, None, best)
    assert went.releases == ["v3.5", "v3.4"] and "went in etcd v3.5" in went.answer
    assert answer("which_releases", "etcd", present, ETCD3, None, best).releases == ["v3.5", "v3.6"]


def test_the_searched_subject_leaves_out_words_of_time_asking_and_product():
    assert subject("recovering from a minority failure in the runtime reconfig docs, since which etcd version is "
                   "that covered", {"etcd"}) == "recovering minority failure runtime reconfig"
    assert subject("prom 2.53: the storage docs used to suggest RAID?", {"prometheus"}) == "storage suggest RAID"


@pytest.mark.parametrize("question, asks", [
    ("do the 3.4 security docs say whether etcd encrypts data stored on disk", True),
    ("does the etcd 3.5 faq say anything about encrypting data on disk?", True),
    ("does the prometheus 3.5 guide tell me if remote write retries?", True),
    ("do the prometheus 3.5 docs say how to configure remote write?", False),  # a how-to: searched
    ("what do the 3.5 docs say about defragmentation?", False),
])
def test_whether_a_release_s_docs_cover_a_topic_is_a_presence_asked(question, asks):
    assert bool(_DOCS_SAY.search(question)) is asks


# -- round 9: one vocabulary, one decision (timeline_words cue families, timeline_evidence.decide_kind) -------------
@pytest.mark.parametrize("question, family, hit", [
    ("when did they get rid of X", "REMOVED", True),
    ("which release killed off X", "REMOVED", True),
    ("the docs used to suggest X, which version stopped", "REMOVED", True),
    ("when did they get rid of X", "INTRODUCED", False),  # "get rid of" is no "get"
    ("what version brought X in", "INTRODUCED", True),
    ("which etcd gave us X", "INTRODUCED", True),
    ("is X deprected", "DEPRECATED", True),
    ("is X depricated", "DEPRECATED", True),
    ("X, introduced when exactly", "TIME", True),
    ("which etcd gave us X", "TIME", True),
    ("when should I use X", "TIME", False),  # asks no time
    ("will 3.5 let me pass X", "USABLE", True),
    ("X - can i set it in 2.53.0", "USABLE", True),
    ("does 3.5 understand X", "USABLE", True),
])
def test_the_cue_families_are_broad_verbs_not_phrases(question, family, hit):
    import assistant.answering.timeline_words as words
    assert bool(getattr(words, family).search(question)) is hit


HELD = ["v3.4", "v3.5", "v3.6"]


@pytest.mark.parametrize("question, named, documented, asked, kind", [
    ("X gate, introducd when exactly", 0, ["v3.6"], None, "introduced"),
    ("which etcd gave us X", 0, ["v3.5", "v3.6"], None, "introduced"),
    # Round 10, one door: a time asked with a cue is answered from the timeline whatever the releases hold, as "which
    # release added X" always was ("X first appears in v3.4, the oldest release in the library"; "X has not been
    # removed: the newest release still documents it"), also for a term no release holds ("no release mentions X").
    ("which etcd gave us X", 0, HELD, None, "introduced"),
    ("when did they get rid of X", 0, ["v3.4"], None, "removed"),
    ("when did they get rid of X", 0, HELD, None, "removed"),
    ("is X deprected, since when", 0, HELD, None, "deprecated"),
    ("when did the docs start X", 0, [], None, "introduced"),
    ("X, how do I get rid of it", 0, ["v3.4"], None, None),  # a how-to, no time: search
    ("will 3.5 let me pass X", 1, ["v3.6"], "v3.5", "in_release"),  # the release lacks it: No
    ("X - can i set it in 3.5", 1, ["v3.5", "v3.6"], "v3.5", "in_release"),
    ("will 3.5 let me pass X", 1, HELD, "v3.5", None),  # the releases do not separate on it
    ("can i set X to 5 in 3.5", 1, ["v3.5", "v3.6"], "v3.5", None),  # a value asked
])
def test_the_decision_takes_a_cue_only_where_the_timeline_places_the_term(question, named, documented, asked, kind):
    from assistant.answering.timeline_evidence import decide_kind
    unasked = ["pass", "let"] if "pass" in question else ["set"] if "set it" in question else []
    assert decide_kind(question, named, documented, HELD, asked, unasked) == kind


@pytest.mark.parametrize("question, takes", [
    ("which etcd gave us X", True),
    ("will 3.5 let me pass X", True),
    ("how do I set up TLS", False),
    ("when should I compact", False),
])
def test_the_cheap_gate_lets_the_new_wordings_through(question, takes):
    from assistant.answering.timeline_evidence import may_take
    assert may_take(question) is takes


# -- round 10: the phrase rules retired into one decision; families moved as words ----------------------------------
@pytest.mark.parametrize("question, family, hit", [
    ("etcdctl migrate got yanked in which version", "REMOVED", True),
    ("X vanished in which release?", "GONE", True),
    ("in what version was X pulled", "REMOVED", True),
    ("X was taken out when", "REMOVED", True),
    ("is X on its way out", "DEPRECATED", True),
    ("X was born in which version", "INTRODUCED", True),
    ("what release rolled out X", "CAME", True),
    ("earliest version that documents X", "INTRODUCED", True),
    ("X, is that still covered for v3.6", "STILL", True),
    ("X covered in the 3.5 docs?", "PRESENT", True),
    ("running 3.4 - am I able to use X", "USABLE", True),
    ("on 2.53.0 can my scrape config use X", "USABLE", True),
    ("X on 2.53 - there or not", "YESNO_CLAUSE", True),
    ("wich version introducd X", "TIME", True),
    ("X was taken out when", "TIME", True),
    ("my scrapes fail when the target sends no header", "TIME", False),  # a "when" of a clause asks no time
    ("what max size is used when X is on?", "TIME", False),
])
def test_the_families_moved_from_the_phrase_rules_are_words(question, family, hit):
    import assistant.answering.timeline_words as words
    assert bool(getattr(words, family).search(question)) is hit


@pytest.mark.parametrize("question, named, kind", [
    ("--enable-feature=agent vanished in which release?", 0, "removed"),  # a flag's "enable" is no cue of coming
    ("3.6: --x is deprecated, what's the new flag name?", 1, None),  # a name stripped is still a word of the clause
    ("is --lint-fatal in every release", 0, "which_releases"),
    ("list the etcd versions that mention --x", 0, "which_releases"),
    ("did --snapshot-count move between 3.5 and 3.6", 2, "did_change"),
    ("can i still pass --peer-crl-file on 3.6", 1, "in_release"),
    ("X on 2.53 - there or not", 1, "in_release"),
    ("does remote write still use HTTP/2 by default?", 0, None),  # what it still does, no presence
])
def test_one_door_proposes_from_the_cue_words(question, named, kind):
    assert propose(question, named) == kind


@pytest.mark.parametrize("question, documented, kind", [
    ("X: which etcd version was the end of the road for it", ["v3.4"], "removed"),  # no cue: the newest lacks it
    ("X: which etcd version do we owe it to", ["v3.6"], "introduced"),  # the oldest lacks it
    ("X: which etcd version do we owe it to", ["v3.5"], None),  # only the middle one: nothing to place
    ("X: which etcd version do we owe it to", HELD, None),
    ("X: which version should I install", ["v3.6"], None),  # a choice asked, not a time
])
def test_a_time_asked_in_words_no_cue_knows_is_placed_by_the_releases(question, documented, kind):
    from assistant.answering.timeline_evidence import decide_kind
    assert decide_kind(question, 0, documented, HELD, None, []) == kind
