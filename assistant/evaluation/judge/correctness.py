"""Answer correctness against the ground truth (QAMR's correctness judge)."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.backends.chat import ChatModel
from assistant.evaluation.judge.base import Example, JudgePrompt, JudgeScore, judged

LABELS = {"correct": 1.0, "partially_correct": 0.5, "incorrect": 0.0}


@dataclass(frozen=True)
class CorrectnessInput:
    question: str
    answer: str
    ground_truth: str


PROMPT = JudgePrompt(
    name="correctness",
    instruction=(
        "You grade an answer to a question about product documentation against the ground-truth answer. "
        "\"correct\": it states every fact of the ground truth and contradicts none; \"partially_correct\": it "
        "states some of them and contradicts none; \"incorrect\": it contradicts the ground truth or states none "
        "of its facts. Extra facts that do not contradict the ground truth are fine. Judge facts, not wording."
    ),
    reply_format='{"verdict": "correct" | "partially_correct" | "incorrect", "reason": "<one sentence>"}',
    examples=(
        Example({"question": "Default --snapshot-count in etcd v3.4?", "ground truth": "100000",
                 "answer": "It defaults to 100,000 in v3.4 [1]."},
                {"verdict": "correct", "reason": "Same value."}),
        Example({"question": "Default --snapshot-count in etcd v3.4?", "ground truth": "100000",
                 "answer": "10000 snapshots."},
                {"verdict": "incorrect", "reason": "10000 contradicts 100000."}),
    ),
)


def score_correctness(reply: dict) -> JudgeScore | None:
    """A validated verdict -> score (1, 0.5, 0); None when the reply lacks a known verdict."""
    verdict = str(reply.get("verdict", "")).strip().lower().replace(" ", "_").replace("-", "_")
    if verdict not in LABELS:
        return None
    return JudgeScore("correctness", LABELS[verdict], True, label=verdict, reason=str(reply.get("reason", ""))[:500])


def judge_correctness(llm: ChatModel, item: CorrectnessInput) -> JudgeScore:
    if not item.answer.strip() or not item.ground_truth.strip():
        return JudgeScore("correctness", None, True, reason="no answer or no ground truth")
    return judged("correctness", llm, PROMPT, {"question": item.question, "ground truth": item.ground_truth,
                                               "answer": item.answer}, score_correctness)
