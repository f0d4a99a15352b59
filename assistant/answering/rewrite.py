"""Query rewriting (stage 4): history-aware condensation (Ericsson), intent-guided expansion (iKnow), QAMR's
several search queries (base, filtered, versionless) and acronyms expanded from the corpus glossary.

Every rewrite has a deterministic path; an LLM, when given, is asked for JSON and its reply is validated, and an
unusable reply falls back to the deterministic path instead of failing the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assistant.answering.glossary import expand
from assistant.backends.chat import ChatModel, ask_json
from assistant.library.lexical import STOP_WORDS
from assistant.library.terms import identifiers

_OPENER = re.compile(r"^\s*(and|also|what about|how about|so|then|but|ok|okay|thanks|and what|same for)\b",
                     re.IGNORECASE)
_FOLLOW_UP = re.compile(
    _OPENER.pattern + r"|\b(it|its|it's|that|this|there|those|these|them|they|one|same|above|previous|former|latter)\b",
    re.IGNORECASE,
)
# What points back at an earlier turn even in a question that names its own topic ("does etcd support it in 3.6?").
# Not "one", "same", "that" or "there": "how many keys can one etcd txn hold", "same default in A and B?", "the flag
# that sets X" and "is there a limit" point nowhere.
_ANAPHOR = re.compile(r"\b(it|its|it's|them|they|those|these|this|above|previous|former|latter)\b", re.IGNORECASE)
# Only openers whose removal leaves the topic itself ("what is X" -> "X", "how do I X" -> "X"); "how often does X"
# keeps its wording, since what remains would not be a topic.
_QUESTION_WORDS = re.compile(
    r"^\s*(?:what(?:'s|\s+is|\s+are|\s+does)(?:\s+an?|\s+the)?|how\s+(?:do|does|can|could|should)\s+(?:i|we|you|one)(?:\s+to)?"
    r"|how\s+to|why\s+(?:does|do|is|are|did|would)|what\s+causes|tell\s+me\s+about|explain|define|describe)\b[\s,:]*",
    re.IGNORECASE,
)
_WORD = re.compile(r"(?:--?)?[\w][\w\-./:]*")

# iKnow: intent-specific rewriting turns terse or symptom-like queries into what the documents answer.
INTENT_TEMPLATES = {
    "terminology_explanation": "What is {x}? Definition, purpose and use of {x}.",
    "symptom_analysis": "Why does {x} happen and how to fix it? Cause and troubleshooting of {x}.",
    "operational_guidance": "How to {x}? Steps, configuration and commands.",
    "fact_verification": "{q} Confirm or refute from the documented defaults, support and behaviour.",
    "multi_facet_summary": "Overview of {x}: features, configuration, options and limits.",
}

INTENT_INSTRUCTIONS = {
    "terminology_explanation": ("Rewrite the user's term or question as a question asking for its definition, "
                                "purpose and use.", [
        ("raft term", "What is a Raft term? Definition, purpose and use."),
        ("WAL?", "What is the write-ahead log (WAL)? Definition, purpose and use."),
        ("what does compaction mean here", "What is compaction? Definition, purpose and use."),
    ]),
    "symptom_analysis": ("Rewrite the user's symptom or error as a question asking why it happens and how to fix it.", [
        ("mvcc: database space exceeded", "Why does 'mvcc: database space exceeded' happen and how to fix it?"),
        ("scrapes keep timing out", "Why do scrapes time out and how to fix it?"),
        ("leader changes every few minutes", "Why does the leader change frequently and how to fix it?"),
    ]),
    "operational_guidance": ("Rewrite the user's request as a how-to question asking for complete steps.", [
        ("enable tls peers", "How to enable TLS between peers? Complete steps and configuration."),
        ("add member to cluster", "How to add a member to a cluster? Complete steps."),
        ("rotate certs", "How to rotate certificates? Complete steps and commands."),
    ]),
    "fact_verification": ("Rewrite the user's claim as an explicit yes/no question about the documented fact.", [
        ("grpc gateway on by default?", "Is the gRPC gateway enabled by default?"),
        ("max_shards default 200", "Is the default value of max_shards 200?"),
        ("does it support arm64", "Is arm64 a supported platform?"),
    ]),
    "multi_facet_summary": ("Rewrite the user's request as a question asking for an overview that covers every aspect.", [
        ("remote write", "Give an overview of remote write: purpose, configuration, tuning and limits."),
        ("auth features", "Summarise the authentication features: users, roles, tokens and configuration."),
        ("storage overview", "Give an overview of storage: layout, retention, compaction and limits."),
    ]),
}


@dataclass
class SearchQuery:
    kind: str  # base | filtered | versionless | intent | glossary
    text: str
    dense: bool = True
    lexical: bool = True


@dataclass
class RewriteResult:
    standalone: str
    rewritten: str
    queries: list[SearchQuery]
    glossary: list[tuple[str, str]] = field(default_factory=list)
    condensed_by: str = "none"  # none | rules | llm
    expanded_by: str = "rules"  # rules | llm
    llm_calls: int = 0


def is_follow_up(question: str, history: list[dict] | None, names_its_topic: bool = False) -> bool:
    """A short question, or one pointing back, continues the conversation ("and max_shards?", "how many at once by
    default?"). One that names its own product (`names_its_topic`, from routing) or an identifier stands alone unless
    it opens as a follow-up or points back: after two questions about --enable-v2 and web.read-timeout, "how many
    keys can one etcd txn hold at most?" had their names carried into it, and the knowledge check then found
    web.read-timeout missing from etcd and answered "I don't know"."""
    if not history or not any(t.get("role") == "user" for t in history):
        return False
    if _OPENER.search(question):
        return True
    if names_its_topic or identifiers(question):
        return bool(_ANAPHOR.search(question))
    words = _WORD.findall(question)
    return len(words) <= 12 or bool(_FOLLOW_UP.search(question))


_VERSIONISH = re.compile(r"^(?:v|r|release)?\d+(?:\.\d+)*(?:\.x)?$", re.IGNORECASE)


def _key_terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower() not in STOP_WORDS and len(w) > 1]


def _topic_terms(text: str) -> list[str]:
    """Key terms minus release spellings: routing decides the release, carrying "v3.4" into a follow-up that
    asks about 3.6 would only pull the search back to the old release's wording."""
    return [w for w in _key_terms(text) if not _VERSIONISH.match(w)]


def condense_rules(question: str, history: list[dict]) -> str:
    """Carry the topic of earlier user turns into a follow-up: their key terms the follow-up lacks, most recent first."""
    present = {w.lower() for w in _key_terms(question)}
    carried: list[str] = []
    for turn in reversed(history):
        if turn.get("role") != "user":
            continue
        for w in _topic_terms(turn.get("content", "")):
            if w.lower() not in present and w.lower() not in {c.lower() for c in carried}:
                carried.append(w)
        if len(carried) >= 8:
            break
    question = question.strip()
    return f"{question} ({' '.join(carried[:12])})" if carried else question


def condense_llm(question: str, history: list[dict], llm: ChatModel) -> str | None:
    convo = "\n".join(f"{t['role']}: {t['content']}" for t in history[-6:])
    reply = ask_json(llm, "You rewrite a follow-up question into a standalone question that can be understood "
                          "without the conversation. Keep product names, versions, flags and numbers. "
                          "Reply with JSON: {\"standalone\": \"...\"}",
                     f"Conversation:\n{convo}\n\nFollow-up: {question}", max_tokens=120)
    text = (reply or {}).get("standalone")
    if not isinstance(text, str) or not 5 <= len(text) <= 400:
        return None
    # A standalone question keeps the follow-up's own words; a reply that drops them all answered something else.
    own = {w.lower() for w in _key_terms(question)}
    if own and not own & {w.lower() for w in _key_terms(text)}:
        return None
    return text.strip()


def core_phrase(question: str) -> str:
    text = _QUESTION_WORDS.sub("", question.strip()).strip(" ?!.")
    return text or question.strip(" ?!.")


def expand_rules(question: str, intent: str | None) -> str:
    template = INTENT_TEMPLATES.get(intent or "")
    if not template:
        return question
    return template.format(x=core_phrase(question), q=question.strip().rstrip("?") + "?")


def expand_llm(question: str, intent: str, llm: ChatModel) -> str | None:
    instruction, examples = INTENT_INSTRUCTIONS[intent]
    shots = "\n".join(f"Query: {q}\nJSON: {{\"rewritten\": \"{r}\"}}" for q, r in examples)
    reply = ask_json(llm, f"{instruction} Keep every technical term, flag, version and number. "
                          "Reply with JSON: {\"rewritten\": \"...\"}",
                     f"{shots}\nQuery: {question}\nJSON:", max_tokens=100)
    text = (reply or {}).get("rewritten")
    if not isinstance(text, str) or not 5 <= len(text) <= 400:
        return None
    lost = [w for w in _key_terms(question) if re.search(r"[\d_\-./]", w) and w.lower() not in text.lower()]
    return None if lost else text.strip()


def filtered(text: str) -> str:
    return " ".join(w for w in _WORD.findall(text) if w.lower() not in STOP_WORDS)


def rewrite(question: str, *, history: list[dict] | None, intent: str | None, versionless: str,
            glossary: dict[str, str], llm: ChatModel | None = None, use_history: bool = True,
            intent_expansion: bool = True, multi_query: bool = True, use_glossary: bool = True,
            names_its_topic: bool = False) -> RewriteResult:
    """`versionless` is the question with its release spellings removed (routing knows where they are);
    `names_its_topic`: the question names its product itself (routing found it there)."""
    calls = 0
    standalone, condensed_by = question.strip(), "none"
    if use_history and is_follow_up(question, history, names_its_topic):
        text = None
        if llm is not None:
            calls += 1
            text = condense_llm(question, history or [], llm)
        standalone, condensed_by = (text, "llm") if text else (condense_rules(question, history or []), "rules")
        if condensed_by == "rules":
            versionless = condense_rules(versionless, history or [])

    rewritten, expanded_by = standalone, "rules"
    if intent_expansion and intent in INTENT_TEMPLATES:
        text = None
        if llm is not None:
            calls += 1
            text = expand_llm(standalone, intent, llm)
        rewritten, expanded_by = (text, "llm") if text else (expand_rules(standalone, intent), "rules")

    queries = [SearchQuery("base", standalone, dense=not multi_query, lexical=not multi_query)]
    pairs: list[tuple[str, str]] = []
    if multi_query:
        queries.append(SearchQuery("versionless", versionless or standalone))
        # Searched by words too, though BM25 drops the same stop words (the same list again): each dense list is
        # then matched by a lexical one in the RRF, so the page that shares the question's rare words (the
        # `StopGRPCServiceOnDefrag` row for "stop serving client requests while defragmenting") is not outvoted two to
        # one by the embedding's near misses.
        # Tuning half hit@3 0.872 -> 0.897 (README: "Ranking (issue 15)").
        queries.append(SearchQuery("filtered", filtered(versionless or standalone)))
    if intent_expansion and expanded_by == "llm" and rewritten != standalone:
        # Only an LLM's expansion carries new content words; the deterministic template adds boilerplate that
        # measurably pulled dense search off target on the dev sets (hit@3 0.87 with it, 0.91 without).
        queries.append(SearchQuery("intent", rewritten, lexical=False))
    if use_glossary:
        pairs = expand(standalone, glossary)
        if pairs:
            extra = " ".join(exp for _, exp in pairs)
            queries.append(SearchQuery("glossary", f"{versionless or standalone} {extra}", dense=False))
    return RewriteResult(standalone, rewritten, queries, pairs, condensed_by, expanded_by, calls)
