"""Run presets over a dataset against the current index: one Pipeline (models loaded once), every question once
per preset, at temperature 0, with the dataset, settings and presets recorded so that a report can be reproduced."""

from __future__ import annotations

import datetime as dt
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from assistant.answering.presets import get_preset
from assistant.backends.chat import ChatModel
from assistant.evaluation.aggregate import aggregate, pairwise_summary
from assistant.evaluation.dataset import DECLINED, Dataset, EvalItem
from assistant.evaluation.judge import (
    CorrectnessInput,
    FaithfulnessInput,
    PairwiseInput,
    judge_correctness,
    judge_faithfulness,
    judge_intent_criteria,
    judge_pair,
)
from assistant.evaluation.matching import Retrieved
from assistant.evaluation.scoring import quality, score_question

Progress = Callable[[str, int, int, EvalItem], None]  # preset, done, total, item


@dataclass
class EvalConfig:
    presets: list[str]
    k: int = 3
    search_only: bool = True
    product: str | None = None  # pins every question to this product (else the item's own, else routing)
    question_only: bool = False  # ask as a user types: the item's product and release are never passed (issue 14)
    judge: ChatModel | None = None  # judge metrics and pairwise comparison run only with a judge
    depth: int = 10  # how many ranked contexts are kept per question (for MRR beyond k)
    source_text_chars: int = 400  # source text kept in per-question traces


@dataclass
class EvalReport:
    meta: dict
    records: list[dict]
    presets: dict[str, dict]
    pairwise: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"meta": self.meta, "presets": self.presets, "pairwise": self.pairwise}

    def records_for(self, preset: str) -> list[dict]:
        return [r for r in self.records if r["preset"] == preset]

    def worst(self, preset: str, n: int = 10) -> list[dict]:
        rows = [r for r in self.records_for(preset) if r.get("quality") is not None]
        return sorted(rows, key=lambda r: (r["quality"], r["id"]))[:n]


def resolve_product(name: str | None, catalogue) -> str | None:
    """A dataset's product name -> a library product: exact, display name, alias, then a unique prefix ("aws")."""
    if not name:
        return None
    low = name.lower()
    for info in catalogue:
        if low in {info.name.lower(), info.display_name.lower(), *(a.lower() for a in info.aliases)}:
            return info.name
    prefixed = [info.name for info in catalogue if info.name.lower().startswith(low)]
    return prefixed[0] if len(prefixed) == 1 else None


def ranked_contexts(res, manifest, depth: int) -> list[Retrieved]:
    """The answer's contexts in the order the sources panel shows them ([1] first; the prompt's lost-in-the-middle
    order is not this one), then retrieved contexts it did not get."""
    ordered = sorted(res.sources, key=lambda s: s.n)
    out = [Retrieved(s.release, s.path, s.page, s.text) for s in ordered]
    seen = {s.context_id for s in res.sources}
    extra = []
    for c in res.candidates:
        if len(out) + len(extra) >= depth:
            break
        if c.context_id and c.context_id not in seen:
            seen.add(c.context_id)
            extra.append(c.context_id)
    rows = manifest.contexts(extra) if extra else {}
    for cid in extra:
        row = rows.get(cid)
        if row is not None:
            out.append(Retrieved(row.release, row.path, row.page, row.text))
    return out[:max(depth, len(res.sources))]


def _usage(llm):
    return llm.usage.snapshot() if llm is not None else None


def _meta(pipeline, dataset: Dataset, config: EvalConfig) -> dict:
    settings = pipeline.settings.model_dump(mode="json")
    library = [{"product": p, "release": r, "generation": pipeline.manifest.generation(p, r)}
               for p in pipeline.library.products() for r in pipeline.library.releases(p)]
    llm = None if config.search_only else pipeline.llm
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "datasets": dataset.sources,
        "items": len(dataset.items),
        "presets": {name: asdict(get_preset(name)) for name in config.presets},
        "k": config.k,
        "search_only": config.search_only,
        "product": config.product,
        "question_only": config.question_only,
        "temperature": 0.0,
        "llm": None if llm is None else {"backend": llm.backend, "model": llm.model},
        "judge": None if config.judge is None else {"backend": config.judge.backend, "model": config.judge.model},
        "embedding_model": getattr(pipeline.embedder, "description", "") or str(getattr(pipeline.embedder, "path", "")),
        "settings": {k: v for k, v in settings.items() if "token" not in k and "key" not in k},
        "library": library,
    }


def _intent_prediction(pipeline, item: EvalItem, preset, trace: dict) -> tuple[str | None, str]:
    status = trace.get("status")
    if status in DECLINED:
        return status, "query_check"
    if not preset.intent:
        return None, "off"
    label = (trace.get("intent") or {}).get("label")
    if label is None and status == "no_documents":
        # Routing stopped before the intent stage (a product the library lacks): the classifier is still measured.
        return pipeline.intent.classify(item.question).label, "classifier"
    return label, "pipeline"


def run_one(pipeline, item: EvalItem, preset_name: str, config: EvalConfig) -> dict:
    preset = get_preset(preset_name)
    catalogue = pipeline.library.catalogue()
    gold_product = resolve_product(item.product, catalogue)
    product = None if config.question_only else (config.product or gold_product)
    llm = None if config.search_only else pipeline.llm
    before = _usage(llm)
    t0 = time.perf_counter()
    record = {"id": item.id, "preset": preset_name, "dataset": item.dataset, "kind": item.kind,
              "question": item.question, "history": item.history, "intent_gold": item.intent,
              "target_releases": item.target_releases, "release_named": item.release is not None,
              "gold": item.to_json()["gold"], "reference": item.answer, "must_contain": item.must_contain}
    try:
        res = pipeline.ask(item.question, history=item.history or None, product=product, preset=preset,
                           search_only=config.search_only)
    except Exception as exc:  # one broken question must not lose the run; it is reported as an error
        record.update(status="error", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc(),
                      metrics={}, quality=0.0, seconds=time.perf_counter() - t0)
        return record
    seconds = time.perf_counter() - t0
    used = (_usage(llm) - before) if llm is not None else None
    trace = res.to_json()
    ranked = ranked_contexts(res, pipeline.manifest, max(config.depth, config.k))
    known = pipeline.library.releases(res.product) if res.product else []
    intent_pred, intent_source = _intent_prediction(pipeline, item, preset, trace)
    metrics = score_question(item, trace, ranked, k=config.k, known_releases=known, intent_pred=intent_pred,
                             search_only=config.search_only,
                             embed=None if config.search_only else pipeline.embedder.embed)
    # Searched in the right product (a close second product searched beside it counts); unanswered for routing
    # reasons: nothing was searched because of the product or release.
    searched = [res.product] + [p for p, _ in res.routing.get("also", [])]
    metrics["product_correct"] = None if gold_product is None or trace["status"] in DECLINED else gold_product in searched
    metrics["routing_unanswered"] = trace["status"] in ("no_documents", "not_in_library")
    if config.judge is not None and not config.search_only and trace["status"] not in DECLINED:
        _judge(config.judge, item, res, metrics, record)
    for s in trace["sources"]:
        s["text"] = s["text"][: config.source_text_chars]
    record.update(
        status=trace["status"], intent_pred=intent_pred, intent_source=intent_source, product=res.product,
        releases=res.releases, release_source=res.release_source, knowledge_missing=res.knowledge_missing,
        answer=res.answer, ranked=[{"release": r.release, "path": r.path, "page": r.page} for r in ranked],
        metrics=metrics, quality=quality(metrics), timings_ms=res.timings_ms, seconds=round(seconds, 4),
        llm_calls=used.calls if used else 0, prompt_tokens=used.prompt_tokens if used else 0,
        completion_tokens=used.completion_tokens if used else 0, trace=trace,
    )
    return record


def _judge(judge: ChatModel, item: EvalItem, res, metrics: dict, record: dict) -> None:
    verdicts = {}
    if item.answer:
        verdicts["correctness"] = judge_correctness(judge, CorrectnessInput(item.question, res.answer, item.answer))
    cited = [s.text for s in res.sources if s.cited] or [s.text for s in res.sources]
    verdicts["faithfulness"] = judge_faithfulness(judge, FaithfulnessInput(item.question, res.answer, tuple(cited)))
    intent = item.intent or (res.intent or {}).get("label")
    verdicts["intent_criteria"] = judge_intent_criteria(judge, item.question, res.answer, intent)
    for name, v in verdicts.items():
        metrics[f"judge_{name}"] = v.score
        metrics[f"judge_{name}_valid"] = v.valid
    record["judge"] = {name: v.to_json() for name, v in verdicts.items()}


def run_eval(pipeline, dataset: Dataset, config: EvalConfig, progress: Progress | None = None) -> EvalReport:
    """Every preset over every item; per-question records and per-preset aggregates (with breakdowns)."""
    for name in config.presets:
        get_preset(name)  # fail before any work on a misspelt preset
    meta = _meta(pipeline, dataset, config)
    records: list[dict] = []
    total = len(dataset.items)
    for name in config.presets:
        for i, item in enumerate(dataset.items, 1):
            records.append(run_one(pipeline, item, name, config))
            if progress is not None:
                progress(name, i, total, item)
    meta["notices"] = sorted({n for r in records for n in (r.get("trace") or {}).get("notices", [])})
    presets = {name: aggregate([r for r in records if r["preset"] == name], k=config.k) for name in config.presets}
    pairwise = {}
    if config.judge is not None and not config.search_only and len(config.presets) > 1:
        pairwise = compare_presets(config.judge, records, config.presets[0], config.presets[1:])
    return EvalReport(meta, records, presets, pairwise)


def compare_presets(judge: ChatModel, records: list[dict], baseline: str, others: list[str]) -> dict:
    """iKnow's win/tie/loss of each preset against the baseline, on questions both answered."""
    by_key = {(r["preset"], r["id"]): r for r in records}
    out = {}
    for name in others:
        outcomes: dict[str, list[str]] = {}
        invalid = 0
        for r in records:
            if r["preset"] != name:
                continue
            base = by_key.get((baseline, r["id"]))
            if not base or not r.get("answer") or not base.get("answer") or r.get("status") in DECLINED:
                continue
            result = judge_pair(judge, PairwiseInput(r["question"], r["answer"], base["answer"]))
            r.setdefault("pairwise", {})[baseline] = result.to_json()
            if not result.valid:
                invalid += 1
                continue
            for criterion, outcome in result.outcomes.items():
                outcomes.setdefault(criterion, []).append(outcome)
        out[f"{name} vs {baseline}"] = pairwise_summary(outcomes, invalid)
    return out
