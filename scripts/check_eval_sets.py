#!/usr/bin/env python3
"""Check an evaluation question set (JSON Lines) against the document corpora it was written from.

For every item:
  - the fields of the schema are present and take allowed values, ids and questions are unique;
  - the reference `answer` contains each `must_contain` string (case-insensitive, as answers are scored);
  - each gold file exists under <corpora>/<product>/ and lies in the item's target release(s);
  - `evidence` occurs verbatim in the first gold file (runs of whitespace are made one space on both sides);
  - each `must_contain` string occurs in at least one gold file on word boundaries;
  - a `missing` item has no gold and no evidence, and its `absent_term` occurs (case-insensitive) in no file of the
    target release folder and in some file of another release of the same product.

Prints one line per failure and exits 1 when there is any, 0 otherwise. Plain Python, reads text files only.

    python scripts/check_eval_sets.py eval/ranking.jsonl --corpora ../shared/corpora
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

PRODUCTS = {"etcd", "prometheus", "awsdocs"}
KINDS = {"release_specific", "latest_default", "release_variant_spelling", "version_agnostic", "missing",
         "cross_release"}
PAGE_KINDS = {"reference_table", "flag_list", "config_reference", "howto", "concept", "release_notes",
              "api_reference", "faq"}
REQUIRED = ("id", "product", "question", "release", "target_release", "answer", "must_contain", "gold", "kind",
            "page_kind", "evidence")


def default_corpora() -> Path:
    """The `shared/corpora` folder beside the repository root."""
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _term_regex(term: str, lead: str = "") -> str:
    body = r"\s+".join(re.escape(part) for part in term.split())
    left = r"(?<![\w.])" if re.match(r"\w", term) else r"(?<![\w-])"
    right = r"(?![\w]|[.\-]\w)" if re.search(r"\w$", term) else ""
    return left + lead + body + right


def term_pattern(term: str) -> re.Pattern:
    """`term` on word boundaries: \\b-like where it starts/ends with a word character, and no "." or "-" that
    continues a number or a name on either side ("10000" is not in "100000", "3.4" is not in "3.4.29",
    "--agent" is not in "--agent-mode"). Whitespace inside the term matches any run of whitespace."""
    return re.compile(_term_regex(term))


def answer_pattern(term: str) -> re.Pattern:
    """How an answer is matched when it is scored: as `term_pattern`, but case-insensitive, without Markdown
    backticks, and a version may carry a leading v ("v2.55" for "2.55")."""
    term = term.replace("`", "").strip()
    return re.compile(_term_regex(term, "[vV]?" if term[:1].isdigit() else ""), re.IGNORECASE)


@lru_cache(maxsize=None)
def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


@lru_cache(maxsize=None)
def release_texts(folder: Path) -> tuple[tuple[str, str], ...]:
    """(relative path, lower-cased text) of every file under a release folder."""
    out = []
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            out.append((str(p.relative_to(folder)), read(p).lower()))
    return tuple(out)


def releases_of(product_dir: Path) -> list[str]:
    return sorted(p.name for p in product_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def check_item(item: dict, corpora: Path) -> list[str]:
    errs: list[str] = []
    missing_keys = [k for k in REQUIRED if k not in item]
    if missing_keys:
        return [f"missing fields {missing_keys}"]
    product, kind = item["product"], item["kind"]
    # Beyond the three known products, any product with release folders under the corpora (the held-back
    # products, e.g. flask and click) is checked like etcd and Prometheus.
    if product not in PRODUCTS and not (isinstance(product, str) and product and not product.startswith(".")
                                        and (corpora / product).is_dir()):
        errs.append(f"unknown product {product!r}")
        return errs
    if kind not in KINDS:
        errs.append(f"unknown kind {kind!r}")
    if item["page_kind"] not in PAGE_KINDS:
        errs.append(f"unknown page_kind {item['page_kind']!r}")
    if not str(item["question"]).strip():
        errs.append("empty question")
    if not str(item["answer"] or "").strip():
        errs.append("empty answer")
    if not isinstance(item["must_contain"], list) or not item["must_contain"]:
        errs.append("must_contain must be a non-empty list")
    else:
        # The reference answer must pass its own must_contain the way the evaluator reads answers
        # (case-insensitive, Markdown backticks ignored).
        answer = str(item["answer"] or "").replace("`", "")
        for term in item["must_contain"]:
            if not answer_pattern(str(term)).search(answer):
                errs.append(f"reference answer lacks must_contain {term!r}")
    if not isinstance(item["gold"], list):
        errs.append("gold must be a list")
        return errs

    product_dir = corpora / product
    targets = item["target_release"] if isinstance(item["target_release"], list) else [item["target_release"]]
    if product == "awsdocs":
        if targets != ["current"]:
            errs.append(f"awsdocs target_release must be 'current', got {item['target_release']!r}")
        if kind not in ("version_agnostic", "latest_default"):
            errs.append(f"awsdocs item with kind {kind!r} (one release only)")
    else:
        for t in targets:
            if not (product_dir / str(t)).is_dir():
                errs.append(f"target release folder {product}/{t} does not exist")
        if kind == "cross_release" and len(targets) != 2:
            errs.append("cross_release needs two target releases")
        if kind != "cross_release" and len(targets) != 1:
            errs.append("only cross_release items name more than one target release")
        if kind in ("latest_default",) and item["release"] is not None:
            errs.append("latest_default item names a release")
        if kind in ("release_specific", "release_variant_spelling", "missing", "cross_release") and not item["release"]:
            errs.append(f"{kind} item names no release")

    if kind == "missing":
        if item["gold"]:
            errs.append("missing item has gold files")
        if item.get("evidence") is not None:
            errs.append("missing item has evidence")
        term = item.get("absent_term")
        if not term or not str(term).strip():
            errs.append("missing item has no absent_term")
            return errs
        term_l = str(term).lower()
        target = targets[0]
        hits = [f for f, text in release_texts(product_dir / target) if term_l in text]
        if hits:
            errs.append(f"absent_term {term!r} occurs in {target}: {hits[:5]}")
        others = [r for r in releases_of(product_dir) if r != target]
        found = [r for r in others if any(term_l in text for _, text in release_texts(product_dir / r))]
        if not found:
            errs.append(f"absent_term {term!r} occurs in no other release of {product}")
        return errs

    if "absent_term" in item:
        errs.append("absent_term on an item that is not missing")
    if not item["gold"]:
        errs.append("no gold files")
        return errs
    texts = []
    for g in item["gold"]:
        p = product_dir / g
        if not p.is_file():
            errs.append(f"gold file does not exist: {product}/{g}")
            continue
        if product == "awsdocs":
            if not g.startswith("documents/"):
                errs.append(f"awsdocs gold path not under documents/: {g}")
        elif g.split("/", 1)[0] not in [str(t) for t in targets]:
            errs.append(f"gold file {g} is outside the target release(s) {targets}")
        texts.append(read(p))
    if len(texts) != len(item["gold"]):
        return errs

    ev = item["evidence"]
    if not isinstance(ev, str) or not (10 <= len(ev) <= 200):
        errs.append(f"evidence must be a string of 10-200 characters, got {ev!r}")
    elif squash(ev) not in squash(texts[0]):
        errs.append(f"evidence not found in {item['gold'][0]}: {ev!r}")

    for term in item["must_contain"]:
        pat = term_pattern(str(term))
        if not any(pat.search(t) for t in texts):
            errs.append(f"must_contain {term!r} not found on word boundaries in gold files")
    return errs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path, help="JSON Lines question sets")
    ap.add_argument("--corpora", type=Path, default=default_corpora(),
                    help="folder holding etcd/, prometheus/, awsdocs/ (default: <repo>/../shared/corpora)")
    args = ap.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"corpora folder not found: {args.corpora}", file=sys.stderr)
        return 2

    failures = 0
    for path in args.files:
        ids: Counter = Counter()
        questions: Counter = Counter()
        n = 0
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            n += 1
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                print(f"{path}:{lineno}: invalid JSON: {e}")
                failures += 1
                continue
            ids[item.get("id")] += 1
            questions[squash(str(item.get("question", ""))).lower()] += 1
            for err in check_item(item, args.corpora):
                print(f"{path}:{lineno}: {item.get('id')}: {err}")
                failures += 1
        for i, c in ids.items():
            if c > 1:
                print(f"{path}: id {i!r} used {c} times")
                failures += 1
        for q, c in questions.items():
            if c > 1:
                print(f"{path}: question repeated {c} times: {q!r}")
                failures += 1
        print(f"{path}: {n} items checked")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
