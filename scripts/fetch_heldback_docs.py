#!/usr/bin/env python3
"""Build the held-back corpora: the Sphinx docs that ship inside Pallets projects' source distributions.

    python scripts/fetch_heldback_docs.py /tmp/heldback                       # flask and click
    python scripts/fetch_heldback_docs.py /tmp/heldback2 jinja2 werkzeug      # the second pair

Downloads each release's sdist from the package index pip is configured with (no other network), then lays out
OUT/<product>/<release>/ with the sdist's docs/ folder and its CHANGES.rst, keeping only .rst files: the shape a
user's library has when they copy one docs folder per release. Nothing in the project tunes on these products; the
question sets over them (eval/heldback_*.jsonl) measure how the assistant does on documentation it never saw.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

RELEASES = {
    "flask": ["1.1.4", "2.2.5", "3.0.3"],
    "click": ["7.1.2", "8.0.0", "8.1.7"],
    "jinja2": ["2.11.3", "3.0.3", "3.1.4"],
    "werkzeug": ["1.0.1", "2.0.3", "3.0.6"],
}
FIRST_PAIR = ["flask", "click"]


def fetch(product: str, release: str, out: Path, work: Path) -> int:
    """Download one sdist and copy its docs and changelog to out/product/release; the number of files copied."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--quiet",
         f"{product}=={release}", "-d", str(work)],
        check=True,
    )
    sdist = next(p for p in work.iterdir() if p.name.lower().startswith(f"{product}-{release}") and p.name.endswith(".tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(work, filter="data")
    root = work / sdist.name[: -len(".tar.gz")]
    target = out / product / release
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    copied = 0
    for src in sorted((root / "docs").rglob("*.rst")):
        dest = target / src.relative_to(root / "docs")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        copied += 1
    if (root / "CHANGES.rst").is_file():
        shutil.copyfile(root / "CHANGES.rst", target / "CHANGES.rst")
        copied += 1
    return copied


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="folder to build (its product/release folders are replaced)")
    ap.add_argument("products", nargs="*", metavar="PRODUCT",
                    help=f"products to fetch, of {', '.join(RELEASES)} (default: {' '.join(FIRST_PAIR)})")
    args = ap.parse_args(argv)
    unknown = [p for p in args.products if p not in RELEASES]
    if unknown:
        ap.error(f"unknown product {', '.join(unknown)}; known: {', '.join(RELEASES)}")
    for product in args.products or FIRST_PAIR:
        for release in RELEASES[product]:
            with tempfile.TemporaryDirectory() as tmp:
                n = fetch(product, release, args.out, Path(tmp))
            print(f"{product} {release}: {n} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
