"""Query intent: which of the five iKnow operational intents a question expresses.

A prototypical network over sentence embeddings (Snell et al., 2017, "Prototypical Networks for Few-shot
Learning"), as iKnow uses for its intent router: each intent is the renormalised mean of its example
embeddings, and a query goes to the nearest prototype by cosine, with a softmax confidence. Three light
additions make it sturdier on unseen phrasing without leaving the few-shot setting:

* the cosine is taken in a metric fitted to the examples (`fit_metric`): MiniLM groups queries by topic
  before form, and whitening the within-intent scatter damps the topic directions (development queries:
  85% with raw cosine, 93% in the fitted metric; 5-fold cross-validation on the seeds: 85% -> 89%, 91%
  with the cues);
* a near-duplicate memory, so that a user's correction counts at once for queries that repeat it;
* a few surface cues that a small embedding model under-weights (see `_cue_bonus`).

Corrections from users are added as examples (`add_example`); the app persists them and passes them back in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

Embed = Callable[[list[str]], np.ndarray]

INTENTS: tuple[str, ...] = (
    "symptom_analysis",
    "operational_guidance",
    "multi_facet_summary",
    "terminology_explanation",
    "fact_verification",
)

SEED_PATH = Path(__file__).resolve().parent / "resources" / "intent_examples.jsonl"

# A question the release timeline answers has a known form: a change listing ("what changed in 3.6?") gathers many
# facets; every other kind ("when was X added?", "is X in 3.4?", "did the default change?") checks one fact.
_TIMELINE_INTENTS = {"changed_in": "multi_facet_summary", "changed_between": "multi_facet_summary"}


def timeline_intent(kind: str) -> str:
    """The intent of a question the timeline stage took, from its kind. The embedding classifier reads a topic
    ("when did the docs start covering recovery from a minority failure?" came out as symptom_analysis)."""
    return _TIMELINE_INTENTS.get(kind, "fact_verification")


@dataclass(frozen=True)
class IntentExample:
    text: str
    intent: str


@dataclass(frozen=True)
class IntentResult:
    """`scores` are per-intent probabilities (softmax over the similarity scores); `confidence` is the winner's."""

    label: str
    confidence: float
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def runner_up(self) -> str | None:
        ranked = sorted(self.scores, key=self.scores.__getitem__, reverse=True)
        return ranked[1] if len(ranked) > 1 else None

    @property
    def margin(self) -> float:
        """Winner's probability minus the runner-up's: small values mark queries worth asking about."""
        ranked = sorted(self.scores.values(), reverse=True)
        return ranked[0] - ranked[1] if len(ranked) > 1 else ranked[0] if ranked else 0.0


def load_seed_examples(path: Path = SEED_PATH) -> list[IntentExample]:
    examples = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                examples.append(IntentExample(row["text"], row["intent"]))
    return examples


# --- surface cues --------------------------------------------------------------------------------------
# Each cue adds a small bonus to one intent's similarity score; it can tip a close call but not overturn
# a clear embedding decision. They encode the *form* of a query, which MiniLM embeddings weigh far less
# than its topic (a yes/no question about TLS and a how-to about TLS embed close together).

# A yes/no question opens with an auxiliary or modal verb ("is X enabled", "does X support", "can X ...").
_YES_NO_OPENER = re.compile(
    r"^\s*(is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|must|may)\b(?!\s+(i|we|you)\s+"
    r"(do|set|make|get|configure|enable|fix|use|run|install|add|create)\b)",
    re.IGNORECASE,
)
# A statement turned into a question ("X encrypts data at rest?", "..., right?"): a clause of 3+ words ending
# in "?" is a claim to check, whereas a bare term with "?" ("MVCC?") asks what it is.
_CHECK_TAIL = re.compile(r"(,\s*(right|correct|true)\s*\?|^\s*(true or false|is it true|confirm)\b)", re.IGNORECASE)
# Pasted log or error lines: error words, log-level prefixes, HTTP error codes, Go/Java-style "pkg: msg: msg".
_ERRORISH = re.compile(
    r"(\b(error|err|errors|exception|panic|fatal|failed|fails|failing|failure|refused|denied|timed out|timeout|"
    r"exceeded|mismatch|unavailable|forbidden|unauthorized|crash\w*|stuck|hangs?|broken|corrupt\w*|"
    r"oom\w*|not working|doesn'?t work|won'?t|can'?t|cannot|unable)\b"
    r"|^\s*[EWF]\s*\|"
    r"|\b[45]\d\d\b"
    r"|\b\w+:\s+\w+[\w ]*:\s)",
    re.IGNORECASE,
)
_WH_OPENER = re.compile(r"^\s*(what|what's|whats|which|who|where|when|why|how)\b", re.IGNORECASE)
_HOW_TO = re.compile(r"^\s*(how (do|can|should|to)\b|steps? to\b|procedure\b|way to\b)", re.IGNORECASE)

# "What is agent mode?", "what does --compaction-batch-limit control?": a definition asked for, after an optional
# "in 3.5," or "Etcd's gRPC proxy:" lead-in; not when a value, a comparison or a list is wanted.
_DEFINITION = re.compile(
    r"^\s*(?:[\w.'’ -]{1,40}[:,]\s*)?(?:what\s+is\s+|what\s+are\s+|what's\s+|whats\s+|define\b|explain\b|"
    r"meaning\s+of\b|what\s+does\s+[^?]{1,60}\s+(?:do|mean|control|stand\s+for)\b)"
    r"(?![^?]*\b(?:default|defaults|value|limit|maximum|minimum|max|min|difference|differ\w*|vs\.?|versus|"
    r"compare\w*|chang\w+|which|list|steps?|when|recommended|suggested)\b)",
    re.IGNORECASE,
)
# "2.45: how do I run in agent mode?": a how-to after a lead-in.
_HOW_TO_ANYWHERE = re.compile(r"\bhow\s+(?:do|can|should)\s+(?:i|we|you)\b", re.IGNORECASE)

# Form cues of definitions and led-in how-tos; 0.08 chosen on eval/routing.tune.jsonl (intent 0.84 -> 0.90) with
# ../shared/eval/dev/intents.jsonl unchanged at 0.93.
FORM_CUE_BONUS = 0.08
CUE_BONUS = 0.04  # cosine units; in the fitted metric the best two intents usually differ by 0.05-0.4


def _cue_bonus(text: str) -> dict[str, float]:
    bonus: dict[str, float] = {}
    words = re.findall(r"[\w'-]+", text)
    statement_question = len(words) >= 3 and text.rstrip().endswith("?") and not _WH_OPENER.search(text)
    if _YES_NO_OPENER.search(text) or _CHECK_TAIL.search(text) or statement_question:
        bonus["fact_verification"] = CUE_BONUS
    if _ERRORISH.search(text) and not _HOW_TO.search(text):
        bonus["symptom_analysis"] = bonus.get("symptom_analysis", 0.0) + CUE_BONUS
    if _DEFINITION.search(text) and not _ERRORISH.search(text):
        bonus["terminology_explanation"] = bonus.get("terminology_explanation", 0.0) + FORM_CUE_BONUS
    if _HOW_TO_ANYWHERE.search(text) and not _HOW_TO.search(text):
        bonus["operational_guidance"] = bonus.get("operational_guidance", 0.0) + FORM_CUE_BONUS
    return bonus


# --- the classifier ------------------------------------------------------------------------------------


def _softmax(x: np.ndarray, temperature: float) -> np.ndarray:
    z = (x - x.max()) / temperature
    e = np.exp(z)
    return e / e.sum()


def _normalise_rows(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def fit_metric(vectors: np.ndarray, labels: Sequence[str], shrinkage: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre and whitening matrix that shrink the directions along which examples of one intent vary.

    MiniLM places queries by topic first ("kafka ..." near "kafka ...") and by form second, so raw prototypes
    are blurred by topic. Whitening with the pooled within-intent scatter (the metric of linear discriminant
    analysis), shrunk towards the identity (Ledoit-Wolf style) because a few hundred examples cannot estimate
    384 dimensions, damps the topic directions and leaves the ones that separate intents.
    """
    mean = vectors.mean(axis=0)
    centred = vectors - mean
    labels_arr = np.asarray(labels)
    scatter = np.zeros((vectors.shape[1], vectors.shape[1]))
    for label in set(labels):
        group = centred[labels_arr == label]
        group = group - group.mean(axis=0)
        scatter += group.T @ group
    scatter /= len(vectors)
    dim = vectors.shape[1]
    average_variance = float(np.trace(scatter)) / dim
    if average_variance <= 1e-12:  # one example per intent: nothing to whiten yet
        return mean.astype(np.float32), np.eye(dim, dtype=np.float32)
    scatter = (1.0 - shrinkage) * scatter + shrinkage * average_variance * np.eye(dim)
    eigvals, eigvecs = np.linalg.eigh(scatter)
    eigvals = np.maximum(eigvals, 1e-6 * average_variance)  # shrinkage 0 may leave a singular scatter
    whiten = eigvecs @ np.diag(eigvals**-0.5) @ eigvecs.T
    return mean.astype(np.float32), whiten.astype(np.float32)


class IntentClassifier:
    """Nearest intent prototype over L2-normalised query embeddings, in a within-intent-whitened metric."""

    def __init__(
        self,
        embed: Embed,
        examples: Iterable[IntentExample | tuple[str, str]] | None = None,
        *,
        extra_examples: Iterable[IntentExample | tuple[str, str]] = (),
        temperature: float = 0.05,
        shrinkage: float = 0.5,
        use_cues: bool = True,
        memory_threshold: float = 0.8,
    ) -> None:
        self._embed = embed
        self.temperature = temperature
        self.shrinkage = shrinkage
        self.use_cues = use_cues
        self.memory_threshold = memory_threshold
        self._texts: dict[str, list[str]] = {}
        self._raw: dict[str, np.ndarray] = {}  # embeddings as the embedder gave them
        self._sums: dict[str, np.ndarray] = {}  # per intent, sum of examples in the metric space
        self._prototypes: dict[str, np.ndarray] = {}
        self._mean: np.ndarray | None = None
        self._whiten: np.ndarray | None = None
        seed = load_seed_examples() if examples is None else [_as_example(e) for e in examples]
        self._add_many(seed + [_as_example(e) for e in extra_examples])
        self.refit()

    @property
    def labels(self) -> list[str]:
        return list(self._prototypes)

    def examples(self, intent: str) -> list[str]:
        return list(self._texts.get(intent, []))

    def add_example(self, text: str, intent: str) -> None:
        """Add one example (typically a user's correction) and update its intent's prototype in place.

        The metric stays as fitted (`refit` recomputes it); the new example also enters the near-duplicate
        memory, so a query that repeats a corrected one gets the corrected intent at once.
        """
        if not text.strip() or not intent.strip():
            raise ValueError("an example needs a text and an intent")
        self._add_many([IntentExample(text, intent)])

    def refit(self) -> None:
        """Refit the metric to all current examples and recompute every prototype."""
        labels = [label for label in self._raw for _ in range(len(self._raw[label]))]
        if not labels:
            return
        vectors = np.vstack([self._raw[label] for label in self._raw])
        self._mean, self._whiten = fit_metric(vectors, labels, self.shrinkage)
        self._sums = {label: self._project(raw).sum(axis=0) for label, raw in self._raw.items()}
        self._prototypes = {label: _normalise_rows(total) for label, total in self._sums.items()}

    def classify(self, text: str) -> IntentResult:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[IntentResult]:
        if not self._prototypes:
            raise ValueError("IntentClassifier has no examples")
        if not texts:
            return []
        raw = np.asarray(self._embed(list(texts)), dtype=np.float32)
        projected = self._project(raw)
        return [self._decide(text, r, q) for text, r, q in zip(texts, raw, projected)]

    # -- internals --

    def _project(self, raw: np.ndarray) -> np.ndarray:
        assert self._mean is not None and self._whiten is not None
        return _normalise_rows((raw - self._mean) @ self._whiten)

    def _decide(self, text: str, raw: np.ndarray, q: np.ndarray) -> IntentResult:
        labels = self.labels
        sims = np.array([float(self._prototypes[label] @ q) for label in labels])
        if self.use_cues:
            bonus = _cue_bonus(text)
            sims += np.array([bonus.get(label, 0.0) for label in labels])
        # Near-duplicate memory: an example almost identical to the query (raw cosine above the threshold)
        # pulls towards its intent, growing from 0 at the threshold to 1 at an exact repeat. Ordinary seed
        # neighbours stay below the threshold, so this matters only for repeats of examples and corrections.
        if self.memory_threshold < 1.0:
            nearest = np.array([float(np.max(self._raw[label] @ raw)) for label in labels])
            sims += np.clip((nearest - self.memory_threshold) / (1.0 - self.memory_threshold), 0.0, 1.0)
        probs = _softmax(sims, self.temperature)
        best = int(np.argmax(probs))
        return IntentResult(
            label=labels[best],
            confidence=float(probs[best]),
            scores={label: float(p) for label, p in zip(labels, probs)},
        )

    def _add_many(self, examples: list[IntentExample]) -> None:
        examples = [e for e in examples if e.text.strip()]
        if not examples:
            return
        vectors = np.asarray(self._embed([e.text for e in examples]), dtype=np.float32)
        for example, v in zip(examples, vectors):
            label = example.intent
            if label in self._raw:
                self._raw[label] = np.vstack([self._raw[label], v[None, :]])
            else:
                self._raw[label] = v[None, :].copy()
                self._texts[label] = []
            self._texts[label].append(example.text)
            if self._whiten is not None:  # after the first fit: incremental prototype update
                p = self._project(v[None, :])[0]
                self._sums[label] = self._sums.get(label, np.zeros_like(p)) + p
                self._prototypes[label] = _normalise_rows(self._sums[label])


def _as_example(e: IntentExample | tuple[str, str]) -> IntentExample:
    return e if isinstance(e, IntentExample) else IntentExample(e[0], e[1])
