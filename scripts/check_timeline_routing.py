#!/usr/bin/env python3
"""Check the timeline and routing evaluation sets against the real docs.

    python3 scripts/check_timeline_routing.py timeline eval/timeline.jsonl
    python3 scripts/check_timeline_routing.py routing eval/routing.jsonl

Plain Python over text files (no project imports, no models). Exits 1 on any
failure and prints every failure it finds; exits 0 and prints counts when all
items pass. The corpora root can be moved with DOCS_CORPORA (default
/work/shared/corpora). See eval/TIMELINE_ROUTING.md for what is checked.
"""
from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from functools import lru_cache

CORPORA = os.environ.get("DOCS_CORPORA", "/work/shared/corpora")

# Release folders per product, oldest first.
RELEASES = {
    "etcd": ["v3.4", "v3.5", "v3.6"],
    "prometheus": ["v2.45.0", "v2.53.0", "v3.5.0"],
    "aws-elb": ["2022.1", "2023.1", "2024.1"],
}
NEWEST = {p: rs[-1] for p, rs in RELEASES.items()}
# A product not in RELEASES (the held-back products, e.g. flask, click) takes its releases from the
# folders under CORPORA/<product>, sorted as versions; its docs may be .md or .rst (Sphinx sources).
DOC_SUFFIXES = (".md",)
OTHER_DOC_SUFFIXES = (".md", ".rst")


def version_key(name: str) -> tuple:
    return tuple(int(n) for n in re.findall(r"\d+", name)) + (name,)


@lru_cache(maxsize=None)
def product_releases(product: str) -> list:
    """Release folders of `product`, oldest first: the table above, else the folders under CORPORA."""
    if product in RELEASES:
        return RELEASES[product]
    base = os.path.join(CORPORA, product)
    if not product or product.startswith(".") or not os.path.isdir(base):
        return []
    return sorted((d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)) and not d.startswith(".")),
                  key=version_key)
ELB_DIR = os.path.join(CORPORA, "awsdocs", "documents", "elb-application-load-balancers-user-guide", "doc_source")

TIMELINE_KINDS = {"introduced", "removed", "deprecated", "in_release", "which_releases",
                  "changed_in", "changed_between", "did_change"}
CHANGE_KINDS = {"changed_in", "changed_between", "did_change"}
INTENTS = {"symptom_analysis", "operational_guidance", "multi_facet_summary",
           "terminology_explanation", "fact_verification"}

# Banned in questions that do not name a product on purpose. The brief's list is matched as whole
# words; the stricter alias list below also catches names glued to other words (etcdctl,
# etcd_server_*, promtool, PromQL), which would give the product away just as plainly.
BANNED_WORDS = ["etcd", "prometheus", "prom", "aws", "elb", "alb"]
BANNED_SUBSTRINGS = ["etcd", "prometheus", "promtool", "promql"]
# A question with names_product true must name its product in some spelling.
PRODUCT_SPELLINGS = {
    "etcd": ["etcd"],
    "prometheus": ["prometheus"],
    "aws-elb": ["application load balancer", "elb", "alb", "aws"],
}


def release_dir(product: str, release: str) -> str:
    if product == "aws-elb":
        # The test library holds copies of one guide under each of the three release folders.
        return ELB_DIR
    return os.path.join(CORPORA, product, release)


def norm_ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=None)
def release_files(product: str, release: str) -> dict:
    """Relative path -> text, for every .md file of one release folder."""
    base = release_dir(product, release)
    suffixes = DOC_SUFFIXES if product in RELEASES else OTHER_DOC_SUFFIXES
    out = {}
    for dirpath, _dirs, files in os.walk(base):
        for name in files:
            if name.endswith(suffixes):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    out[os.path.relpath(path, base)] = fh.read()
    return out


@lru_cache(maxsize=None)
def normalised_file(product: str, release: str, rel_path: str):
    text = release_files(product, release).get(rel_path)
    return None if text is None else norm_ws(text)


@lru_cache(maxsize=None)
def token_regex(term: str):
    # A token is made of letters, digits, '_' and '-', plus dots between such characters, so
    # "--storage.tsdb.retention" does not match inside "--storage.tsdb.retention.time" and
    # "max_shards" does not match inside "max_shards_total", but a sentence-final dot is no part of
    # the token. A '-' or '+' that opens a line is a diff marker, not part of the token (the upgrade
    # guides list removed metrics as "-etcd_..."). Case-insensitive.
    return re.compile(r"(?:(?<=^[-+])|(?<![\w-])(?<!\w\.))" + re.escape(term) + r"(?![\w-])(?!\.\w)",
                      re.IGNORECASE | re.MULTILINE)


def term_in_release(product: str, release: str, term: str) -> bool:
    rx = token_regex(term)
    return any(rx.search(text) for text in release_files(product, release).values())


def releases_with(product: str, term: str) -> list:
    return [r for r in product_releases(product) if term_in_release(product, r, term)]


def releases_named(product: str, text: str) -> list:
    """Release folders of `product` named in free text (v3.5 does not match inside v3.5.0)."""
    found = []
    for r in product_releases(product):
        if re.search(r"(?<![\w.])" + re.escape(r) + r"(?!\w)(?!\.\d)", text):
            found.append(r)
    return found


def check_evidence(errs: list, where: str, product: str, release: str, rel_path: str, evidence) -> None:
    if not isinstance(evidence, str) or not 10 <= len(evidence) <= 200:
        errs.append(f"{where}: evidence must be a string of 10-200 characters")
        return
    text = normalised_file(product, release, rel_path)
    if text is None:
        errs.append(f"{where}: no file {rel_path!r} in {product}/{release}")
    elif norm_ws(evidence) not in text:
        errs.append(f"{where}: evidence not found in {product}/{release}/{rel_path}: {evidence!r}")


def load_jsonl(path: str):
    items = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"{path}:{n}: not JSON: {exc}")
    return items


# ---------------------------------------------------------------------------------------------
# timeline


TIMELINE_FIELDS = ["id", "product", "question", "kind", "term", "expected_release", "expected_answer",
                   "expected_yes_no", "expected_changes", "releases", "gold"]


def check_timeline_item(it: dict) -> list:
    errs = []
    iid = it.get("id", "?")
    missing = [f for f in TIMELINE_FIELDS if f not in it]
    if missing:
        return [f"{iid}: missing fields {missing}"]
    extra = sorted(set(it) - set(TIMELINE_FIELDS))
    if extra:
        errs.append(f"{iid}: unknown fields {extra}")
    product, kind, term = it["product"], it["kind"], it["term"]
    if product in ("etcd", "prometheus"):
        if not re.fullmatch(r"tl-\d{3}", str(iid)):
            errs.append(f"{iid}: id must look like tl-001")
    elif product in RELEASES or len(product_releases(product)) < 2:
        return errs + [f"{iid}: product must be etcd, prometheus or a product with release folders under {CORPORA}"]
    elif not re.fullmatch(r"(?:[a-z][a-z0-9]*-)?tl-\d{3}", str(iid)):
        errs.append(f"{iid}: id must look like tl-001 or hb-tl-001")
    order = product_releases(product)
    if kind not in TIMELINE_KINDS:
        return errs + [f"{iid}: unknown kind {kind!r}"]
    if not isinstance(it["question"], str) or len(it["question"].strip()) < 10:
        errs.append(f"{iid}: question too short")
    if not isinstance(it["expected_answer"], str) or not it["expected_answer"].strip():
        errs.append(f"{iid}: expected_answer empty")
    exp = it["expected_release"]
    if exp is not None and exp not in order:
        errs.append(f"{iid}: expected_release {exp!r} is not a {product} release")
    rels = it["releases"]
    if not isinstance(rels, list) or not rels or any(r not in order for r in rels):
        errs.append(f"{iid}: releases must be a non-empty list of {product} releases")
        rels = []
    if exp is not None and rels and exp not in rels:
        errs.append(f"{iid}: expected_release {exp} not among releases {rels}")
    yn = it["expected_yes_no"]
    if kind in ("in_release", "did_change"):
        if yn not in ("yes", "no"):
            errs.append(f"{iid}: {kind} needs expected_yes_no yes/no")
    elif yn is not None:
        errs.append(f"{iid}: expected_yes_no must be null for {kind}")
    changes = it["expected_changes"]
    if not isinstance(changes, list) or any(not isinstance(c, str) or not c.strip() for c in changes):
        errs.append(f"{iid}: expected_changes must be a list of strings")
        changes = []
    if kind in CHANGE_KINDS and not changes:
        errs.append(f"{iid}: {kind} needs expected_changes")
    if kind not in CHANGE_KINDS and changes:
        errs.append(f"{iid}: expected_changes must be [] for {kind}")
    if kind == "changed_in":
        if term is not None:
            errs.append(f"{iid}: term must be null for changed_in")
    elif not isinstance(term, str) or not term.strip():
        errs.append(f"{iid}: term missing")
        term = None

    gold = it["gold"]
    if not isinstance(gold, list) or not gold:
        errs.append(f"{iid}: gold must be a non-empty list")
        gold = []
    gold_ok = []
    for k, g in enumerate(gold):
        where = f"{iid} gold[{k}]"
        if not isinstance(g, dict) or set(g) != {"release", "file", "evidence"}:
            errs.append(f"{where}: needs exactly release, file, evidence")
            continue
        if g["release"] not in order:
            errs.append(f"{where}: release {g['release']!r} is not a {product} release")
            continue
        before = len(errs)
        check_evidence(errs, where, product, g["release"], g["file"], g["evidence"])
        if len(errs) == before:
            gold_ok.append(g)
    gold_rels = {g["release"] for g in gold if isinstance(g, dict) and "release" in g}
    if rels and not gold_rels <= set(rels):
        errs.append(f"{iid}: gold releases {sorted(gold_rels)} outside releases {rels}")

    def idx(r):
        return order.index(r)

    if kind == "introduced" and term and exp:
        if not term_in_release(product, exp, term):
            errs.append(f"{iid}: {term!r} not found in {exp}")
        for r in order[: idx(exp)]:
            if term_in_release(product, r, term):
                errs.append(f"{iid}: {term!r} already in earlier release {r}")
        if exp not in gold_rels:
            errs.append(f"{iid}: gold must cite the first release that has the term ({exp})")
    elif kind == "introduced":
        errs.append(f"{iid}: introduced needs term and expected_release")

    if kind == "removed" and term and exp:
        if idx(exp) == 0:
            errs.append(f"{iid}: removed cannot name the oldest release")
        else:
            prev = order[idx(exp) - 1]
            if not term_in_release(product, prev, term):
                errs.append(f"{iid}: {term!r} not in {prev}, the release before {exp}")
            for r in order[idx(exp):]:
                if term_in_release(product, r, term):
                    errs.append(f"{iid}: {term!r} still in {r}")
            if prev not in gold_rels:
                errs.append(f"{iid}: gold must cite the last release that has the term ({prev})")
    elif kind == "removed":
        errs.append(f"{iid}: removed needs term and expected_release")

    if kind == "deprecated":
        if not exp:
            errs.append(f"{iid}: deprecated needs expected_release")
        elif term and not term_in_release(product, exp, term):
            errs.append(f"{iid}: {term!r} not found in {exp}")
        if not any("deprecat" in g["evidence"].lower() for g in gold_ok):
            errs.append(f"{iid}: deprecated needs gold evidence where the docs say 'deprecated'")

    if kind == "in_release":
        if not exp:
            errs.append(f"{iid}: in_release needs expected_release (the release asked about)")
        elif term and yn in ("yes", "no"):
            has = term_in_release(product, exp, term)
            if has != (yn == "yes"):
                errs.append(f"{iid}: expected {yn} but {term!r} {'is' if has else 'is not'} in {exp}")
            if has and exp not in gold_rels:
                errs.append(f"{iid}: a yes needs gold from {exp}")

    if kind == "which_releases" and term:
        named = releases_named(product, it["expected_answer"])
        actual = releases_with(product, term)
        if named != actual:
            errs.append(f"{iid}: expected_answer names {named} but {term!r} occurs in {actual}")
        if rels and set(rels) != set(actual):
            errs.append(f"{iid}: releases {rels} differ from releases with the term {actual}")

    if kind in CHANGE_KINDS and rels:
        texts = [t for r in rels for t in release_files(product, r).values()]
        low = [norm_ws(t).lower() for t in texts]
        for c in changes:
            if not any(norm_ws(c).lower() in t for t in low):
                errs.append(f"{iid}: expected change {c!r} not found in any file of {rels}")
    if kind == "changed_in":
        if not exp or idx(exp) == 0:
            errs.append(f"{iid}: changed_in needs a release that has a predecessor")
        elif set(rels) != {order[idx(exp) - 1], exp}:
            errs.append(f"{iid}: changed_in releases must be [{order[idx(exp) - 1]}, {exp}]")
        if exp and exp not in gold_rels:
            errs.append(f"{iid}: changed_in needs gold from {exp}")
    if kind in ("changed_between", "did_change"):
        if len(rels) != 2 or (len(rels) == 2 and idx(rels[0]) >= idx(rels[1])):
            errs.append(f"{iid}: {kind} needs releases [older, newer]")
    if kind == "changed_between" and len(rels) == 2 and not ({rels[0], rels[1]} <= gold_rels):
        errs.append(f"{iid}: changed_between needs gold from both {rels[0]} and {rels[1]}")
    if kind == "did_change" and len(changes) >= 2 and gold_ok:
        ev = [norm_ws(g["evidence"]).lower() for g in gold_ok]
        old, new = norm_ws(changes[0]).lower(), norm_ws(changes[-1]).lower()
        if not any(old in e for e in ev):
            errs.append(f"{iid}: old value {changes[0]!r} not in any gold evidence")
        if not any(new in e for e in ev):
            errs.append(f"{iid}: new value {changes[-1]!r} not in any gold evidence")
        if yn == "yes" and old == new:
            errs.append(f"{iid}: did_change yes but old and new values are equal")
        if yn == "no" and old != new:
            errs.append(f"{iid}: did_change no but old and new values differ")
    elif kind == "did_change":
        errs.append(f"{iid}: did_change needs expected_changes [old value, new value]")
    return errs


def check_timeline(items: list) -> list:
    errs = []
    ids = Counter(it.get("id") for it in items)
    errs += [f"{i}: duplicate id" for i, n in ids.items() if n > 1]
    for it in items:
        errs += check_timeline_item(it)
    return errs


# ---------------------------------------------------------------------------------------------
# routing


ROUTING_FIELDS = ["id", "question", "product", "release", "target_release", "intent", "gold",
                  "evidence", "names_product"]


def check_routing_item(it: dict) -> list:
    errs = []
    iid = it.get("id", "?")
    missing = [f for f in ROUTING_FIELDS if f not in it]
    if missing:
        return [f"{iid}: missing fields {missing}"]
    extra = sorted(set(it) - set(ROUTING_FIELDS))
    if extra:
        errs.append(f"{iid}: unknown fields {extra}")
    if not re.fullmatch(r"rt-\d{3}", str(iid)):
        errs.append(f"{iid}: id must look like rt-001")
    product, q = it["product"], it["question"]
    if product not in RELEASES:
        return errs + [f"{iid}: unknown product {product!r}"]
    if not isinstance(q, str) or len(q.strip()) < 8:
        errs.append(f"{iid}: question too short")
        q = ""
    if it["intent"] not in INTENTS:
        errs.append(f"{iid}: unknown intent {it['intent']!r}")
    target = it["target_release"]
    if target not in RELEASES[product]:
        return errs + [f"{iid}: target_release {target!r} is not a {product} release"]
    rel = it["release"]
    if rel is None:
        if target != NEWEST[product]:
            errs.append(f"{iid}: no release named, so target_release must be {NEWEST[product]}")
    elif not isinstance(rel, str) or rel.lower() not in q.lower():
        errs.append(f"{iid}: release {rel!r} must be quoted as it appears in the question")
    if not isinstance(it["names_product"], bool):
        errs.append(f"{iid}: names_product must be true or false")
    low = q.lower()
    banned = [w for w in BANNED_WORDS if re.search(r"\b" + re.escape(w) + r"\b", low)]
    banned += [s for s in BANNED_SUBSTRINGS if s in low and s not in banned]
    if it["names_product"] is False and banned:
        errs.append(f"{iid}: question names a product ({', '.join(banned)}) but names_product is false")
    if it["names_product"] is True:
        spellings = PRODUCT_SPELLINGS[product]
        if not any(re.search(r"\b" + re.escape(s) + r"\b", low) for s in spellings):
            errs.append(f"{iid}: names_product is true but the question does not name {product}")
    gold = it["gold"]
    if not isinstance(gold, list) or not gold or any(not isinstance(g, str) for g in gold):
        return errs + [f"{iid}: gold must be a non-empty list of paths"]
    files = release_files(product, target)
    for g in gold:
        if g not in files:
            errs.append(f"{iid}: gold file {g!r} not in {product}/{target}")
    if all(g in files for g in gold):
        ev = it["evidence"]
        if not isinstance(ev, str) or not 10 <= len(ev) <= 200:
            errs.append(f"{iid}: evidence must be a string of 10-200 characters")
        elif not any(norm_ws(ev) in normalised_file(product, target, g) for g in gold):
            errs.append(f"{iid}: evidence not found in gold file(s) {gold}: {ev!r}")
    return errs


def check_routing(items: list) -> list:
    errs = []
    ids = Counter(it.get("id") for it in items)
    errs += [f"{i}: duplicate id" for i, n in ids.items() if n > 1]
    qs = Counter(norm_ws(str(it.get("question", ""))).lower() for it in items)
    errs += [f"duplicate question: {q!r}" for q, n in qs.items() if n > 1]
    for it in items:
        errs += check_routing_item(it)
    return errs


# ---------------------------------------------------------------------------------------------


def check_split(path: str, items: list) -> list:
    """If eval/X.tune.jsonl and eval/X.heldout.jsonl sit next to eval/X.jsonl, they must partition it:
    no item in both halves, nothing missing, nothing changed. (The split itself was made once, with
    random.Random(20261123).shuffle; it is not redone here.)"""
    stem = path[: -len(".jsonl")] if path.endswith(".jsonl") else path
    tune_path, held_path = stem + ".tune.jsonl", stem + ".heldout.jsonl"
    if not (os.path.exists(tune_path) and os.path.exists(held_path)):
        return []
    errs = []
    tune, held = load_jsonl(tune_path), load_jsonl(held_path)
    key = lambda it: json.dumps(it, sort_keys=True)
    full = {key(it) for it in items}
    t_ids, h_ids = {it.get("id") for it in tune}, {it.get("id") for it in held}
    both = sorted(t_ids & h_ids)
    if both:
        errs.append(f"split: ids in both tune and held-out: {both}")
    missing = sorted({it.get("id") for it in items} - t_ids - h_ids)
    if missing:
        errs.append(f"split: ids in neither half: {missing}")
    changed = sorted(it.get("id") for it in tune + held if key(it) not in full)
    if changed:
        errs.append(f"split: items that differ from {path}: {changed}")
    if len(tune) + len(held) != len(items):
        errs.append(f"split: {len(tune)} + {len(held)} items in the halves, {len(items)} in {path}")
    return errs


def summary(items: list, fields: list) -> str:
    lines = [f"{len(items)} items"]
    for f in fields:
        c = Counter(str(it.get(f)) for it in items)
        lines.append(f"  {f}: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items())))
    return "\n".join(lines)


def main(argv: list) -> int:
    if len(argv) != 3 or argv[1] not in ("timeline", "routing"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mode, path = argv[1], argv[2]
    items = load_jsonl(path)
    if mode == "timeline":
        errs = check_timeline(items)
        fields = ["product", "kind"]
    else:
        errs = check_routing(items)
        fields = ["product", "intent", "target_release", "names_product"]
    errs += check_split(path, items)
    for e in errs:
        print("FAIL", e)
    print(summary(items, fields))
    if errs:
        print(f"{len(errs)} failure(s) in {path}")
        return 1
    print(f"OK: all {len(items)} items in {path} pass the {mode} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
