"""What splitting reference blocks at their entries (issue 15, point 3) costs at ingestion, same run:

    python benchmarks/entries_bench.py                       # etcd and Prometheus (6 releases)
    python benchmarks/entries_bench.py ../shared/corpora/awsdocs --embed 300

Reads every file once, then cuts each section into search pieces both ways, best of three rounds: packed as before
(`_pack(_units(text))`) and split at entries (`chunking.search_pieces`). Prints the piece counts and their growth, the
seconds each way, and the embedding of a sample of pieces as the yardstick: chunking costs well under a millisecond a
piece, embedding tens of milliseconds, so the ingestion/embedding ratio is set by embedding and the growth in pieces
is what ingestion pays.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.components import get_embedder  # noqa: E402
from assistant.library.chunking import _pack, _units, search_pieces  # noqa: E402
from assistant.library.documents import ReadFailure, SkipFile  # noqa: E402
from assistant.library.readers import SUPPORTED_SUFFIXES, read_document  # noqa: E402
from assistant.settings import PROJECT_ROOT, Settings  # noqa: E402

CORPORA = PROJECT_ROOT.parent / "shared" / "corpora"
BUDGET = 180  # a search chunk's 200 word pieces less a typical title and section prefix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[CORPORA / "etcd", CORPORA / "prometheus"])
    parser.add_argument("--embed", type=int, default=200, help="pieces embedded for the yardstick")
    args = parser.parse_args()
    embedder = get_embedder(Settings())
    count = embedder.count_tokens
    texts = []
    for folder in args.folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES:
                try:
                    texts += [section.text for section in read_document(path).sections]
                except (SkipFile, ReadFailure):
                    pass
    ways = {"packed": lambda t: _pack(units, BUDGET, count) if (units := _units(t)) else [],
            "entries": lambda t: search_pieces(t, BUDGET, count)}
    best: dict[str, float] = {}
    pieces: dict[str, list[str]] = {}
    for _ in range(3):
        for name, cut in ways.items():
            start = time.perf_counter()
            pieces[name] = [p for t in texts for p in cut(t)]
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
    sample = pieces["entries"][: args.embed]
    start = time.perf_counter()
    embedder.embed(sample)
    per_piece = (time.perf_counter() - start) / max(len(sample), 1)
    old, new = len(pieces["packed"]), len(pieces["entries"])
    print(f"sections {len(texts)}; search pieces packed {old}, split at entries {new} ({new / old - 1:+.1%})")
    for name in ways:
        print(f"  {name:8s} {best[name]:.2f} s ({1000 * best[name] / len(pieces[name]):.3f} ms a piece)")
    print(f"  chunking time ratio entries/packed {best['entries'] / best['packed']:.2f}")
    print(f"  embedding {1000 * per_piece:.1f} ms a piece ({len(sample)} embedded); embedding the added pieces "
          f"{(new - old) * per_piece:.0f} s against chunking all of them {best['entries']:.1f} s")


if __name__ == "__main__":
    main()
