"""BM25 over the search chunks of one release, with a tokenizer that keeps technical identifiers.

Retrieval is literal (QAMR): `--snapshot-count`, `max_shards`, `SSL_ERROR_SYSCALL`, `v3.5.0` and `/api/v1/otlp`
must match as whole tokens, while their parts (`snapshot`, `count`, `shards`) still match prose.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

# A "word" is a run of characters that can live inside an identifier, path, flag or version.
_WORD = re.compile(r"[\w][\w\-./:@#]*[\w]|[\w]")
_SPLIT = re.compile(r"[\-_./:@#]+")
_EDGE = "-./:@#"
STOP_WORDS = frozenset(
    """a an the and or of to in on for with by at from as is are was were be been being it its this that these
    those what which who whom how why when where does do did can could should would will shall may might must
    i you we they he she me my our your their there here if then than so not no yes about into over under
    any all some such only also just very more most other each per via using use used""".split()
)


def tokenize(text: str) -> list[str]:
    """Whole identifiers plus their alphanumeric parts, lowercased, stop words dropped."""
    out: list[str] = []
    for match in _WORD.finditer(text.lower()):
        word = match.group(0).strip(_EDGE)
        if not word:
            continue
        if word in STOP_WORDS or (len(word) == 1 and word.isalpha()):
            continue
        out.append(word)
        parts = [p for p in _SPLIT.split(word) if p and p != word]
        if len(parts) > 1:
            out.extend(p for p in parts if p not in STOP_WORDS and not (len(p) == 1 and p.isalpha()))
    return out


def tokenize_query(text: str) -> list[str]:
    """Flags keep their leading dashes in questions (`--logger`), but the index stores them without."""
    return tokenize(text)


@dataclass
class LexicalHit:
    chunk_id: str
    score: float


class BM25Index:
    """A static BM25 matrix (terms x chunks) rebuilt per release when that release changes.

    Rebuilding one release from the manifest's stored chunk texts is fast (seconds for 30k chunks), simpler and
    exact, where patching document frequencies in place would drift; it runs only for releases a sync touched.
    """

    def __init__(self, ids: list[str], vocab: dict[str, int], weights: sparse.csr_matrix, stamp: str = "") -> None:
        self.ids = ids
        self.vocab = vocab
        self.weights = weights  # terms x docs, BM25 weight per posting
        self.stamp = stamp

    @classmethod
    def build(cls, ids: list[str], texts: list[str], k1: float = 1.2, b: float = 0.75, stamp: str = "") -> "BM25Index":
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        lengths = np.zeros(len(texts), dtype=np.float32)
        for doc, text in enumerate(texts):
            toks = tokenize(text)
            lengths[doc] = len(toks)
            for tok in toks:
                rows.append(vocab.setdefault(tok, len(vocab)))
                cols.append(doc)
        n_docs = len(texts)
        tf = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
            shape=(len(vocab), n_docs),
        )
        tf.sum_duplicates()
        df = np.diff(tf.indptr).astype(np.float32)
        idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        avgdl = float(lengths.mean()) if n_docs else 1.0
        coo = tf.tocoo()
        norm = k1 * (1.0 - b + b * lengths[coo.col] / max(avgdl, 1e-6))
        data = idf[coo.row] * coo.data * (k1 + 1.0) / (coo.data + norm)
        weights = sparse.csr_matrix((data.astype(np.float32), (coo.row, coo.col)), shape=tf.shape)
        return cls(ids, vocab, weights, stamp)

    def search(self, query: str, k: int = 20) -> list[LexicalHit]:
        terms = {self.vocab[t] for t in tokenize_query(query) if t in self.vocab}
        if not terms or not self.ids:
            return []
        scores = np.asarray(self.weights[sorted(terms)].sum(axis=0)).ravel()
        k = min(k, int((scores > 0).sum()))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [LexicalHit(self.ids[i], float(scores[i])) for i in top]

    def save(self, folder: Path) -> None:
        """One file, written then renamed: a kill mid-save leaves the previous index, and a question asked during a
        sync never reads new weights with old ids (the two used to be separate files, renamed one after the other)."""
        folder.mkdir(parents=True, exist_ok=True)
        w = self.weights.tocsr()
        meta = json.dumps({"ids": self.ids, "vocab": self.vocab, "stamp": self.stamp}).encode()
        tmp = folder / "bm25.tmp.npz"
        with tmp.open("wb") as f:
            np.savez(f, data=w.data, indices=w.indices, indptr=w.indptr, shape=np.array(w.shape),
                     meta=np.frombuffer(meta, dtype=np.uint8))
        tmp.replace(folder / "bm25.npz")
        for old in ("weights.npz", "meta.json"):  # the two-file layout of earlier versions
            (folder / old).unlink(missing_ok=True)

    @classmethod
    def load(cls, folder: Path) -> "BM25Index | None":
        """None when absent or unreadable: the next sync rebuilds it."""
        try:
            if (folder / "bm25.npz").exists():
                with np.load(folder / "bm25.npz") as f:
                    meta = json.loads(f["meta"].tobytes())
                    weights = sparse.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))
            else:  # written by an earlier version; replaced by the next sync of its release
                meta = json.loads((folder / "meta.json").read_text())
                weights = sparse.load_npz(folder / "weights.npz").tocsr()
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        if weights.shape[1] != len(meta["ids"]):
            return None
        return cls(meta["ids"], meta["vocab"], weights, meta.get("stamp", ""))
