"""The recipe of an index: how a file's chunks and vectors were made, recorded per file so that a sync redoes
exactly the files made another way."""

from __future__ import annotations

import hashlib
from pathlib import Path

from assistant.backends.embedder import resolve_embedding_model
from assistant.library.chunking import CHUNKER_VERSION
from assistant.library.readers import READER_VERSION
from assistant.settings import Settings

# How points are stored: 2 = a dense and a sparse BM25 vector per chunk in the Qdrant engine (issue 13). Files indexed
# before (dense only, in qdrant-client's local mode) carry no store part and are re-indexed once.
# 3 = the search fields of issue 15 (title, heading path, file name and identifier BM25, heading-path dense).
STORE_FORMAT = 3


def index_recipe(settings: Settings) -> str:
    """How a file's chunks and vectors are made: reader and chunker versions, chunk sizes, and the embedding model
    (by content, not by location). Each file row records the recipe it was indexed with; a sync re-indexes the files
    whose recipe differs, so an upgrade or a settings change never leaves an index half in the old way. Cheap (no
    model load), so a no-op sync stays instant. Precision is left out: bfloat16 and float32 vectors agree to a cosine
    of 0.99998, which moves no result."""
    return (f"reader{READER_VERSION}.chunker{CHUNKER_VERSION}.search{settings.search_chunk_tokens}"
            f".context{settings.context_chunk_tokens}+{settings.context_padding_tokens}.store{STORE_FORMAT}"
            f".{embedding_model_tag(settings)}")


def embedding_model_tag(settings: Settings) -> str:
    """The last part of every recipe: which embedding model made a file's vectors. A release whose indexed files
    carry another tag cannot be searched by meaning with the current model (retrieval.ReleaseIndex.dense_ok)."""
    model, _ = resolve_embedding_model(settings)
    return f"model-{model_fingerprint(model)}"


def model_fingerprint(path: Path) -> str:
    """A model's identity from its config and the sizes of its weight files: the same model found elsewhere (models/,
    the Hugging Face cache, the bundled copy) keeps its fingerprint, a different one does not."""
    h = hashlib.sha256()
    for name in ("config.json", "modules.json", "sentence_bert_config.json"):
        if (path / name).is_file():
            h.update(name.encode() + b"\0" + (path / name).read_bytes())
    for weights in sorted(p for p in path.rglob("*") if p.suffix in (".safetensors", ".bin", ".pt", ".onnx")):
        h.update(f"{weights.relative_to(path).as_posix()}:{weights.stat().st_size}".encode())
    return h.hexdigest()[:12]
