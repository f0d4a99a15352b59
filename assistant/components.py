"""The composition root: the one place that builds heavy components (embedder, vector store, reranker).

Everything here is built once per process and passed down; no stage reads global settings.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from assistant.backends.chat import ChatModel, LLMError
from assistant.backends.device import Device, resolve_device
from assistant.backends.embedder import Embedder, resolve_embedding_model
from assistant.backends.ollama import OllamaChat
from assistant.library.store import StoreLocked  # noqa: F401 (re-exported: the app and the CLI catch it)
from assistant.settings import Settings

log = logging.getLogger(__name__)

# Nothing is ever fetched from a model hub: a fresh machine must work offline.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


_lock = threading.Lock()
_embedders: dict[tuple[str, int, str], Embedder] = {}
_stores: dict[str, object] = {}


_devices: dict[str, Device] = {}


def get_device(settings: Settings) -> Device:
    """The device every model runs on; raises backends.device.DeviceUnavailable for a forced GPU that is absent."""
    with _lock:
        if settings.device not in _devices:
            _devices[settings.device] = resolve_device(settings.device)
        return _devices[settings.device]


def device_summary(settings: Settings) -> str:
    """"cpu, bfloat16, batch 64": where and how the embedder runs, said without loading it."""
    from assistant.backends.embedder import resolve_precision

    device = get_device(settings)
    precision = device.half or resolve_precision(settings.embedding_precision)
    return f"{device.label()}, {precision}, batch {device.batch_size(settings.embedding_batch_size)}"


def get_embedder(settings: Settings) -> Embedder:
    path, description = resolve_embedding_model(settings)
    device = get_device(settings)
    key = (str(path), settings.embedding_batch_size, settings.embedding_precision, device.name)
    with _lock:
        if key not in _embedders:
            log.info("loading %s on %s", description, device.label())
            _embedders[key] = Embedder(path, settings.embedding_batch_size, description, settings.embedding_precision,
                                       device)
        return _embedders[key]


def get_store(settings: Settings):
    """The vector store backend, one per process and location: the Qdrant engine in-process over `index/edge`
    (Streamlit reruns must never reopen it), or qdrant-client against a Qdrant server when a URL is set."""
    key = settings.qdrant_url or str((settings.index_dir / "edge").resolve())
    with _lock:
        if key in _stores:
            return _stores[key]
        if settings.qdrant_url:
            from qdrant_client import QdrantClient

            from assistant.library.server_store import QdrantServer

            api_key = None
            if settings.qdrant_api_key_name:
                from assistant.secrets import get_secret

                api_key = get_secret(settings.qdrant_api_key_name)
            store = QdrantServer(QdrantClient(url=settings.qdrant_url, api_key=api_key))
        else:
            from assistant.library.edge_store import EdgeShards

            store = EdgeShards(Path(key))  # raises StoreLocked when another process holds it
        _stores[key] = store
        if len(_stores) == 1:
            atexit.register(close_stores)  # close before interpreter teardown, not in __del__
        return store


def close_stores() -> None:
    with _lock:
        for store in _stores.values():
            try:
                store.close()
            except Exception:  # closing is best effort at shutdown
                pass
        _stores.clear()


@dataclass
class Components:
    """What the pipeline and the ingestion need, built lazily from one settings object."""

    settings: Settings

    @property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings)

    @property
    def store(self):
        return get_store(self.settings)


def build_indexer(settings: Settings):
    """Library, manifest, vector store and embedder wired together for ingestion."""
    from assistant.library.catalogue import Library
    from assistant.library.ingest import Indexer

    settings.ensure_dirs()
    return Indexer(settings, Library(settings.library_dir), get_manifest(settings),
                   lambda: get_store(settings), lambda: get_embedder(settings))


_manifests: dict[str, object] = {}


def get_manifest(settings: Settings):
    from assistant.library.manifest import Manifest

    key = str(settings.index_dir / "manifest.sqlite")
    with _lock:
        if key not in _manifests:
            _manifests[key] = Manifest(Path(key))
        return _manifests[key]


def build_reranker(settings: Settings):
    from assistant.answering.rerank import CrossEncoderRerank

    device = get_device(settings)
    key = ("reranker", settings.reranker_model, str(settings.models_dir), device.name)
    with _lock:
        if key not in _singletons:
            _singletons[key] = CrossEncoderRerank.from_settings(settings.reranker_model, settings.models_dir,
                                                                device=device)
        return _singletons[key]


def build_intent_classifier(settings: Settings, extra_examples: list[tuple[str, str]] = ()):
    """Seed examples plus the user's stored corrections (iKnow: corrections become examples)."""
    from assistant.answering.intent import IntentClassifier, load_seed_examples

    embedder = get_embedder(settings)
    examples = list(load_seed_examples())
    return IntentClassifier(embedder.embed, examples + list(extra_examples))


def build_pipeline(settings: Settings, llm=None, intent=None, corrections: list[tuple[str, str]] = ()):
    """The answering pipeline over the current index. `llm=None` runs search-only; `corrections` are the user's
    intent corrections (the app's database), added to the intent examples."""
    from assistant.answering.pipeline import Pipeline
    from assistant.library.catalogue import Library

    settings.ensure_dirs()
    return Pipeline(
        settings, library=Library(settings.library_dir), manifest=get_manifest(settings),
        store=get_store(settings), embedder=get_embedder(settings),
        intent=intent if intent is not None else build_intent_classifier(settings, corrections),
        reranker=build_reranker(settings), llm=llm,
    )


_singletons: dict[tuple, object] = {}


# ------------------------------------------------------------------------------------ the chat model


@dataclass
class LLMChoice:
    model: ChatModel | None
    notice: str
    extractive: bool = False  # no model: answers quote the sources' sentences (answering/extractive.py)


EXTRACTIVE_NOTICE = ("answers quote the sentences of the sources that answer the question, with no language model "
                     "(on the dev sets they beat the embedded Gemma 3 270M: README)")


def build_chat_model(settings: Settings, token: str | None = None) -> LLMChoice:
    """Pick the backend named by settings.llm_backend; "auto" prefers a running Ollama with the model pulled."""
    backend = settings.llm_backend.lower()
    if backend == "none":
        return LLMChoice(None, "No language model configured: answers show the retrieved passages only.")
    if backend == "embedded":
        return LLMChoice(_embedded(settings), "Using the embedded Gemma 3 270M model (small and slow, CPU only).")
    if backend == "extractive":
        return LLMChoice(None, EXTRACTIVE_NOTICE[0].upper() + EXTRACTIVE_NOTICE[1:] + ".", extractive=True)
    if backend not in ("ollama", "auto"):
        raise ValueError(f"Unknown llm_backend {settings.llm_backend!r}; use auto, ollama, embedded, extractive or "
                         "none.")

    ollama = OllamaChat.from_settings(settings, token)
    try:
        ollama.ping()
        present = ollama.has_model()
    except LLMError as exc:
        if backend == "ollama":
            # Chosen explicitly: keep it, and each call will fail with the same actionable message.
            return LLMChoice(ollama, exc.message)
        ollama.close()
        return _offline(settings, exc.message)
    if present:
        return LLMChoice(ollama, f"Using Ollama model '{ollama.model}' at {ollama.host}.")
    pull_hint = f"Model '{ollama.model}' is not pulled. Run `ollama pull {ollama.model}`."
    if backend == "ollama":
        return LLMChoice(ollama, pull_hint)
    ollama.close()
    return _offline(settings, pull_hint)


def _offline(settings: Settings, why: str) -> LLMChoice:
    """What answers while Ollama cannot: settings.offline_answer."""
    if settings.offline_answer == "extractive":
        return LLMChoice(None, f"{why} Until then, {EXTRACTIVE_NOTICE}.", extractive=True)
    return LLMChoice(_embedded(settings), f"{why} Until then, answers come from the embedded Gemma 3 270M model, "
                                          "which is small and slow.")


def _embedded(settings: Settings) -> ChatModel:
    from assistant.backends.embedded_llm import EmbeddedChat

    return EmbeddedChat(settings.models_dir, settings.embedded_llm_precision, device=get_device(settings))
