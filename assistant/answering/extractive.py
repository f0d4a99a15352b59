"""An answer without a language model: the sentences of the top passages that answer the question, quoted with their
[n] citations, the question's identifiers in bold.

Issue 17: asked "In etcd 3.5, what is the default --snapshot-count?", the embedded Gemma 270M (a base model) answered
"3.5.x" and cited nothing. Quoting the documents cannot invent a value; it can only pick the wrong sentence, and the
citation shows where to check. README "Answers without Ollama" compares the two on the dev sets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.answering.citations import Source
from assistant.answering.knowledge import identifiers
from assistant.answering.reduce import split_sentences
from assistant.library.lexical import tokenize

# Words that say what kind of answer is wanted but not what it is about.
_ASKING = {"what", "which", "how", "does", "do", "is", "are", "can", "when", "where", "why", "who", "value", "use",
           "used", "set", "get", "there", "it", "its", "in", "the", "a", "an", "of", "for", "to", "and", "or"}
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+(?:\.x)?$|^\d+$")
_NUMBER_QUESTION = re.compile(r"\b(default|how (many|much|long|big)|limit|maximum|minimum|max|min|size|timeout|"
                              r"interval|port|version)\b", re.I)
_DIGIT = re.compile(r"\d")
_HTML_TAG = re.compile(r"</?(?:code|span|a|b|i|em|strong|br|p|div|td|tr|th|sup|sub|kbd|var)\b[^>]*>", re.I)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKUP = re.compile(r"^(?:[#>|+]+|[-*](?=\s)|\d+\.(?=\s))\s*")  # heading, quote, table and list markers
MAX_SENTENCE = 360


@dataclass(frozen=True)
class Quote:
    n: int  # the source's number
    text: str
    score: float
    under: str = ""  # the heading the sentence sits under, when the heading names what the question asks about


def question_terms(question: str, product: str = "") -> dict[str, float]:
    """Term -> weight: a whole identifier (flag, dotted or snake_case name) counts three times a plain word, its
    parts once; release numbers and the product's name count nothing (routing already chose them)."""
    ignore = set(tokenize(product))
    weights: dict[str, float] = {}
    for token in tokenize(question):
        if token in _ASKING or token in ignore or _VERSION.match(token):
            continue
        weights[token] = 1.0
    for ident in identifiers(question):
        whole = tokenize(ident)
        if whole:
            weights[whole[0]] = 3.0
    return weights


def _clean(sentence: str) -> str:
    # HTML markup goes (reference tables wrap flags in <code>); placeholders such as "<int>" are text and stay.
    text = _MARKUP.sub("", " ".join(_HTML_TAG.sub("", sentence).replace("`", "").split())).rstrip("| ")
    return text.replace("*", "\\*")


def _trim(text: str, terms: dict[str, float]) -> str:
    """A long sentence (a table row, a run-on list) is cut to a window around its first strong term."""
    if len(text) <= MAX_SENTENCE:
        return text
    lowered = text.lower()
    hits = [lowered.find(t) for t, w in sorted(terms.items(), key=lambda kv: -kv[1]) if t in lowered]
    start = max(0, (hits[0] if hits else 0) - MAX_SENTENCE // 3)
    window = text[start:start + MAX_SENTENCE]
    return ("…" if start else "") + window + ("…" if start + MAX_SENTENCE < len(text) else "")


def _units(text: str) -> list[str]:
    """Sentences, except that a table row stays whole: its flag, description and default belong together."""
    units: list[str] = []
    for line in text.splitlines():
        units.extend([line] if line.lstrip().startswith("|") else split_sentences(line))
    return [u for u in units if u.strip()]


def score_sentence(sentence: str, terms: dict[str, float], wants_number: bool, heading: str = "") -> float:
    """Terms in the sentence count in full, terms only in its heading count 0.6: reference pages name an option in
    a heading and give its value in the lines below ("### --snapshot-count" ... "default: 100000")."""
    tokens, above = set(tokenize(sentence)), set(tokenize(heading))
    score = sum(w if t in tokens else 0.6 * w if t in above else 0.0 for t, w in terms.items())
    if score and wants_number and _DIGIT.search(sentence):
        score += 0.5  # "what is the default X" is answered by the sentence that holds a value
    return score


def pick_quotes(question: str, sources: list[Source], *, max_quotes: int = 3, per_source: int = 2) -> list[Quote]:
    """The best-scoring sentences over all sources; a lower-ranked source's sentence must score clearly higher to
    come first, and quotes scoring under half the best are left out."""
    terms = question_terms(question, sources[0].product if sources else "")
    if not terms:
        return []
    wants_number = bool(_NUMBER_QUESTION.search(question))
    found: list[Quote] = []
    seen: set[str] = set()  # the same sentence in two sources (releases share pages) is quoted once
    for rank, source in enumerate(sources):
        heading = source.section or ""
        for sentence in _units(source.text):
            if _HEADING.match(sentence):
                heading = _clean(sentence)
                continue
            text = _clean(sentence)
            if len(text) < 8 or text.lower() in seen:
                continue
            seen.add(text.lower())
            score = score_sentence(text, terms, wants_number, heading)
            if score > 0:
                own = set(tokenize(text))
                # Say which heading a quote sits under when the heading, not the sentence, names the subject.
                under = heading if any(t in set(tokenize(heading)) - own for t in terms) else ""
                found.append(Quote(source.n, _trim(text, terms), score / (1 + 0.15 * rank), under[:80]))
    found.sort(key=lambda q: -q.score)
    quotes: list[Quote] = []
    for q in found:
        if len(quotes) == max_quotes or q.score < found[0].score / 2:
            break
        if sum(1 for kept in quotes if kept.n == q.n) < per_source:
            quotes.append(q)
    return quotes


def highlight(text: str, question: str) -> str:
    """The question's identifiers in bold where the quote has them (case-insensitive, whole names)."""
    for ident in sorted(identifiers(question), key=len, reverse=True):
        pattern = re.compile(r"(?<![\w\-.*])" + re.escape(ident) + r"(?![\w\-*]|\.\w)", re.I)
        text = pattern.sub(lambda m: f"**{m.group(0)}**", text)
    return text


def extractive_answer(question: str, sources: list[Source]) -> str:
    quotes = pick_quotes(question, sources)
    if not quotes:
        return ("No sentence of the retrieved passages matches the question's terms; the ranked sources are "
                "below.") if sources else ""
    lines = [f"- “{highlight(q.text, question)}”" + (f" (under {highlight(q.under, question)})" if q.under else "")
             + f" [{q.n}]" for q in quotes]
    return "From the documents (quoted, no language model):\n\n" + "\n".join(lines)
