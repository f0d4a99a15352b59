"""LlamaIndex adapters for our own components, passed explicitly as `embed_model=` / `llm=` so that nothing can
fall back to LlamaIndex's global (cloud) defaults."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from assistant.backends.embedder import Embedder


class LocalEmbedding(BaseEmbedding):
    """The project's sentence-transformers embedder behind LlamaIndex's embedding interface."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(model_name=embedder.name, embed_batch_size=embedder.batch_size, **kwargs)
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed([query])[0].tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed(texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)
