"""Charts as matplotlib figures (Agg backend: no display needed), used by report.md and the Evaluate page."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from assistant.evaluation.aggregate import headline, label  # noqa: E402

QUALITY = ("hit@k", "mrr", "context_recall@k", "contamination@k", "release_correct", "intent_accuracy",
           "knowledge_missing_f1", "must_contain", "judge_correctness")


def quality_chart(report):
    heads = {n: headline(p) for n, p in report.presets.items()}
    metrics = [m for m in QUALITY if any(h.get(m) is not None for h in heads.values())]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(metrics)), 3.6))
    width = 0.8 / max(len(heads), 1)
    for i, (name, h) in enumerate(heads.items()):
        xs = [j + i * width for j in range(len(metrics))]
        ax.bar(xs, [h.get(m) or 0.0 for m in metrics], width, label=name)
    ax.set_xticks([j + width * (len(heads) - 1) / 2 for j in range(len(metrics))])
    ax.set_xticklabels([label(m, report.meta["k"]) for m in metrics], rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_title("Quality by preset (contamination: lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def latency_chart(report):
    names = list(report.presets)
    stages = []
    for p in report.presets.values():
        for s in p["cost"]["latency_ms"]:
            if s != "total" and s not in stages:
                stages.append(s)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    bottom = [0.0] * len(names)
    for s in stages:
        vals = [(report.presets[n]["cost"]["latency_ms"].get(s, {}).get("mean_ms") or 0.0) for n in names]
        ax.bar(names, vals, bottom=bottom, label=s)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("mean ms per question")
    ax.set_title("Latency per stage")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def breakdown_chart(report, by: str = "by_kind", metric: str = "hit@k"):
    names = list(report.presets)
    groups = sorted({g for p in report.presets.values() for g, v in p[by].items() if metric in v})
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups)), 3.6))
    width = 0.8 / max(len(names), 1)
    for i, n in enumerate(names):
        vals = [report.presets[n][by].get(g, {}).get(metric, {}).get("mean", 0.0) for g in groups]
        ax.bar([j + i * width for j in range(len(groups))], vals, width, label=n)
    ax.set_xticks([j + width * (len(names) - 1) / 2 for j in range(len(groups))])
    ax.set_xticklabels(groups, rotation=30, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{label(metric, report.meta['k'])} {by.replace('_', ' ')}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def save_all(report, out_dir: Path) -> dict[str, Path]:
    out = {}
    figures = {"quality": quality_chart(report), "latency": latency_chart(report)}
    if any("hit@k" in v for p in report.presets.values() for v in p["by_kind"].values()):
        figures["hit_by_kind"] = breakdown_chart(report, "by_kind", "hit@k")
    for name, fig in figures.items():
        path = out_dir / f"{name}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        out[name] = path
    return out
