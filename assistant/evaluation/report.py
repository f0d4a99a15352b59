"""Rendering: the ablation table (text and Markdown), per-question JSONL, and a Markdown report with PNG charts."""

from __future__ import annotations

import json
from pathlib import Path

from assistant.evaluation.aggregate import headline, label
from assistant.evaluation.runner import EvalReport

_PERCENT = {"hit@k", "mrr", "page_hit@k", "context_recall@k", "contamination@k", "release_correct",
            "release_correct_named", "knowledge_correct", "must_contain", "answer_similarity", "judge_correctness",
            "judge_faithfulness", "judge_intent_criteria", "intent_accuracy", "declined_precision", "declined_recall",
            "knowledge_missing_f1"}


def fmt(metric: str, value) -> str:
    if value is None:
        return "-"
    if metric in _PERCENT:
        return f"{value:.3f}"
    if metric.endswith("_ms"):
        return f"{value:.0f}"
    return f"{value:.2f}"


def table_rows(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """(header, rows): one row per metric that applied to any preset, one column per preset."""
    k = report.meta["k"]
    heads = {name: headline(p) for name, p in report.presets.items()}
    names = list(report.presets)
    metrics = [m for m in next(iter(heads.values()), {}) if any(h[m] is not None for h in heads.values())]
    rows = [[label(m, k)] + [fmt(m, heads[n][m]) for n in names] for m in metrics]
    return ["metric", *names], rows


def text_table(report: EvalReport) -> str:
    header, rows = table_rows(report)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda cells: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    out = [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
    errors = {n: p["errors"] for n, p in report.presets.items() if p["errors"]}
    if errors:
        out.append(f"errors: {errors}")
    return "\n".join(out)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def breakdown_rows(report: EvalReport, by: str, metric: str) -> tuple[list[str], list[list[str]]]:
    """by = "by_kind" or "by_intent": rows are the groups, columns the presets, cells metric (n)."""
    names = list(report.presets)
    groups = sorted({g for p in report.presets.values() for g in p[by]})
    rows = []
    for g in groups:
        cells = []
        for n in names:
            m = report.presets[n][by].get(g, {}).get(metric)
            cells.append(f"{m['mean']:.3f} ({m['n']})" if m else "-")
        if any(c != "-" for c in cells):
            rows.append([g, *cells])
    return [by.removeprefix("by_"), *names], rows


def write_records(report: EvalReport, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for r in report.records:
            f.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    return path


def write_report(report: EvalReport, out_dir: Path, command: str = "") -> dict[str, Path]:
    """results.jsonl, report.json, report.md and the charts under out_dir; returns what was written."""
    from assistant.evaluation import charts

    out_dir.mkdir(parents=True, exist_ok=True)
    written = {"results": write_records(report, out_dir / "results.jsonl")}
    (out_dir / "report.json").write_text(json.dumps(report.to_json(), indent=2, default=str), encoding="utf-8")
    written["json"] = out_dir / "report.json"
    pngs = charts.save_all(report, out_dir)
    written.update(pngs)
    k = report.meta["k"]
    md = [f"# Evaluation: {', '.join(report.presets)}", ""]
    if command:
        md += ["Reproduce with:", "", f"    {command}", ""]
    md += [f"- date: {report.meta['date']}", f"- k: {k}; search-only: {report.meta['search_only']}; "
           f"LLM: {report.meta['llm']}; judge: {report.meta['judge']}"]
    md += [f"- dataset: `{d['path']}` ({d['items']} items, sha256 {d['sha256'][:16]})" for d in report.meta["datasets"]]
    md += [f"- note: {n}" for n in report.meta.get("notices", [])]
    md += ["", "## Ablation", "", markdown_table(*table_rows(report)), ""]
    for by, metric in (("by_kind", "hit@k"), ("by_kind", "release_correct"), ("by_intent", "hit@k"),
                       ("by_intent", "intent_correct")):
        header, rows = breakdown_rows(report, by, metric)
        if rows:
            md += [f"## {label(metric, k)} {by.replace('_', ' ')}", "", markdown_table(header, rows), ""]
    for name, p in report.presets.items():
        conf = p["intent"]["confusion"]
        if conf:
            cols = list(conf)
            md += [f"## Intent confusion ({name}; rows gold, columns predicted)", "",
                   markdown_table(["gold", *cols], [[g, *(str(conf[g][c]) for c in cols)] for g in cols]), ""]
    if report.pairwise:
        md += ["## Pairwise (win/tie/loss of the first preset named)", ""]
        for pair, res in report.pairwise.items():
            parts = [f"{c}: {v['win']}/{v['tie']}/{v['loss']}" for c, v in res.items() if isinstance(v, dict)]
            md.append(f"- {pair}: {'; '.join(parts)} (judge failures {res.get('judge_failures', 0)})")
        md.append("")
    md += ["## Charts", ""] + [f"![{key}]({p.name})" for key, p in pngs.items()] + [""]
    md += ["## Worst questions", ""]
    for name in report.presets:
        for r in report.worst(name, 5):
            md.append(f"- {name} `{r['id']}` ({r['kind']}, quality {r['quality']:.2f}): {r['question'][:100]} "
                      f"-> releases {r.get('releases')}, top {[x['release'] + '/' + x['path'] for x in r.get('ranked', [])[:3]]}")
    (out_dir / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    written["report"] = out_dir / "report.md"
    return written
