"""Faithfulness to the cited context (QAMR; ragas' claim-by-claim method): the judge lists the answer's factual
statements and marks each supported or not by the context; the score is the supported share."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.backends.chat import ChatModel
from assistant.evaluation.judge.base import Example, JudgePrompt, JudgeScore, judged


@dataclass(frozen=True)
class FaithfulnessInput:
    question: str
    answer: str
    contexts: tuple[str, ...]


PROMPT = JudgePrompt(
    name="faithfulness",
    instruction=(
        "Split the answer into its factual statements (ignore greetings, citation marks and statements that the "
        "documents do not cover the question). For each, say whether the context states or directly implies it."
    ),
    reply_format='{"statements": [{"statement": "<text>", "supported": true | false}]}',
    examples=(
        Example({"context": "[1] --snapshot-count: number of committed transactions to trigger a snapshot. Default 100000.",
                 "answer": "The default is 100000 and it is measured in seconds."},
                {"statements": [{"statement": "The default is 100000", "supported": True},
                                {"statement": "It is measured in seconds", "supported": False}]}),
    ),
)


def score_faithfulness(reply: dict) -> JudgeScore | None:
    statements = reply.get("statements")
    if not isinstance(statements, list):
        return None
    flags = []
    for s in statements:
        if not isinstance(s, dict) or not isinstance(s.get("supported"), bool):
            return None
        flags.append(s["supported"])
    if not flags:
        return JudgeScore("faithfulness", None, True, reason="no factual statement to check")
    unsupported = [str(s.get("statement", "")) for s in statements if not s["supported"]]
    return JudgeScore("faithfulness", sum(flags) / len(flags), True, label=f"{sum(flags)}/{len(flags)} supported",
                      details={"unsupported": unsupported})


def judge_faithfulness(llm: ChatModel, item: FaithfulnessInput, *, max_context_chars: int = 6000) -> JudgeScore:
    if not item.answer.strip() or not item.contexts:
        return JudgeScore("faithfulness", None, True, reason="no answer or no context")
    context = "\n\n".join(f"[{i}] {c}" for i, c in enumerate(item.contexts, 1))[:max_context_chars]
    return judged("faithfulness", llm, PROMPT, {"context": context, "question": item.question,
                                                "answer": item.answer}, score_faithfulness, max_tokens=600)
