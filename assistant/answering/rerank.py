"""Reranking (stage 6, iKnow): a cross-encoder rescores the candidates and keeps the top few.

No cross-encoder ships on PyPI, so the model is loaded from `models/` or the Hugging Face cache only; when none is
present the reranker says so once and leaves the fused order as it is.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import PrivateAttr

from assistant.backends.device import Device
from assistant.backends.embedder import resolve_model_path

log = logging.getLogger(__name__)


class CrossEncoderRerank(BaseNodePostprocessor):
    """`SentenceTransformerRerank` without its hub download: local model or a clear 'absent' state."""

    top_n: int = 6
    model_name: str = ""
    notice: str = ""
    _model: object = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_settings(cls, name: str, models_dir: Path, top_n: int = 6,
                      device: Device | None = None) -> "CrossEncoderRerank":
        path = resolve_model_path(name, models_dir)
        self = cls(top_n=top_n, model_name=name)
        if path is None:
            self.notice = (f"No cross-encoder reranker found ({name} is not in {models_dir} or the Hugging Face cache); "
                           "results keep their fused retrieval order. Copy a sentence-transformers CrossEncoder "
                           f"into {models_dir}/{name.split('/')[-1]} to enable reranking.")
            log.warning(self.notice)
            return self
        try:
            from sentence_transformers import CrossEncoder

            device = device or Device("cpu")
            self._model = CrossEncoder(str(path), device=device.name)
            if device.half:
                self._model.model.half()
            self.notice = f"Reranking with cross-encoder {path} on {device.label()}."
        except Exception as exc:  # a damaged model folder must not stop the assistant
            self.notice = f"The cross-encoder at {path} could not be loaded ({exc}); results keep their fused order."
            log.warning(self.notice)
        return self

    @property
    def available(self) -> bool:
        return self._model is not None

    @classmethod
    def class_name(cls) -> str:
        return "CrossEncoderRerank"

    def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        if not nodes:
            return nodes
        if self._model is None or query_bundle is None:
            return nodes[: self.top_n]
        pairs = [(query_bundle.query_str, n.node.get_content()) for n in nodes]
        with self._lock:
            scores = self._model.predict(pairs, show_progress_bar=False)
        for n, s in zip(nodes, scores):
            n.node.metadata["rerank"] = float(s)
            n.score = float(s)
        return sorted(nodes, key=lambda n: -(n.score or 0.0))[: self.top_n]
