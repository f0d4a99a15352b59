"""Ingestion speed on the AWS guides (../shared/corpora/awsdocs/documents), against two floors measured in the same run.

    python benchmarks/ingest_bench.py --limit 150 --out bench.json          # a sample, about 10 minutes here
    python benchmarks/ingest_bench.py --no-cache-runs --keep /tmp/aws_data  # every file; keeps our index

ratio 1 = our ingestion / embedding the very texts our chunker produced (same model, same batch size, no cache):
    how much reading, chunking, BM25 and Qdrant writes add on top of the unavoidable embedding.
ratio 2 = our ingestion / a plain LlamaIndex `VectorStoreIndex.from_documents` (SimpleDirectoryReader, its default
    SentenceSplitter, Qdrant local mode, the same embedder passed explicitly). Its nodes of ~1,024 tokens are cut
    at the model's 256, so most of their text never reaches a vector: the word-piece counts printed say how much.
    `--fit-baseline` adds LlamaIndex with a splitter sized to the model, which embeds all the text, as ours does.
    The LlamaIndex runs embed in float32, as its HuggingFaceEmbedding does; ours uses `embedding_precision` (auto:
    bfloat16 on a CPU that has it). `--baseline-precision bfloat16` gives LlamaIndex our arithmetic too, leaving
    only the pipelines to compare.
re-sync = syncing the unchanged corpus again; target < 2% of the first ingestion.

The model is loaded and warmed before any timing, so no figure includes its load. The main run has the embedding
cache off, so that the comparison is fair; `cache cold` is the same ingestion with the cache on (its overhead and
the duplicate chunks it saves), `cache warm` a fresh index whose cache already knows every text (as when another
release repeats the same pages).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.components import build_indexer, get_embedder  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402
from assistant.library.parse_pool import resolve_workers  # noqa: E402

CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "awsdocs" / "documents"
PRODUCT, RELEASE = "awsdocs", "current"


def sample_files(corpus: Path, limit: int | None) -> list[Path]:
    """Every Markdown file, or `limit` of them spread evenly over the sorted list (so every guide gives its share)."""
    files = sorted(p for p in corpus.rglob("*.md") if p.parent != corpus)
    if limit is None or limit >= len(files):
        return files
    return [files[int(i * len(files) / limit)] for i in range(limit)]


def fill_library(settings: Settings, corpus: Path, files: list[Path]) -> None:
    dest = settings.library_dir / PRODUCT / RELEASE
    for src in files:
        target = dest / src.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0


def cpu_seconds(fn):
    """(result, CPU seconds of this process (every thread), CPU seconds of the child processes it waited for)."""
    def children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    own, kids = time.process_time(), children()
    result = fn()
    return result, round(time.process_time() - own, 2), round(children() - kids, 2)


def ours(root: Path, name: str, corpus: Path, files: list[Path], cache: bool, seed_cache=None, data_dir=None,
         workers: str = "auto"):
    """One ingestion into a fresh data folder; `seed_cache`: an indexer whose embedding cache it starts with;
    `workers`: the ingest_workers setting (processes reading and chunking files, library/parse_pool.py). Returns
    (indexer, report, seconds, CPU seconds of this process and of the worker processes during the sync)."""
    settings = Settings(data_dir=data_dir or root / name, models_dir=PROJECT_ROOT / "models", embedding_cache=cache,
                        ingest_workers=workers)
    fill_library(settings, corpus, files)
    if seed_cache is not None:
        seed_cache.cache.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # its vectors may still sit in the WAL
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(seed_cache.settings.index_dir / "embed_cache.sqlite", settings.index_dir / "embed_cache.sqlite")
    indexer = build_indexer(settings)
    ([report], seconds), cpu, workers_cpu = cpu_seconds(lambda: timed(lambda: indexer.sync(PRODUCT, RELEASE)))
    return indexer, report, seconds, {"cpu_s": cpu, "workers_cpu_s": workers_cpu}


def llamaindex_splitter(embedder, fit: bool):
    """LlamaIndex's default SentenceSplitter, or (`fit`) one sized in the embedder's own tokens so that no node is
    cut at the model's limit (the like-for-like baseline: every word of the corpus reaches a vector, as in ours)."""
    from llama_index.core.node_parser import SentenceSplitter

    if not fit:
        return SentenceSplitter()
    count = embedder.tokenizer
    return SentenceSplitter(chunk_size=embedder.max_tokens - 2, chunk_overlap=20,
                            tokenizer=lambda text: count.encode(text, add_special_tokens=False))


def plain_llamaindex(root: Path, files: list[Path], embedder, fit: bool = False) -> tuple[int, float]:
    from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    from assistant.backends.llama_adapters import LocalEmbedding

    name = "fit" if fit else "plain"
    client = QdrantClient(path=str(root / f"llamaindex_{name}"))
    try:
        def build() -> int:
            docs = SimpleDirectoryReader(input_files=[str(f) for f in files], required_exts=[".md"]).load_data()
            store = QdrantVectorStore(client=client, collection_name=name)
            VectorStoreIndex.from_documents(
                docs, storage_context=StorageContext.from_defaults(vector_store=store),
                embed_model=LocalEmbedding(embedder), transformations=[llamaindex_splitter(embedder, fit)],
            )
            return client.count(name, exact=True).count

        return timed(build)
    finally:
        client.close()


def embedded_tokens(embedder, texts: list[str]) -> tuple[int, int]:
    """(word pieces of the texts, word pieces that reach a vector once the model cuts each text at its limit)."""
    counts = embedder.count_tokens(texts)
    cap = embedder.max_tokens - 2  # [CLS] and [SEP]
    return sum(counts), sum(min(c, cap) for c in counts)


def llamaindex_tokens(files: list[Path], embedder, fit: bool) -> tuple[int, int, int]:
    """What the LlamaIndex run hands its embedder: (nodes, word pieces, word pieces kept by the model)."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.schema import MetadataMode

    docs = SimpleDirectoryReader(input_files=[str(f) for f in files], required_exts=[".md"]).load_data()
    nodes = llamaindex_splitter(embedder, fit)(docs)
    total, kept = embedded_tokens(embedder, [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes])
    return len(nodes), total, kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, help="number of files, sampled evenly across guides (default: all)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here (rewritten after every phase)")
    parser.add_argument("--keep", type=Path, metavar="DATA_DIR",
                        help="build our index in this (new) data folder and keep it, e.g. to run `assistant eval` on it")
    parser.add_argument("--fit-baseline", action="store_true",
                        help="also time LlamaIndex with a splitter sized to the model, so that it embeds all the text")
    parser.add_argument("--no-cache-runs", action="store_true", help="skip the two runs with the embedding cache on")
    parser.add_argument("--no-llamaindex", action="store_true",
                        help="skip plain LlamaIndex (only ratio 1, ingestion against embedding alone, is measured)")
    parser.add_argument("--baseline-precision", choices=["float32", "bfloat16"], default="float32",
                        help="arithmetic of the embedder handed to LlamaIndex (default float32, as LlamaIndex has it)")
    parser.add_argument("--workers", default="auto", metavar="N[,N...]",
                        help="ingest_workers of our ingestion (auto, or processes reading and chunking files; 0: "
                             "none); more values, comma-separated, time one more ingestion (cache off) each")
    args = parser.parse_args(argv)
    workers = args.workers.split(",")
    if args.keep and args.keep.exists() and any(args.keep.iterdir()):
        parser.error(f"--keep {args.keep}: the folder must be new or empty (the run times a first ingestion)")

    files = sample_files(args.corpus, args.limit)
    settings = Settings(models_dir=PROJECT_ROOT / "models")
    embedder = get_embedder(settings)
    embedder.embed(["warm up the model before any timing"] * 8)
    baseline = get_embedder(Settings(models_dir=PROJECT_ROOT / "models", embedding_precision=args.baseline_precision))
    baseline.embed(["warm up the model before any timing"] * 8)
    root = Path(tempfile.mkdtemp(prefix="ingest_bench_"))
    figures: dict = {"files": len(files), "guides": len({f.relative_to(args.corpus).parts[0] for f in files}),
                     "model": embedder.description, "batch_size": embedder.batch_size,
                     "precision": embedder.precision, "baseline_precision": baseline.precision,
                     "workers": resolve_workers(workers[0], len(files))}

    def phase(name: str, **new) -> None:
        figures.update(new)
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {json.dumps(new)}", file=sys.stderr, flush=True)
        if args.out:
            args.out.write_text(json.dumps(figures, indent=2))

    try:
        print(f"ingesting {len(files)} files from {figures['guides']} guides", file=sys.stderr)
        indexer, report, ours_s, ours_cpu = ours(root, "ours", args.corpus, files, cache=False, data_dir=args.keep,
                                       workers=workers[0])
        phase("ours", chunks=report.chunks, files_indexed=report.files_indexed,
              files_failed=len(report.files_failed), seconds=round(ours_s, 2),
              chunks_per_second=round(report.chunks / ours_s, 1), **ours_cpu)

        [again] = indexer.sync(PRODUCT, RELEASE)
        assert again.files_indexed == 0 and again.files_unchanged == len(files), again
        phase("re-sync", resync_seconds=again.seconds, resync_ratio=round(again.seconds / ours_s, 5))

        _, texts = indexer.manifest.chunk_texts(PRODUCT, RELEASE)
        assert len(texts) == report.chunks
        total, kept = embedded_tokens(embedder, texts)
        phase("our tokens", tokens=total, tokens_embedded=kept)

        if not args.no_llamaindex:
            li_nodes, li_s = plain_llamaindex(root, files, baseline)
            n, total, kept = llamaindex_tokens(files, baseline, fit=False)
            assert n == li_nodes, (n, li_nodes)  # the word pieces counted are those of the nodes it indexed
            phase("plain LlamaIndex", llamaindex_nodes=li_nodes, llamaindex_seconds=round(li_s, 2),
                  ratio_to_llamaindex=round(ours_s / li_s, 3), llamaindex_tokens=total,
                  llamaindex_tokens_embedded=kept)

        if args.fit_baseline:
            fit_nodes, fit_s = plain_llamaindex(root, files, baseline, fit=True)
            n, total, kept = llamaindex_tokens(files, baseline, fit=True)
            assert n == fit_nodes, (n, fit_nodes)
            phase("LlamaIndex, splitter sized to the model", llamaindex_fit_nodes=fit_nodes,
                  llamaindex_fit_seconds=round(fit_s, 2), ratio_to_llamaindex_fit=round(ours_s / fit_s, 3),
                  llamaindex_fit_tokens=total, llamaindex_fit_tokens_embedded=kept)

        (_, embed_s), embed_cpu, _ = cpu_seconds(lambda: timed(lambda: embedder.embed(texts)))
        phase("embedding alone", embed_only_seconds=round(embed_s, 2), ratio_to_embedding=round(ours_s / embed_s, 3),
              embed_only_cpu_s=embed_cpu,
              syncing_process_beyond_embedding_cpu_s=round(ours_cpu["cpu_s"] - embed_cpu, 2))

        for w in workers[1:]:  # the same ingestion with another number of worker processes
            _, other, other_s, other_cpu = ours(root, f"workers_{w}", args.corpus, files, cache=False, workers=w)
            assert other.chunks == report.chunks, (w, other.chunks, report.chunks)
            n = str(resolve_workers(w, len(files)))
            runs = {**figures.get("workers_runs", {}), n: round(other_s, 2)}
            beyond = round(other_cpu["cpu_s"] - embed_cpu, 2)
            cpu = {**figures.get("workers_runs_cpu", {}),
                   n: {**other_cpu, "syncing_process_beyond_embedding_cpu_s": beyond}}
            phase(f"workers {w}", workers_runs=runs, workers_runs_cpu=cpu)

        if not args.no_cache_runs:
            cached, _, cold_s, _ = ours(root, "cache_cold", args.corpus, files, cache=True, workers=workers[0])
            _, _, warm_s, _ = ours(root, "cache_warm", args.corpus, files, cache=True, seed_cache=cached,
                                workers=workers[0])
            phase("cache on", cache_cold_seconds=round(cold_s, 2), cache_warm_seconds=round(warm_s, 2))
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def share(kept: int, total: int) -> str:
        return f"{kept:,} of {total:,} word pieces reach a vector ({kept / total:.0%})"

    def cpu_note(cpu: dict) -> str:
        return (f"CPU: syncing process {cpu['cpu_s']} s, {cpu['syncing_process_beyond_embedding_cpu_s']} s of it "
                f"beyond embedding; worker processes {cpu['workers_cpu_s']} s")

    first_cpu = {k: figures[k] for k in ("cpu_s", "workers_cpu_s", "syncing_process_beyond_embedding_cpu_s")}
    rows = [
        ("files", figures["files"], ""),
        ("search chunks", figures["chunks"], f"{figures['chunks_per_second']} chunks/s; "
                                             + share(figures["tokens_embedded"], figures["tokens"])),
        ("our ingestion (cache off)", f"{figures['seconds']} s",
         f"{figures['precision']}; {figures['workers']} worker processes reading and chunking; "
         + cpu_note(first_cpu)),
        ("embedding alone", f"{figures['embed_only_seconds']} s",
         f"ratio 1 = {figures['ratio_to_embedding']} ({figures['precision']}; CPU {figures['embed_only_cpu_s']} s)"),
    ]
    if "llamaindex_seconds" in figures:  # absent with --no-llamaindex
        rows.append(("plain LlamaIndex", f"{figures['llamaindex_seconds']} s",
                     f"ratio 2 = {figures['ratio_to_llamaindex']} ({figures['baseline_precision']}; "
                     f"{figures['llamaindex_nodes']} nodes; "
                     + share(figures["llamaindex_tokens_embedded"], figures["llamaindex_tokens"]) + ")"))
    if "llamaindex_fit_seconds" in figures:
        rows.append(("LlamaIndex, fitted splitter", f"{figures['llamaindex_fit_seconds']} s",
                     f"ratio = {figures['ratio_to_llamaindex_fit']} ({figures['baseline_precision']}; "
                     f"{figures['llamaindex_fit_nodes']} nodes; "
                     + share(figures["llamaindex_fit_tokens_embedded"], figures["llamaindex_fit_tokens"]) + ")"))
    for n, seconds in figures.get("workers_runs", {}).items():
        rows.append((f"ours, {n} workers", f"{seconds} s", f"ratio 1 = {seconds / figures['embed_only_seconds']:.3f}; "
                     + cpu_note(figures["workers_runs_cpu"][n])))
    rows.append(("re-sync, unchanged", f"{figures['resync_seconds']} s",
                 f"{figures['resync_ratio']:.2%} of first (target < 2%)"))
    if "cache_cold_seconds" in figures:
        rows += [("ours, cache on, cold", f"{figures['cache_cold_seconds']} s", ""),
                 ("ours, cache on, warm", f"{figures['cache_warm_seconds']} s", "every text already embedded")]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {str(value):>10}  {note}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
