"""Golden sets from use (DECO): rated answers in the app's database become evaluation items.

Thumbs-up: the question with its cited sources as gold and the accepted answer as reference. Thumbs-down: a
regression case (kind "regression") that keeps the rejected answer, so a later run shows whether it changed.
The latest rating of a question wins.
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.evaluation.dataset import EvalItem, Gold, write_jsonl


def _trace(row: dict) -> dict:
    try:
        trace = json.loads(row.get("trace") or "{}")
    except ValueError:
        return {}
    return trace if isinstance(trace, dict) else {}


def _gold_from_sources(sources: list[dict]) -> list[Gold]:
    cited = [s for s in sources if s.get("cited")] or sources
    out: list[Gold] = []
    for s in cited:
        if not s.get("path"):
            continue
        g = Gold(f"{s['release']}/{s['path']}" if s.get("release") else s["path"], s.get("page"))
        if g not in out:
            out.append(g)
    return out


def items_from_feedback(rows: list[dict]) -> tuple[list[EvalItem], list[EvalItem]]:
    """Feedback rows (AppDB.feedback()) -> (golden items from thumbs-up, regression items from thumbs-down)."""
    latest: dict[tuple[str, str | None], dict] = {}
    for row in rows:
        latest[(row.get("question", "").strip(), row.get("product"))] = row
    golden, regressions = [], []
    for (question, product), row in latest.items():
        if not question:
            continue
        trace = _trace(row)
        releases = trace.get("releases") or json.loads(row.get("releases") or "[]")
        intent = (trace.get("intent") or {}).get("label") or row.get("intent")
        history = [t for t in trace.get("history") or [] if isinstance(t, dict) and "content" in t]
        common = dict(question=question, history=history, product=product or trace.get("product"),
                      dataset="feedback")
        if int(row.get("rating", 0)) > 0:
            golden.append(EvalItem(
                id=f"fb-{row['id']}", answer=row.get("answer") or trace.get("answer") or None,
                gold=_gold_from_sources(trace.get("sources") or []), target_releases=list(releases),
                intent=intent if intent not in (None, "no_documents") else None, kind="feedback", **common))
        else:
            regressions.append(EvalItem(
                id=f"reg-{row['id']}", kind="regression", **common,
                extra={"bad_answer": row.get("answer") or trace.get("answer") or "", "comment": row.get("comment") or "",
                       "bad_releases": list(releases),
                       "bad_sources": [f"{s.get('release')}/{s.get('path')}" for s in trace.get("sources") or []]}))
    return golden, regressions


def export_feedback(db, out_dir: Path) -> dict[str, Path]:
    """Write golden.jsonl and regressions.jsonl from an AppDB; returns the paths written."""
    golden, regressions = items_from_feedback(db.feedback())
    return {"golden": write_jsonl(golden, out_dir / "golden.jsonl"),
            "regressions": write_jsonl(regressions, out_dir / "regressions.jsonl")}
