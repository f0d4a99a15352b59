"""iKnow's intent-specific judging: each operational intent has criteria a correct answer meets (C1..) and
failures that make it incorrect (I1..). The judge marks each; the verdict is computed, not asked for."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.backends.chat import ChatModel
from assistant.evaluation.judge.base import JudgePrompt, JudgeScore, judged


@dataclass(frozen=True)
class Criteria:
    correct: tuple[str, ...]
    incorrect: tuple[str, ...]


CRITERIA: dict[str, Criteria] = {
    "symptom_analysis": Criteria(
        ("names the likely cause or causes of the symptom", "gives steps to confirm the cause or to fix it"),
        ("blames a cause the documentation does not support", "only restates the symptom"),
    ),
    "operational_guidance": Criteria(
        ("gives the procedure as ordered steps", "names the exact commands, flags or settings to use"),
        ("omits a step the procedure requires", "gives commands or flags that do not exist in the release asked"),
    ),
    "multi_facet_summary": Criteria(
        ("covers the main aspects of the topic", "keeps the aspects apart in a structured way"),
        ("covers a single aspect only", "states facts that contradict the documentation"),
    ),
    "terminology_explanation": Criteria(
        ("defines the term", "explains what the term does or is used for in the product"),
        ("explains a different term", "gives a definition that contradicts the documentation"),
    ),
    "fact_verification": Criteria(
        ("answers the yes/no question explicitly", "backs the answer with the documented fact"),
        ("avoids deciding yes or no", "decides the opposite of what the documentation states"),
    ),
}

PROMPT = JudgePrompt(
    name="intent_criteria",
    instruction=(
        "You check an answer to a {intent} question against criteria. For each criterion id, reply true when the "
        "answer meets it (C ids) or shows that failure (I ids), false otherwise."
    ),
    reply_format='{"C1": true | false, ..., "I1": true | false, ...}',
)


def criteria_ids(intent: str) -> dict[str, str]:
    c = CRITERIA[intent]
    return {**{f"C{i}": t for i, t in enumerate(c.correct, 1)}, **{f"I{i}": t for i, t in enumerate(c.incorrect, 1)}}


def score_intent_criteria(reply: dict, intent: str) -> JudgeScore | None:
    """Correct when every C criterion is met and no I failure is present; score 1 or 0."""
    ids = criteria_ids(intent)
    marks = {}
    for key in ids:
        value = reply.get(key, reply.get(key.lower()))
        if not isinstance(value, bool):
            return None
        marks[key] = value
    met = [k for k in ids if k.startswith("C") and marks[k]]
    failures = [k for k in ids if k.startswith("I") and marks[k]]
    n_correct = sum(k.startswith("C") for k in ids)
    correct = len(met) == n_correct and not failures
    return JudgeScore("intent_criteria", 1.0 if correct else 0.0, True, label="correct" if correct else "incorrect",
                      details={"met": [ids[k] for k in met], "failures": [ids[k] for k in failures],
                               "criteria_met": len(met) / n_correct})


def judge_intent_criteria(llm: ChatModel, question: str, answer: str, intent: str | None) -> JudgeScore:
    if intent not in CRITERIA or not answer.strip():
        return JudgeScore("intent_criteria", None, True, reason="no operational intent or no answer")
    prompt = JudgePrompt(PROMPT.name, PROMPT.instruction.replace("{intent}", intent.replace("_", " ")),
                         PROMPT.reply_format)
    listing = "\n".join(f"{k}: {t}" for k, t in criteria_ids(intent).items())
    return judged("intent_criteria", llm, prompt, {"criteria": listing, "question": question, "answer": answer},
                  lambda reply: score_intent_criteria(reply, intent))
