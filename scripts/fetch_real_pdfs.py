#!/usr/bin/env python3
"""Build the real-PDF corpus: manuals that Debian ships as PDFs, typeset by their projects' own tool chains.

    python scripts/fetch_real_pdfs.py /tmp/realpdf                       # apt-get download the packages
    python scripts/fetch_real_pdfs.py /tmp/realpdf --debs /tmp/s30/deb   # or take a folder of .debs

The PDF question set of eval/pdf*.jsonl runs over manuals we typeset ourselves (scripts/make_pdf_corpus.py), so it
cannot show how the reader copes with PDFs made by other tools: texinfo (bashref.pdf, octave.pdf), groff (bash.pdf,
a man page) and LaTeX (gnuplot.pdf; liboctave.pdf is texinfo too), with their running headers and footers,
roman-numbered front matter, two-column indexes, ligatures, hyphenation, tables and page labels. Each package is
downloaded with `apt-get download` (no other network), unpacked with `dpkg-deb -x`, and its PDFs are laid out as
OUT/<product>/<release>/<name>.pdf with the package's upstream version (major.minor) as the release. Each product
has one release, so a question the manuals do not answer is one the docs do not cover at all (eval/realpdf*.jsonl).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

# package -> (product, PDFs inside the package)
PACKAGES = {
    "bash-doc": ("bash", ["usr/share/doc/bash/bashref.pdf", "usr/share/doc/bash/bash.pdf"]),
    "gnuplot-doc": ("gnuplot", ["usr/share/doc/gnuplot/gnuplot.pdf"]),
    "octave-doc": ("octave", ["usr/share/doc/octave/octave.pdf", "usr/share/doc/octave/liboctave.pdf"]),
}


def upstream_release(deb: Path) -> str:
    """major.minor of the package's upstream version: `1:7.3.0-2` -> `7.3`, `5.4.4+dfsg1-2` -> `5.4`."""
    version = subprocess.run(["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True,
                             text=True).stdout.strip()
    match = re.match(r"(?:\d+:)?(\d+)\.(\d+)", version)
    if not match:
        raise SystemExit(f"{deb.name}: cannot read an upstream version from {version!r}")
    return f"{match.group(1)}.{match.group(2)}"


def find_deb(package: str, debs: Path) -> Path:
    found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        raise SystemExit(f"no {package}_*.deb in {debs}")
    return found[-1]


def lay_out(deb: Path, product: str, members: list[str], out: Path) -> list[Path]:
    """Unpack one .deb and copy its PDFs to out/product/release/; the paths written."""
    release = upstream_release(deb)
    target = out / product / release
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
        for member in members:
            src = Path(tmp) / member
            dest = target / src.name
            shutil.copyfile(src, dest)
            written.append(dest)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="folder to build (its product/release folders are replaced)")
    ap.add_argument("--debs", type=Path, help="take the .debs from this folder instead of apt-get download")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        debs = args.debs
        if debs is None:
            debs = Path(tmp)
            subprocess.run(["apt-get", "download", *PACKAGES], check=True, cwd=debs)
        for package, (product, members) in PACKAGES.items():
            for pdf in lay_out(find_deb(package, debs), product, members, args.out):
                print(f"{package}: {pdf.relative_to(args.out)} ({pdf.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
