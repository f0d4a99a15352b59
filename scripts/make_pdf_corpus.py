#!/usr/bin/env python3
"""Typeset the PDF library of the PDF question set (eval/pdf.jsonl) from the Markdown corpora: six manuals that
resemble one another as a product's manuals do, an etcd operations guide and a Prometheus server guide in each of
three releases, 20-80 pages each. Half carry an outline and a title in their metadata, half do not (their headings
are found from numbering and font size). Deterministic: the same corpora give the same files.

    python scripts/make_pdf_corpus.py /tmp/pdfcorpus [--corpora ../shared/corpora]

writes OUT/<product>/<release>/<name>.pdf; ingest each release folder with
`python -m assistant ingest OUT/<product>/<release> --product <product> --release <release>`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from assistant.evaluation.pdf_typeset import ManualSpec, typeset_manual

ETCD = ["op-guide/configuration.md", "op-guide/maintenance.md", "op-guide/runtime-configuration.md",
        "op-guide/clustering.md", "op-guide/security.md", "faq.md"]
PROMETHEUS = ["command-line/prometheus.md", "feature_flags.md", "storage.md", "querying/basics.md",
              "querying/operators.md", "federation.md", "configuration/https.md", "configuration/recording_rules.md",
              "configuration/alerting_rules.md", "management_api.md", "stability.md"]
# (product, release, file name, chapters, outline, footer page style)
MANUALS = [
    ("etcd", "v3.4", "etcd-operations-guide.pdf", ETCD, False, "Page {}"),
    ("etcd", "v3.5", "etcd-operations-guide.pdf", ETCD, True, "{}"),
    ("etcd", "v3.6", "etcd-operations-guide.pdf", ETCD, False, "- {} -"),
    ("prometheus", "v2.45.0", "prometheus-server-guide.pdf", PROMETHEUS, True, "Page {}"),
    ("prometheus", "v2.53.0", "prometheus-server-guide.pdf", PROMETHEUS, False, "{}"),
    ("prometheus", "v3.5.0", "prometheus-server-guide.pdf", PROMETHEUS, True, "- {} -"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpora", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpora")
    args = parser.parse_args()
    for product, release, name, chapters, outline, style in MANUALS:
        folder = args.corpora / product / release
        label = "etcd Operations Guide" if product == "etcd" else "Prometheus Server Guide"
        spec = ManualSpec(
            title=f"{label} {release}", subtitle=f"Configuration, operation and maintenance, release {release}",
            header=f"{label} - release {release}",
            footer="Copyright The etcd Authors" if product == "etcd" else "Copyright The Prometheus Authors",
            chapters=[folder / c for c in chapters if (folder / c).exists()], outline=outline, page_style=style)
        out = args.out / product / release / name
        out.parent.mkdir(parents=True, exist_ok=True)
        made = typeset_manual(spec, out)
        print(f"{out}: {made.pages} pages ({made.front} front), {len(made.headings)} headings, "
              f"{len(made.rows)} table rows, {len(made.hyphenated)} hyphenated, outline={outline}")


if __name__ == "__main__":
    main()
