"""LLM-as-judge metrics, one module each: correctness and faithfulness (QAMR), intent-specific criteria and
pairwise coverage/specificity (iKnow). Each has a prompt object, a validated JSON verdict and a pure score."""

from assistant.evaluation.judge.base import JudgePrompt, JudgeScore
from assistant.evaluation.judge.correctness import (
    CorrectnessInput,
    judge_correctness,
    score_correctness,
)
from assistant.evaluation.judge.faithfulness import (
    FaithfulnessInput,
    judge_faithfulness,
    score_faithfulness,
)
from assistant.evaluation.judge.intent_criteria import (
    CRITERIA,
    judge_intent_criteria,
    score_intent_criteria,
)
from assistant.evaluation.judge.pairwise import (
    PairwiseInput,
    PairwiseResult,
    combine,
    judge_pair,
    parse_preferences,
    win_tie_loss,
)

__all__ = [
    "CRITERIA", "CorrectnessInput", "FaithfulnessInput", "JudgePrompt", "JudgeScore", "PairwiseInput",
    "PairwiseResult", "combine", "judge_correctness", "judge_faithfulness", "judge_intent_criteria", "judge_pair",
    "parse_preferences", "score_correctness", "score_faithfulness", "score_intent_criteria", "win_tie_loss",
]
