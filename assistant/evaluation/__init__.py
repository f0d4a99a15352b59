"""Evaluation: measure every preset on the same questions, side by side (issue 5). In: a question set and presets;
out: per-question traces, metric tables, reports and charts.

    dataset   JSONL/CSV -> EvalItem             matching  gold reference vs retrieved source
    metrics/  pure metric functions             judge/    LLM-as-judge metrics (validated JSON verdicts)
    scoring   one trace -> its metrics          runner    presets x dataset -> EvalReport
    aggregate per-preset figures + breakdowns   report    tables, per-question JSONL, report.md (+ charts)
    golden    feedback -> golden / regression   synthetic LLM-written questions from sampled chunks
"""

from assistant.evaluation.aggregate import aggregate, headline
from assistant.evaluation.dataset import (
    Dataset,
    DatasetError,
    EvalItem,
    Gold,
    load_dataset,
    load_text,
    write_jsonl,
)
from assistant.evaluation.golden import export_feedback, items_from_feedback
from assistant.evaluation.matching import Retrieved, file_matches, page_matches
from assistant.evaluation.runner import (
    EvalConfig,
    EvalReport,
    resolve_product,
    run_eval,
    run_one,
)
from assistant.evaluation.scoring import quality, score_question
from assistant.evaluation.synthetic import synthesize

__all__ = [
    "Dataset", "DatasetError", "EvalConfig", "EvalItem", "EvalReport", "Gold", "Retrieved", "aggregate",
    "export_feedback", "file_matches", "headline", "items_from_feedback", "load_dataset", "load_text",
    "page_matches", "quality", "resolve_product", "run_eval", "run_one", "score_question", "synthesize",
    "write_jsonl",
]
