"""Presets: each paper's whole system as a declarative list of stages and parameters (README: "Presets").

A preset only switches stages on and off and sets their parameters; the stages themselves live in their modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from assistant.answering.retrieval import RetrievalParams


@dataclass(frozen=True)
class Preset:
    name: str
    paper: str
    query_check: bool = True
    release_scope: str = "routed"  # routed: only the detected release(s) (QAMR) | all: every release of the product
    intent: bool = True
    history: bool = True  # condense follow-ups into a standalone question
    intent_expansion: bool = False
    multi_query: bool = False
    glossary: bool = False
    llm_rewrite: bool = False  # ask the LLM for rewrites (deterministic path otherwise)
    retrieval: RetrievalParams = field(default_factory=RetrievalParams)
    rerank: bool = False
    reduce: str = "none"  # none | extractive | llm
    lost_in_middle: bool = False
    knowledge: str = "scores"  # none | scores | scores+llm
    relevance_threshold: float = 0.30  # dense cosine under which nothing retrieved is about the question
    product_description: bool = False
    answer_requirements: bool = True

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages this preset runs, in the pipeline's order (`Pipeline.ask` skips the others)."""
        wanted = {"query_check": self.query_check, "intent": self.intent, "rerank": self.rerank,
                  "knowledge": self.knowledge != "none"}
        return tuple(s for s in STAGES if wanted.get(s, True))


# Every stage the pipeline knows, in order; catalogue, routing, rewrite, retrieval, select, reduce, generation and citations
# run in every preset (reduce "none" still numbers the sources; generation without an LLM leaves the answer empty).
STAGES = ("query_check", "intent", "catalogue", "timeline", "routing", "rewrite", "retrieval", "rerank", "select", "knowledge", "reduce",
          "generation", "citations")


# DECO's multi-field search as measured on eval/ranking.tune.jsonl (README: "Ranking", search fields): the identifier
# field fused twice (a question naming a flag or key reaches the entry that defines it). Title and file name left
# hit@3 as it was and lowered MRR; heading path and heading-path dense lowered both: they stay off.
FIELDS = (("ident-sparse", 2.0),)

PRESETS: dict[str, Preset] = {
    "naive": Preset(
        "naive", "baseline: dense top-k over all of the product's documents and one prompt",
        query_check=False, intent=False, history=False, release_scope="all",
        retrieval=RetrievalParams(use_bm25=False, fusion="dense", dense_k=5, candidates=5, contexts=5),
        knowledge="none", answer_requirements=False,
    ),
    "ericsson": Preset(
        "ericsson", "Ericsson CI/CD chatbot: history-aware rewrite, BM25+embedding ensemble, threshold, "
        "lost-in-the-middle reordering, contextual compression", intent=False, llm_rewrite=True,
        retrieval=RetrievalParams(fusion="weighted", dense_weight=0.5, threshold=0.2, contexts=5),
        reduce="extractive", lost_in_middle=True, knowledge="scores", answer_requirements=False,
    ),
    "iknow": Preset(
        "iknow", "iKnow (Huawei Cloud): intent detection, intent-guided rewriting, dense retrieval then "
        "cross-encoder rerank, missing-knowledge check, intent-specific answers",
        intent_expansion=True, llm_rewrite=True,
        retrieval=RetrievalParams(use_bm25=False, fusion="dense", dense_k=30, candidates=20, contexts=5),
        rerank=True, knowledge="scores+llm",
    ),
    "qamr": Preset(
        "qamr", "QAMR (Ciena): per-release corpus, release normalisation, base/filtered/versionless queries, "
        "dual chunking, LLM context reduction, \"I don't know\"", multi_query=True, glossary=True, intent=False,
        retrieval=RetrievalParams(fusion="rrf", contexts=6), reduce="llm", knowledge="scores",
        answer_requirements=False,
    ),
    "deco": Preset(
        "deco", "DECO (Microsoft): hybrid multi-field search fused with RRF, margin filter, source "
        "descriptions in the prompt", intent=False,
        retrieval=RetrievalParams(fusion="rrf", margin=0.25, contexts=5, fields=FIELDS), product_description=True,
        knowledge="scores", answer_requirements=False,
    ),
}

# The best combination measured on ../shared/eval/dev (README: "Evaluation"): hybrid RRF over QAMR's several
# queries and the glossary, intent-guided expansion for dense search, rerank when a model is present,
# extractive reduction, lost-in-the-middle order and the knowledge check.
PRESETS["default"] = Preset(
    "default", "best combination measured on the dev sets", intent_expansion=True, multi_query=True,
    glossary=True, retrieval=RetrievalParams(fusion="rrf", contexts=5, fields=FIELDS, distinct_files=3, limit_k=3,
                              dense_slot=3, changelog_factor=0.5, changelog_slot=3),
    rerank=True, reduce="extractive",
    lost_in_middle=True, knowledge="scores", product_description=True,
)


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}") from None


def with_overrides(preset: Preset, **changes) -> Preset:
    return replace(preset, **changes)
