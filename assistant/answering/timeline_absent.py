"""A yes/no about one release that the knowledge check already answers (issue 16, round 6).

"can I switch on CompactHashCheck via --feature-gates on etcd 3.5", "basic_auth username_file - does 2.53 support
reading the username from a file": the timeline stage does not take them (no cue it reads, or a term it does not
pick), search does, and the knowledge check finds the asked release lacks the question's term while another release
of the product has it. That verdict is the answer: "No: `X` is not documented in etcd v3.5. It appears in v3.6 [1]",
citing the first release's passage that names it, instead of "I don't know: X is not documented in v3.5. It is
documented in: v3.6." Only for a yes/no question about one release, never a how-to or a question asking what/which.
"""

from __future__ import annotations

import re

from assistant.answering import citations as cite
from assistant.answering import knowledge as kn
from assistant.answering.timeline_cues import asks_yes_no
from assistant.answering.timeline_questions import excerpt
from assistant.library.timeline import Timeline


def absent_answer(question: str, knowledge: dict, product: str, releases: list[str],
                  timeline: Timeline) -> tuple[str, list[cite.Source]] | None:
    """The answer "No" with its citation when the knowledge verdict (`knowledge`: KnowledgeVerdict's fields) says the
    one release asked lacks the question's terms and other releases document them all; else None."""
    absent, others = knowledge.get("absent_terms") or [], knowledge.get("other_releases") or []
    if not (knowledge.get("missing") and absent and others and len(releases) == 1 and asks_yes_no(question)):
        return None
    first = others[0]
    occ = next((o for t in absent for o in timeline.occurrences(product, t) if o.release == first), None)
    row = timeline.section(product, first, occ.path, occ.ord) if occ is not None else None
    if row is None:
        return None
    said = [m.group(0) if (m := re.search(re.escape(t), question, re.IGNORECASE)) else t for t in absent]
    names = ", ".join(f"`{t}`" for t in said)  # as the question spells them ("CompactHashCheck")
    verb = "is" if len(absent) == 1 else "are"
    answer = f"No: {names} {verb} not documented in {product} {releases[0]}. It appears in {', '.join(others)} [1]."
    source = cite.Source(n=1, product=product, release=first, path=occ.path, page=None, section=occ.heading,
                         title="", score=1.0, text=excerpt(row.text, absent[0]))
    return cite.apply(answer, [source])


def missing_answer(question: str, knowledge: dict, routing, timeline: Timeline,
                   sources: list[cite.Source]) -> tuple[str, list[cite.Source]]:
    """What the assistant says when the knowledge check finds the documents do not cover the question: the answer
    "No" above where it applies, else the degraded answer (knowledge.degraded_answer) with the retrieved sources."""
    return absent_answer(question, knowledge, routing.product, routing.releases, timeline) or \
        (kn.degraded_answer(kn.KnowledgeVerdict(**knowledge), routing.product, routing.releases), sources)
