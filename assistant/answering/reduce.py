"""Context reduction (stage 7): Ericsson's contextual compression and QAMR's context reduction, cheap and
extractive by default: keep the sentences of each context chunk that matter to the query, in their order."""

from __future__ import annotations

import re

from llama_index.core.schema import NodeWithScore

from assistant.backends.chat import ChatModel, ask_json
from assistant.library.lexical import tokenize

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])|\n+")


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s and s.strip()]


def extract(text: str, query: str, budget_chars: int = 1200, neighbours: int = 1) -> str:
    """The sentences sharing most query terms (and their neighbours), kept in document order within a budget.

    Short contexts pass through whole: compressing what already fits only loses connective text.
    """
    if len(text) <= budget_chars:
        return text
    terms = set(tokenize(query))
    sentences = split_sentences(text)
    scores = [len(terms & set(tokenize(s))) for s in sentences]
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    keep: set[int] = set()
    used = 0
    for i in order:
        if scores[i] == 0 and keep:
            break
        for j in range(max(0, i - neighbours), min(len(sentences), i + neighbours + 1)):
            if j not in keep and used + len(sentences[j]) <= budget_chars:
                keep.add(j)
                used += len(sentences[j]) + 1
        if used >= budget_chars:
            break
    out, last = [], -2
    for i in sorted(keep):
        if i != last + 1 and out:
            out.append("…")
        out.append(sentences[i])
        last = i
    return "\n".join(out)


def llm_select(question: str, contexts: list[NodeWithScore], llm: ChatModel) -> list[NodeWithScore]:
    """QAMR's context selection: ask which passages help; keep the model's choice only when it is usable."""
    if len(contexts) <= 2:
        return contexts
    listing = "\n\n".join(f"[{i}] {n.node.get_content()[:600]}" for i, n in enumerate(contexts, 1))
    reply = ask_json(llm, "Select the passages that help answer the question. "
                          "Reply with JSON: {\"keep\": [passage numbers]}",
                     f"{listing}\n\nQuestion: {question}", max_tokens=40)
    keep = (reply or {}).get("keep")
    if not isinstance(keep, list):
        return contexts
    picked = [contexts[i - 1] for i in keep if isinstance(i, int) and 1 <= i <= len(contexts)]
    return picked or contexts
