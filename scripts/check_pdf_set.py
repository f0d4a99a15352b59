#!/usr/bin/env python3
"""Check a PDF question set against its PDFs, and score an eval run of it the way the public PDF benchmark does:
eval/pdf*.jsonl against the manuals we typeset (scripts/make_pdf_corpus.py), eval/realpdf*.jsonl against the real
manuals Debian ships (scripts/fetch_real_pdfs.py).

Check, for every item:
  - the schema fields are present and valid; ids and questions are unique;
  - the reference `answer` contains each `must_contain` string (case-insensitive);
  - the gold PDF exists under <pdfs>/<product>/, lies in the target release, and has the gold page (1-based index);
  - `page_label` is the printed label pypdf reads for that page;
  - `evidence` and each `must_contain` string occur in the text pypdf extracts from the gold page (whitespace runs
    made one space; a word hyphenated at a line end also matches joined);
  - a `missing` item has no gold, and its `absent_term` occurs (case-insensitive) in no page of the target
    release's PDFs and in some PDF of another release of the same product; where the product has one release only
    (the real manuals), in no page of the product's PDFs: the docs do not cover it at all.

Products are those of PRODUCTS below and, for another corpus, the product folders under --pdfs.

    python scripts/check_pdf_set.py eval/pdf.jsonl --pdfs /tmp/pdfcorpus
    python scripts/check_pdf_set.py eval/realpdf.jsonl --pdfs /tmp/realpdf

Score (--results DIR of `python -m assistant eval ... --json --out DIR`): page hit@3 with the gold page or one
either side (+-1, as the benchmark counts), exact page hit@3, file hit@3 and answer-in-top-3 (context recall@3).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import lru_cache
from pathlib import Path

from pypdf import PdfReader

PRODUCTS = {"etcd", "prometheus"}
KINDS = {"release_specific", "latest_default", "release_variant_spelling", "version_agnostic", "missing"}
PAGE_KINDS = {"reference_table", "flag_list", "config_reference", "howto", "concept", "release_notes",
              "api_reference", "faq", "example"}
REQUIRED = ("id", "product", "question", "release", "target_release", "answer", "must_contain", "gold", "kind",
            "page_kind", "evidence")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=None)
def pdf_pages(path: Path) -> tuple[list[str], list[str]]:
    """(text of each page as pypdf extracts it, printed label of each page)."""
    reader = PdfReader(path)
    return [page.extract_text() for page in reader.pages], list(reader.page_labels)


def page_forms(text: str) -> tuple[str, str]:
    """The page's text squashed, and the same with words hyphenated at line ends joined."""
    return squash(text), squash(re.sub(r"([A-Za-z])-\n([a-z])", r"\1\2", text))


def on_page(needle: str, text: str) -> bool:
    want = squash(needle)
    return any(want in form for form in page_forms(text))


def locate(pdf: Path, needle: str) -> list[int]:
    """1-based indexes of the pages whose text holds `needle`."""
    texts, _ = pdf_pages(pdf)
    return [i + 1 for i, text in enumerate(texts) if on_page(needle, text)]


def check_item(item: dict, pdfs: Path) -> list[str]:
    bad = [f"missing field {f}" for f in REQUIRED if f not in item]
    if bad:
        return bad
    if item["product"] not in PRODUCTS | {d.name for d in pdfs.glob("*") if d.is_dir()}:
        bad.append(f"product {item['product']!r}")
    if item["kind"] not in KINDS:
        bad.append(f"kind {item['kind']!r}")
    if item["page_kind"] not in PAGE_KINDS:
        bad.append(f"page_kind {item['page_kind']!r}")
    for term in item["must_contain"]:
        if term.lower() not in item["answer"].lower():
            bad.append(f"answer lacks must_contain {term!r}")
    product, target = pdfs / item["product"], item["target_release"]
    if item["kind"] == "missing":
        if item["gold"] or item["evidence"] is not None:
            bad.append("a missing item has gold or evidence")
        term = item.get("absent_term", "").lower()
        here = [p for p in (product / target).glob("*.pdf") if any(term in t.lower() for t in pdf_pages(p)[0])]
        elsewhere = [p for p in product.glob("*/*.pdf")
                     if p.parent.name != target and any(term in t.lower() for t in pdf_pages(p)[0])]
        single_release = product.is_dir() and [d.name for d in product.iterdir() if d.is_dir()] == [target]
        if not term or here or not (elsewhere or single_release):
            bad.append(f"absent_term {term!r}: in target {len(here)} PDFs, in other releases {len(elsewhere)}")
        return bad
    if len(item["gold"]) != 1 or not isinstance(item["gold"][0], dict):
        return bad + ["gold must be one {file, page}"]
    gold = item["gold"][0]
    if not gold["file"].startswith(f"{target}/"):
        bad.append(f"gold {gold['file']} is not in {target}")
    pdf = product / gold["file"]
    if not pdf.exists():
        return bad + [f"no PDF {pdf}"]
    texts, labels = pdf_pages(pdf)
    page = gold["page"]
    if not 1 <= page <= len(texts):
        return bad + [f"page {page} out of 1..{len(texts)}"]
    if item.get("page_label") != labels[page - 1]:
        bad.append(f"page_label {item.get('page_label')!r}, PDF says {labels[page - 1]!r}")
    if not on_page(item["evidence"], texts[page - 1]):
        bad.append(f"evidence not on page {page}: {item['evidence'][:60]!r} (found on {locate(pdf, item['evidence'])})")
    for term in item["must_contain"]:
        if not on_page(term, texts[page - 1]):
            bad.append(f"must_contain {term!r} not on page {page}")
    return bad


def check(path: Path, pdfs: Path) -> int:
    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    failures = 0
    for field in ("id", "question"):
        seen = [item.get(field) for item in items]
        for dup in {v for v in seen if seen.count(v) > 1}:
            print(f"duplicate {field}: {dup}")
            failures += 1
    for item in items:
        for problem in check_item(item, pdfs):
            print(f"{item.get('id')}: {problem}")
            failures += 1
    print(f"{path}: {len(items)} items, {failures} failures")
    return failures


def score(results: Path, k: int = 3) -> dict:
    """Page hit@k (+-1 and exact), file hit@k and context recall@k over the answerable items of an eval run."""
    rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines() if line.strip()]
    near = exact = files = 0
    recall: list[float] = []
    answerable = [r for r in rows if r["kind"] != "missing" and r["gold"]]
    for row in answerable:
        gold = row["gold"][0]
        release, _, name = gold["file"].partition("/")
        top = [s for s in row.get("ranked", [])[:k] if s["release"] == release and s["path"].endswith(name)]
        files += bool(top)
        near += any(s["page"] is not None and abs(s["page"] - gold["page"]) <= 1 for s in top)
        exact += any(s["page"] == gold["page"] for s in top)
        recall.append(row["metrics"].get("context_recall@k") or 0.0)  # the run's own k
    n = len(answerable) or 1
    return {"answerable": len(answerable), f"page_hit@{k}_pm1": round(near / n, 3), f"page_hit@{k}": round(exact / n, 3),
            f"file_hit@{k}": round(files / n, 3), f"context_recall@{k}": round(sum(recall) / n, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--pdfs", type=Path, default=Path("/tmp/pdfcorpus"))
    parser.add_argument("--results", type=Path, action="append", default=[])
    args = parser.parse_args()
    for results in args.results:
        print(results, json.dumps(score(results)))
    failures = sum(check(path, args.pdfs) for path in args.sets)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
