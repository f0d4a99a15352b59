"""Vectors already computed, keyed by model and exact embedded text.

Releases of one product overlap heavily (etcd v3.4/v3.5/v3.6 share most paragraphs) and an edited file keeps most
of its chunks: embedding is the floor of ingestion time on a CPU, so identical text is never embedded twice.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np


class EmbeddingCache:
    def __init__(self, path: Path, model_key: str, dim: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL)")
        self.model_key = model_key
        self.dim = dim
        self._lock = threading.Lock()  # one connection: two threads must not interleave a lookup and a write

    def _key(self, text: str) -> bytes:
        return hashlib.sha1(f"{self.model_key}\0{text}".encode("utf-8", "surrogatepass")).digest()

    def embed(self, texts: list[str], embed_fn) -> np.ndarray:
        with self._lock:
            return self._embed(texts, embed_fn)

    def _embed(self, texts: list[str], embed_fn) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        for i in range(0, len(keys), 500):
            batch = list(set(keys[i : i + 500]))
            q = ",".join("?" * len(batch))
            for key, blob in self.db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({q})", batch):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts):
            if key not in found and key not in missing:
                missing[key] = text
        if missing:
            vecs = embed_fn(list(missing.values()))
            with self.db:
                self.db.executemany(
                    "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                    [(k, v.astype(np.float32).tobytes()) for k, v in zip(missing, vecs)],
                )
            found.update(zip(missing, vecs))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def close(self) -> None:
        self.db.close()
