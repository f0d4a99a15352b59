"""Cost: per-stage latency (mean and 95th percentile), LLM calls and tokens per question."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    xs = sorted(values)
    if not xs:
        return None
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def latency_summary(timings: Sequence[Mapping[str, float]]) -> dict[str, dict[str, float | None]]:
    """{stage: {"mean_ms", "p95_ms", "n"}} over the questions that ran the stage, plus "total" per question."""
    stages: dict[str, list[float]] = {}
    totals = []
    for t in timings:
        for stage, ms in t.items():
            stages.setdefault(stage, []).append(float(ms))
        totals.append(float(sum(t.values())))
    out = {s: {"mean_ms": mean(v), "p95_ms": percentile(v, 95), "n": len(v)} for s, v in stages.items()}
    out["total"] = {"mean_ms": mean(totals), "p95_ms": percentile(totals, 95), "n": len(totals)}
    return out


def usage_summary(calls: Sequence[int], prompt_tokens: Sequence[int], completion_tokens: Sequence[int]) -> dict:
    n = len(calls)
    return {
        "llm_calls_per_question": mean(calls) if n else None,
        "prompt_tokens_per_question": mean(prompt_tokens) if n else None,
        "completion_tokens_per_question": mean(completion_tokens) if n else None,
        "tokens_per_question": mean([p + c for p, c in zip(prompt_tokens, completion_tokens)]) if n else None,
        "llm_calls_total": sum(calls),
    }
