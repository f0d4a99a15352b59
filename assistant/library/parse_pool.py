"""Reading, sectioning and chunking the files of a sync, in this process or in a pool of worker processes (issue 15).

On a GPU, embedding is a fifth of an ingestion's time and reading + chunking (with its token counting) most of the
rest, one core busy. With `ingest_workers` above 0, worker processes (spawned, never forked: torch's threads do not
survive a fork) each read and chunk whole files with their own token counter, the embedder's tokenizer loaded from
its tokenizer.json by the `tokenizers` package (no torch), which counts exactly as `Embedder.count_tokens`.
Outcomes come back in file order, so chunk ids, the manifest and the crash rules are those of the serial path; at
most a few files per worker are in flight, so memory stays bounded; a cancelled sync terminates the pool.

An outcome is a plain tuple (an exception may not pickle): ("indexed", encoding, title, nodes),
("failed", reason, None, None) or ("skipped", reason, title, description).
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from assistant.library.chunking import DualChunkParser, section_documents
from assistant.library.documents import ReadFailure, SkipFile, give_back_memory
from assistant.library.readers import read_document

MIN_FILES = 32  # `auto` keeps a sync of fewer files serial: starting the workers costs a few seconds
MAX_WORKERS = 8
IN_FLIGHT_PER_WORKER = 2  # files handed to each worker ahead of the one being consumed


def resolve_workers(setting: int | str, n_files: int, cores: int | None = None) -> int:
    """`auto`: serial (0) on fewer than 4 cores or for fewer than MIN_FILES files, else min(cores - 1, 8)."""
    if setting != "auto":
        return max(int(setting), 0)
    cores = cores or os.cpu_count() or 1
    if cores < 4 or n_files < MIN_FILES:
        return 0
    return min(cores - 1, MAX_WORKERS)


def tokenizer_file(model_path: Path) -> Path | None:
    path = Path(model_path) / "tokenizer.json"
    return path if path.is_file() else None


class TokenCounter:
    """`Embedder.count_tokens` without torch: the same tokenizer, the same slices, no special tokens, no truncation."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def __call__(self, texts: list[str]) -> list[int]:
        from assistant.backends.embedder import count_in_batches

        return count_in_batches(texts, lambda batch: [len(e.ids) for e in
                                                      self.tokenizer.encode_batch(batch, add_special_tokens=False)])


def parse_file(parser: DualChunkParser, path: Path, product: str, release: str, rel: str) -> tuple:
    try:
        parsed = read_document(path)
        docs = section_documents(parsed, product=product, release=release, path=rel)
        nodes = parser.get_nodes_from_documents(docs)
    except ReadFailure as exc:
        return ("failed", str(exc), None, None)
    except SkipFile as exc:  # e.g. a page of front matter only: its title and description are kept
        return ("skipped", str(exc), getattr(exc, "title", None) or None, getattr(exc, "description", None) or None)
    return ("indexed", parsed.encoding, parsed.title, nodes)


_worker: dict = {}


def _init_worker(tokenizer_path: str, parser_args: dict) -> None:
    _worker["parser"] = DualChunkParser(TokenCounter(Path(tokenizer_path)), **parser_args)


def _work(path: str, product: str, release: str, rel: str, size: int) -> tuple:
    try:
        return parse_file(_worker["parser"], Path(path), product, release, rel)
    except BaseException as exc:  # anything else stops the sync, as in the serial path; sent as text
        return ("error", f"{type(exc).__name__}: {exc}", None, None)
    finally:
        if size > 1 << 20:
            give_back_memory()


def parse_files(files: list[tuple[str, Path, int]], product: str, release: str, parser: Callable[[], DualChunkParser],
                workers: int, tokenizer_path: Path | None, cancel: threading.Event | None = None) -> Iterator[tuple]:
    """The outcome of each (rel, path, size) in order. Ends early once `cancel` is set; close it to stop early."""
    if workers <= 0 or tokenizer_path is None:
        for i, (rel, path, _) in enumerate(files):
            if i and files[i - 1][2] > 1 << 20:  # what reading a large file freed goes back before the next
                give_back_memory()
            yield parse_file(parser(), path, product, release, rel)
        return
    p = parser()
    args = {"search_tokens": p.search_tokens, "context_tokens": p.context_tokens, "padding_tokens": p.padding_tokens}
    pool = multiprocessing.get_context("spawn").Pool(workers, _init_worker, (str(tokenizer_path), args))
    pending: collections.deque = collections.deque()
    todo = iter(files)
    finished = False
    try:
        while True:
            while len(pending) < workers * IN_FLIGHT_PER_WORKER:
                item = next(todo, None)
                if item is None:
                    break
                rel, path, size = item
                pending.append(pool.apply_async(_work, (str(path), product, release, rel, size)))
            if not pending:
                break
            result = pending.popleft()
            while not result.ready():
                if cancel is not None and cancel.is_set():
                    return
                result.wait(0.2)
            outcome = result.get()
            if outcome[0] == "error":
                raise RuntimeError(f"reading a file failed in a worker process: {outcome[1]}")
            yield outcome
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()
