"""A question's state as it flows through the stages, the result it becomes, and the events an observer sees.

Each stage of `pipeline.Pipeline` takes a `Turn` and returns it; `Turn.result` is what the CLI, the app and the
evaluation read. An observer (the app's stage line, the CLI's progress) is told when each stage starts and ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from llama_index.core.schema import NodeWithScore

from assistant.answering import citations as cite
from assistant.answering.presets import Preset
from assistant.answering.retrieval import RetrievalResult
from assistant.answering.rewrite import RewriteResult
from assistant.answering.routing import Routing
from assistant.backends.chat import ChatModel


# How the product was chosen, in words (the chat, the CLI and the JSON say the same).
PRODUCT_SOURCE_TEXT = {
    "named": "named in the question", "alias": "named by an alias", "pinned": "pinned",
    "history": "from the conversation", "release": "the only product with the release named",
    "only": "the only product in the library", "inferred": "inferred from the documents",
    "catalogue": "named in the question", "none": "",
}


@dataclass
class Candidate:
    chunk_id: str
    context_id: str
    release: str
    path: str
    section: str
    page: int | None
    scores: dict[str, float]


@dataclass
class AskResult:
    question: str
    preset: str
    status: str = "ok"  # ok | invalid | out_of_scope | catalogue | no_documents | not_in_library
    intent: dict = field(default_factory=lambda: {"label": None, "confidence": 0.0})
    product: str | None = None
    releases: list[str] = field(default_factory=list)
    release_source: str = ""
    # how the product was chosen: named | alias | pinned | history | release | only | inferred | catalogue | none
    product_source: str = ""
    routing: dict = field(default_factory=dict)
    standalone: str = ""
    rewritten: str = ""
    queries: list[dict] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    knowledge: dict = field(default_factory=dict)
    knowledge_missing: bool = False
    answer: str = ""
    sources: list[cite.Source] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    llm: dict = field(default_factory=lambda: {"backend": None, "model": None})
    llm_calls: int = 0
    notices: list[str] = field(default_factory=list)
    incomplete: bool = False
    search_only: bool = False
    device: str = ""  # where the models ran ("cpu", "cuda (NVIDIA ...)")

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "preset": self.preset,
            "status": self.status,
            "intent": self.intent,
            "product": self.product,
            "product_source": self.product_source,
            "product_chosen": PRODUCT_SOURCE_TEXT.get(self.product_source, ""),
            "products_searched": self.routing.get("evidence", {}),
            "also": [{"product": p, "release": r} for p, r in self.routing.get("also", [])],
            "releases": self.releases,
            "release_source": self.release_source,
            "standalone": self.standalone,
            "rewritten": self.rewritten,
            "queries": [q["text"] for q in self.queries],
            "query_kinds": [q["kind"] for q in self.queries],
            "knowledge_missing": self.knowledge_missing,
            "knowledge": self.knowledge,
            "answer": self.answer,
            "sources": [
                {"n": s.n, "product": s.product, "release": s.release, "path": s.path, "page": s.page,
                 "page_label": s.page_label,
                 "section": s.section, "score": round(s.score, 4), "text": s.text, "cited": s.cited}
                for s in self.sources
            ],
            "candidates": [asdict(c) for c in self.candidates],
            "timings_ms": self.timings_ms,
            "llm": self.llm,
            "llm_calls": self.llm_calls,
            "notices": self.notices,
            "incomplete": self.incomplete,
            "device": self.device,
        }


@dataclass
class Turn:
    """Everything one question carries between stages. `done` stops the flow early (a declined question, nothing
    to search); the stages after it are not run."""

    question: str
    preset: Preset
    result: AskResult
    history: list[dict] | None = None
    pinned_product: str | None = None
    pinned_release: str | None = None
    llm: ChatModel | None = None
    extractive: bool = False  # no LLM: quote the sources' sentences
    on_token: Callable[[str], None] | None = None
    catalogue: list = field(default_factory=list)
    routing: Routing | None = None
    rewrite: RewriteResult | None = None
    found: RetrievalResult | None = None
    contexts: list[NodeWithScore] = field(default_factory=list)
    relevance: float = 0.0
    prompt_sources: list[cite.Source] = field(default_factory=list)
    done: bool = False


@dataclass(frozen=True)
class StageEvent:
    """A stage starting (`ms` None) or ending (`ms` its duration), with the result as it stands."""

    stage: str
    phase: str  # start | end
    result: AskResult
    ms: float | None = None
    detail: str = ""


Observer = Callable[[StageEvent], None]
