"""iKnow's pairwise comparison: which of two presets' answers covers more of what was asked (coverage) and is more
specific to the user's product and release (specificity): win, tie or loss for the first.

The judge sees both orders; a preference counts only when it survives the swap, since LLM judges favour a
position (Zheng et al., 2023, "Judging LLM-as-a-Judge"); otherwise it is a tie."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assistant.backends.chat import ChatModel
from assistant.evaluation.judge.base import JudgePrompt, ask_judge

CRITERIA = ("coverage", "specificity")
_CHOICES = {"a": "A", "b": "B", "tie": "tie", "answer a": "A", "answer b": "B", "equal": "tie", "none": "tie"}


@dataclass(frozen=True)
class PairwiseInput:
    question: str
    answer_a: str
    answer_b: str


@dataclass
class PairwiseResult:
    outcomes: dict[str, str]  # criterion -> win | tie | loss, for answer A
    valid: bool
    raw: tuple[str, str] = ("", "")

    def to_json(self) -> dict:
        return {"outcomes": self.outcomes, "valid": self.valid}


PROMPT = JudgePrompt(
    name="pairwise",
    instruction=(
        "Compare two answers to the same question about product documentation. coverage: which answer addresses "
        "more of what was asked. specificity: which answer is more specific to the product and release in the "
        "question (exact values, flags, steps) rather than generic. Say \"tie\" when neither is better."
    ),
    reply_format='{"coverage": "A" | "B" | "tie", "specificity": "A" | "B" | "tie"}',
)


def parse_preferences(reply: dict | None) -> dict[str, str] | None:
    if not isinstance(reply, dict):
        return None
    out = {}
    for c in CRITERIA:
        choice = _CHOICES.get(str(reply.get(c, "")).strip().lower())
        if choice is None:
            return None
        out[c] = choice
    return out


def combine(first: dict[str, str], swapped: dict[str, str]) -> dict[str, str]:
    """first: A shown first; swapped: A shown second (so its "B" means A). Outcomes for A."""
    out = {}
    for c in CRITERIA:
        a_first = first[c]
        a_second = {"A": "B", "B": "A", "tie": "tie"}[swapped[c]]
        if a_first == a_second == "A":
            out[c] = "win"
        elif a_first == a_second == "B":
            out[c] = "loss"
        else:
            out[c] = "tie"
    return out


def win_tie_loss(outcomes: Sequence[str]) -> dict[str, float | int | None]:
    n = len(outcomes)
    counts = {k: sum(o == k for o in outcomes) for k in ("win", "tie", "loss")}
    return {**counts, "n": n, "win_rate": counts["win"] / n if n else None}


def judge_pair(llm: ChatModel, item: PairwiseInput) -> PairwiseResult:
    q = item.question
    one, raw1 = ask_judge(llm, PROMPT, {"question": q, "answer A": item.answer_a, "answer B": item.answer_b}, max_tokens=60)
    two, raw2 = ask_judge(llm, PROMPT, {"question": q, "answer A": item.answer_b, "answer B": item.answer_a}, max_tokens=60)
    p1, p2 = parse_preferences(one), parse_preferences(two)
    if p1 is None or p2 is None:
        return PairwiseResult({}, False, (raw1, raw2))
    return PairwiseResult(combine(p1, p2), True, (raw1, raw2))
