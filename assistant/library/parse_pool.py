"""Reading, sectioning and chunking the files of a sync, in this process or in a pool of worker processes (issue 15).

On a GPU, embedding is a fifth of an ingestion's time and reading + chunking (with its token counting) most of the
rest, one core busy. With `ingest_workers` above 0, worker processes (spawned, never forked: torch's threads do not
survive a fork) each read and chunk whole files with their own token counter, the embedder's tokenizer loaded from
its tokenizer.json by the `tokenizers` package (no torch), which counts exactly as `Embedder.count_tokens`.
Outcomes come back in file order, so chunk ids, the manifest and the crash rules are those of the serial path; at
most a few files per worker are in flight, so memory stays bounded; a cancelled sync terminates the workers.

A worker that dies (out of memory, killed, a crash inside a parser) would leave its file unfinished, and a pool
that replaces workers silently (multiprocessing.Pool) waits for it forever. Here each worker has its own pipe and
its own list of files, so the file it was reading is known: handed out once more (to the least busy worker; the
dead one's replacement is fresh), then set aside as failed ("the reader process died while reading X, twice"),
like a broken file; the others go on (issue 15).

An outcome is a plain tuple (an exception may not pickle): ("indexed", encoding, title, nodes, fields),
("failed", reason, None, None, None) or ("skipped", reason, title, description, None). `fields`, from workers only:
each search chunk's sparse search fields (fields.sparse_fields, a pure function of the chunk) by node id, made
there so that the syncing process's writer does not (store.point_extras); None: the writer makes them.
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path

from assistant.library.chunking import DualChunkParser, section_documents
from assistant.library.documents import ReadFailure, SkipFile, give_back_memory
from assistant.library.fields import sparse_fields
from assistant.library.readers import read_document

log = logging.getLogger(__name__)
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
        return ("failed", str(exc), None, None, None)
    except SkipFile as exc:  # e.g. a page of front matter only: its title and description are kept
        return ("skipped", str(exc), getattr(exc, "title", None) or None, getattr(exc, "description", None) or None,
                None)
    return ("indexed", parsed.encoding, parsed.title, nodes, None)


_worker: dict = {}


def _init_worker(tokenizer_path: str, parser_args: dict) -> None:
    _worker["parser"] = DualChunkParser(TokenCounter(Path(tokenizer_path)), **parser_args)


def _work(path: str, product: str, release: str, rel: str, size: int) -> tuple:
    try:
        out = parse_file(_worker["parser"], Path(path), product, release, rel)
        if out[0] == "indexed":
            fields = {n.node_id: sparse_fields(n.metadata, n.get_content()) for n in out[3]
                      if n.metadata["kind"] == "search"}
            out = out[:4] + (fields,)
        return out
    except BaseException as exc:  # anything else stops the sync, as in the serial path; sent as text
        return ("error", f"{type(exc).__name__}: {exc}", None, None, None)
    finally:
        if size > 1 << 20:
            give_back_memory()


def _serve(conn: Connection, initializer: Callable, initargs: tuple) -> None:
    """A worker's loop: ("ready",) once started, then one outcome per task, in the order the tasks came."""
    try:
        initializer(*initargs)
    except BaseException as exc:
        conn.send(("error", f"the reader process could not start: {type(exc).__name__}: {exc}", None, None, None))
        return
    conn.send(("ready",))
    while (task := conn.recv()) is not None:
        conn.send(_work(*task))


class _Reader:
    """One worker process, with its own pipe, and the files handed to it (indices, in the order it reads them):
    when it dies, the first of them is the file it was reading."""

    def __init__(self, initargs: tuple) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        # _init_worker is looked up here, at each start, and pickled by name: the spawned process imports it.
        self.process = ctx.Process(target=_serve, args=(child, _init_worker, initargs), daemon=True)
        self.process.start()
        child.close()
        self.files: collections.deque[int] = collections.deque()
        self.ready = False

    def stop(self, terminate: bool) -> None:
        if not terminate and self.process.is_alive():
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.conn.close()


def _how(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name if -exitcode in signal.valid_signals() else str(-exitcode)
        return f"killed by {name}" + (", e.g. out of memory" if name == "SIGKILL" else "")
    return f"exit code {exitcode}"


def _in_workers(files: list[tuple[str, Path, int]], product: str, release: str, workers: int, initargs: tuple,
                cancel: threading.Event | None) -> Iterator[tuple]:
    """The outcomes in file order, read by `workers` processes; a worker that dies is replaced. The file it was
    reading is handed out once more, to the least busy worker (it may have died of something else: memory taken by
    another file, a kill), and set aside as failed if its reader dies again; the other files it held go to the next
    free workers."""
    readers = [_Reader(initargs) for _ in range(workers)]
    window = workers * IN_FLIGHT_PER_WORKER  # files handed out and not yet yielded: memory stays bounded
    results: dict[int, tuple] = {}
    again: list[int] = []  # files to hand out again (their reader died), before any new one
    deaths: collections.Counter = collections.Counter()
    handed = 0

    def hand_out(consumed: int) -> None:
        nonlocal handed
        while again or (handed < len(files) and handed < consumed + window):
            reader = min(readers, key=lambda r: len(r.files))
            if len(reader.files) >= IN_FLIGHT_PER_WORKER:
                return
            if again:
                i = again.pop(0)
            else:
                i, handed = handed, handed + 1
            reader.files.append(i)
            rel, path, size = files[i]
            try:
                reader.conn.send((str(path), product, release, rel, size))
            except OSError:  # it died: found below, and this file handed out again
                pass

    def receive(reader: _Reader) -> None:
        while reader.conn.poll():
            out = reader.conn.recv()
            if out[0] == "error":
                raise RuntimeError(f"reading a file failed in a worker process: {out[1]}")
            if out[0] == "ready":
                reader.ready = True
            else:
                results[reader.files.popleft()] = out

    def replace(k: int) -> None:
        reader = readers[k]
        try:
            receive(reader)  # what it sent before dying counts
        except (EOFError, OSError):
            pass
        if not reader.ready:
            raise RuntimeError(f"a reader process died while starting ({_how(reader.process.exitcode)})")
        reader.stop(terminate=True)
        if reader.files:
            i = reader.files.popleft()
            deaths[i] += 1
            log.warning("a reader process died while reading %s (%s)%s", files[i][0], _how(reader.process.exitcode),
                        "; setting it aside" if deaths[i] >= 2 else "; reading it again in a fresh one")
            if deaths[i] >= 2:
                rel = files[i][0]
                results[i] = ("failed", f"the reader process died while reading {rel}, twice "
                              f"({_how(reader.process.exitcode)})", None, None, None)
            else:
                again.append(i)
        again.extend(reader.files)
        again.sort()
        readers[k] = _Reader(initargs)

    finished = False
    try:
        for n in range(len(files)):
            while n not in results:
                if cancel is not None and cancel.is_set():
                    return
                hand_out(n)
                wait([r.conn for r in readers] + [r.process.sentinel for r in readers], timeout=0.2)
                for k, reader in enumerate(readers):
                    try:
                        receive(reader)
                    except (EOFError, OSError):
                        pass
                    if not reader.process.is_alive():
                        replace(k)
            out = results.pop(n)
            hand_out(n + 1)
            yield out
        finished = True
    finally:
        for reader in readers:
            reader.stop(terminate=not finished)


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
    yield from _in_workers(files, product, release, workers, (str(tokenizer_path), args), cancel)
