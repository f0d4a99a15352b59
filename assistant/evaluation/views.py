"""What the Evaluate page shows, as plain data: dataset choices, a run against the app's services, and tables.
The page only gathers input and renders these (STYLE: no logic in page scripts)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pandas as pd

from assistant.evaluation.aggregate import headline, label
from assistant.evaluation.dataset import Dataset, load_dataset, load_text
from assistant.evaluation.golden import items_from_feedback
from assistant.evaluation.report import breakdown_rows, table_rows
from assistant.evaluation.runner import EvalConfig, EvalReport, run_eval


def dataset_from_upload(name: str, data: bytes) -> Dataset:
    return load_text(data.decode("utf-8-sig"), name=name)


def dataset_from_path(path: str) -> Dataset:
    return load_dataset(Path(path.strip()))


def dataset_from_feedback(db, include_regressions: bool = True) -> Dataset:
    golden, regressions = items_from_feedback(db.feedback())
    items = golden + (regressions if include_regressions else [])
    return Dataset(items, [{"path": f"feedback:{db.path}", "sha256": "", "items": len(items)}])


def evaluate(services, dataset: Dataset, presets: list[str], *, k: int = 3, search_only: bool = True,
             product: str | None = None, progress=None) -> EvalReport:
    """Run over the app's one pipeline, holding its lock so a chat in another tab waits rather than interleaves."""
    llm = None if search_only else services.llm().model
    with getattr(services, "_lock", nullcontext()):
        pipeline = services.pipeline()
        previous, pipeline.llm = pipeline.llm, llm
        try:
            return run_eval(pipeline, dataset, EvalConfig(presets=presets, k=k, search_only=llm is None,
                                                          product=product or None), progress=progress)
        finally:
            pipeline.llm = previous


def ablation_frame(report: EvalReport) -> pd.DataFrame:
    header, rows = table_rows(report)
    return pd.DataFrame(rows, columns=header).set_index("metric")


def headline_frame(report: EvalReport) -> pd.DataFrame:
    """Numeric: rows presets, columns metrics (for charts and downloads)."""
    k = report.meta["k"]
    return pd.DataFrame({n: {label(m, k): v for m, v in headline(p).items()} for n, p in report.presets.items()}).T


def breakdown_frame(report: EvalReport, by: str, metric: str) -> pd.DataFrame:
    header, rows = breakdown_rows(report, by, metric)
    return pd.DataFrame(rows, columns=header).set_index(header[0]) if rows else pd.DataFrame()


def confusion_frame(report: EvalReport, preset: str) -> pd.DataFrame:
    conf = report.presets[preset]["intent"]["confusion"]
    return pd.DataFrame(conf).T.fillna(0).astype(int) if conf else pd.DataFrame()


def worst_frame(report: EvalReport, preset: str, n: int = 10) -> tuple[pd.DataFrame, list[dict]]:
    """The n lowest-quality questions (table) and their records (for the traces)."""
    worst = report.worst(preset, n)
    rows = [{"id": r["id"], "kind": r["kind"], "quality": round(r["quality"], 3), "question": r["question"],
             "releases": ", ".join(r.get("releases") or []), "target": ", ".join(r.get("target_releases") or []),
             "status": r.get("status"), "top source": (r.get("ranked") or [{}])[0].get("path", "")} for r in worst]
    return pd.DataFrame(rows), worst
